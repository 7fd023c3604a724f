"""A shared PostgreSQL gradebook: parallel workers and two shards (two 'machines') grade one class into it.

Needs a PostgreSQL server: ``BPE_TEST_POSTGRES_URL`` names a role that may create databases (``.ci/run``
installs and starts Debian's ``postgresql`` and sets it). Each run uses a database of its own.
"""

import json
import subprocess
import sys
import uuid

import pytest

from tests import needs

from ..expected_scores import EXPECTED
from ..test_cli import ASSIGNMENT, _write_class

pytestmark = [pytest.mark.slow, pytest.mark.needs("postgres")]


@pytest.fixture
def database():
    import sqlalchemy

    url = needs.postgres_url()
    name = f"bpe_test_{uuid.uuid4().hex[:10]}"
    admin = sqlalchemy.create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(sqlalchemy.text(f'CREATE DATABASE "{name}"'))
    yield url.rsplit("/", 1)[0] + "/" + name
    with admin.connect() as connection:
        connection.execute(sqlalchemy.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def _scores(url, students):
    from nbgrader.api import Gradebook

    with Gradebook(url) as gradebook:
        return {s: gradebook.find_submission(ASSIGNMENT, s).score for s in students}


@pytest.mark.needs("sandbox")  # `grade` in a subprocess grades with the course's config: the sandbox required
def test_two_shards_grade_one_class_into_one_postgres_gradebook(course_root, course_copy, tmp_path, database):
    students = ["blank", "correct-counter", "merge-no-skip", "counts-sorted", "half-done"]
    folder = tmp_path / "submitted"
    _write_class(course_root, folder, students)
    runs = [
        subprocess.Popen(
            [sys.executable, "-m", "autograder", "--course", str(course_copy), "grade", str(folder)]
            + ["--out", str(tmp_path / f"shard-{k}"), "--shard", f"{k}/2", "--jobs", "2", "--no-feedback"]
            + ["--db-url", database],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for k in (1, 2)
    ]  # two "machines" at once
    for run in runs:
        out, err = run.communicate(timeout=900)
        assert run.returncode == 0, err[-2000:]
    expected = {s: float(sum(EXPECTED[ASSIGNMENT][s].values())) for s in students}
    assert _scores(database, students) == expected


def test_regrading_into_postgres_gives_identical_scores(course_root, course_copy, tmp_path, database, capsys):
    from autograder.cli import main

    students = ["correct-loops", "counts-no-overlap"]
    folder = tmp_path / "submitted"
    _write_class(course_root, folder, students)
    args = ["--course", str(course_copy), "grade", str(folder), "--no-feedback", "--db-url", database]
    assert main(args + ["--out", str(tmp_path / "first"), "--jobs", "1"]) == 0
    first = _scores(database, students)
    assert main(args + ["--out", str(tmp_path / "again"), "--jobs", "2"]) == 0
    assert _scores(database, students) == first == {"correct-loops": 8.0, "counts-no-overlap": 6.0}


CLUSTER = ["blank", "correct-counter", "merge-no-skip", "counts-sorted", "half-done", "correct-loops"]


def _recipe_commands(course, database, shards):
    """The repository's two cluster recipes as a scheduler would start them, shard by shard: deploy/cluster/grade.sbatch
    as Slurm array tasks (K from 1), the Indexed Job's command of deploy/cluster/grade-job.yaml with its
    JOB_COMPLETION_INDEX (from 0), the grader's environment where the recipes have /opt/venv and the course at /course.
    Nothing of the environment is on PATH."""
    import yaml

    from tests.conftest import ROOT

    job = yaml.safe_load((ROOT / "deploy" / "cluster" / "grade-job.yaml").read_text(encoding="utf-8"))
    (container,) = job["spec"]["template"]["spec"]["containers"]
    script = container["args"][0].replace("/opt/venv", sys.prefix).replace("/course", str(course))
    base = {"HOME": str(course), "PATH": "/usr/bin:/bin", "BPE_DB_URL": database}
    commands = {}
    for k in range(1, shards + 1):
        if k % 2:  # Slurm
            env = {**base, "COURSE": str(course), "VENV": sys.prefix, "SLURM_CPUS_PER_TASK": "1"}
            env |= {"SLURM_ARRAY_TASK_COUNT": str(shards), "SLURM_ARRAY_TASK_ID": str(k)}
            commands[k] = (["bash", str(ROOT / "deploy" / "cluster" / "grade.sbatch")], env)
        else:  # Kubernetes
            env = {**base, "SHARDS": str(shards), "JOB_COMPLETION_INDEX": str(k - 1)}
            commands[k] = (["/bin/sh", "-c", script.replace("--jobs 4", "--jobs 1")], env)
    return commands


@pytest.mark.needs("sandbox")
def test_the_cluster_recipes_grade_every_student_once_and_a_killed_shard_rerun_finishes(
    course_root, course_copy, tmp_path, database
):
    """Three shards at once into one PostgreSQL gradebook, from the recipes' own files; one is killed midway and run
    again. Every student is graded by exactly one shard, the due date of the course's config reaches the gradebook
    before any shard grades (the submissions are late), and the report and the exports see the whole class."""
    import os
    import signal
    import time

    from autograder.reports import exports, report

    with open(course_copy / "nbgrader_config.py", "a", encoding="utf-8") as handle:
        handle.write(f'\nc.CourseSchedule.due_dates = {{"{ASSIGNMENT}": "2020-01-01 00:00:00 UTC"}}\n')
    _write_class(course_root, course_copy / "submitted", CLUSTER)
    commands = _recipe_commands(course_copy, database, 3)

    def start(k):
        command, env = commands[k]
        return subprocess.Popen(command, env=env, cwd=course_copy, start_new_session=True, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)  # fmt: skip

    runs = {k: start(k) for k in commands}
    journal = course_copy / "grades" / "shard-1" / "journal.jsonl"
    deadline = time.monotonic() + 600
    while not (journal.exists() and journal.read_text().strip()) and runs[1].poll() is None:
        assert time.monotonic() < deadline, "shard 1 graded nothing in 10 minutes"
        time.sleep(0.2)
    os.killpg(runs[1].pid, signal.SIGKILL)  # a node lost midway
    runs[1].wait(timeout=60)
    for k in (2, 3):
        output, _ = runs[k].communicate(timeout=900)
        assert runs[k].returncode == 0, output[-3000:]
    rerun = start(1)
    output, _ = rerun.communicate(timeout=900)
    assert rerun.returncode == 0, output[-3000:]

    graded_by: dict[str, list[int]] = {}
    for k in commands:
        for line in (course_copy / "grades" / f"shard-{k}" / "journal.jsonl").read_text().splitlines():
            graded_by.setdefault(json.loads(line)["student"], []).append(k)
    assert sorted(graded_by) == sorted(CLUSTER)
    assert all(len(set(shards)) == 1 for shards in graded_by.values()), graded_by  # one shard per student
    expected = {s: float(sum(EXPECTED[ASSIGNMENT][s].values())) for s in CLUSTER}
    assert _scores(database, CLUSTER) == expected
    sheet = exports.collect([database])
    assert {student for student, _ in sheet.grades} == set(CLUSTER)
    assert sheet.duedates[ASSIGNMENT].startswith("2020-01-01")
    assert all(grade.seconds_late > 0 for grade in sheet.grades.values())  # late: the due date was there in time
    (part,) = report.build_report(database, course_copy / "autograded", ASSIGNMENT).assignments
    assert sorted(row.student for row in part.submissions) == sorted(CLUSTER)

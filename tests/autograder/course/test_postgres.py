"""A shared PostgreSQL gradebook: parallel workers and two shards (two 'machines') grade one class into it.

Needs a PostgreSQL server: ``BPE_TEST_POSTGRES_URL`` names a role that may create databases (``.ci/run``
installs and starts Debian's ``postgresql`` and sets it). Each run uses a database of its own.
"""

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

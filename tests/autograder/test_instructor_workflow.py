"""The instructor's nbgrader workflow end to end, on a course directory of its own and a temporary exchange.

One class goes round the exchange (``release_assignment``, ``fetch_assignment``, ``submit``, ``collect``), is
graded by ``python -m autograder grade`` and by ``nbgrader autograde`` (same scores), gets a manual grade that a
regrade keeps, a late penalty from nbgrader's plugin, and feedback that ``release_feedback`` delivers.
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import nbformat
import pytest

from autograder.cli import main
from autograder.course import sample_class

from .expected_scores import EXPECTED

pytestmark = pytest.mark.slow

ASSIGNMENT = "01_pair_counts_and_merge"
STUDENT_WORK = "merge-no-skip"  # 6 / 8: misses the overlap rule of merge


def nbgrader(*args: str, cwd: Path, env: dict) -> str:
    run = subprocess.run(["nbgrader", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return run.stdout + run.stderr


def _gradebook(course: Path):
    from nbgrader.api import Gradebook

    return Gradebook(f"sqlite:///{course / 'gradebook.db'}")


def _grades(course: Path, student: str) -> dict[str, tuple]:
    with _gradebook(course) as gradebook:
        notebook = gradebook.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, student)
        return {g.name: (g.auto_score, g.manual_score) for g in notebook.grades}


@pytest.fixture(scope="module")
def round_trip(tmp_path_factory):
    """A class of one (the current user, as nbgrader's exchange names students) handed in late through a
    temporary exchange, collected into a course directory whose late-penalty plugin gives zero points."""
    from tests.conftest import ROOT

    base = tmp_path_factory.mktemp("workflow")
    course, exchange, home = base / "course", base / "exchange", base / "home"
    for folder in (course, exchange, home):
        folder.mkdir()
    import shutil

    shutil.copy2(ROOT / "nbgrader_config.py", course / "nbgrader_config.py")
    shutil.copytree(ROOT / "solutions", course / "solutions")
    shutil.copytree(ROOT / "notebooks", course / "notebooks")
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as handle:
        handle.write(f'\nc.Exchange.root = {str(exchange)!r}\nc.LateSubmissionPlugin.penalty_method = "zero"\n')
    env = {k: v for k, v in os.environ.items() if k != "NBGRADER_EXECUTION"}
    due = (datetime.now(timezone.utc) - timedelta(days=1)).strftime("%Y-%m-%d %H:%M:%S UTC")
    # the documented workflow's step 3: the assignment, its cells, points and due date in the gradebook, then released
    assert main(["--course", str(course), "assignments", ASSIGNMENT, "--due", f"{ASSIGNMENT}={due}"]) == 0
    nbgrader("release_assignment", ASSIGNMENT, cwd=course, env=env)
    student_flags = ["--course", "bpe-course", f"--Exchange.root={exchange}"]
    nbgrader("fetch_assignment", ASSIGNMENT, *student_flags, cwd=home, env=env)
    path = home / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    filled = sample_class.fill(nbformat.read(path, 4), sample_class.students()[ASSIGNMENT][STUDENT_WORK])
    nbformat.write(filled, path)
    nbgrader("submit", ASSIGNMENT, *student_flags, cwd=home, env=env)
    nbgrader("collect", ASSIGNMENT, cwd=course, env=env)
    (student,) = [p.name for p in (course / "submitted").iterdir()]
    return course, home, student, env, student_flags


def test_grade_writes_nbgrader_layout_and_a_late_penalty(round_trip, tmp_path, monkeypatch):
    """... and the late submission's feedback, made from the course gradebook after the batch, is made in a worker
    process, not in the process that drives the batch."""
    from nbgrader.apps.api import NbGraderAPI

    course, _home, student, _env, _flags = round_trip
    out = tmp_path / "out"
    made_by = tmp_path / "feedback-pids"
    original = NbGraderAPI.generate_feedback

    def generate_feedback(self, *args, **kwargs):
        with open(made_by, "a") as handle:  # the workers are forked: they inherit this wrapper
            handle.write(f"{os.getpid()}\n")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(NbGraderAPI, "generate_feedback", generate_feedback)
    assert main(["--course", str(course), "grade", str(course / "submitted"), "--out", str(out), "--jobs", "1"]) == 0
    pids = made_by.read_text().split()
    assert pids and str(os.getpid()) not in pids  # the slot's page and the course's one: never in this process
    expected = EXPECTED[ASSIGNMENT][STUDENT_WORK]
    assert sum(auto for auto, _manual in _grades(course, student).values()) == sum(expected.values())
    for kind in ("autograded", "feedback"):
        folder = course / kind / student / ASSIGNMENT
        assert (folder / "timestamp.txt").read_text() == (
            course / "submitted" / student / ASSIGNMENT / "timestamp.txt"
        ).read_text()
    assert (course / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html").exists()
    with _gradebook(course) as gradebook:
        submission = gradebook.find_submission(ASSIGNMENT, student)
        assert submission.total_seconds_late > 0
        # nbgrader's "zero" plugin: a late submission scores nothing
        assert submission.late_submission_penalty == sum(expected.values()) > 0
        assert submission.score - submission.late_submission_penalty == 0  # as `nbgrader export` reports it


@pytest.mark.needs("sandbox")  # nbgrader autograde grades with the course's config: sandbox required
def test_nbgrader_autograde_gives_the_same_scores_as_grade(round_trip, tmp_path):
    course, _home, student, env, _flags = round_trip
    out = tmp_path / "out"
    assert main(["--course", str(course), "grade", str(course / "submitted"), "--out", str(out), "--jobs", "1"]) == 0
    by_grade = _grades(course, student)
    nbgrader("autograde", ASSIGNMENT, "--force", cwd=course, env=env)
    assert _grades(course, student) == by_grade
    graded = nbformat.read(course / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", 4)
    # the judge, not the kernel, wrote the test cells' outputs: the hidden checks' three-line message
    overlaps = next(c for c in graded.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "test_merge_overlaps")
    assert any("merge([5, 5, 5], (5, 5), 7)" in o.get("evalue", "") for o in overlaps.outputs)


def test_a_manual_grade_and_comment_survive_a_regrade(round_trip, tmp_path):
    course, _home, student, _env, _flags = round_trip
    out = tmp_path / "out"
    args = ["--course", str(course), "grade", str(course / "submitted"), "--out", str(out), "--jobs", "1"]
    assert main(args) == 0
    with _gradebook(course) as gradebook:
        grade = gradebook.find_grade("test_merge_overlaps", ASSIGNMENT, ASSIGNMENT, student)
        grade.manual_score, grade.extra_credit = 1.5, 0.5
        comment = gradebook.find_comment("merge", ASSIGNMENT, ASSIGNMENT, student)
        comment.manual_comment = "Nearly: skip past a match."
        gradebook.db.commit()
    assert main([*args, "--student", student]) == 0  # --student regrades even an unchanged submission
    with _gradebook(course) as gradebook:
        grade = gradebook.find_grade("test_merge_overlaps", ASSIGNMENT, ASSIGNMENT, student)
        assert (grade.auto_score, grade.manual_score, grade.extra_credit) == (0.0, 1.5, 0.5)
        assert grade.needs_manual_grade  # nbgrader's rule: a manual score asks for a look after a regrade
        assert gradebook.find_comment("merge", ASSIGNMENT, ASSIGNMENT, student).manual_comment.startswith("Nearly")
    html = (course / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text(encoding="utf-8")
    assert "Nearly: skip past a match." in html  # feedback made from the course gradebook, manual comment included


def test_release_feedback_delivers_the_course_feedback(round_trip, tmp_path):
    course, home, student, env, flags = round_trip
    out = tmp_path / "out"
    assert main(["--course", str(course), "grade", str(course / "submitted"), "--out", str(out), "--jobs", "1"]) == 0
    nbgrader("release_feedback", ASSIGNMENT, cwd=course, env=env)
    nbgrader("fetch_feedback", ASSIGNMENT, *flags, cwd=home, env=env)
    fetched = list((home / ASSIGNMENT / "feedback").rglob(f"{ASSIGNMENT}.html"))
    assert len(fetched) == 1
    html = fetched[0].read_text(encoding="utf-8")
    assert "test_merge_overlaps" in html and "merge([5, 5, 5], (5, 5), 7)" in html


@pytest.mark.needs("sandbox")
def test_the_reference_and_the_gradebook_are_out_of_reach_under_nbgrader_autograde(round_trip, tmp_path):
    """An attack that writes to the gradebook, reads solutions/ or imports the reference gains nothing when the
    instructor grades with `nbgrader autograde` itself."""
    course, _home, student, env, _flags = round_trip
    submitted = course / "submitted" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    original = submitted.read_bytes()
    os.chmod(submitted, 0o644)
    nb = nbformat.read(submitted, 4)
    attack = (
        f"for path in [{str(course / 'gradebook.db')!r}, '../../../gradebook.db', '../../../../gradebook.db']:\n"
        "    try:\n"
        "        open(path, 'wb').write(b'')\n"
        "    except OSError:\n"
        "        pass\n"
        "try:\n"
        f"    SOURCE = open({str(course / 'solutions' / ASSIGNMENT / (ASSIGNMENT + '.ipynb'))!r}).read()\n"
        "except OSError:\n"
        "    SOURCE = ''\n"
        "try:\n"
        "    from bpe_ref import merge\n"
        "except ImportError:\n"
        "    pass\n"
    )
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "merge")
    cell.source = attack + cell.source
    nbformat.write(nb, submitted)
    try:
        size = (course / "gradebook.db").stat().st_size
        nbgrader("autograde", ASSIGNMENT, "--force", cwd=course, env=env)
        assert (course / "gradebook.db").stat().st_size >= size
        grades = _grades(course, student)
        assert sum(auto for auto, _m in grades.values()) == sum(EXPECTED[ASSIGNMENT][STUDENT_WORK].values())
    finally:
        os.chmod(submitted, 0o644)
        submitted.write_bytes(original)


def test_without_the_grader_installed_nbgrader_autograde_refuses(round_trip, tmp_path):
    """Fail closed: where the course's pipeline cannot be imported, autograding stops instead of running
    nbgrader's default (test cells in the student's kernel)."""
    course, _home, _student, env, _flags = round_trip
    blocker = tmp_path / "block"
    blocker.mkdir()
    (blocker / "autograder.py").write_text("raise ImportError('the grader is not installed in this test')\n")
    env = {**env, "PYTHONPATH": str(blocker)}
    run = subprocess.run(
        [sys.executable, "-m", "nbgrader", "autograde", ASSIGNMENT, "--force"],
        cwd=course,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode != 0
    assert "the course's grader is not installed here" in run.stdout + run.stderr


def _hashes(folder: Path) -> dict[str, tuple[str, int]]:
    """Every file under ``folder``: its content's hash and its mode."""
    import hashlib

    return {
        str(path.relative_to(folder)): (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mode)
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@pytest.mark.needs("sandbox")  # nbgrader autograde grades with the course's config: sandbox required
@pytest.mark.parametrize("layout", ["renamed", "original and -Copy1"])
@pytest.mark.parametrize("way", ["nbgrader autograde", "grade"])
def test_the_work_is_graded_flagged_and_submitted_left_byte_identical(round_trip, tmp_path, layout, way):
    """The doctor is part of nbgrader's own pipeline: a notebook handed in under another name, or beside the untouched
    original, is the one graded, whichever way grading starts; ``submitted/``, the student's evidence, is never
    written; the graded notebook's notes say what was done (the formgrader's and the feedback's top cell), the
    terminal shows them, and a choice between notebooks flags the submission in the gradebook."""
    import shutil

    from autograder import doctor

    original, _home, student, env, _flags = round_trip
    course = tmp_path / "course"
    shutil.copytree(original, course)
    folder = course / "submitted" / student / ASSIGNMENT
    work = folder / f"{ASSIGNMENT}-Copy1.ipynb"
    (folder / f"{ASSIGNMENT}.ipynb").rename(work)  # the student's work, in the copy
    if layout == "original and -Copy1":  # ... and the untouched original beside it
        shutil.copyfile(course / "notebooks" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", folder / f"{ASSIGNMENT}.ipynb")
    before = _hashes(course / "submitted")
    if way == "grade":
        out = tmp_path / "out"
        run = subprocess.run(
            [sys.executable, "-m", "autograder", "--course", str(course), "grade", str(course / "submitted")]
            + ["--out", str(out), "--jobs", "1", "--no-feedback"],
            cwd=course, env=env, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        shown = run.stdout
    else:
        shown = nbgrader("autograde", ASSIGNMENT, "--force", cwd=course, env=env)
    assert _hashes(course / "submitted") == before
    assert sum(auto for auto, _m in _grades(course, student).values()) == sum(
        EXPECTED[ASSIGNMENT][STUDENT_WORK].values()
    )
    graded = nbformat.read(course / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", 4)
    notes = [str(p) for p in doctor.noted_problems(graded)]
    assert any("the notebook was named" in note for note in notes), notes
    assert "the notebook was named" in shown  # in the terminal too
    if layout == "original and -Copy1":
        choice = (
            f"[choice] 2 notebooks handed in: graded '{work.name}' (work in 2 solution cells), ignored "
            f"'{ASSIGNMENT}.ipynb' (untouched)"
        )
        assert choice in notes and choice in shown
        with _gradebook(course) as gradebook:
            assert gradebook.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, student).flagged


@pytest.mark.parametrize("claim", ["on time, forged", "missing", "in the future"])
def test_a_timestamp_the_grader_cannot_defend_does_not_evade_the_late_penalty(round_trip, tmp_path, claim):
    """The student edits (or deletes) ``timestamp.txt`` after ``collect``: the exchange's record of the submission,
    the release and the copy's change time say otherwise, so the late penalty still applies, flagged in
    ``grades.csv`` and at the top of the graded notebook (the formgrader's and the feedback's notes)."""
    import csv
    import shutil

    original, _home, student, env, _flags = round_trip
    course = tmp_path / "course"
    shutil.copytree(original, course)
    stamp = course / "submitted" / student / ASSIGNMENT / "timestamp.txt"
    with _gradebook(course) as gradebook:
        due = gradebook.find_assignment(ASSIGNMENT).duedate
    if claim == "missing":
        stamp.unlink()
    else:
        forged = due - timedelta(hours=2) if claim.startswith("on time") else datetime(2099, 1, 1)
        stamp.write_text(f"{forged:%Y-%m-%d %H:%M:%S}.000000 UTC")
    out = tmp_path / "out"
    assert main(["--course", str(course), "grade", str(course / "submitted"), "--out", str(out), "--jobs", "1"]) == 0
    runs = ["grade", "nbgrader autograde"] if claim.startswith("on time") else ["grade"]
    for run in runs:
        if run == "nbgrader autograde":
            nbgrader("autograde", ASSIGNMENT, "--force", cwd=course, env=env)
        with _gradebook(course) as gradebook:
            submission = gradebook.find_submission(ASSIGNMENT, student)
            assert submission.total_seconds_late > 0, run
            assert submission.score - submission.late_submission_penalty == 0, run
        graded = nbformat.read(course / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", 4)
        assert "timestamp" in graded.cells[0].source, run  # the note the formgrader and the feedback show
    with open(out / "grades.csv", encoding="utf-8") as handle:
        (row,) = [r for r in csv.DictReader(handle) if r["student_id"] == student]
    assert "[timestamp]" in row["problems"]

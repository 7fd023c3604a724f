"""The command line end to end through nbgrader: release, check, grade and demo on the sample class."""

import csv
import json
import os
import shutil
import subprocess
import sys
from collections import defaultdict

import nbformat
import pytest

from autograder.cli import main
from autograder.course import grading, sample_class, submissions

from .expected_scores import EXPECTED

ASSIGNMENT = "01_pair_counts_and_merge"
SOLUTION = f"solutions/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
RELEASE = f"notebooks/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
EXPECTED_01 = EXPECTED[ASSIGNMENT]

pytestmark = pytest.mark.slow


def _per_exercise(out_dir):
    scores = {}
    with open(out_dir / "exercise_grades.csv", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            key = (row["student_id"], row["assignment"])
            scores.setdefault(key, {}).setdefault(row["exercise"], 0.0)
            scores[key][row["exercise"]] += float(row["points"])
    return scores


@pytest.fixture(scope="module")
def demo(graded_sample_class):
    """`python -m autograder demo` on the sample class: ``(out folder, what it printed)`` (graded once, shared)."""
    return graded_sample_class


@pytest.mark.parametrize("assignment", sorted(EXPECTED))
def test_demo_grades_every_sample_student_exactly(demo, assignment):
    out, stdout = demo
    scores = _per_exercise(out)
    got = {student: per for (student, name), per in scores.items() if name == assignment}
    assert got == {s: {e: float(p) for e, p in per.items()} for s, per in EXPECTED[assignment].items()}


def test_every_sample_assignment_has_expected_scores():
    assert set(sample_class.students()) == set(EXPECTED)
    for assignment, students in sample_class.students().items():
        assert set(students) == set(EXPECTED[assignment]), assignment


def test_demo_writes_grades_csv_and_feedback(demo):
    out, stdout = demo
    with open(out / "grades.csv", encoding="utf-8") as handle:
        every = [r for r in csv.DictReader(handle) if r["assignment"] == ASSIGNMENT]
    # the whole class: the sample students of the other assignments handed in no 01 (0, as nbgrader export says)
    rows = {r["student_id"]: r for r in every if r["status"] != "not submitted"}
    assert all(r["score"] == "0" and r["student_id"] not in EXPECTED_01 for r in every if r not in rows.values())
    assert {s: float(r["score"]) for s, r in rows.items()} == {s: sum(p.values()) for s, p in EXPECTED_01.items()}
    assert all(r["max_score"] == "8" and r["status"] == "graded" for r in rows.values())
    for student in EXPECTED_01:
        html = (out / "course" / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text(encoding="utf-8")
        assert "test_merge_overlaps" in html
    # the printed table names each student with a total
    assert "merge-no-skip" in stdout and "6/8" in stdout


def test_demo_messages_name_the_failing_input(demo):
    out, _ = demo
    with open(out / "exercise_grades.csv", encoding="utf-8") as handle:
        rows = {(r["student_id"], r["test_cell"]): r["message"] for r in csv.DictReader(handle)}
    assert "merge([5, 5, 5], (5, 5), 7)" in rows[("merge-no-skip", "test_merge_overlaps")]
    assert rows[("correct-loops", "test_merge_overlaps")] == ""


def test_check_gives_full_marks_on_the_solution(course_root, capsys, monkeypatch):
    monkeypatch.chdir(course_root)
    assert main(["check", SOLUTION]) == 0
    out = capsys.readouterr().out
    assert "8 / 8 points" in out and "Full marks." in out


def test_check_gives_zero_on_the_release_notebook(course_root, capsys, monkeypatch):
    monkeypatch.chdir(course_root)
    assert main(["check", RELEASE]) == 1
    out = capsys.readouterr().out
    assert "0 / 8 points" in out and out.count("            raised: NotImplementedError") == 4
    assert "line 4 of your cell merge: raise NotImplementedError()" in out  # where, in the learner's own cell


def test_check_restores_hidden_tests_and_reports_the_smallest_failing_input(course_root, tmp_path, capsys):
    release = nbformat.read(course_root / RELEASE, 4)
    answers = sample_class.students()[ASSIGNMENT]["merge-no-skip"]
    path = tmp_path / "mine.ipynb"
    nbformat.write(sample_class.fill(release, answers), path)
    assert main(["--course", str(course_root), "check", str(path), "--assignment", ASSIGNMENT]) == 1
    out = capsys.readouterr().out
    assert "6 / 8 points" in out
    assert "merge([5, 5, 5], (5, 5), 7)" in out


def test_release_check_passes_on_the_committed_notebooks(course_root, capsys):
    assert main(["--course", str(course_root), "release", "--check"]) == 0


def test_release_check_fails_on_a_stale_notebook_and_release_is_deterministic(course_root, tmp_path, capsys):
    copy = tmp_path / "course"
    shutil.copytree(course_root, copy, ignore=shutil.ignore_patterns(".git", "tests", "*.egg-info", "__pycache__"))
    nb_path = copy / RELEASE
    nb = json.loads(nb_path.read_text())
    nb["cells"][0]["source"] = ["edited by hand"]
    nb_path.write_text(json.dumps(nb))
    assert main(["--course", str(copy), "release", "--check"]) == 1
    assert "stale" in capsys.readouterr().out
    assert main(["--course", str(copy), "release"]) == 0
    # deterministic: every notebook as the committed one, which an earlier release made in another process
    released = sorted(p.relative_to(copy) for p in (copy / "notebooks").rglob("*.ipynb"))
    assert RELEASE in map(str, released) and len(released) >= 6
    assert [(copy / p).read_bytes() for p in released] == [(course_root / p).read_bytes() for p in released]


def test_grade_a_flat_folder_with_broken_files_never_stops_the_batch(course_root, course_copy, tmp_path, capsys):
    folder = tmp_path / "inbox"
    folder.mkdir()
    release = nbformat.read(course_root / RELEASE, 4)
    good = sample_class.students()[ASSIGNMENT]["correct-loops"]
    nbformat.write(sample_class.fill(release, good), folder / "ada.ipynb")
    (folder / "bob.ipynb").write_text('{"cells": [', encoding="utf-8")  # invalid JSON
    (folder / "cy.ipynb").write_bytes(b"")  # an empty file
    out = tmp_path / "out"
    assert (
        main(["--course", str(course_copy), "grade", str(folder), "--out", str(out), "--assignment", ASSIGNMENT]) == 0
    )
    with open(out / "grades.csv", encoding="utf-8") as handle:
        rows = {r["student_id"]: r for r in csv.DictReader(handle)}
    assert rows["ada"]["score"] == "8" and rows["ada"]["status"] == "graded"
    for student in ("bob", "cy"):
        assert rows[student]["status"] == "error" and rows[student]["score"] == "0"
        assert rows[student]["max_score"] == "8"
    assert "bob.ipynb is not valid JSON" in rows["bob"]["error"]
    assert rows["cy"]["error"] == "cy.ipynb is empty"


def _write_class(course_root, folder, students):
    release = nbformat.read(course_root / RELEASE, 4)
    by_student = sample_class.students()[ASSIGNMENT]
    for student in students:
        path = folder / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(sample_class.fill(release, by_student[student]), path)


def _journal_lines(out):
    return (out / "journal.jsonl").read_text(encoding="utf-8").splitlines()


def test_grade_resumes_without_regrading_what_is_done(course_root, course_copy, tmp_path, capsys):
    folder, out = tmp_path / "submitted", tmp_path / "out"
    _write_class(course_root, folder, ["correct-loops", "merge-no-skip"])
    args = ["--course", str(course_copy), "grade", str(folder), "--out", str(out), "--jobs", "1", "--no-feedback"]
    assert main(args) == 0
    assert len(_journal_lines(out)) == 2
    # Nothing changed: nothing is graded again, and the grades are the same.
    first = (out / "grades.csv").read_text()
    assert main(args) == 0
    assert len(_journal_lines(out)) == 2
    assert (out / "grades.csv").read_text() == first
    # One student hands in again (now correct): only that one is graded again.
    _write_class(course_root, folder, ["correct-loops"])
    shutil.copy(
        folder / "correct-loops" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb",
        folder / "merge-no-skip" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb",
    )
    assert main(args) == 0
    lines = _journal_lines(out)
    assert len(lines) == 3 and json.loads(lines[-1])["student"] == "merge-no-skip"
    with open(out / "grades.csv", encoding="utf-8") as handle:
        assert {r["student_id"]: r["score"] for r in csv.DictReader(handle)} == {
            "correct-loops": "8",
            "merge-no-skip": "8",
        }


def test_parallel_grading_matches_serial_and_merges_one_gradebook(course_root, course_copy, tmp_path, capsys):
    from nbgrader.api import Gradebook

    students = ["blank", "correct-counter", "merge-no-skip", "counts-sorted"]
    folder = tmp_path / "submitted"
    _write_class(course_root, folder, students)
    outputs = {}
    for jobs in (1, 2):
        out = tmp_path / f"out-{jobs}"
        args = ["--course", str(course_copy), "grade", str(folder), "--out", str(out), "--jobs", str(jobs)]
        assert main(args + ["--no-feedback"]) == 0
        outputs[jobs] = (out / "exercise_grades.csv").read_text()
    assert outputs[1] == outputs[2]
    with Gradebook(f"sqlite:///{course_copy / 'gradebook.db'}") as gradebook:
        scores = {s: gradebook.find_submission(ASSIGNMENT, s).score for s in students}
    assert scores == {s: sum(EXPECTED_01[s].values()) for s in students}


def test_shard_splits_a_class_into_disjoint_parts(course_root, course_copy, tmp_path, capsys):
    students = ["blank", "correct-counter", "merge-no-skip"]
    folder = tmp_path / "submitted"
    _write_class(course_root, folder, students)
    graded = []
    for k in (1, 2):
        out = tmp_path / f"shard-{k}"
        base = ["--course", str(course_copy), "grade", str(folder), "--out", str(out), "--no-feedback"]
        assert main(base + ["--jobs", "1", "--shard", f"{k}/2"]) == 0
        journal = (out / "journal.jsonl").read_text(encoding="utf-8").splitlines()
        graded.append({json.loads(line)["student"] for line in journal})  # what this shard graded
    assert graded[0] | graded[1] == set(students) and not graded[0] & graded[1]
    with open(out / "grades.csv", encoding="utf-8") as handle:  # the last shard's: the whole class, both shards'
        assert {r["student_id"] for r in csv.DictReader(handle)} == set(students)


@pytest.mark.parametrize("assignment", sorted(EXPECTED))
def test_a_full_marks_submission_gets_feedback_without_any_error(demo, assignment):
    """Chart, example and check cells run where the notebook is graded too: a correct submission's graded notebook
    (what its feedback is made from) holds no error output and nothing on stderr, in any cell."""
    out, _stdout = demo
    best = max(sum(points.values()) for points in EXPECTED[assignment].values())
    student = sorted(s for s, points in EXPECTED[assignment].items() if sum(points.values()) == best)[0]
    graded = out / "course" / "autograded" / student / assignment / f"{assignment}.ipynb"
    nb = nbformat.read(graded, 4)
    problems = [
        (index, output.get("ename") or output.get("text", "")[:200])
        for index, cell in enumerate(nb.cells)
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error" or output.get("name") == "stderr"
    ]
    assert problems == []
    html = (out / "course" / "feedback" / student / assignment / f"{assignment}.html").read_text("utf-8")
    assert "output_error" not in html  # nbconvert's class of an error output (the sources may name errors they catch)


UNDER_LOAD = {
    "01_pair_counts_and_merge": "merge-no-skip",
    "02_training_loop": "ties-smallest",
    "03_tie_breaks": "correct-loops",
    "04_apply_bpe": "encode-by-rank",
    "05_byte_level_bpe": "correct-minbpe-style",
}
"""One sample student per assignment: 03's and 05's lost points to a busy machine under the old wall-clock limits,
the others lose some to a typical mistake."""


@pytest.fixture
def cpu_hogs():
    """More busy processes (``while True: pass``) than the machine has cores, for the length of the test."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range((os.cpu_count() or 1) + 2)]
    try:
        yield hogs
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


def _rows(path, keep):
    with open(path, encoding="utf-8", newline="") as handle:
        return sorted(
            tuple(row.values()) for row in csv.DictReader(handle) if (row["assignment"], row["student_id"]) in keep
        )


def test_the_sample_class_graded_beside_cpu_hogs_gets_its_documented_scores_and_the_same_grades(
    course_root, demo, tmp_path, cpu_hogs
):
    folder = tmp_path / "class"
    for assignment, student in UNDER_LOAD.items():
        sample_class.build(course_root, folder, only=[assignment], only_students=[student])
    found = submissions.find_submissions(folder, course_root)
    limits = {"LimitedKernelManager.sandbox": "auto", "JudgeTests.seed": "public"}  # as `demo` grades it
    results = grading.grade(course_root, found, tmp_path / "out", jobs=2, resume=False, feedback=False, limits=limits)
    assert all(hog.poll() is None for hog in cpu_hogs)  # busy all along
    got = {(r.submission.assignment, r.submission.student): defaultdict(float) for r in results}
    for result in results:
        assert not result.error, result.error
        for cell in result.cells:
            got[result.submission.assignment, result.submission.student][cell.exercise] += cell.points
    assert {key: dict(per) for key, per in got.items()} == {
        (a, s): {e: float(p) for e, p in EXPECTED[a][s].items()} for a, s in UNDER_LOAD.items()
    }
    quiet, _ = demo  # the same submissions graded before (the session's demo run): the same points and messages
    keep = set(UNDER_LOAD.items())
    assert _rows(tmp_path / "out" / "exercise_grades.csv", keep) == _rows(quiet / "exercise_grades.csv", keep)

"""The command line end to end through nbgrader: release, check, grade and demo on the sample class."""

import csv
import json
import shutil
import subprocess
import sys

import nbformat
import pytest

from autograder import sample_class
from autograder.cli import main

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
def demo(tmp_path_factory, course_root):
    out = tmp_path_factory.mktemp("demo")
    result = subprocess.run(
        [sys.executable, "-m", "autograder", "demo", "--out", str(out)],
        cwd=course_root,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return out, result.stdout


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
        rows = {r["student_id"]: r for r in csv.DictReader(handle) if r["assignment"] == ASSIGNMENT}
    assert {s: float(r["score"]) for s, r in rows.items()} == {s: sum(p.values()) for s, p in EXPECTED_01.items()}
    assert all(r["max_score"] == "8" and r["status"] == "graded" for r in rows.values())
    for student in EXPECTED_01:
        html = (out / "feedback" / student / f"{ASSIGNMENT}.html").read_text(encoding="utf-8")
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
    assert "0 / 8 points" in out and out.count("NotImplementedError") == 4


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
    first = nb_path.read_bytes()
    assert main(["--course", str(copy), "release"]) == 0
    assert nb_path.read_bytes() == first == (course_root / RELEASE).read_bytes()


def test_grade_a_flat_folder_with_broken_files_never_stops_the_batch(course_root, tmp_path, capsys):
    folder = tmp_path / "inbox"
    folder.mkdir()
    release = nbformat.read(course_root / RELEASE, 4)
    good = sample_class.students()[ASSIGNMENT]["correct-loops"]
    nbformat.write(sample_class.fill(release, good), folder / "ada.ipynb")
    (folder / "bob.ipynb").write_text('{"cells": [', encoding="utf-8")  # invalid JSON
    (folder / "cy.ipynb").write_bytes(b"")  # an empty file
    out = tmp_path / "out"
    assert (
        main(["--course", str(course_root), "grade", str(folder), "--out", str(out), "--assignment", ASSIGNMENT]) == 0
    )
    with open(out / "grades.csv", encoding="utf-8") as handle:
        rows = {r["student_id"]: r for r in csv.DictReader(handle)}
    assert rows["ada"]["score"] == "8" and rows["ada"]["status"] == "graded"
    for student in ("bob", "cy"):
        assert rows[student]["status"] == "error" and rows[student]["score"] == "0"
        assert rows[student]["max_score"] == "8"
        assert "cannot be read as a notebook" in rows[student]["error"]

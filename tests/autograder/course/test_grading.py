"""The class pipeline's configuration of a batch: what ``grade`` tells nbgrader's steps for every submission."""

import csv
import subprocess

import nbformat
import pytest

from autograder.cli import main
from autograder.course import grading, sample_class


def test_the_batch_config_names_the_course_secret_and_no_paths_to_hide(course_root):
    config = grading.batch_config(course_root)
    assert config == {"JudgeTests.secret_file": str(course_root.resolve() / ".course_secret")}


@pytest.mark.slow
def test_every_table_and_csv_shows_the_final_score_for_the_whole_class(course_copy, tmp_path, capsys):
    """Manual grades, extra credit and late penalties are in every score the course shows, as in `nbgrader export`;
    a `--student` run still writes the whole class; the counts count what the run did."""
    from nbgrader.api import Gradebook

    assignment = "01_pair_counts_and_merge"
    flat = tmp_path / "class"
    flat.mkdir()
    release = nbformat.read(course_copy / "notebooks" / assignment / f"{assignment}.ipynb", 4)
    nbformat.write(sample_class.fill(release, sample_class.students()[assignment]["merge-no-skip"]), flat / "ada.ipynb")
    nbformat.write(sample_class.finished(course_copy, assignment), flat / "bob.ipynb")
    out = tmp_path / "out"
    args = ["--course", str(course_copy), "grade", str(flat), "--assignment", assignment, "--out", str(out)]
    assert main([*args, "--jobs", "2"]) == 0
    assert "2 submissions graded now (0 could not be graded)" in capsys.readouterr().out
    overlaps = _cells(out)["ada", "test_merge_overlaps"]
    auto = {row["student_id"]: float(row["score"]) for row in _csv(out / "grades.csv")}

    # the instructor's word in the formgrader: a manual score and extra credit for ada; a late penalty for bob
    with Gradebook(f"sqlite:///{course_copy / 'gradebook.db'}") as gradebook:
        grade = gradebook.find_grade("test_merge_overlaps", assignment, assignment, "ada")
        grade.manual_score, grade.extra_credit = 2.0, 0.5
        gradebook.find_submission_notebook(assignment, assignment, "bob").late_submission_penalty = 3.0
        gradebook.add_student("cy")  # on the roster, handed nothing in
        gradebook.db.commit()

    assert main([*args, "--student", "ada"]) == 0  # graded again: the manual grade stays and counts
    shown = capsys.readouterr().out
    assert "1 submission graded now (0 could not be graded)" in shown
    ada_final = auto["ada"] - float(overlaps["points"]) + 2.5
    assert f"{ada_final:g}/8  graded by hand" in shown  # this run's table: ada's row
    rows = {row["student_id"]: row for row in _csv(out / "grades.csv")}
    assert set(rows) == {"ada", "bob", "cy"}  # the whole class, not the one student graded
    assert (rows["cy"]["score"], rows["cy"]["status"]) == ("0", "not submitted")
    assert float(rows["ada"]["score"]) == ada_final and rows["ada"]["manually_graded"] == "yes"
    assert float(rows["ada"]["autograded_score"]) == auto["ada"]
    assert float(rows["bob"]["score"]) == auto["bob"] - 3 and float(rows["bob"]["late_penalty"]) == 3
    assert float(_cells(out)["ada", "test_merge_overlaps"]["points"]) == 2.5

    # nbgrader's own export of the same gradebook agrees, row for row
    subprocess.run(["nbgrader", "export"], cwd=course_copy, check=True, capture_output=True, timeout=300)
    exported = [row for row in _csv(course_copy / "grades.csv") if row["assignment"] == assignment]
    assert {row["student_id"]: float(row["score"]) for row in exported} == {
        student: float(row["score"]) for student, row in rows.items()
    }

    assert main(args) == 0  # nothing changed: nothing graded, and said so
    shown = capsys.readouterr().out
    assert "0 submissions graded now (0 could not be graded), 2 unchanged since an earlier run" in shown
    assert f"{ada_final:g}/8  graded by hand" in shown and f"{auto['bob'] - 3:g}/8  late: -3" in shown
    assert {row["student_id"]: row["score"] for row in _csv(out / "grades.csv")} == {
        s: row["score"] for s, row in rows.items()
    }


def _csv(path):
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _cells(out):
    return {(row["student_id"], row["test_cell"]): row for row in _csv(out / "exercise_grades.csv")}


def test_grade_exits_1_when_the_grader_failed_a_submission_and_0_for_the_submissions_own_faults(
    course_copy, tmp_path, monkeypatch, capsys
):
    """A scheduler (a Slurm array task, an Indexed Job's pod) must see a shard the grader did not finish; a corrupt
    notebook, or one that killed its worker twice, is the submission's doing and finishes the batch."""
    from pathlib import Path

    from autograder.course.submissions import Submission

    flat = tmp_path / "class"
    flat.mkdir()
    (flat / "ada.ipynb").write_text("{}")
    errors = {"grading failed: OperationalError: database is locked": 1, "ada.ipynb is empty": 0}
    errors["grading worker died: its grading worker died twice while grading it (killed, or out of memory)"] = 0
    for error, code in errors.items():
        result = grading.Result(Submission("ada", "01_pair_counts_and_merge", Path(flat / "ada.ipynb")), error=error)
        monkeypatch.setattr(grading, "grade", lambda *args, _r=result, **kwargs: [_r])
        args = ["--course", str(course_copy), "grade", str(flat), "--assignment", "01_pair_counts_and_merge"]
        assert main([*args, "--out", str(tmp_path / "out"), "--sandbox", "off"]) == code, error
        assert ("run the same command again" in capsys.readouterr().err) == bool(code)


@pytest.mark.needs("sandbox")
def test_each_submission_is_graded_into_a_gradebook_of_its_own_so_no_slot_grows_with_the_class(
    course_copy, tmp_path, monkeypatch
):
    """nbgrader's queries cost in proportion to what a gradebook holds: a slot's one gradebook for all it graded
    made each notebook of a class dearer the larger the class. Graded one after another in one slot, each
    submission's scratch gradebook holds that submission alone when it is published, and is gone after."""
    from nbgrader.api import Gradebook

    from autograder.course import submissions

    assignment = "01_pair_counts_and_merge"
    flat = tmp_path / "class"
    flat.mkdir()
    for student in ("ada", "bob", "cy"):
        nbformat.write(sample_class.finished(course_copy, assignment), flat / f"{student}.ipynb")
    found = submissions.find_submissions(flat, course_copy, assignment=assignment)
    held = []
    publish = grading.upsert_submission

    def upsert(course_url, scratch_url, name, student):
        with Gradebook(scratch_url) as scratch:
            held.append((student, sorted(s.student.id for s in scratch.assignment_submissions(name))))
        return publish(course_url, scratch_url, name, student)

    monkeypatch.setattr(grading, "upsert_submission", upsert)
    out = tmp_path / "out"
    results = grading.grade(course_copy, found, out, course_dir=course_copy, feedback=False, jobs=1, resume=False)
    assert [r.error for r in results] == ["", "", ""]
    assert sorted(held) == [("ada", ["ada"]), ("bob", ["bob"]), ("cy", ["cy"])]
    assert list((out / "slots").glob("*/gradebooks/*/*.db")) == []  # each one deleted once published
    with Gradebook(f"sqlite:///{course_copy / 'gradebook.db'}") as course:
        assert sorted(s.student.id for s in course.assignment_submissions(assignment)) == ["ada", "bob", "cy"]


def test_a_source_notebook_is_read_once_for_its_points_and_exercises_and_again_once_edited(tmp_path, monkeypatch):
    assignment = "01_x"
    folder = tmp_path / "solutions" / assignment
    folder.mkdir(parents=True)
    source = folder / f"{assignment}.ipynb"

    def cell(kind: str, grade_id: str, points: int = 0) -> nbformat.NotebookNode:
        graded = kind == "test"
        new = nbformat.v4.new_code_cell("pass")
        new.metadata.nbgrader = {"grade": graded, "solution": not graded, "grade_id": grade_id, "locked": graded,
                                 "schema_version": 3, **({"points": points} if graded else {})}  # fmt: skip
        return new

    notebook = nbformat.v4.new_notebook(cells=[cell("solution", "merge"), cell("test", "test_merge", 3)])
    nbformat.write(notebook, source)
    reads = []
    original = nbformat.read
    monkeypatch.setattr(grading.nbformat, "read", lambda *a, **k: reads.append(a[0]) or original(*a, **k))
    assert grading.max_points(tmp_path, assignment) == 3.0
    assert grading.exercises(tmp_path, assignment) == {"test_merge": "merge"}
    grading.exercises(tmp_path, assignment)["test_merge"] = "changed by a caller"  # a copy: what is kept stays
    assert grading.exercises(tmp_path, assignment) == {"test_merge": "merge"} and len(reads) == 1
    notebook.cells.append(cell("test", "test_merge_more", 2))  # the instructor edits the source notebook
    nbformat.write(notebook, source)
    assert grading.max_points(tmp_path, assignment) == 5.0 and len(reads) == 2
    assert grading.exercises(tmp_path, assignment) == {"test_merge": "merge", "test_merge_more": "merge"}
    assert grading.max_points(tmp_path, "02_missing") == 0.0 and grading.exercises(tmp_path, "02_missing") == {}

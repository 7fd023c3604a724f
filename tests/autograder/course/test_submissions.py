"""Finding a class's submissions: symbolic links refused at every level, one id per student by construction."""

import os
import shutil

import pytest

from autograder.course import submissions
from autograder.course.directory import CourseError

ASSIGNMENT = "01_pair_counts_and_merge"


def _notebook(course_root, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(course_root / "notebooks" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", path)
    return path


@pytest.fixture
def honest_class(course_root, tmp_path):
    folder = tmp_path / "submitted"
    for student in ("ada", "bob"):
        _notebook(course_root, folder / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    return folder


def test_an_honest_class_is_found_with_one_id_per_student(course_root, honest_class):
    found = submissions.find_submissions(honest_class, course_root)
    assert [(s.student, s.assignment) for s in found] == [("ada", ASSIGNMENT), ("bob", ASSIGNMENT)]


@pytest.mark.parametrize(
    "level",
    ["student folder", "assignment folder", "notebook", "flat notebook"],
)
def test_a_symbolic_link_at_any_level_is_refused_naming_it(course_root, honest_class, level):
    ada = honest_class / "ada" / ASSIGNMENT
    if level == "student folder":
        link, target = honest_class / "mallory", honest_class / "ada"  # ada's work graded as mallory's
    elif level == "assignment folder":
        (honest_class / "mallory").mkdir()
        link, target = honest_class / "mallory" / ASSIGNMENT, course_root / "solutions" / ASSIGNMENT
    elif level == "notebook":
        (honest_class / "mallory" / ASSIGNMENT).mkdir(parents=True)
        link, target = honest_class / "mallory" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", ada / f"{ASSIGNMENT}.ipynb"
    else:
        link, target = honest_class / "mallory.ipynb", ada / f"{ASSIGNMENT}.ipynb"
    os.symlink(target, link)
    with pytest.raises(CourseError, match="refusing symbolic links") as caught:
        submissions.find_submissions(honest_class, course_root)
    assert str(link) in str(caught.value)


@pytest.mark.parametrize("other", ["ada.", "Ada", "ada..", "ada?"])
def test_two_names_that_give_one_id_are_an_error_naming_both_files(course_root, honest_class, other):
    clash = _notebook(course_root, honest_class / other / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    with pytest.raises(CourseError, match="both give student id") as caught:
        submissions.find_submissions(honest_class, course_root)
    assert str(clash) in str(caught.value) and str(honest_class / "ada" / ASSIGNMENT) in str(caught.value)


def test_a_flat_file_and_a_folder_for_one_student_are_an_error(course_root, honest_class):
    _notebook(course_root, honest_class / f"ada{ASSIGNMENT}.ipynb")
    with pytest.raises(CourseError, match="both give student id 'ada'"):
        submissions.find_submissions(honest_class, course_root)


def test_in_a_flat_folder_no_student_gets_a_timestamp_that_is_nobodys(course_root, tmp_path):
    inbox = tmp_path / "inbox"
    for student in ("ada", "bob"):
        _notebook(course_root, inbox / f"{student}.ipynb")
    (inbox / "timestamp.txt").write_text("2027-01-15 16:00:00 UTC")  # one file, beside every student's notebook
    nested = tmp_path / "submitted" / "cy" / ASSIGNMENT
    _notebook(course_root, nested / f"{ASSIGNMENT}.ipynb")
    (nested / "timestamp.txt").write_text("2027-01-15 15:00:00 UTC")  # cy's own folder: cy's own word
    found = submissions.find_submissions(inbox, course_root, ASSIGNMENT)
    found += submissions.find_submissions(tmp_path / "submitted", course_root)
    for submission in found:
        target = tmp_path / "staged" / submission.student
        submissions.stage(submission, target)
        assert (target / "timestamp.txt").exists() == (submission.student == "cy"), submission


def test_the_notebook_with_the_work_is_graded_by_the_doctors_rule_in_both_ways_of_grading(course_root, tmp_path):
    """The untouched original beside ``-Copy1``, which holds the work: ``grade`` finds the copy, stages the two, and
    the doctor in nbgrader's pipeline (the hook of ``nbgrader autograde``) makes the same choice and notes it."""
    import nbformat

    from autograder.course import sample_class
    from autograder.preprocessors.submission_doctor import SubmissionDoctor

    folder = tmp_path / "submitted" / "ada" / ASSIGNMENT
    original = _notebook(course_root, folder / f"{ASSIGNMENT}.ipynb")
    work = folder / f"{ASSIGNMENT}-Copy1.ipynb"
    answers = sample_class.students()[ASSIGNMENT]["merge-no-skip"]
    nbformat.write(sample_class.fill(nbformat.read(original, 4), answers), work)
    (found,) = submissions.find_submissions(tmp_path / "submitted", course_root)
    assert found.path == work and found.others == (original,)
    staged = tmp_path / "scratch" / "submitted" / "ada" / ASSIGNMENT
    submissions.stage(found, staged)
    assert sorted(p.name for p in staged.iterdir()) == sorted([work.name, original.name])
    hook = SubmissionDoctor(course_root / "notebooks")
    for where in (folder, staged):
        _path, served = hook.prepare(where, sorted(where.glob("*.ipynb")))
        assert served.read_from.name == work.name
        assert any(p.kind == "choice" and f"graded {work.name!r}" in p.text for p in served.problems)

"""``grade``'s choice of submissions before grading: a share of the class, some students, an unknown one named."""

from pathlib import Path

import pytest

from autograder.course.batch import select
from autograder.course.directory import CourseError
from autograder.course.submissions import Submission

CLASS = [Submission(student, "01", Path(f"{student}.ipynb")) for student in ("ada", "bob", "cy", "dee", "eve")]


def _students(found):
    return [s.student for s in found]


def test_the_shares_of_a_class_cover_it_once():
    shares = [_students(select(CLASS, Path("class"), shard=(k, 3))) for k in (1, 2, 3)]
    assert shares == [["ada", "dee"], ["bob", "eve"], ["cy"]]


def test_students_are_chosen_within_the_share():
    assert _students(select(CLASS, Path("class"), shard=(1, 2), students=["eve", "ada"])) == ["ada", "eve"]


def test_a_student_without_a_submission_is_an_error_naming_the_student_and_the_folder():
    with pytest.raises(CourseError, match=r"no submission of student bob, zed under class"):
        select(CLASS, Path("class"), shard=(1, 2), students=["zed", "bob"])  # bob is in the other share


def test_no_choice_keeps_the_whole_class():
    assert select(CLASS, Path("class")) == CLASS

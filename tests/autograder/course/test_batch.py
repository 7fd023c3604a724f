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


@pytest.mark.needs("sandbox")
def test_isolation_is_confirmed_with_the_views_of_the_site_folders_made_before_any_worker_starts(
    course_root, monkeypatch, tmp_path
):
    from autograder.course.batch import confirm_isolation
    from autograder.isolation import sandbox

    monkeypatch.setenv("BPE_COURSE_CACHE", str(tmp_path / "cache"))
    sandbox._state_digest.cache_clear()
    try:
        confirm_isolation(course_root, "required")
        made = list((tmp_path / "cache" / sandbox.SITE_VIEWS).iterdir())
        assert made and sandbox._state_digest.cache_info().currsize >= 1  # the workers, forked after, inherit them
    finally:
        sandbox._state_digest.cache_clear()

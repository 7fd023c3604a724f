"""``python -m autograder assignments``: the course's assignments and due dates in the gradebook, in one idempotent
step, on a fresh course directory (the README's step 3, which ``generate_assignment`` alone skips)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from autograder.cli import main
from autograder.course import schedule
from autograder.course.directory import CourseError

ASSIGNMENT = "01_pair_counts_and_merge"


def _gradebook(course: Path):
    from nbgrader.api import Gradebook

    return Gradebook(f"sqlite:///{course / 'gradebook.db'}")


def _state(course: Path) -> dict[str, tuple]:
    with _gradebook(course) as gradebook:
        return {
            a.name: (a.duedate, sorted((c.name, c.max_score) for nb in a.notebooks for c in nb.grade_cells))
            for a in gradebook.assignments
        }


def test_every_assignment_reaches_the_gradebook_with_its_points_and_due_date(course_copy: Path, capsys) -> None:
    assert main(["--course", str(course_copy), "assignments", "--due", "01=2027-01-15T17:00+01:00"]) == 0
    said = capsys.readouterr().out
    state = _state(course_copy)
    assert sorted(state) == sorted(p.name for p in (course_copy / "solutions").iterdir())
    due, cells = state[ASSIGNMENT]
    assert due == datetime(2027, 1, 15, 16, 0)  # nbgrader keeps UTC
    assert sum(points for _name, points in cells) == 8 and len(cells) == 4
    assert f"{ASSIGNMENT}: 1 notebook, 4 graded cells, 8 points; due 2027-01-15 16:00:00 UTC" in said
    assert "02_training_loop: 1 notebook, 6 graded cells, 12 points; no due date" in said


def test_running_it_again_changes_nothing_and_keeps_a_due_date_it_is_not_given(course_copy: Path) -> None:
    assert main(["--course", str(course_copy), "assignments", "01", "--due", "01=2027-01-15 17:00:00 UTC"]) == 0
    first = _state(course_copy)
    assert main(["--course", str(course_copy), "assignments"]) == 0
    again = _state(course_copy)
    assert again[ASSIGNMENT] == first[ASSIGNMENT]
    assert again[ASSIGNMENT][0] == datetime(2027, 1, 15, 17, 0)
    assert main(["--course", str(course_copy), "assignments"]) == 0
    assert _state(course_copy) == again


def test_due_dates_come_from_nbgrader_config_and_the_command_line_wins(course_copy: Path) -> None:
    with open(course_copy / "nbgrader_config.py", "a", encoding="utf-8") as handle:
        handle.write('\nc.CourseSchedule.due_dates = {"01": "2027-02-01 09:00:00 UTC", "02_training_loop": "2027"}\n')
    # three assignments: a changed config is a new cache entry of prepared gradebooks (nbgrader's generate_assignment)
    assert main(["--course", str(course_copy), "assignments", "01", "02", "03", "--due", "02=2027-03-02T12:00Z"]) == 0
    state = _state(course_copy)
    assert state[ASSIGNMENT][0] == datetime(2027, 2, 1, 9, 0)
    assert state["02_training_loop"][0] == datetime(2027, 3, 2, 12, 0)
    assert state["03_tie_breaks"][0] is None


@pytest.mark.parametrize(
    ("due", "named"),
    [("09=2027-01-01", "'09'"), ("01=next friday", "'next friday'"), ("01", "'01'"), ("0=2027-01-01", "'0'")],
)
def test_a_bad_due_date_is_refused_naming_the_value(course_copy: Path, due: str, named: str, capsys) -> None:
    assert main(["--course", str(course_copy), "assignments", "--due", due]) == 2
    assert named in capsys.readouterr().err
    assert not (course_copy / "gradebook.db").exists()  # refused before anything was written


def test_a_name_is_an_id_or_the_unique_beginning_of_one() -> None:
    known = [ASSIGNMENT, "02_training_loop", "20_later"]
    assert schedule.resolve(known, "01") == ASSIGNMENT
    assert schedule.resolve(known, "02_training_loop") == "02_training_loop"
    with pytest.raises(CourseError, match="2 assignments"):
        schedule.resolve([*known, "02_other"], "02")

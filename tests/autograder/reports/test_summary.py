"""What the terminal shows after grading: a learner's failing cell with its message, and the class's table."""

from pathlib import Path

from autograder.course.grading import CellResult, Result
from autograder.course.submissions import Submission
from autograder.reports.summary import class_lines, result_lines


def _result(student, points, message="", problems=()):
    cells = [
        CellResult("test_merge_basic", points, 2.0, message, "merge"),
        CellResult("test_counts", 1.0, 1.0, "", "get_pair_counts"),
    ]
    return Result(Submission(student, "01", Path(f"{student}.ipynb")), cells, problems=list(problems))


def test_a_failing_cell_is_marked_with_its_points_and_the_first_lines_of_its_message():
    message = "merge([1, 1, 1], (1, 1), 9)\n  expected: [9, 1]\n  returned: [9, 9]"
    lines = result_lines(_result("you", 0.0, message))
    assert lines[0] == "01: 1 / 3 points"
    assert lines[1].split() == ["FAIL", "merge", "test_merge_basic", "0", "/", "2"]
    assert [line.strip() for line in lines[2:5]] == [line.strip() for line in message.splitlines()]
    assert lines[5].split() == ["PASS", "get_pair_counts", "test_counts", "1", "/", "1"]


def test_a_passing_cell_shows_no_message():
    assert len(result_lines(_result("you", 2.0, "left over"))) == 3


def test_the_class_table_has_a_column_per_exercise_and_lists_the_problems_found(tmp_path):
    results = [_result("ada", 2.0), _result("bob", 0.0, "x", problems=["[integrity] imports bpe_ref"])]
    lines = class_lines(results, tmp_path / "out", tmp_path / "course")
    table = lines[lines.index("\n01") + 1 : lines.index("\n01") + 4]
    assert [row.split() for row in table] == [
        ["student", "merge", "get_pair_counts", "total"],
        ["ada", "2/2", "1/1", "3/3"],
        ["bob", "0/2", "1/1", "1/3"],
    ]
    assert "  bob/01: [integrity] imports bpe_ref" in lines
    assert "\n2 submissions graded now (0 could not be graded)" in lines

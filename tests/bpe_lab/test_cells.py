"""``bpe_lab.cells``: an nbgrader cell's role, from a NotebookNode or a plain dict alike."""

from __future__ import annotations

import nbformat
import pytest

from bpe_lab import cells

COURSE_CELLS = {
    "solution": {"solution": True, "grade": False, "locked": False, "grade_id": "merge"},
    "test": {"solution": False, "grade": True, "locked": True, "grade_id": "test_merge_basic", "points": 2},
    "locked": {"solution": False, "grade": False, "locked": True, "grade_id": "chart_explorer"},
    "answer and points": {"solution": True, "grade": True, "locked": False, "grade_id": "written", "points": 3},
}


@pytest.mark.parametrize("as_node", [True, False])
@pytest.mark.parametrize(
    ("kind", "solution", "test", "locked", "points"),
    [
        ("solution", True, False, False, 0.0),
        ("test", False, True, True, 2.0),
        ("locked", False, False, True, 0.0),
        ("answer and points", True, False, False, 3.0),
    ],
)
def test_roles_as_nbgrader_defines_them(as_node, kind, solution, test, locked, points) -> None:
    cell = nbformat.v4.new_code_cell("pass", metadata={"nbgrader": COURSE_CELLS[kind]})
    cell = cell if as_node else dict(cell)
    assert (cells.is_solution(cell), cells.is_test(cell), cells.is_locked(cell)) == (solution, test, locked)
    assert cells.points(cell) == points
    assert cells.grade_id(cell) == COURSE_CELLS[kind]["grade_id"]


@pytest.mark.parametrize(
    "metadata",
    [{}, {"nbgrader": None}, {"nbgrader": "junk"}, {"nbgrader": {"grade_id": 7, "points": "many", "grade": True}}],
)
def test_broken_metadata_reads_as_no_role(metadata) -> None:
    cell = {"cell_type": "code", "source": ["a = 1\n", "b = 2"], "metadata": metadata}
    assert cells.grade_id(cell) == "" and cells.points(cell) == 0.0 and not cells.is_solution(cell)
    assert cells.source(cell) == "a = 1\nb = 2"


def test_a_markdown_cell_is_never_a_test_cell() -> None:
    cell = nbformat.v4.new_markdown_cell("x", metadata={"nbgrader": COURSE_CELLS["test"]})
    assert cells.is_graded(cell) and not cells.is_test(cell)


def test_error_message_and_where_lines_read_the_first_error() -> None:
    cell = {
        "outputs": [
            {"output_type": "stream", "name": "stdout", "text": "fine"},
            {
                "output_type": "error",
                "ename": "CheckFailed",
                "evalue": "\x1b[31mmerge([1], (1, 2), 3)\x1b[0m",
                "traceback": ["  line 3 of your cell 'merge': out.append(x)", "other frame"],
            },
        ]
    }
    assert cells.error_message(cell) == "CheckFailed: merge([1], (1, 2), 3)"
    assert cells.where_lines(cell) == ["line 3 of your cell 'merge': out.append(x)"]
    assert cells.error_message({"outputs": [{"output_type": "stream", "name": "stderr", "text": "warn"}]}) == (
        "wrote to stderr: warn"
    )
    assert cells.error_message({"outputs": []}) == "" and cells.where_lines({"outputs": []}) == []

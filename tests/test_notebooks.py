"""Every assignment's notebooks: released, stripped, teaching as promised, and every graded cell able to fail."""

import re
from pathlib import Path

import nbformat
import pytest

from autograder.course import grading, submissions
from autograder.course.directory import assignments

ROOT = Path(__file__).resolve().parent.parent
ASSIGNMENTS = assignments(ROOT)


def _cells(path):
    return nbformat.read(path, 4).cells


def _meta(cell):
    return cell.metadata.get("nbgrader", {})


def test_the_four_assignments_exist():
    assert ASSIGNMENTS[0] == "01_pair_counts_and_merge"
    assert all((ROOT / "notebooks" / a / f"{a}.ipynb").is_file() for a in ASSIGNMENTS)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
@pytest.mark.parametrize("tree", ["solutions", "notebooks"])
def test_notebooks_are_committed_without_outputs(assignment, tree):
    for cell in _cells(ROOT / tree / assignment / f"{assignment}.ipynb"):
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, cell.source[:60]


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_assignment_folders_hold_only_the_notebook(assignment):
    # nbgrader copies every other file of solutions/<assignment>/ into the release.
    files = [p.name for p in (ROOT / "solutions" / assignment).iterdir() if not p.name.startswith(".")]
    assert files == [f"{assignment}.ipynb"]


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_exercise_teaches_as_promised(assignment):
    cells = _cells(ROOT / "solutions" / assignment / f"{assignment}.ipynb")
    solutions = [i for i, c in enumerate(cells) if _meta(c).get("solution")]
    assert solutions, "an assignment has at least one exercise"
    for index in solutions:
        # the markdown just above the solution cell: contract, convention, difficulty, time, hints
        text = next(c.source for c in reversed(cells[:index]) if c.cell_type == "markdown")
        name = _meta(cells[index])["grade_id"]
        assert re.search(r"\b(easy|medium|hard)\b", text, re.I), f"{name}: no difficulty"
        assert re.search(r"\d+\s*minutes", text), f"{name}: no time estimate"
        assert len(re.findall(r"<summary>.*?Hint \d", text)) >= 3, f"{name}: fewer than three hints"
        assert re.search(r"contract|returns", text, re.I), f"{name}: no contract"


HIDDEN_LINES = ("from autograder.checks import ", "check_")


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_hidden_tests_are_thin_calls_into_autograder_checks(assignment):
    cells = _cells(ROOT / "solutions" / assignment / f"{assignment}.ipynb")
    graded = [c for c in cells if _meta(c).get("grade") and c.cell_type == "code"]
    assert graded
    for cell in graded:
        hidden = re.search(r"### BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS", cell.source, re.S)
        assert hidden, f"{_meta(cell)['grade_id']} has no hidden tests"
        lines = [line for line in hidden.group(1).splitlines() if line.strip()]
        assert 1 <= len(lines) <= 3
        for line in lines:
            assert line.startswith(HIDDEN_LINES), line


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_release_has_stubs_and_no_hidden_tests_or_solutions(assignment):
    text = (ROOT / "notebooks" / assignment / f"{assignment}.ipynb").read_text(encoding="utf-8")
    assert "BEGIN HIDDEN TESTS" not in text and "BEGIN SOLUTION" not in text
    assert "raise NotImplementedError()" in text
    assert "autograder.checks" not in text


@pytest.mark.slow
def test_every_graded_cell_fails_on_the_stubs(tmp_path):
    """Grading the untouched release notebooks gives 0 points in every graded cell (nbgrader validate --invert)."""
    stubs = [submissions.Submission("stubs", a, ROOT / "notebooks" / a / f"{a}.ipynb") for a in ASSIGNMENTS]
    results = grading.grade(ROOT, stubs, tmp_path, feedback=False, jobs=2, resume=False)
    for result in results:
        assert not result.error, result.error
        assert result.cells and result.max_score > 0
        passing = [c.grade_id for c in result.cells if c.points > 0]
        assert passing == [], f"{result.submission.assignment}: these cells pass on the stubs: {passing}"

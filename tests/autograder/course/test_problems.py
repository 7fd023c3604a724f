"""The drill's problem pages and model solutions: made by release from the source notebooks, one source."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from autograder.course import problems
from bpe_lab import pages
from bpe_lab.selfcheck import HIDDEN_CHECKS

COURSE = Path(__file__).resolve().parents[3]


def test_the_committed_pages_and_solutions_are_what_release_makes():
    assert problems.stale(COURSE, COURSE / "notebooks") == []


def test_every_graded_function_has_a_page_with_three_hints_and_a_model_solution_with_its_complexity():
    built = problems.build(COURSE, COURSE / "notebooks")
    solutions = json.loads(built[problems.SOLUTIONS])
    assert [e.name for e in pages.exercises()] == list(HIDDEN_CHECKS) and set(solutions) == set(HIDDEN_CHECKS)
    for exercise in pages.exercises():
        assert len(exercise.hints) == 3 and all(exercise.hints)
        assert "### BEGIN SOLUTION" not in exercise.stub and "raise NotImplementedError()" in exercise.stub
        assert solutions[exercise.name]["complexity"].startswith("O(")
        assert "### BEGIN SOLUTION" not in solutions[exercise.name]["solution"]
    text = built[problems.PAGES].decode("utf-8")
    for solution in solutions.values():  # no model solution in the pages the learner's install ships
        body = solution["solution"].split('"""', 2)[-1].strip()  # after the docstring: the stub has the same
        assert body not in text


def test_a_page_says_what_the_notebook_says():
    source = nbformat.read(COURSE / "solutions" / "02_training_loop" / "02_training_loop.ipynb", 4)
    text = next(c.source for c in source.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex3_text")
    page = pages.exercise("train_bpe")
    assert text.split("<details>")[0].strip() in page.page
    assert page.hints[0] in text and (page.difficulty, page.minutes) == ("medium", 20)


def test_an_exercise_without_its_three_hints_is_refused(tmp_path):
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_markdown_cell("## Exercise 1 · `merge(ids)` <span>(easy · 5 minutes · 2 points)</span>")]
    )
    with pytest.raises(ValueError, match="three nested hints"):
        problems.exercises(nb, nb, "01_x")


def test_a_changed_page_is_reported_stale(tmp_path, monkeypatch):
    monkeypatch.setattr(problems, "PAGES", Path("pages.json"))
    (tmp_path / "solutions").symlink_to(COURSE / "solutions")
    (tmp_path / "pages.json").write_text("{}", encoding="utf-8")
    stale = problems.stale(tmp_path, COURSE / "notebooks")
    assert "pages.json is stale" in stale and any("solutions.json is missing" in p for p in stale)


def test_a_page_gives_the_stubs_of_what_its_solution_calls_a_helper_of_another_cell_included():
    """06's encode_iterable calls split_specials, a helper of chunk_counts' cell: its page gives that cell's stubs
    (which a learner writes, as in the notebook); a solution that calls no other cell's function needs none."""
    assignment = "06_training_at_scale"
    solution = nbformat.read(COURSE / "solutions" / assignment / f"{assignment}.ipynb", 4)
    released = nbformat.read(COURSE / "notebooks" / assignment / f"{assignment}.ipynb", 4)
    found = {e["name"]: e for e in problems.exercises(solution, released, assignment)}
    assert list(found["encode_iterable"]["needs"]) == ["chunk_counts"]
    assert "def split_specials(" in found["encode_iterable"]["needs"]["chunk_counts"]
    assert found["bytes_to_unicode"]["needs"] == {}

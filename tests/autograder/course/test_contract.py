"""The grading contract at release: the source notebooks and the learner's list of checks agree with the specs."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from autograder.course import contract

A01 = "01_pair_counts_and_merge"


def _edit(course: Path, grade_id: str, old: str, new: str, field: str = "source") -> None:
    path = course / "solutions" / A01 / f"{A01}.ipynb"
    nb = nbformat.read(path, 4)
    (cell,) = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id]
    if field == "source":
        assert old in cell.source
        cell.source = cell.source.replace(old, new)
    else:
        cell.metadata["nbgrader"][field] = new
    nbformat.write(nb, path)


def test_the_course_as_committed_keeps_its_contract(course_root: Path) -> None:
    assert contract.problems(course_root) == []


def test_a_test_cell_that_checks_another_part_is_named(course_copy: Path) -> None:
    _edit(course_copy, "test_merge_overlaps", 'check_merge(merge, "overlaps")', 'check_merge(merge, "basic")')
    found = contract.problems(course_copy)
    assert any("test_merge_overlaps" in p and "'test_merge_basic'" in p for p in found), found
    assert any("merge's test cells check the parts ['basic', 'basic']" in p for p in found), found


def test_a_test_cell_without_points_or_with_two_checks_is_named(course_copy: Path) -> None:
    _edit(course_copy, "test_merge_basic", "", 0, field="points")
    _edit(course_copy, "test_get_pair_counts_basic", "### BEGIN HIDDEN TESTS\n", "### BEGIN HIDDEN TESTS\n"
          'check_get_pair_counts(get_pair_counts, "overlaps")\n')  # fmt: skip
    found = contract.problems(course_copy)
    assert any("test_merge_basic: a test cell without points" in p for p in found), found
    assert any("test_get_pair_counts_basic: 2 hidden checks" in p for p in found), found


def test_the_learners_list_of_checks_is_held_to_the_specs(course_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bpe_lab import selfcheck

    listed = dict(selfcheck.HIDDEN_CHECKS)
    listed["merge"] = [("check_merge", ("basic",))]
    monkeypatch.setattr(selfcheck, "HIDDEN_CHECKS", listed)
    (problem,) = contract.problems(course_root)
    assert problem.startswith("bpe_lab.selfcheck.HIDDEN_CHECKS['merge'] is [('check_merge', ('basic',))]")


def test_the_sample_class_expected_scores_are_held_to_the_test_cells(
    course_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from autograder.course.sample_class import pair_counts_and_merge as module

    expected = dict(module.EXPECTED)
    expected["merge-no-skip"] = {"get_pair_counts": 4, "merge": 3}  # merge's cells are worth 2 + 2
    expected["counts-sorted"] = {"get_pair_count": 2}  # a typo of the function's name
    expected["nobody"] = {}
    del expected["blank"]
    monkeypatch.setattr(module, "EXPECTED", expected)
    found = contract.sample_class_problems(course_root)
    assert sorted(found) == sorted([
        f"sample class {A01}: merge-no-skip is expected to score 3 on merge, which no set of its test cells "
        "([2.0, 2.0] points) gives",
        f"sample class {A01}: counts-sorted's expected scores name 'get_pair_count', which it does not grade",
        f"sample class {A01}: nobody has expected scores but no answers",
        f"sample class {A01}: blank has answers but no expected scores",
    ])  # fmt: skip


def test_a_function_the_expected_scores_leave_out_is_at_the_source_notebooks_full_marks(course_copy: Path) -> None:
    from autograder.course import sample_class

    assert sample_class.expected(course_copy)["06_training_at_scale"]["correct"]["train_fast"] == 8
    _edit(course_copy, "test_merge_overlaps", "", 3, field="points")  # 2 + 2 becomes 2 + 3
    scores = sample_class.expected(course_copy)[A01]
    assert sample_class.full_marks(course_copy, A01) == {"get_pair_counts": 4, "merge": 5}
    assert scores["correct-loops"] == {"get_pair_counts": 4, "merge": 4}  # listed: as listed, and now unreachable
    found = contract.problems(course_copy)
    assert (
        f"sample class {A01}: correct-loops is expected to score 4 on merge, which no set of its test cells "
        "([2.0, 3.0] points) gives" in found
    ), found


def test_a_test_cell_below_another_functions_answer_is_named(course_copy: Path) -> None:
    _edit(course_copy, "merge", "", "merge_answer", field="grade_id")  # the report would name the exercise so
    found = contract.problems(course_copy)
    assert (
        "solutions/01_pair_counts_and_merge: test_merge_basic: a test cell of 'merge' below the solution cell "
        "'merge_answer'" in found
    ), found

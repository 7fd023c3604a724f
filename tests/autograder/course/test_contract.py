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

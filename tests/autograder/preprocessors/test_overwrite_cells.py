"""The course's OverwriteCells: quiet about the hidden tests it restores in every submission, loud about real edits."""

from __future__ import annotations

import copy
import logging

import nbformat
import pytest
from nbgrader.preprocessors import OverwriteCells as NbgraderOverwriteCells

from autograder.course.schedule import put_assignments
from autograder.preprocessors.overwrite_cells import OverwriteCells

ASSIGNMENT = "01_pair_counts_and_merge"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A course copy whose gradebook has assignment 01's cells (with their hidden tests), and its release notebook."""
    import shutil

    from tests.conftest import ROOT

    course = tmp_path_factory.mktemp("overwrite") / "course"
    course.mkdir()
    shutil.copy2(ROOT / "nbgrader_config.py", course / "nbgrader_config.py")
    for name in ("solutions", "notebooks"):
        shutil.copytree(ROOT / name, course / name)
    put_assignments(course, [ASSIGNMENT])
    release = nbformat.read(course / "notebooks" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", 4)
    return f"sqlite:///{course / 'gradebook.db'}", release


def _warnings(step_class, nb, db_url):
    records: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record):
            if record.levelno >= logging.WARNING:
                records.append(record.getMessage())

    log = logging.getLogger(f"test-overwrite-{step_class.__module__}")
    log.addHandler(handler := Keep())
    try:
        resources = {"nbgrader": {"db_url": db_url, "assignment": ASSIGNMENT, "notebook": ASSIGNMENT}}
        graded, _ = step_class(log=log).preprocess(copy.deepcopy(nb), resources)
    finally:
        log.removeHandler(handler)
    return records, graded


def test_the_hidden_tests_restored_in_every_submission_are_not_warned_about(recorded):
    db_url, release = recorded
    theirs, by_nbgrader = _warnings(NbgraderOverwriteCells, release, db_url)
    ours, by_course = _warnings(OverwriteCells, release, db_url)
    assert len([w for w in theirs if "'checksum'" in w]) >= 4  # nbgrader's noise: one per test cell
    assert ours == []
    assert [c.source for c in by_course.cells] == [c.source for c in by_nbgrader.cells]  # the same cells restored
    assert any("BEGIN HIDDEN TESTS" in c.source for c in by_course.cells)


def test_a_test_cell_the_student_changed_is_still_warned_about(recorded):
    db_url, release = recorded
    nb = copy.deepcopy(release)
    test_cell = next(
        c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade", False) and c.cell_type == "code"
    )
    test_cell.source = "pass  # the student's own test cell"
    ours, graded = _warnings(OverwriteCells, nb, db_url)
    name = test_cell.metadata["nbgrader"]["grade_id"]
    assert [w for w in ours if "'checksum'" in w and name in w]
    assert "the student's own" not in graded.cells[nb.cells.index(test_cell)].source

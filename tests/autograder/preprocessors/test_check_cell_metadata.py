"""The course's CheckCellMetadata gives nbgrader's verdict on every kind of cell metadata, valid or broken."""

import copy
import logging

import nbformat
import pytest
from nbgrader import preprocessors
from nbgrader.nbgraderformat import ValidationError
from nbgrader.nbgraderformat.common import SchemaMismatchError

from autograder.preprocessors.check_cell_metadata import CheckCellMetadata

SOURCE = "solutions/01_pair_counts_and_merge/01_pair_counts_and_merge.ipynb"


def _graded(nb):
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade") and c.cell_type == "code")


def _edits():
    """``(name, edit)``: each edit breaks the metadata of a notebook one way (or none)."""

    def set_meta(key, value):
        return lambda nb: _graded(nb).metadata.nbgrader.__setitem__(key, value)

    def drop_meta(key):
        return lambda nb: _graded(nb).metadata.nbgrader.pop(key)

    def duplicate_id(nb):
        cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id")]
        cells[1].metadata.nbgrader.grade_id = cells[0].metadata.nbgrader.grade_id

    def markdown_grade(nb):
        cell = _graded(nb)
        cell.cell_type = "markdown"
        cell.pop("outputs", None)
        cell.pop("execution_count", None)

    return [
        ("valid", lambda nb: None),
        ("points not a number", set_meta("points", "three")),
        ("no points", drop_meta("points")),
        ("grade not a bool", set_meta("grade", "yes")),
        ("empty grade id", set_meta("grade_id", "")),
        ("no grade id", drop_meta("grade_id")),
        ("old schema", set_meta("schema_version", 1)),
        ("newer schema", set_meta("schema_version", 4)),
        ("duplicated grade id", duplicate_id),
        ("markdown grade cell", markdown_grade),
        ("no solution key", drop_meta("solution")),
    ]


@pytest.mark.parametrize("name, edit", _edits(), ids=[name for name, _ in _edits()])
def test_the_same_verdict_and_message_as_nbgraders_own(course_root, name, edit, caplog):
    nb = nbformat.read(course_root / SOURCE, 4)
    edit(nb)
    verdicts = []
    for step in (preprocessors.CheckCellMetadata(), CheckCellMetadata()):
        caplog.clear()
        with caplog.at_level(logging.ERROR):
            try:
                step.preprocess(copy.deepcopy(nb), {})
            except (ValidationError, SchemaMismatchError) as exc:
                logged = [r.getMessage().splitlines()[-1] for r in caplog.records]
                verdicts.append((f"{type(exc).__name__}: {exc}", logged))
            else:
                verdicts.append(("valid", []))
    assert verdicts[0] == verdicts[1]
    assert (verdicts[0][0] == "valid") == (name == "valid")

"""nbgrader's ``CheckCellMetadata``, with its JSON schema compiled once instead of once per cell.

nbgrader's metadata validator checks each cell's ``nbgrader`` metadata with ``jsonschema.validate(metadata,
schema)``, which first checks the *schema* itself against the meta-schema, on every call: about 40 % of nbgrader's
converter time for one of the course's notebooks (each runs the step twice, on about 26 cells), spent proving that
nbgrader's own schema file is a valid schema. :class:`CheckCellMetadata` runs the same rules with a validator built
once per process: the same errors, the same log lines, the same ``ValidationError``.
"""

from __future__ import annotations

import traceback
from typing import Any

import jsonschema
from nbformat.notebooknode import NotebookNode
from nbgrader import preprocessors
from nbgrader.nbgraderformat import MetadataValidator, ValidationError
from nbgrader.nbgraderformat.common import BaseMetadataValidator

__all__ = ["CheckCellMetadata"]


_COMPILED: dict[int, Any] = {}
"""A validator per schema version of nbgrader's, built on first use."""


def _compiled(version: int, schema: dict) -> Any:
    """A validator of nbgrader's schema ``version`` (``schema``), the schema checked once, as ``jsonschema.validate``
    checks it on every call."""
    if version not in _COMPILED:
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        _COMPILED[version] = cls(schema)
    return _COMPILED[version]


class _SchemaOnce(BaseMetadataValidator):
    """Between nbgrader's versioned validator and its base (see :class:`_Validator`): a cell of the current schema
    version is validated by the compiled schema; any other goes to nbgrader's base, which raises its version
    errors."""

    def validate_cell(self, cell: NotebookNode) -> None:
        meta = cell.metadata.get("nbgrader")
        if meta is None or meta.get("schema_version", 0) != self.schema_version:
            super().validate_cell(cell)
            return
        error = jsonschema.exceptions.best_match(_compiled(self.schema_version, self.schema).iter_errors(meta))
        if error is not None:
            raise error


class _Validator(MetadataValidator, _SchemaOnce):
    """nbgrader's current validator (its rules on grade ids, points and cell types, then the duplicate ids), whose
    call to its base's ``validate_cell`` reaches :class:`_SchemaOnce` first (method resolution order)."""


class CheckCellMetadata(preprocessors.CheckCellMetadata):
    """nbgrader's ``CheckCellMetadata`` (same checks, errors and log lines), with the schema compiled once.

    Raises:
        nbgrader.nbgraderformat.ValidationError: as nbgrader's: the metadata of a cell breaks nbgrader's schema or
            rules (a grade cell without points, a duplicated grade id).

    Example:
        >>> from nbformat.v4 import new_code_cell, new_notebook
        >>> cell = new_code_cell("x = 1", metadata={"nbgrader": {"grade": True, "solution": False,
        ...     "locked": True, "grade_id": "test_x", "points": 1, "schema_version": 3}})
        >>> CheckCellMetadata().preprocess(new_notebook(cells=[cell]), {})[0].cells[0].source
        'x = 1'
    """

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        try:  # nbgrader's own preprocess, with the validator above
            _Validator().validate_nb(nb)
        except ValidationError:
            self.log.error(traceback.format_exc())
            msg = "Notebook failed to validate; the nbgrader metadata may be corrupted."
            self.log.error(msg)
            raise ValidationError(msg) from None
        return nb, resources

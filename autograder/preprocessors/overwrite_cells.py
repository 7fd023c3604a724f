"""nbgrader's ``OverwriteCells`` without its warning for the one change every submission makes: the hidden tests.

nbgrader records each test cell in the gradebook with its hidden tests (``### BEGIN HIDDEN TESTS`` ... ``### END
HIDDEN TESTS``) and gives students the cell without them, so for every test cell of every submission the locked
cell's checksum differs and nbgrader's ``OverwriteCells`` logs "Attribute 'checksum' for cell ... has changed!"
while it puts the hidden tests back, which is how they get graded: four lines per student of assignment 01, hundreds
for a class, among which a cell a student really changed cannot be seen. :class:`OverwriteCells` says nothing when
the cell is exactly the release's (the gradebook's source with its hidden tests cleared, as nbgrader's own
``ClearHiddenTests`` clears them) and warns as nbgrader does for any other change. It overwrites the same cells in
the same way: only the log differs.
"""

from __future__ import annotations

from typing import Any

from nbformat import NotebookNode
from nbgrader.preprocessors import ClearHiddenTests
from nbgrader.preprocessors import OverwriteCells as NbgraderOverwriteCells


class OverwriteCells(NbgraderOverwriteCells):
    """nbgrader's step (its settings, ``c.OverwriteCells.*``, apply), quiet about restored hidden tests.

    Example:
        >>> c.Autograde.sanitize_preprocessors = ["autograder.preprocessors.overwrite_cells.OverwriteCells"]  # doctest: +SKIP
    """  # noqa: E501

    _expected = False
    _clear: ClearHiddenTests | None = None

    def preprocess_cell(self, cell: NotebookNode, resources: Any, cell_index: int) -> tuple[NotebookNode, Any]:
        self._expected = self._is_release_cell(cell)
        try:
            return super().preprocess_cell(cell, resources, cell_index)
        finally:
            self._expected = False

    def report_change(self, name: str, attr: str, old: Any, new: Any) -> None:
        if attr == "checksum" and self._expected:
            self.log.debug("hidden tests of cell %s restored from the gradebook", name)
            return
        super().report_change(name, attr, old, new)

    def _is_release_cell(self, cell: NotebookNode) -> bool:
        """Whether ``cell`` is a locked cell exactly as released: the gradebook's source with its hidden tests
        cleared (and only a cell that had some)."""
        from nbgrader.api import MissingEntry

        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if not grade_id:
            return False
        try:
            source_cell = self.gradebook.find_source_cell(grade_id, self.notebook_id, self.assignment_id)
        except MissingEntry:
            return False
        released = NotebookNode(cell_type=source_cell.cell_type, source=source_cell.source, metadata={})
        if self._clear is None:  # nbgrader's own rule for the hidden tests' region, made once per step
            self._clear = ClearHiddenTests(parent=self)
        hidden = self._clear._remove_hidden_test_region(released)
        return bool(hidden) and released.source == cell.source

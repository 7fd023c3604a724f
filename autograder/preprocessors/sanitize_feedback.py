"""``SanitizeFeedback``: ``GenerateFeedback``'s last step, the feedback page made inert whatever notebook it is
made from (one graded before the pipeline sanitised it); what inert means is :mod:`autograder.inert`'s.
"""

from __future__ import annotations

from nbconvert.preprocessors import Preprocessor
from nbformat.notebooknode import NotebookNode
from traitlets import Bool

from ..doctor import REPORT_METADATA
from ..inert import Budget, clean_cell, clean_notebook_metadata


class SanitizeFeedback(Preprocessor):
    """nbconvert preprocessor of ``generate_feedback``: every cell of the page made inert as ``SanitizeGraded``
    does (:func:`autograder.inert.clean_cell`; the feedback may be made from a notebook graded before the pipeline
    sanitised it)."""

    enabled = Bool(True, help="clean the submission's HTML before the feedback page is made").tag(config=True)

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        budget = Budget()
        for index, cell in enumerate(nb.cells):
            nb.cells[index] = clean_cell(cell, budget, (REPORT_METADATA,))
            if cell.get("cell_type") == "raw":
                cell.metadata.pop("format", None)
                cell.metadata.pop("raw_mimetype", None)
        nb.metadata = clean_notebook_metadata(nb.metadata)
        return nb, resources

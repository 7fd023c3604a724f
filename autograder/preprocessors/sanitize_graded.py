"""``SanitizeGraded``: the notebook nbgrader writes to ``autograded/`` (what the formgrader's Manual Grading page,
the feedback and the class report are made from) made inert; what inert means is :mod:`autograder.inert`'s.
"""

from __future__ import annotations

from nbconvert.preprocessors import Preprocessor
from nbformat.notebooknode import NotebookNode
from traitlets import Bool

from ..doctor import REPORT_METADATA
from ..inert import Budget, clean_cell, clean_notebook_metadata


class SanitizeGraded(Preprocessor):
    """nbgrader preprocessor of ``Autograde`` (:mod:`autograder.preprocessors.pipeline`): the notebook written to
    ``autograded/``, which the formgrader, the feedback and the report read, made inert cell by cell
    (:func:`autograder.inert.clean_cell`) and its metadata reduced (:func:`autograder.inert.clean_notebook_metadata`),
    within one :class:`autograder.inert.Budget`.

    Example:
        >>> import nbformat
        >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("<img src=x onerror=alert(1)>")])
        >>> SanitizeGraded().preprocess(nb, {})[0].cells[0].source
        '<img src="x">'
    """

    enabled = Bool(True, help="make the autograded notebook inert (what the formgrader renders)").tag(config=True)

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        budget = Budget()
        nb.cells = [clean_cell(cell, budget, (REPORT_METADATA,)) for cell in nb.cells]
        nb.metadata = clean_notebook_metadata(nb.metadata)
        return nb, resources

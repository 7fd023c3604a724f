"""nbgrader preprocessor, first of ``Autograde``'s sanitizing ones: :class:`DoctorRepairs`, the cell-level repairs.

The repairs themselves (cells matched back to the source notebook, integrity scan, the report cell) are
:mod:`autograder.doctor`'s; this module is the nbgrader step that applies them to a submission, with the file-level
notes :class:`~autograder.preprocessors.submission_doctor.SubmissionDoctor` left. It starts no process.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Unicode

from .. import doctor
from .submission_doctor import NOTES_KEY


class DoctorRepairs(NbGraderPreprocessor):
    """nbgrader preprocessor, first of ``Autograde``'s sanitizing ones: repair the cells of a submission against
    its source notebook and note every problem (:func:`autograder.doctor.repair`, with what
    :class:`SubmissionDoctor` did to the file) in a markdown cell at the top, for the feedback and the grader."""

    source_directory = Unicode("", help="the course's source folder (solutions/)").tag(config=True)

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        info = resources["nbgrader"]
        noted = nb.metadata.pop(NOTES_KEY, {}) or {}
        found = noted.get("file_problems", []) if isinstance(noted, dict) else []
        problems = [
            doctor.Problem(str(p.get("kind"))[:20], str(p.get("text"))[:300]) for p in found[:20] if isinstance(p, dict)
        ]
        source = Path(self.source_directory) / info["assignment"] / f"{info['notebook']}.ipynb"
        if source.is_file() and nb.cells:
            problems += doctor.repair(nb, nbformat.read(source, 4))
        if problems:
            nb.cells.insert(0, doctor.report_cell(problems))
        return nb, resources

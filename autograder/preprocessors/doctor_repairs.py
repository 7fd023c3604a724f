"""nbgrader preprocessor, first of ``Autograde``'s sanitizing ones: :class:`DoctorRepairs`, the cell-level repairs.

The repairs themselves (cells matched back to the source notebook, integrity scan, the report cell) are
:mod:`autograder.doctor`'s; this module is the nbgrader step that applies them to a submission, with the file-level
notes of :class:`~autograder.preprocessors.submission_doctor.SubmissionDoctor` (which notebook of several was graded,
what was repaired in the file), handed over in nbgrader's ``resources``. It starts no process.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Dict, Unicode

from .. import doctor
from ..course import timestamps
from .submission_doctor import NOTES_KEY

FLAGGING = ("fatal", "timestamp", "choice", "integrity")
"""The kinds of note that flag a submission for the instructor's look (not ``repaired``: a renamed notebook, a
restored cell are graded as they should be)."""


class DoctorRepairs(NbGraderPreprocessor):
    """nbgrader preprocessor, first of ``Autograde``'s sanitizing ones: repair the cells of a submission against
    its source notebook and note every problem (:func:`autograder.doctor.repair`, with what
    :class:`SubmissionDoctor` did to the file) in a markdown cell at the top, for the feedback and the grader."""

    source_directory = Unicode("", help="the course's source folder (solutions/)").tag(config=True)
    duedates = Dict(
        {}, help="assignment -> due date (ISO, UTC) where the gradebook nbgrader grades into has none (a scratch one)"
    ).tag(config=True)
    copied_at = Unicode(
        "", help="when the grader's first copy of this submission was made (ISO, UTC), if this one is a later copy"
    ).tag(config=True)

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        info = resources["nbgrader"]
        nb.metadata.pop(NOTES_KEY, None)  # a notebook's own metadata is the student's: never taken for the doctor's
        found = resources.get(NOTES_KEY) or []  # what the hook did, handed over by its exporter, never by the file
        problems = [
            doctor.Problem(str(p.get("kind"))[:20], str(p.get("text"))[:500])
            for p in (found if isinstance(found, list) else [])[:20]
            if isinstance(p, dict)
        ]
        source = Path(self.source_directory) / info["assignment"] / f"{info['notebook']}.ipynb"
        if source.is_file() and nb.cells:
            problems += doctor.repair(nb, nbformat.read(source, 4))
        problems += self._defend_timestamp(info, Path((resources.get("metadata") or {}).get("path") or "."))
        if problems:
            nb.cells.insert(0, doctor.report_cell(problems))
            self._tell(info, problems)
        return nb, resources

    def _tell(self, info: dict, problems: list[doctor.Problem]) -> None:
        """Where the instructor looks whichever way the submission was graded: each note in the log (the terminal of
        ``nbgrader autograde``, the formgrader's box; nbgrader's log lines are escaped by the course's formatter), and
        the submission flagged in the gradebook (the formgrader's flag) when a note asks for a look (:data:`FLAGGING`).
        A flag is only ever raised here: one the instructor set or cleared by hand is theirs."""
        from nbgrader.api import Gradebook, MissingEntry

        for problem in doctor.bounded(problems):
            self.log.warning("bpe-course doctor: %s/%s: %s", info["student"], info["notebook"], problem)
        if not any(p.kind in FLAGGING for p in problems):
            return
        with Gradebook(info["db_url"]) as gradebook:
            try:
                notebook = gradebook.find_submission_notebook(info["notebook"], info["assignment"], info["student"])
            except MissingEntry:
                return
            if not notebook.flagged:
                notebook.flagged = True
                gradebook.db.commit()

    def _defend_timestamp(self, info: dict, folder: Path) -> list[doctor.Problem]:
        """Check ``timestamp.txt`` (:mod:`autograder.course.timestamps`); record the time the grader can defend in
        the gradebook, where ``AssignLatePenalties`` reads it; return the flag, if any."""
        import datetime as dt

        from nbgrader.api import Gradebook, MissingEntry

        exchange = self.config.Exchange.get("root", "/usr/local/share/nbgrader/exchange")
        copied = dt.datetime.fromisoformat(self.copied_at) if self.copied_at else None
        with Gradebook(info["db_url"]) as gradebook:
            try:
                duedate = gradebook.find_assignment(info["assignment"]).duedate
                if duedate is None and self.duedates.get(info["assignment"]):
                    duedate = dt.datetime.fromisoformat(self.duedates[info["assignment"]])
                submission = gradebook.find_submission(info["assignment"], info["student"])
            except MissingEntry:
                self.log.warning("timestamp not checked: no submission of %s in the gradebook", info["student"])
                return []
            verdict = timestamps.check_submission(
                folder,
                course=str(self.config.CourseDirectory.get("course_id", "")),
                assignment=info["assignment"],
                student=info["student"],
                exchange=Path(exchange) if exchange else None,
                duedate=duedate,
                copied=copied,
            )
            self.log.info("timestamp of %s: %s", info["student"], verdict.problem or "as claimed")
            if verdict.used is not None and submission.timestamp != verdict.used:
                submission.timestamp = verdict.used
                gradebook.db.commit()
        return timestamps.problem(verdict)

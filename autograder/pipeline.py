"""The course's grading pipeline, assembled once and registered in nbgrader's own ``Autograde`` converter.

``nbgrader_config.py`` calls :func:`configure`, so every path that grades for marks runs the same steps:
``nbgrader autograde`` at the course root, the formgrader's Autograde button (both are nbgrader's
``AutogradeApp``), and ``python -m autograder grade`` (which drives the same converter through
``NbGraderAPI.autograde`` in scratch workspaces configured from the same file).

nbgrader's ``Autograde`` treats each submitted notebook in three stages; the ordering rules are:

1. ``pre_convert_hook`` -- :class:`SubmissionDoctor`: the file-level repairs (a renamed notebook, bytes that are
   not UTF-8, an old nbformat, corrupt JSON). It must come first: nbgrader skips a notebook whose file name is
   unknown, and fails a whole submission on an unreadable file, before any preprocessor runs.
2. ``sanitize_preprocessors`` -- :class:`DoctorRepairs` first (cells whose metadata was stripped or retyped are
   matched back to the source, integrity problems noted in a cell at the top), because nbgrader's own that
   follow, in nbgrader's order, rely on the metadata it restores: outputs cleared, duplicated ids removed, the
   kernelspec and the locked/test cells overwritten from the gradebook (a deleted test cell is put back), cell
   metadata checked.
3. ``autograde_preprocessors``:

   * ``LimitedExecute`` runs the notebook in a limited, sandboxed kernel for its outputs only (charts, prints);
     it skips test cells. It comes before the judge so the judge can tell which cells the kernel ran.
   * ``JudgeTests`` scores the test cells: the student's cells run again in a sandboxed worker, the test cells
     (from the gradebook) run in the grader (:mod:`autograder.judge`). Everything that reads outputs comes after.
   * ``IgnorePattern`` drops warning-only stderr (after the judge, which writes the test cells' outputs).
   * ``ClearMetadataPreprocessor`` and ``LimitOutput``: nbgrader's, to keep feedback small.
   * ``SaveAutoGrades`` saves the scores, once every output is final; ``AssignLatePenalties`` needs them saved;
     ``CheckCellMetadata`` last, as in nbgrader.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import nbformat
from nbformat import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Unicode

from . import doctor

IGNORED = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback"]
"""nbgrader's default ``CourseDirectory.ignore``."""

NOTES_KEY = "bpe_course"
"""Notebook metadata key where :class:`SubmissionDoctor` leaves what it did to the file for :class:`DoctorRepairs`."""

SANITIZE = [
    "autograder.pipeline.DoctorRepairs",
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec",
    "nbgrader.preprocessors.OverwriteCells",
    "nbgrader.preprocessors.CheckCellMetadata",
]
AUTOGRADE = [
    "autograder.execute.LimitedExecute",
    "autograder.judge.JudgeTests",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]


class SubmissionDoctor:
    """nbgrader ``pre_convert_hook`` of ``Autograde``: the file-level repairs nbgrader cannot make itself.

    nbgrader calls it as ``hook(assignment=..., student=..., notebooks=[paths])`` before it reads the
    notebooks. A notebook handed in under another name is graded under the name the gradebook expects (a copy
    is written beside it); a file nbgrader could not read (not UTF-8, a byte-order mark, an old nbformat,
    corrupt JSON) is replaced by a readable repair, its original kept beside it as ``<name>.unreadable``. A
    file that cannot be repaired is graded as the blank release notebook, so the student's feedback says why the
    score is 0.
    What was done is written into the notebook's metadata for :class:`DoctorRepairs` to report. Well-formed
    notebooks under the right name, nearly all of them, are not touched.

    Args:
        release_directory: the course's release folder (``notebooks/``), holding ``<assignment>/<assignment>.ipynb``.

    Example:
        >>> hook = SubmissionDoctor(Path("notebooks"))
        >>> hook(assignment="01", student="*", notebooks=["submitted/al/01/x.ipynb"])  # doctest: +SKIP
    """

    def __init__(self, release_directory: Path) -> None:
        self.release_directory = Path(release_directory)

    def __call__(self, assignment: str = "", student: str = "", notebooks: list[str] | None = None, **_: Any) -> None:
        if not notebooks:
            return
        # nbgrader passes the ids it was asked for (globs such as "*"): the real ones are in the paths
        by_folder: dict[Path, list[str]] = {}
        for path in notebooks:
            by_folder.setdefault(Path(path).parent, []).append(path)
        notebooks[:] = [self._repair(folder, paths) for folder, paths in by_folder.items()]

    def _repair(self, folder: Path, paths: list[str]) -> str:
        expected = folder / f"{folder.name}.ipynb"
        chosen = Path(next((p for p in paths if Path(p) == expected), sorted(paths)[0]))
        nb, problems = doctor.read(chosen, expected.name)
        if nb is not None and chosen == expected and not problems:
            return str(expected)
        if chosen == expected:
            shutil.copyfile(chosen, chosen.with_name(chosen.name + ".unreadable"), follow_symlinks=False)
        if nb is None:
            blank = self.release_directory / folder.name / expected.name
            nb = nbformat.read(blank, 4) if blank.is_file() else nbformat.v4.new_notebook()
        nb.metadata[NOTES_KEY] = {"file_problems": [{"kind": p.kind, "text": p.text} for p in problems]}
        partial = expected.with_name(f".{expected.name}.partial")
        nbformat.write(nb, partial)
        partial.replace(expected)
        return str(expected)


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


def configure(c: Any, course_root: Path) -> None:
    """Register the course's pipeline in an nbgrader config ``c`` (called from ``nbgrader_config.py``).

    Args:
        c: the ``traitlets.config.Config`` nbgrader is loading.
        course_root: the course directory (holds ``nbgrader_config.py`` and the source folder).

    Example:
        >>> from traitlets.config import Config
        >>> c = Config()
        >>> configure(c, Path("."))
        >>> c.Autograde.autograde_preprocessors[1]
        'autograder.judge.JudgeTests'
    """
    source = c.CourseDirectory.get("source_directory", "source")
    release = c.CourseDirectory.get("release_directory", "release")
    c.Autograde.pre_convert_hook = SubmissionDoctor(Path(course_root) / release)
    c.DoctorRepairs.source_directory = str(Path(course_root) / source)
    c.CourseDirectory.ignore = [*c.CourseDirectory.get("ignore", IGNORED), "*.unreadable"]
    c.Autograde.sanitize_preprocessors = list(SANITIZE)
    c.Autograde.autograde_preprocessors = list(AUTOGRADE)
    # The grading kernel keeps no history file and logs only errors (not its warning about local TCP sockets).
    c.Execute.extra_arguments = ["--HistoryManager.hist_file=:memory:", "--IPKernelApp.log_level=ERROR"]
    # Feedback shows what student code printed: no script or active HTML from it reaches a browser (nbgrader's
    # feedback template passes markdown's HTML through, so the course's sanitizer runs after nbgrader's steps).
    c.HTMLExporter.sanitize_html = True
    c.GenerateFeedback.preprocessors = [
        "nbgrader.preprocessors.GetGrades",
        "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
        "autograder.sanitize.SanitizeFeedback",
    ]
    # The hidden checks' inputs come from the course's secret and each student's id, whichever command grades.
    from .cases import SECRET_FILE

    c.JudgeTests.secret_file = str(Path(course_root) / SECRET_FILE)

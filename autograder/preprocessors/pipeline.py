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
     (from the gradebook) run in the grader (:mod:`autograder.isolation.judge`). Everything that reads outputs comes
     after.
   * ``IgnorePattern`` drops warning-only stderr (after the judge, which writes the test cells' outputs).
   * ``ClearMetadataPreprocessor`` and ``LimitOutput``: nbgrader's, to keep feedback small.
   * ``SaveAutoGrades`` saves the scores, once every output is final; ``AssignLatePenalties`` needs them saved.
   * ``SanitizeGraded`` (:mod:`autograder.inert`'s rules) makes the notebook nbgrader writes to ``autograded/`` inert:
     markdown, raw cells, attachments, outputs, cell and notebook metadata. The formgrader's Manual Grading page
     renders that notebook (its markdown with no sanitising of nbgrader's own), the feedback and the report are
     made from it. It comes after the scores are saved (it changes no output type, but nothing it does may touch
     a score) and after every step that writes outputs or metadata.
   * ``CheckCellMetadata`` last, as in nbgrader (here and among the sanitizers: nbgrader's checks, with its schema
     compiled once, :mod:`autograder.preprocessors.check_cell_metadata`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .submission_doctor import SubmissionDoctor

IGNORED = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback"]
"""nbgrader's default ``CourseDirectory.ignore``."""

SANITIZE = [
    "autograder.preprocessors.doctor_repairs.DoctorRepairs",
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec",
    "autograder.preprocessors.overwrite_cells.OverwriteCells",
    "autograder.preprocessors.check_cell_metadata.CheckCellMetadata",
]
AUTOGRADE = [
    "autograder.preprocessors.limited_execute.LimitedExecute",
    "autograder.preprocessors.judge_tests.JudgeTests",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "autograder.preprocessors.sanitize_graded.SanitizeGraded",
    "autograder.preprocessors.check_cell_metadata.CheckCellMetadata",
]


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
        'autograder.preprocessors.judge_tests.JudgeTests'
    """
    from ..course.gradebook import tune_nbgrader

    tune_nbgrader()  # no `alembic` command run by name (off PATH in cron or Slurm), gradebook engines reused
    source = c.CourseDirectory.get("source_directory", "source")
    release = c.CourseDirectory.get("release_directory", "release")
    c.Autograde.pre_convert_hook = SubmissionDoctor(Path(course_root) / release)
    # the hook's repaired or chosen notebook reaches nbgrader from memory: nothing is written into submitted/
    c.Autograde.exporter_class = "autograder.preprocessors.submission_doctor.DoctorExporter"
    c.DoctorRepairs.source_directory = str(Path(course_root) / source)
    c.CourseDirectory.ignore = [*c.CourseDirectory.get("ignore", IGNORED), "*.unreadable"]
    c.Autograde.sanitize_preprocessors = list(SANITIZE)
    c.Autograde.autograde_preprocessors = list(AUTOGRADE)
    # nbconvert checks the notebook against nbformat's schema once, after the last step, not after every step: what
    # is written is checked all the same, and a step that broke the notebook still fails it
    c.Exporter.optimistic_validation = True
    # The grading kernel logs only errors (not its warning about local TCP sockets); it keeps no input history
    # (autograder.isolation.kernel.KERNEL_OPTIONS).
    c.Execute.extra_arguments = ["--IPKernelApp.log_level=ERROR"]
    # Feedback shows what student code printed: no script or active HTML from it reaches a browser (nbgrader's
    # feedback template passes markdown's HTML through, so the course's sanitizer runs after nbgrader's steps).
    c.HTMLExporter.sanitize_html = True
    c.GenerateFeedback.preprocessors = [
        "nbgrader.preprocessors.GetGrades",
        "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
        "autograder.preprocessors.sanitize_feedback.SanitizeFeedback",
    ]
    # ... and the page carries a policy that runs no script, wherever it is opened.
    c.GenerateFeedback.exporter_class = "autograder.preprocessors.sanitize_feedback.InertFeedbackExporter"
    # The formgrader (loading this file inside a Jupyter server) serves its pages with a Content-Security-Policy:
    # no inline script but its own (autograder.formgrader_csp).
    import sys

    if "jupyter_server.serverapp" in sys.modules:
        from .. import formgrader_csp

        formgrader_csp.install_in_running_server()
    # `nbgrader zip_collect`: whose a file is comes from the name the LMS gave it, never from a name inside an archive
    # (autograder.course.collect); a safe default for the file names, which the instructor sets for their LMS.
    from ..course.collect import SAFE_REGEXP

    c.ZipCollectApp.collector_plugin = "autograder.course.collect.ArchiveCollector"
    if "named_regexp" not in c.FileNameCollectorPlugin:
        c.FileNameCollectorPlugin.named_regexp = SAFE_REGEXP
    # `nbgrader export`: the same grades.csv, written as CSV that no spreadsheet reads a formula from.
    if "plugin_class" not in c.ExportApp:
        c.ExportApp.plugin_class = "autograder.reports.exports.InertCsvExportPlugin"
    # nbgrader's own log lines quote names a student chose (paths inside an archive): shown with control characters
    # escaped (autograder.inert.TerminalFormatter), whichever nbgrader command runs.
    logging_config = c.Application.get("logging_config") or {}
    console = logging_config.setdefault("formatters", {}).setdefault("console", {})
    console.setdefault("class", "autograder.inert.TerminalFormatter")
    c.Application.logging_config = logging_config
    # The hidden checks' inputs come from the course's secret and each student's id, whichever command grades.
    from ..checks.cases import SECRET_FILE

    c.JudgeTests.secret_file = str(Path(course_root) / SECRET_FILE)

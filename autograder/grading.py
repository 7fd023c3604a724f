"""Autograde submissions through nbgrader, write feedback and grade files, and read back per-exercise results.

``grade`` takes either a folder in nbgrader's layout (``<student>/<assignment>/*.ipynb``, as in a course's
``submitted/``) or a flat folder of notebooks (one per student, the file name being the student id). Each
submission is graded on its own; a submission that cannot be read or graded is reported with a reason and
scores 0, and the batch goes on.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from .course import CourseError, Workspace, assignments

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


@dataclass(frozen=True)
class Submission:
    """One notebook to grade: who handed it in, for which assignment, and where it is."""

    student: str
    assignment: str
    path: Path


@dataclass
class CellResult:
    """One graded test cell of an autograded notebook."""

    grade_id: str
    points: float
    max_points: float
    message: str = ""
    exercise: str = ""


@dataclass
class Result:
    """The outcome of one submission: its cells' results, or the reason it could not be graded."""

    submission: Submission
    cells: list[CellResult] = field(default_factory=list)
    error: str = ""
    feedback: Path | None = None
    possible: float = 0.0

    @property
    def score(self) -> float:
        return sum(c.points for c in self.cells)

    @property
    def max_score(self) -> float:
        return sum(c.max_points for c in self.cells) if self.cells else self.possible

    @property
    def status(self) -> str:
        return "error" if self.error else "graded"


# ---------------------------------------------------------------------------------------------------------------
# finding submissions
# ---------------------------------------------------------------------------------------------------------------

_SAFE_ID = re.compile(r"[^A-Za-z0-9_.@+-]+")


def student_id(name: str) -> str:
    """A student id safe for nbgrader and the file system, made from a file or folder name."""
    cleaned = _SAFE_ID.sub("-", name).strip("-.")
    return cleaned or "student"


def detect_assignment(path: Path, known: list[str], course_root: Path) -> str | None:
    """The assignment a notebook belongs to: by name, else by the ``grade_id``s of its cells."""
    for name in known:
        if name in path.name or name in path.parent.name:
            return name
    try:
        nb = json.loads(path.read_text(encoding="utf-8", errors="replace"))
        ids = {c.get("metadata", {}).get("nbgrader", {}).get("grade_id") for c in nb.get("cells", [])}
    except (ValueError, AttributeError):
        return None
    best, overlap = None, 0
    for name in known:
        source = course_root / "solutions" / name / f"{name}.ipynb"
        try:
            source_ids = {c.metadata.get("nbgrader", {}).get("grade_id") for c in nbformat.read(source, 4).cells}
        except (OSError, ValueError):
            continue
        common = len((ids & source_ids) - {None})
        if common > overlap:
            best, overlap = name, common
    return best


def find_submissions(folder: Path, course_root: Path, assignment: str | None = None) -> list[Submission]:
    """The submissions under ``folder``, sorted by student then assignment.

    Layouts: ``folder/<student>/<assignment>/<notebook>.ipynb`` (nbgrader's ``submitted/``), or
    ``folder/<student>.ipynb`` (a flat folder; the assignment is ``assignment`` or detected per notebook).

    Raises:
        CourseError: ``folder`` does not exist or holds no notebook.
    """
    if not folder.is_dir():
        raise CourseError(f"no folder of submissions at {folder}")
    known = assignments(course_root)
    found: list[Submission] = []
    for student_dir in sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")):
        for assignment_dir in sorted(p for p in student_dir.iterdir() if p.is_dir()):
            notebooks = sorted(assignment_dir.glob("*.ipynb"))
            if notebooks and (assignment is None or assignment_dir.name == assignment):
                expected = assignment_dir / f"{assignment_dir.name}.ipynb"
                path = expected if expected in notebooks else notebooks[0]
                found.append(Submission(student_id(student_dir.name), assignment_dir.name, path))
    for path in sorted(folder.glob("*.ipynb")):
        name = assignment or detect_assignment(path, known, course_root)
        stem = path.stem
        if name and stem.endswith(name) and stem != name:
            stem = stem[: -len(name)]
        found.append(Submission(student_id(stem), name or "unknown", path))
    if not found:
        raise CourseError(f"no notebooks under {folder} (expected <student>/<assignment>/*.ipynb or *.ipynb)")
    return sorted(found, key=lambda s: (s.student, s.assignment))


# ---------------------------------------------------------------------------------------------------------------
# grading
# ---------------------------------------------------------------------------------------------------------------


def max_points(course_root: Path, assignment: str) -> float:
    """The points of an assignment: the sum over the graded cells of its source notebook (0 if unknown)."""
    source = course_root / "solutions" / assignment / f"{assignment}.ipynb"
    try:
        cells = nbformat.read(source, 4).cells
    except (OSError, ValueError):
        return 0.0
    return float(
        sum(
            c.metadata.get("nbgrader", {}).get("points", 0)
            for c in cells
            if c.metadata.get("nbgrader", {}).get("grade")
        )
    )


def exercises(course_root: Path, assignment: str) -> dict[str, str]:
    """Map each test cell's ``grade_id`` to its exercise: the solution cell (function) above it."""
    source = course_root / "solutions" / assignment / f"{assignment}.ipynb"
    mapping: dict[str, str] = {}
    current = ""
    try:
        cells = nbformat.read(source, 4).cells
    except (OSError, ValueError):
        return mapping
    for cell in cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution"):
            current = meta["grade_id"]
        elif meta.get("grade"):
            mapping[meta["grade_id"]] = current or meta["grade_id"]
    return mapping


def _error_message(cell: nbformat.NotebookNode) -> str:
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            value = _ANSI.sub("", output.get("evalue", "")).strip()
            return f"{output.get('ename', 'Error')}: {value}" if value else output.get("ename", "Error")
        if output.get("output_type") == "stream" and output.get("name") == "stderr":
            return "wrote to stderr: " + _ANSI.sub("", output.get("text", "")).strip()[:300]
    return ""


def read_results(workspace: Workspace, submission: Submission) -> list[CellResult]:
    """Per test cell: points from the gradebook and the failure message from the autograded notebook."""
    from nbgrader.api import Gradebook

    autograded = workspace.autograded_path(submission.student, submission.assignment)
    messages = {}
    if autograded.exists():
        nb = nbformat.read(autograded, 4)
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("grade") and cell.cell_type == "code":
                messages[meta.get("grade_id")] = _error_message(cell)
    cells = []
    exercise_of = exercises(workspace.course_root, submission.assignment)
    with Gradebook(workspace.db_url) as gradebook:
        notebook = gradebook.find_submission_notebook(submission.assignment, submission.assignment, submission.student)
        source = gradebook.find_notebook(submission.assignment, submission.assignment)
        order = {cell.name: index for index, cell in enumerate(source.source_cells)}
        for grade in sorted(notebook.grades, key=lambda g: order.get(g.name, 0)):
            points = float(grade.score or 0)
            message = messages.get(grade.name, "")
            cells.append(
                CellResult(grade.name, points, float(grade.max_score), message, exercise_of.get(grade.name, grade.name))
            )
    return cells


def _stage(workspace: Workspace, submission: Submission) -> str:
    """Copy a submission into the workspace's ``submitted/``; return a reason if it cannot be graded."""
    if submission.assignment not in assignments(workspace.course_root):
        return f"{submission.path.name}: not a notebook of this course's assignments"
    try:
        nbformat.read(submission.path, as_version=4)
    except Exception as exc:  # corrupt JSON, wrong encoding, not a notebook
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return f"{submission.path.name} cannot be read as a notebook: {first[:200]}"
    target = workspace.submission_path(submission.student, submission.assignment)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(submission.path, target)
    return ""


def grade(
    course_root: Path,
    submissions: list[Submission],
    out: Path,
    *,
    feedback: bool = True,
    progress: Callable[[Iterable[Submission]], Iterable[Submission]] | None = None,
) -> list[Result]:
    """Autograde ``submissions`` with nbgrader in a workspace under ``out/``; write feedback and grade files.

    Writes ``out/grades.csv`` (one row per student and assignment: score, max_score, status, error),
    ``out/exercise_grades.csv`` (one row per graded test cell, with the failure message),
    ``out/feedback/<student>/<assignment>.html``, and keeps the nbgrader workspace in ``out/course/``.

    Args:
        course_root: the course directory.
        submissions: from :func:`find_submissions`.
        out: the output folder (created).
        feedback: also write feedback HTML.
        progress: wraps the iteration, e.g. ``tqdm``.

    Returns:
        One :class:`Result` per submission, in the order given. A submission that cannot be graded has
        ``error`` set and no cells; it never stops the others.
    """
    out.mkdir(parents=True, exist_ok=True)
    workspace = Workspace.create(course_root, out / "course")
    known = assignments(course_root)
    failed_build = workspace.prepare(sorted({s.assignment for s in submissions if s.assignment in known}))
    api = workspace.api()
    results: list[Result] = []
    iterate = progress(submissions) if progress else submissions
    for submission in iterate:
        result = Result(submission, possible=max_points(course_root, submission.assignment))
        results.append(result)
        result.error = _stage(workspace, submission)
        if result.error:
            continue
        if failed_build:
            result.error = f"the source notebooks failed to build: {_summarise(failed_build)}"
            continue
        graded = api.autograde(submission.assignment, submission.student, force=True, create=True)
        if not graded["success"]:
            result.error = _summarise(graded.get("log", "") or graded.get("error", ""))
            continue
        try:
            result.cells = read_results(workspace, submission)
        except Exception as exc:  # the gradebook has no record: report, never crash the batch
            result.error = f"no grades recorded ({type(exc).__name__}: {exc})"
            continue
        if feedback:
            made = api.generate_feedback(submission.assignment, submission.student, force=True)
            html = workspace.feedback_path(submission.student, submission.assignment)
            if made["success"] and html.exists():
                target = out / "feedback" / submission.student / f"{submission.assignment}.html"
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(html, target)
                result.feedback = target
    write_grades(results, out)
    return results


def _summarise(log: str) -> str:
    lines = [_ANSI.sub("", line).strip() for line in log.splitlines() if "[ERROR]" in line or "Error" in line]
    text = " / ".join(dict.fromkeys(line for line in lines if line))
    return (text or "nbgrader autograde failed")[:500]


def write_grades(results: list[Result], out: Path) -> None:
    """Write ``grades.csv`` and ``exercise_grades.csv`` into ``out``."""
    with open(out / "grades.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student_id", "assignment", "score", "max_score", "status", "error"])
        for r in results:
            writer.writerow(
                [r.submission.student, r.submission.assignment, f"{r.score:g}", f"{r.max_score:g}", r.status, r.error]
            )
    with open(out / "exercise_grades.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student_id", "assignment", "exercise", "test_cell", "points", "max_points", "message"])
        for r in results:
            for c in r.cells:
                row = [r.submission.student, r.submission.assignment, c.exercise, c.grade_id]
                writer.writerow(row + [f"{c.points:g}", f"{c.max_points:g}", c.message])

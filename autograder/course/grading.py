"""Autograde submissions through nbgrader, write feedback and grade files, and read back per-exercise results.

``grade`` takes either a folder in nbgrader's layout (``<student>/<assignment>/*.ipynb``, as in a course's
``submitted/``) or a flat folder of notebooks (one per student, the file name being the student id). Each
submission is graded on its own; a submission that cannot be read or graded is reported with a reason and
scores 0, and the batch goes on.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat

from bpe_lab import cells as nbcells

from .. import doctor
from ..inert import csv_text, csv_writer  # noqa: F401 - csv_text: kept importable from here
from . import timestamps
from .directory import Workspace, assignments, make_course_directory, source_notebook
from .gradebook import (
    FinalGrade,
    duedate_of,
    ensure_assignments,
    final_grades,
    final_score,
    quiet_submission_cascade,
    scratch_url,
    set_due_dates,
    upsert_submission,
)
from .pool import run_contained
from .schedule import due_dates
from .submissions import Submission, stage

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


@dataclass
class CellResult:
    """One graded test cell of an autograded notebook."""

    grade_id: str
    points: float
    max_points: float
    message: str = ""
    exercise: str = ""
    where: list[str] = field(default_factory=list)  # lines of the student's cells the error passed through


@dataclass
class Result:
    """The outcome of one submission: its cells' results, or the reason it could not be graded."""

    submission: Submission
    cells: list[CellResult] = field(default_factory=list)
    error: str = ""
    feedback: Path | None = None
    possible: float = 0.0
    problems: list[str] = field(default_factory=list)
    solution_errors: list[str] = field(default_factory=list)
    late_penalty: float = 0.0
    manual: bool = False
    """A manual score or extra credit from the formgrader stands in the place of some automatic points."""
    autograded: float | None = None
    """The automatic points alone, where the course gradebook says they differ from the final score."""
    submitted: bool = True
    """``False``: the gradebook's roster has this student, who handed nothing in for this assignment."""
    resumed: bool = False
    """Not graded by this run: unchanged since an earlier run (the journal), or graded elsewhere (another shard,
    ``nbgrader autograde``)."""

    @property
    def score(self) -> float:
        """The final score: the cells' points as nbgrader counts them (manual grades and extra credit included, once
        :meth:`take_final` has read them) less the late penalty (:func:`~autograder.course.gradebook.final_score`)."""
        return final_score(sum(c.points for c in self.cells), self.late_penalty)

    def take_final(self, final: FinalGrade) -> None:
        """Show what the course gradebook holds: each cell's points with the instructor's manual score and extra
        credit, the late penalty; the failure messages stay the autograder's."""
        for cell in self.cells:
            if cell.grade_id in final.cells:
                cell.points = final.cells[cell.grade_id][0]
        known = {cell.grade_id for cell in self.cells}
        for grade_id, (points, top) in final.cells.items():
            if grade_id not in known:
                self.cells.append(CellResult(grade_id, points, top))
        self.late_penalty, self.manual = final.late_penalty, final.manual
        self.autograded, self.submitted = final.autograded, final.submitted

    @property
    def max_score(self) -> float:
        return sum(c.max_points for c in self.cells) if self.cells else self.possible

    @property
    def status(self) -> str:
        return "error" if self.error else "graded" if self.submitted else "not submitted"


# ---------------------------------------------------------------------------------------------------------------
# grading
# ---------------------------------------------------------------------------------------------------------------


def max_points(course_root: Path, assignment: str) -> float:
    """The points of an assignment: the sum over the graded cells of its source notebook (0 if unknown)."""
    return _source_facts(source_notebook(course_root, assignment))[0]


def exercises(course_root: Path, assignment: str) -> dict[str, str]:
    """Map each test cell's ``grade_id`` to its exercise: the solution cell (function) above it."""
    return dict(_source_facts(source_notebook(course_root, assignment))[1])


def _source_facts(source: Path) -> tuple[float, dict[str, str]]:
    """:func:`max_points` and :func:`exercises` of a source notebook, read once per version of the file (its path,
    size and modification time: an edited notebook is read again) rather than twice for every submission graded."""
    try:
        stat = source.stat()
    except OSError:
        return 0.0, {}
    return _read_source_facts(str(source), stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=32)
def _read_source_facts(source: str, size: int, mtime_ns: int) -> tuple[float, dict[str, str]]:
    try:
        cells = nbformat.read(source, 4).cells
    except (OSError, ValueError):
        return 0.0, {}
    mapping: dict[str, str] = {}
    current = ""
    for cell in cells:
        if nbcells.is_solution(cell):
            current = nbcells.grade_id(cell)
        elif nbcells.is_graded(cell):
            mapping[nbcells.grade_id(cell)] = current or nbcells.grade_id(cell)
    return float(sum(nbcells.points(c) for c in cells)), mapping


def read_results(workspace: Workspace, submission: Submission, nb: nbformat.NotebookNode | None) -> list[CellResult]:
    """Per test cell: points from the gradebook and the failure message from the autograded notebook ``nb``
    (``None``: there is none)."""
    from nbgrader.api import Gradebook

    messages: dict[str, str] = {}
    where: dict[str, list[str]] = {}
    for cell in nb.cells if nb is not None else []:
        if nbcells.is_graded(cell) and cell.cell_type == "code":
            messages[nbcells.grade_id(cell)] = nbcells.error_message(cell)
            where[nbcells.grade_id(cell)] = nbcells.where_lines(cell)
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
                CellResult(
                    grade.name,
                    points,
                    float(grade.max_score),
                    message,
                    exercise_of.get(grade.name, grade.name),
                    where.get(grade.name, []),
                )
            )
    return cells


def solution_errors(nb: nbformat.NotebookNode | None) -> list[str]:
    """``"<cell>: <error>"`` for each solution cell that raised while graded (a SyntaxError, a NameError...), in the
    autograded notebook ``nb`` (``None``: there is none)."""
    found = []
    for cell in nb.cells if nb is not None else []:
        if nbcells.is_solution(cell) and not nbcells.is_graded(cell) and cell.cell_type == "code":
            message = nbcells.error_message(cell)
            if message and not message.startswith("NotImplementedError"):
                found.append(f"{nbcells.grade_id(cell) or '?'}: {message.splitlines()[0][:200]}")
    return found


def _digest(submission: Submission) -> str:
    """The submission's files as one hash: the graded notebook and the others the doctor weighed against it (an
    edit to any of them may change which one is graded)."""
    digest = hashlib.sha256()
    for path in (submission.path, *submission.others):
        try:
            digest.update(hashlib.sha256(path.read_bytes()).digest())
        except OSError:
            digest.update(b"unreadable")
    return digest.hexdigest()


INFRASTRUCTURE_ERRORS = ("grading worker died", "grading failed", "no grades recorded", "the source notebooks failed")
"""How a result begins when the grader failed, not the submission: graded again by the next run (the journal)."""


def failed_by_the_grader(results: list[Result]) -> list[Result]:
    """The results that the grader, not the submission, failed (:data:`INFRASTRUCTURE_ERRORS`, but for a
    :data:`REPEAT_KILLER`): a batch with any is
    not done, and ``grade`` exits 1 so that a scheduler (Slurm, Kubernetes, cron) sees it; the same command again
    grades just those.

    Example:
        >>> from autograder.course.submissions import Submission
        >>> sub = Submission("ada", "01", Path("ada.ipynb"))
        >>> [r.error for r in failed_by_the_grader([Result(sub, error="grading worker died: killed"), Result(sub)])]
        ['grading worker died: killed']
    """
    return [r for r in results if r.error.startswith(INFRASTRUCTURE_ERRORS) and REPEAT_KILLER not in r.error]


REPEAT_KILLER = "died twice while grading it"
"""How :func:`autograder.course.pool.run_contained` names a submission that killed its worker twice, alone the
second time: that submission's doing, reported in the grade files, not a batch left unfinished."""


class Journal:
    """``out/journal.jsonl``: one line per graded submission (its file's hash, the slot, the result).

    A batch killed midway is resumed from it: a submission whose file has not changed since it was graded
    is not graded again. Lines are flushed to disk one by one, so a kill loses at most the one in progress.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.entries: dict[tuple[str, str], dict] = {}
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    entry = json.loads(line)
                    self.entries[(entry["student"], entry["assignment"])] = entry
                except (ValueError, KeyError):
                    continue  # a line cut short by a kill

    def done(self, submission: Submission) -> Result | None:
        entry = self.entries.get((submission.student, submission.assignment))
        if entry is None or entry.get("sha256") != _digest(submission):
            return None
        if entry.get("error", "").startswith(INFRASTRUCTURE_ERRORS):
            return None  # the grader failed, not the submission: try again
        result = Result(submission, error=entry.get("error", ""), possible=entry.get("possible", 0.0), resumed=True)
        result.problems = list(entry.get("problems", []))
        result.cells = [CellResult(**cell) for cell in entry.get("cells", [])]
        feedback = entry.get("feedback")
        result.feedback = Path(feedback) if feedback else None
        return result

    def record(self, result: Result, slot: int) -> None:
        sub = result.submission
        entry = {
            "student": sub.student,
            "assignment": sub.assignment,
            "path": str(sub.path),
            "sha256": _digest(sub),
            "slot": slot,
            "error": result.error,
            "possible": result.possible,
            "problems": result.problems,
            "feedback": str(result.feedback) if result.feedback else None,
            "cells": [vars(cell) for cell in result.cells],
        }
        self.entries[(sub.student, sub.assignment)] = entry
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")
            handle.flush()
            os.fsync(handle.fileno())


class _Grader:
    """Grades submissions one by one in its own scratch workspace (``out/slots/<slot>``), each into a gradebook of its
    own (:func:`submission_gradebook`)."""

    def __init__(self, course_root: Path, out: Path, slot: int, feedback: bool, overrides: dict | None = None) -> None:
        self.course_root, self.out, self.slot, self.feedback = course_root, out, slot, feedback
        path = out / "slots" / str(slot)
        template = out / "template"
        if not (path / "gradebook.db").exists():
            # every slot starts from the same prepared gradebook (nbgrader's generate_assignment, cached)
            self.workspace = Workspace.create(course_root, path, overrides)
            shutil.copyfile(template / "gradebook.db", path / "gradebook.db")
        else:
            self.workspace = Workspace(course_root, path, dict(overrides or {}))
        self.failed_build = (
            (template / "build-error.txt").read_text() if (template / "build-error.txt").exists() else ""
        )
        self.api = self.workspace.api()

    def grade(self, submission: Submission) -> Result:
        result = Result(submission, possible=max_points(self.course_root, submission.assignment))
        live = live_gradebook(self.workspace.path)
        live.unlink(missing_ok=True)  # a file of its own (never one a connection left open still writes to)
        try:
            self._grade(submission, result)
        except Exception as exc:  # never let one submission stop the batch
            result.error = result.error or f"grading failed: {type(exc).__name__}: {exc}"[:500]
            result.cells = []
        finally:
            if live.exists():  # handed over under the submission's own name (_Publisher takes it from there)
                handed = submission_gradebook(self.workspace.path, submission)
                handed.parent.mkdir(parents=True, exist_ok=True)
                os.replace(live, handed)
        return result

    def _grade(self, submission: Submission, result: Result) -> None:
        workspace, api = self.workspace, self.api
        if submission.assignment not in assignments(self.course_root):
            result.error = f"{submission.path.name}: not a notebook of this course's assignments"
            return
        if self.failed_build:
            result.error = f"the source notebooks failed to build: {_summarise(self.failed_build)}"
            return
        stage(submission, workspace.submission_path(submission.student, submission.assignment).parent)
        # the scratch copy was made just now: timestamps are checked against when the grader's first copy was made
        copied = timestamps.copy_time(submission.path if submission.flat else submission.path.parent)
        api.config.DoctorRepairs.copied_at = copied.isoformat() if copied else ""
        gradebook = live_gradebook(workspace.path)
        gradebook.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(self.out / "template" / "gradebook.db", gradebook)
        scratch = scratch_url(gradebook)  # not synced to disk: deleted once published
        workspace = Workspace(self.course_root, workspace.path, workspace.overrides, scratch)
        with _gradebook_of(api, workspace.db_url), quiet_submission_cascade():
            graded = api.autograde(submission.assignment, submission.student, force=True, create=True)
        if not graded["success"]:
            result.error = _summarise(graded.get("log", "") or graded.get("error", ""))
            return
        autograded = workspace.autograded_path(submission.student, submission.assignment)
        try:  # read once: the doctor's problems, the cells' messages, the solutions' errors
            graded_nb = nbformat.read(autograded, 4) if autograded.exists() else None
            problems = doctor.noted_problems(graded_nb)
            result.problems = [str(p) for p in problems]
            result.cells = read_results(workspace, submission, graded_nb)
            result.solution_errors = solution_errors(graded_nb)
        except Exception as exc:  # no notebook to read or no record in the gradebook: report, never crash the batch
            result.error = f"no grades recorded ({type(exc).__name__}: {exc})"
            return
        fatal = [p.text for p in problems if p.kind == "fatal"]
        if fatal:  # graded as an empty notebook (0, and feedback saying why); reported as not gradable
            result.error = "; ".join(fatal)
        if self.feedback:
            with _gradebook_of(api, workspace.db_url):
                api.generate_feedback(submission.assignment, submission.student, force=True)


def live_gradebook(slot: Path) -> Path:
    """Where a slot grades each submission into a fresh copy of the prepared gradebook (``out/template``): always the
    same path, so that nbgrader's many openings of it, submission after submission, reuse one SQLAlchemy engine and
    its compiled queries (:func:`autograder.course.gradebook.reuse_engines`). Once graded, the file is renamed to
    :func:`submission_gradebook`.

    Example:
        >>> live_gradebook(Path("out/slots/7"))
        PosixPath('out/slots/7/gradebooks/live.db')
    """
    return slot / "gradebooks" / "live.db"


def submission_gradebook(slot: Path, submission: Submission) -> Path:
    """The scratch gradebook that one submission was graded into (:func:`live_gradebook`, renamed), in its slot's
    folder, read by the parent once the submission is graded (:class:`_Publisher`), then deleted.

    Never one gradebook for all the submissions a slot grades: nbgrader's queries (its scores are sums over every
    grade of the gradebook) cost in proportion to what it holds, so grading a class would cost more per notebook
    the larger the class (measured: 0.045 s against 0.025 s for the same five gradebook calls with 80 submissions
    in it and with none).

    Example:
        >>> submission_gradebook(Path("out/slots/7"), Submission("ada", "01_pair_counts_and_merge", Path("x")))
        PosixPath('out/slots/7/gradebooks/01_pair_counts_and_merge/ada.db')
    """
    return slot / "gradebooks" / submission.assignment / f"{submission.student}.db"


@contextlib.contextmanager
def _gradebook_of(api: Any, db_url: str) -> Iterator[None]:
    """nbgrader's API (``api.coursedir.db_url``, which its converters read) on ``db_url`` meanwhile."""
    before = api.coursedir.db_url
    api.coursedir.db_url = db_url
    try:
        yield
    finally:
        api.coursedir.db_url = before


_WORKER: _Grader | None = None
_FEEDBACK_API: Any = None


def _start_feedback_worker(target: Workspace) -> None:
    global _FEEDBACK_API
    _FEEDBACK_API = target.api()


def _feedback_item(item: tuple[int, Submission]) -> str:
    """nbgrader's ``generate_feedback`` of one submission from the course gradebook; ``""`` or what went wrong."""
    submission = item[1]
    done = _FEEDBACK_API.generate_feedback(submission.assignment, submission.student, force=True)
    return "" if done["success"] else _summarise(done.get("log", "") or done.get("error", ""))


def _make_feedback(publisher: _Publisher, journal: Journal, jobs: int) -> None:
    """The feedback that needs the course gradebook (:attr:`_Publisher.deferred`), made once every grade is in it:
    in worker processes, like the grading (a page whose sanitising is slow holds one worker, never the batch), and
    with nothing writing to the gradebook meanwhile. Each result gets its page and its journal line again."""
    items = [(index, result.submission) for index, result in publisher.deferred]
    results = dict(publisher.deferred)

    def made(item: tuple[int, Submission], error: str) -> None:
        result = results[item[0]]
        page = publisher.target.feedback_path(result.submission.student, result.submission.assignment)
        result.feedback = page if page.exists() and not error else None
        if error:
            result.problems.append(f"no feedback: {error}"[:300])
        journal.record(result, -2)

    def lost(item: tuple[int, Submission], reason: str) -> None:
        made(item, f"its worker died: {reason}")

    if items:
        run_contained(items, _feedback_item, made, lost, jobs=max(1, min(jobs, len(items))),
                      initializer=_start_feedback_worker, initargs=(publisher.target,))  # fmt: skip


def _start_worker(course_root: Path, out: Path, feedback: bool, overrides: dict) -> None:
    global _WORKER
    # each worker process its own scratch workspace (a fresh pool after a worker's death gets new ones)
    _WORKER = _Grader(course_root, out, os.getpid(), feedback, overrides)


def _grade_item(item: tuple[int, Submission]) -> tuple[Result, int]:
    assert _WORKER is not None
    return _WORKER.grade(item[1]), _WORKER.slot


class _Publisher:
    """Moves each graded submission from its slot into the course directory, as nbgrader's own commands would
    have left it there: the course gradebook (an upsert, :mod:`autograder.course.gradebook`), ``submitted/``,
    ``autograded/`` and ``feedback/<student>/<assignment>/`` (with ``timestamp.txt``). Runs in the parent
    process only, one submission at a time."""

    def __init__(self, course_root: Path, target: Workspace, out: Path, feedback: bool) -> None:
        self.course_root, self.target, self.out, self.feedback = course_root, target, out, feedback
        self.deferred: list[tuple[int, Result]] = []
        """Submissions whose feedback needs the course gradebook (manual grades, a late penalty): made after the
        batch, in workers (:func:`_make_feedback`)."""

    def publish(self, index: int, result: Result, slot: int) -> None:
        sub = result.submission
        slot_space = Workspace(self.course_root, self.out / "slots" / str(slot))
        autograded = slot_space.autograded_path(sub.student, sub.assignment).parent
        gradebook = submission_gradebook(slot_space.path, sub)
        if slot < 0 or not autograded.is_dir() or not gradebook.exists():
            return  # never graded (an unknown assignment, a failed build): nothing to publish
        submitted = self.target.submission_path(sub.student, sub.assignment).parent
        if submitted.resolve() != sub.path.resolve().parent:
            stage(sub, submitted)
        # read at one path, whichever the submission, so its engine is reused (gradebook.reuse_engines)
        reading = self.out / "slots" / "publishing.db"
        os.replace(gradebook, reading)
        try:
            state = upsert_submission(self.target.db_url, f"sqlite:///{reading}", sub.assignment, sub.student)
        except BaseException:
            os.replace(reading, gradebook)  # left where it was
            raise
        reading.unlink()  # in the course gradebook now
        _copy(autograded, self.target.autograded_path(sub.student, sub.assignment).parent)
        if state["seconds_late"] > 0:
            self._late_penalty(sub)
        if not self.feedback:
            return
        feedback = self.target.feedback_path(sub.student, sub.assignment)
        made = slot_space.feedback_path(sub.student, sub.assignment)
        if state["manual"] or state["seconds_late"] > 0 or not made.exists():
            # the slot knows only the automatic scores: the course gradebook has the rest (after the batch)
            self.deferred.append((index, result))
            return
        _copy(made.parent, feedback.parent)
        result.feedback = feedback if feedback.exists() else None

    def _late_penalty(self, sub: Submission) -> None:
        """nbgrader's own ``AssignLatePenalties`` (its configured plugin) on the course gradebook."""
        from nbgrader.preprocessors import AssignLatePenalties

        penalties = AssignLatePenalties(config=self.target.config())
        info = {"notebook": sub.assignment, "assignment": sub.assignment, "student": sub.student}
        penalties.preprocess(nbformat.v4.new_notebook(), {"nbgrader": {**info, "db_url": self.target.db_url}})


def _copy(source: Path, target: Path) -> None:
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target, symlinks=True)


def grade(
    course_root: Path,
    submissions: list[Submission],
    out: Path,
    *,
    course_dir: Path | None = None,
    feedback: bool = True,
    jobs: int = 1,
    resume: bool = True,
    regrade: set[str] | None = None,
    limits: dict | None = None,
    gradebook_url: str | None = None,
    progress: Callable[[int], Any] | None = None,
) -> list[Result]:
    """Autograde ``submissions`` through the course's nbgrader pipeline into an nbgrader course directory.

    Each submission is graded in a scratch workspace (``out/slots/<k>/``, one per worker; a private SQLite gradebook
    per submission, :func:`submission_gradebook`) by nbgrader's ``autograde`` configured from ``nbgrader_config.py``
    (:mod:`autograder.preprocessors.pipeline`), then published into ``course_dir`` as nbgrader would have left it: the
    gradebook (an upsert that keeps manual grades and comments), ``submitted/``, ``autograded/`` and
    ``feedback/<student>/<assignment>/`` (with ``timestamp.txt``), so the formgrader, ``generate_feedback``,
    ``release_feedback`` and ``nbgrader export`` work on the result. Also writes ``out/grades.csv`` (one row per student
    and assignment: score, max_score, status, error), ``out/exercise_grades.csv`` (one row per graded test cell, with
    the failure message) and ``out/journal.jsonl`` (what is done, for resuming).

    Args:
        course_root: the course directory with ``nbgrader_config.py`` and the source notebooks.
        submissions: from :func:`find_submissions`.
        out: the output folder for the grade files, journal and scratch workspaces (created).
        course_dir: the nbgrader course directory that receives the results; default ``out/course``. The CLI's
            ``grade`` passes ``course_root`` itself.
        feedback: also write feedback HTML.
        jobs: how many submissions to grade at once (worker processes).
        resume: skip submissions already graded into ``out`` whose notebook has not changed since.
        regrade: student ids graded again even when ``resume`` would skip them.
        limits: nbgrader config overrides for the grading kernel, e.g. ``{"LimitedKernelManager.memory_limit": 2**30}``
            (see :mod:`autograder.isolation.limits`; the defaults are in ``nbgrader_config.py``).
        gradebook_url: the course gradebook (a SQLAlchemy URL such as ``postgresql://user@host/db``); default
            the course directory's ``CourseDirectory.db_url`` (``course_dir``'s ``gradebook.db``). Several
            machines (``--shard``) can grade into one PostgreSQL gradebook at once.
        progress: called with the number of submissions to grade; returns a bar with ``update(1)`` and
            ``close()``, e.g. ``lambda n: tqdm(total=n)``.

    Returns:
        One :class:`Result` per submission, in the order given. A submission that cannot be graded has
        ``error`` set; it never stops the others.

    Example:
        >>> results = grade(root, find_submissions(root / "submitted", root), Path("out"), jobs=2)  # doctest: +SKIP
    """
    out = out.resolve()  # nbgrader works from other folders: a relative --out would point elsewhere
    out.mkdir(parents=True, exist_ok=True)
    course_dir = (course_dir or out / "course").resolve()
    journal_path = out / "journal.jsonl"
    if not resume:
        for stale in (journal_path, out / "template"):
            if stale.is_dir():
                shutil.rmtree(stale)
            elif stale.exists():
                stale.unlink()
    journal = Journal(journal_path)
    known = assignments(course_root)
    names = sorted({s.assignment for s in submissions if s.assignment in known} | set(known))
    results: dict[int, Result] = {}
    todo: list[tuple[int, Submission]] = []
    for index, submission in enumerate(submissions):
        done = None if submission.student in (regrade or ()) else journal.done(submission)
        if done is not None:
            results[index] = done
        else:
            todo.append((index, submission))
    jobs = max(1, min(jobs, len(todo)))
    shutil.rmtree(out / "slots", ignore_errors=True)  # scratch workspaces: every result is already published
    bar = progress(len(todo)) if progress and todo else None
    target = course_target(course_root, course_dir, gradebook_url)

    limits = {**batch_config(course_root), **(limits or {})}
    template = out / "template"
    if todo and not (template / "gradebook.db").exists():
        error = Workspace.create(course_root, template, limits).prepare(names)
        if error:
            (template / "build-error.txt").write_text(error, encoding="utf-8")
    if todo and (template / "gradebook.db").exists():
        ensure_assignments(target.db_url, f"sqlite:///{template / 'gradebook.db'}", names)
        # a gradebook that lacks a due date the course's config gives (a fresh PostgreSQL for the shards of a
        # cluster, never prepared with `assignments`) gets it before any submission is graded: no late penalty lost
        dues = {name: duedate_of(target.db_url, name) for name in names}
        configured = {n: when for n, when in due_dates(course_root, []).items() if n in dues and dues[n] is None}
        if configured:
            set_due_dates(target.db_url, configured)
            dues.update(configured)
        # the scratch gradebooks hold no due dates; a timestamp is checked against the course's (course.timestamps)
        limits["DoctorRepairs.duedates"] = {name: due.isoformat() for name, due in dues.items() if due is not None}
    publisher = _Publisher(course_root, target, out, feedback)

    def finished(index: int, result: Result, slot: int) -> None:
        try:
            publisher.publish(index, result, slot)
        except Exception as exc:  # the course gradebook refused (locked, gone): report, go on
            result.error = result.error or f"grading failed: could not record the grade ({type(exc).__name__}: {exc})"
        results[index] = result
        journal.record(result, slot)
        if bar is not None:
            bar.update(1)

    # in worker processes, even one: what nbgrader and the course do with a submission's content (its parsing,
    # sanitising, feedback) can hold only its worker, and a dead worker (the out-of-memory killer) costs only what
    # it was grading, which is graded again alone
    def lost(item: tuple[int, Submission], reason: str) -> None:
        index, submission = item
        result = Result(submission, error=f"grading worker died: {reason}"[:500])
        result.possible = max_points(course_root, submission.assignment)
        finished(index, result, -1)

    run_contained(
        todo,
        _grade_item,
        lambda item, graded: finished(item[0], *graded),
        lost,
        jobs=jobs,
        initializer=_start_worker,
        initargs=(course_root, out, feedback, limits),
    )
    _make_feedback(publisher, journal, jobs)
    if bar is not None:
        bar.close()
    ordered = [results[i] for i in range(len(submissions))]
    write_grades(whole_class(course_root, target, ordered, journal), out)
    return ordered


def whole_class(course_root: Path, target: Workspace, results: list[Result], journal: Journal) -> list[Result]:
    """What the grade files show: every submission of the course gradebook (the whole class, after a ``--student``
    or ``--shard`` run too) with its final score (manual grades, extra credit, late penalty: :meth:`Result.take_final`),
    then this run's submissions that never reached it (an unknown assignment, a failed build). ``results`` get their
    final scores in place. A submission this run did not grade has its status, problems and messages from the
    journal of an earlier run into the same folder, where there is one."""
    try:
        finals = final_grades(target.db_url)
    except Exception:  # the gradebook cannot be read: the batch's own results, as graded
        return results
    known = set(assignments(course_root))
    mine = {(r.submission.student, r.submission.assignment): r for r in results}
    rows = []
    for key, final in finals.items():
        if key[1] not in known:
            continue
        result = mine.get(key) or _earlier(course_root, target, final, journal.entries.get(key))
        result.take_final(final)
        rows.append(result)
    return rows + [r for key, r in mine.items() if key not in finals]


def _earlier(course_root: Path, target: Workspace, final: FinalGrade, entry: dict | None) -> Result:
    submission = Submission(final.student, final.assignment, target.submission_path(final.student, final.assignment))
    result = Result(submission, possible=final.max_score, resumed=True)
    if entry is not None:
        result.error, result.problems = entry.get("error", ""), list(entry.get("problems", []))
        result.cells = [CellResult(**cell) for cell in entry.get("cells", [])]
    exercise_of = exercises(course_root, final.assignment)
    known = {cell.grade_id for cell in result.cells}
    result.cells += [
        CellResult(grade_id, points, top, exercise=exercise_of.get(grade_id, grade_id))
        for grade_id, (points, top) in final.cells.items()
        if grade_id not in known
    ]
    return result


def course_target(course_root: Path, course_dir: Path, gradebook_url: str | None = None) -> Workspace:
    """The nbgrader course directory that receives grades: ``course_root`` itself (its configured folders and
    ``CourseDirectory.db_url``), or another folder set up as a course directory of the same course."""
    course_root, course_dir = course_root.resolve(), course_dir.resolve()
    if course_dir == course_root:
        return Workspace(course_root, course_dir, gradebook_url=gradebook_url, scratch=False)
    return make_course_directory(course_root, course_dir, gradebook_url)


def batch_config(course_root: Path) -> dict[str, str]:
    """The grading config a batch needs beyond the course's: the course's secret for the hidden checks' inputs.

    The sandbox needs nothing per batch: it is an allowlist (:mod:`autograder.isolation.sandbox`), so no course folder,
    class folder or output folder is visible to student code, wherever they are.

    Example:
        >>> batch_config(Path("/course"))
        {'JudgeTests.secret_file': '/course/.course_secret'}
    """
    from ..checks.cases import SECRET_FILE

    return {"JudgeTests.secret_file": str(course_root.resolve() / SECRET_FILE)}


def _summarise(log: str) -> str:
    lines = [_ANSI.sub("", line).strip() for line in log.splitlines() if "[ERROR]" in line or "Error" in line]
    text = " / ".join(dict.fromkeys(line for line in lines if line))
    return (text or "nbgrader autograde failed")[:500]


GRADES_COLUMNS = [
    "student_id",
    "assignment",
    "score",
    "max_score",
    "status",
    "error",
    "problems",
    "autograded_score",
    "late_penalty",
    "manually_graded",
]
"""``grades.csv``'s columns: ``score`` is the final score, as ``nbgrader export`` has it; ``autograded_score`` the
automatic points alone; ``manually_graded`` is ``yes`` where a manual score or extra credit stands."""


def write_grades(results: list[Result], out: Path) -> None:
    """Write ``grades.csv`` and ``exercise_grades.csv`` into ``out`` (every text field safe from spreadsheet
    formulas: :func:`autograder.inert.csv_writer`): one row per submission (:data:`GRADES_COLUMNS`), and one per
    graded cell with its points as nbgrader counts them (a manual score in place of the automatic one)."""
    with open(out / "grades.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv_writer(handle)
        writer.writerow(GRADES_COLUMNS)
        for r in results:
            auto = sum(c.points for c in r.cells) if r.autograded is None else r.autograded
            row = [r.submission.student, r.submission.assignment, f"{r.score:g}", f"{r.max_score:g}", r.status]
            writer.writerow(
                row + [r.error, " | ".join(r.problems), f"{auto:g}", f"{r.late_penalty:g}", "yes" if r.manual else ""]
            )
    with open(out / "exercise_grades.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv_writer(handle)
        writer.writerow(["student_id", "assignment", "exercise", "test_cell", "points", "max_points", "message"])
        for r in results:
            for c in r.cells:
                row = [r.submission.student, r.submission.assignment, c.exercise, c.grade_id]
                writer.writerow(row + [f"{c.points:g}", f"{c.max_points:g}", c.message])

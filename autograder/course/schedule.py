"""``assignments``: the course's assignments in its nbgrader gradebook, with their due dates, in one idempotent step.

``nbgrader generate_assignment`` both records an assignment in the gradebook and writes its release folder; the
course commits that folder (``notebooks/``, written by ``release``), so nbgrader skips the assignment ("Skipping
existing assignment") and records nothing unless forced. This module records without releasing: the assignments'
notebooks, cells and points come from a scratch course directory where nbgrader's own ``generate_assignment`` ran
(:meth:`autograder.course.directory.Workspace.prepare`, cached), and are copied into the course gradebook with
nbgrader's gradebook API (:func:`autograder.course.gradebook.ensure_assignments`); the due dates come from
``c.CourseSchedule.due_dates`` in ``nbgrader_config.py`` or the command line. Running it again changes nothing that
is already right; a due date it is not given is left as the gradebook has it. It releases nothing and grades nothing.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from traitlets import Dict, Unicode
from traitlets.config import Configurable

from .directory import CourseError, Workspace, assignments, load_config
from .gradebook import ensure_assignments, set_due_dates


class CourseSchedule(Configurable):
    """The course's calendar, set in ``nbgrader_config.py``: ``c.CourseSchedule.due_dates``."""

    due_dates = Dict(
        value_trait=Unicode(),
        help="assignment id -> due date, e.g. {'01_pair_counts_and_merge': '2027-01-15 17:00:00 Europe/Berlin'}; "
        "a date without a zone is UTC (nbgrader's rule); `python -m autograder assignments` writes them",
    ).tag(config=True)


@dataclass
class AssignmentState:
    """One assignment as the course gradebook has it after :func:`put_assignments`."""

    name: str
    notebooks: int
    graded_cells: int
    points: float
    duedate: datetime | None

    def line(self) -> str:
        """What ``assignments`` prints for it.

        Example:
            >>> AssignmentState("01", 1, 4, 8.0, datetime(2027, 1, 15, 17)).line()
            '01: 1 notebook, 4 graded cells, 8 points; due 2027-01-15 17:00:00 UTC'
        """
        due = (
            f"due {self.duedate:%Y-%m-%d %H:%M:%S} UTC"
            if self.duedate
            else "no due date (a late submission is neither detected nor penalised)"
        )
        plural = "" if self.notebooks == 1 else "s"
        size = f"{self.notebooks} notebook{plural}, {self.graded_cells} graded cells, {self.points:g} points"
        return f"{self.name}: {size}; {due}"


def parse_due(text: str) -> datetime:
    """A due date as nbgrader stores it (naive UTC), from ISO 8601 (``2027-01-15T17:00+01:00``) or nbgrader's own form
    (``2027-01-15 17:00:00 Europe/Berlin``); a date without a zone is UTC.

    Raises:
        CourseError: ``text`` is not a date (named).

    Example:
        >>> parse_due("2027-01-15T17:00+01:00"), parse_due("2027-01-15 17:00:00 UTC")
        (datetime.datetime(2027, 1, 15, 16, 0), datetime.datetime(2027, 1, 15, 17, 0))
    """
    from nbgrader.utils import parse_utc

    try:
        return parse_utc(text.strip())
    except (ValueError, OverflowError, TypeError) as exc:
        raise CourseError(
            f"not a due date: {text!r} ({exc}); write e.g. 2027-01-15T17:00+01:00 or '2027-01-15 17:00:00 UTC'"
        ) from None


def resolve(known: list[str], name: str) -> str:
    """The assignment ``name`` names: its id, or the unique id it begins (``01`` for ``01_pair_counts_and_merge``).

    Raises:
        CourseError: no assignment, or several, begin with ``name`` (named, with the course's ids).

    Example:
        >>> resolve(["01_pair_counts_and_merge", "02_training_loop"], "01")
        '01_pair_counts_and_merge'
    """
    if name in known:
        return name
    matches = [a for a in known if a.startswith(name)]
    if len(matches) != 1:
        what = "no assignment" if not matches else f"{len(matches)} assignments ({', '.join(matches)})"
        raise CourseError(f"{what} of this course begin with {name!r}; the course's: {', '.join(known)}")
    return matches[0]


def due_dates(course_root: Path, given: list[str]) -> dict[str, datetime]:
    """The due dates to set: ``c.CourseSchedule.due_dates`` of the course's config, then ``given`` (``A=DATE`` from
    the command line, ``A`` an id or its unique beginning) over them.

    Raises:
        CourseError: an unknown assignment, a value without ``=``, or a date that is not one (named).
    """
    known = assignments(course_root)
    configured = dict(load_config(course_root).CourseSchedule.get("due_dates", {}) or {})
    wanted: dict[str, str] = {}
    for name, text in configured.items():
        wanted[resolve(known, str(name))] = str(text)
    for item in given:
        name, sep, text = item.partition("=")
        if not sep or not name.strip() or not text.strip():
            raise CourseError(f"--due takes ASSIGNMENT=DATE, e.g. 01=2027-01-15T17:00+01:00; got {item!r}")
        wanted[resolve(known, name.strip())] = text
    return {name: parse_due(text) for name, text in wanted.items()}


def put_assignments(
    course_root: Path, names: list[str] | None = None, due: list[str] | None = None, db_url: str | None = None
) -> list[AssignmentState]:
    """Put ``names`` (default: every assignment of the course) in the course gradebook with their notebooks, cells and
    points from the source, and set the due dates (:func:`due_dates`). Idempotent.

    Args:
        course_root: the course directory.
        names: assignment ids or their unique beginnings.
        due: ``A=DATE`` strings over the config's ``c.CourseSchedule.due_dates``.
        db_url: the gradebook (default: the course's ``CourseDirectory.db_url``, ``gradebook.db`` at the root); a
            shared PostgreSQL gradebook for a cluster.

    Returns:
        Each assignment of ``names`` as the gradebook now has it.

    Raises:
        CourseError: an unknown assignment or a bad due date (named); nbgrader failed to read a source notebook.

    Example:
        >>> [s.line() for s in put_assignments(Path("."), ["01"], ["01=2027-01-15T17:00Z"])]  # doctest: +SKIP
        ['01_pair_counts_and_merge: 1 notebook, 4 graded cells, 8 points; due 2027-01-15 17:00:00 UTC']
    """
    known = assignments(course_root)
    chosen = [resolve(known, n) for n in names] if names else known
    dates = due_dates(course_root, list(due or []))
    course = Workspace(course_root, course_root, gradebook_url=db_url, scratch=False)
    with tempfile.TemporaryDirectory(prefix="bpe-assignments-") as tmp:
        template = Workspace.create(course_root, Path(tmp) / "template")
        error = template.prepare(chosen)
        if error:
            raise CourseError(f"nbgrader could not read the source notebooks: {error[-1500:]}")
        ensure_assignments(course.db_url, f"sqlite:///{template.path / 'gradebook.db'}", chosen, refresh=True)
    set_due_dates(course.db_url, {name: when for name, when in dates.items() if name in chosen})
    return states(course.db_url, chosen)


def states(db_url: str, names: list[str]) -> list[AssignmentState]:
    """``names`` as the gradebook at ``db_url`` has them (an assignment not there: no notebooks, no points)."""
    from nbgrader.api import Gradebook, MissingEntry

    found = []
    with Gradebook(db_url) as gradebook:
        for name in names:
            try:
                assignment = gradebook.find_assignment(name)
            except MissingEntry:
                found.append(AssignmentState(name, 0, 0, 0.0, None))
                continue
            cells = [c for nb in assignment.notebooks for c in nb.grade_cells]
            found.append(
                AssignmentState(
                    name,
                    len(assignment.notebooks),
                    len(cells),
                    float(sum(c.max_score for c in cells)),
                    assignment.duedate,
                )
            )
    return found

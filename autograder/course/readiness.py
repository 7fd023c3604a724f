"""``doctor``'s course check: what a course directory still lacks before a class is graded, one line per setting.

The settings that decide whether grades come out right are few and easy to miss, because nbgrader's defaults run
without them: the course id (the students' image must say the same), the exchange (``c.Exchange.root``: the folder
your server and every student's share), the late policy (``c.LateSubmissionPlugin.penalty_method``: nbgrader's
default takes nothing off), and, per assignment, that it is in the gradebook with its points and a due date (without
one no submission is late). :func:`check` reads them from ``nbgrader_config.py``, the gradebook and the exchange, and
says for each what it is, or what is missing and the command that gives it; and whether this machine gives each
submission a cgroup (:func:`cgroups`). It changes nothing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..isolation.limits import Cgroup
from .directory import Workspace, assignments, load_config
from .schedule import states

NBGRADER_PENALTIES = {"none": "recorded as late, nothing taken off", "zero": "a late submission scores 0"}


@dataclass
class Finding:
    """One line of the check: ``status`` is ``"ok"``, ``"note"`` (a choice to be sure of) or ``"missing"``."""

    status: str
    text: str

    def line(self) -> str:
        """As ``doctor`` prints it.

        Example:
            >>> Finding("missing", "exchange: none").line()
            'MISSING  exchange: none'
        """
        return f"{self.status.upper() if self.status == 'missing' else self.status:<8} {self.text}"


def check(course_root: Path, db_url: str | None = None) -> list[Finding]:
    """The course's settings and assignments as grading needs them.

    Args:
        course_root: the course directory.
        db_url: the gradebook (default: the course's ``CourseDirectory.db_url``).

    Returns:
        The findings, in the order of the instructors' workflow: course id, exchange, late policy, gradebook and each
        assignment (in the gradebook, points, due date, released).
    """
    config = load_config(course_root)
    found: list[Finding] = []
    course_id = config.CourseDirectory.get("course_id", "")
    if course_id:
        found.append(Finding("ok", f"course id: {course_id} (the students' image must say the same)"))
    else:
        found.append(Finding("missing", "course id: none; set c.CourseDirectory.course_id in nbgrader_config.py"))
    root = config.Exchange.get("root", "/srv/nbgrader/exchange")
    found.append(_exchange(Path(root)))
    method = config.LateSubmissionPlugin.get("penalty_method", "none")
    what = NBGRADER_PENALTIES.get(method, "your plugin decides")
    setting = "set c.LateSubmissionPlugin.penalty_method" if method == "none" else "c.LateSubmissionPlugin"
    found.append(Finding("note" if method == "none" else "ok", f"late submissions: {method!r}, {what} ({setting})"))
    found.append(cgroups())
    course = Workspace(course_root, course_root, gradebook_url=db_url, scratch=False)
    url = course.db_url
    found.append(Finding("ok", f"gradebook: {_safe_url(url)}"))
    try:
        known = states(url, assignments(course_root)) if _exists(url) else []
    except Exception as exc:  # a gradebook that cannot be read: say so, check the rest
        found.append(Finding("missing", f"gradebook cannot be read ({type(exc).__name__}: {str(exc)[:200]})"))
        return found
    by_name = {s.name: s for s in known}
    for name in assignments(course_root):
        state = by_name.get(name)
        if state is None or not state.notebooks:
            found.append(Finding("missing", f"{name}: not in the gradebook; run `python -m autograder assignments`"))
            continue
        released = Path(root) / course_id / "outbound" / name
        where = "released" if released.is_dir() else f"not released (`nbgrader release_assignment {name}`)"
        size = f"{state.graded_cells} graded cells, {state.points:g} points"
        if state.duedate is None:
            late = "no submission is late without one" + (", and no penalty applies" if method != "none" else "")
            status = "note" if method == "none" else "missing"
            found.append(Finding(status, f"{name}: {size}; no due date ({late}: `assignments --due`); {where}"))
        else:
            found.append(Finding("ok", f"{name}: {size}; due {state.duedate:%Y-%m-%d %H:%M:%S} UTC; {where}"))
    return found


def cgroups() -> Finding:
    """Whether each run of student code gets a cgroup here (made and removed to see): its memory, processes and CPU
    time counted for all its processes together, the CPU of a child the kernel reaps unseen included (06's speed
    figure); else the per-process fallback (``autograder.isolation.limits.Cgroup``), said as a note with the way to
    get one."""
    group = Cgroup.create(64 * 1024**2, 16)
    if group is None:
        return Finding(
            "note",
            "cgroups: none writable here: limits hold per process, and 06's speed figure can miss a child the kernel "
            "reaps unseen; for one cgroup per submission run the grader as root in a container, or under "
            "`systemd-run --user --scope -p Delegate=yes`",
        )
    try:
        counted = group.cpu_seconds() is not None
    finally:
        group.close()
    if not counted:
        return Finding(
            "note",
            "cgroups: memory and processes per submission, but no CPU accounting (cpuacct): CPU time is read from "
            "/proc, where 06's speed figure can miss a child the kernel reaps unseen",
        )
    return Finding("ok", "cgroups: one per submission, its memory, processes and CPU time counted together")


def _exchange(root: Path) -> Finding:
    if not root.is_dir():
        return Finding(
            "missing",
            f"exchange: {root} does not exist; create it on the file system the students' servers share "
            f"(mkdir -p {root} && chmod 777 {root}) or set c.Exchange.root",
        )
    if not os.access(root, os.W_OK | os.X_OK):
        return Finding("missing", f"exchange: {root} is not writable here; nbgrader's release and collect need it")
    return Finding("ok", f"exchange: {root} (nbgrader sets the permissions students need when it releases)")


def _exists(url: str) -> bool:
    """Whether the gradebook is there to read (a SQLite file that does not exist is not made by looking)."""
    if url.startswith("sqlite:///"):
        return Path(url[len("sqlite:///") :]).is_file()
    return True


def _safe_url(url: str) -> str:
    """``url`` without its password.

    Example:
        >>> _safe_url("postgresql://grader:secret@db/bpe")
        'postgresql://grader:***@db/bpe'
    """
    head, sep, tail = url.partition("@")
    if sep and ":" in head.split("//", 1)[-1]:
        scheme, _, user = head.rpartition("//")
        return f"{scheme}//{user.split(':', 1)[0]}:***@{tail}"
    return url

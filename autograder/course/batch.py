"""``grade``'s choices before a class is graded: which submissions (a share of the class, some students), and the
isolation it grades with confirmed.

Grading for marks fails closed: :func:`confirm_isolation` raises before any submission is touched when the sandbox
asked for cannot run, or when an instructor's ``extra_distributions`` cannot be shown to student code. This module
grades nothing (:mod:`autograder.course.grading` does) and prints nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..isolation import sandbox
from .directory import CourseError, load_config
from .submissions import Submission


def configured(course_root: Path, name: str, default: Any) -> Any:
    """``LimitedKernelManager.<name>`` as the course's nbgrader config sets it, else ``default``."""
    return load_config(course_root).LimitedKernelManager.get(name, default)


def sandbox_mode(course_root: Path, limits: dict) -> str:
    """The sandbox mode a batch grades with: ``limits``' ``LimitedKernelManager.sandbox``, else the course's
    (``required`` when it says nothing)."""
    return limits.get("LimitedKernelManager.sandbox") or configured(course_root, "sandbox", "required")


def confirm_isolation(course_root: Path, mode: str) -> None:
    """Refuse a class without the isolation ``mode`` asks for, and refuse all of it for one bad extra distribution.

    Raises:
        autograder.isolation.sandbox.SandboxUnavailable: ``mode`` is ``required`` and bubblewrap cannot run, or an
            ``extra_distributions`` entry is not installed (named).
    """
    bwrap = sandbox.resolve(mode)
    if bwrap:
        # the allowlist, and the views of the site folders made (sandbox.site_view), once, before the grading
        # workers are forked: they inherit both instead of each working them out
        sandbox.sandbox_argv(bwrap, extra_distributions=configured(course_root, "extra_distributions", []))


def machine_isolation(course_root: Path | None) -> tuple[str, bool]:
    """What ``python -m autograder doctor`` says: one line on the isolation this machine gives student code under the
    course's sandbox mode (``required`` outside a course: the grader's default), and whether grading for marks would
    go ahead (``False``: it would refuse).

    Example:
        >>> line, ok = machine_isolation(None)
        >>> line.startswith("sandbox: ") and ok == (sandbox.bubblewrap() is not None)
        True
    """
    mode = sandbox_mode(course_root, {}) if course_root is not None else "required"
    try:
        sandbox.resolve(mode)
    except sandbox.SandboxUnavailable:
        return sandbox.status(mode), False
    return sandbox.status(mode), True


def select(
    found: list[Submission], folder: Path, shard: tuple[int, int] | None = None, students: list[str] | None = None
) -> list[Submission]:
    """The submissions of ``found`` to grade: share ``K`` of ``N`` (``shard``: the students in order of their ids,
    every N-th from the K-th, each with all their submissions), and of those only ``students``, when given.

    A student belongs to one shard: two shards never both add the same student to a shared gradebook, and a shard's
    ``grades.csv``, journal and resume are about whole students. ``K`` counts from 1 (a Slurm array ``--array=1-N``;
    a Kubernetes Indexed Job's ``JOB_COMPLETION_INDEX`` counts from 0: ``K = index + 1``).

    Raises:
        CourseError: a student of ``students`` with no submission under ``folder`` (named).

    Example:
        >>> subs = [Submission(s, "01", Path(f"{s}.ipynb")) for s in ("ada", "bob", "cy")]
        >>> [s.student for s in select(subs, Path("."), shard=(1, 2))]
        ['ada', 'cy']
    """
    if shard:
        index, count = shard
        mine = set(sorted({s.student for s in found})[index - 1 :: count])
        found = [s for s in found if s.student in mine]
    if students:
        unknown = set(students) - {s.student for s in found}
        if unknown:
            raise CourseError(f"no submission of student {', '.join(sorted(unknown))} under {folder}")
        found = [s for s in found if s.student in students]
    return found

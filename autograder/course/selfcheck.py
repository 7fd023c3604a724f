"""``check``: a learner's own notebook scored with the hidden tests, by the judge alone or by the whole of ``grade``.

A learner's copy has no course secret, so the hidden checks use the public seed, and isolation is used where it
works (``auto``): what :data:`LEARNER_LIMITS` says. By default the notebook is scored by ``check``'s engine
(:mod:`autograder.course.fastcheck`: the judge, without nbgrader's batch machinery); with ``kernel`` by ``grade``
itself in a scratch folder (nbgrader's ``autograde``, the notebook run in a kernel, then the judge). Either gives the
same score. This module prints nothing (the command line does) and writes no gradebook the learner keeps.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from . import grading, submissions
from .directory import CourseError, assignments

LEARNER_LIMITS = {"LimitedKernelManager.sandbox": "auto", "JudgeTests.seed": "public"}
"""A learner's own notebook: isolation if available; the public seed (no course secret is made in a learner's copy)."""


def submission_of(course_root: Path, path: Path, assignment: str | None = None) -> submissions.Submission:
    """The notebook at ``path`` as student ``you``'s submission of ``assignment`` (default: detected from the
    notebook's name or its cells).

    Raises:
        CourseError: no notebook at ``path``, or one of no assignment of the course (the known ones named).

    Example:
        >>> submission_of(Path("."), Path("missing.ipynb"))  # doctest: +SKIP
        Traceback (most recent call last):
        autograder.course.directory.CourseError: no notebook at missing.ipynb
    """
    if not path.is_file():
        raise CourseError(f"no notebook at {path}")
    known = assignments(course_root)
    assignment = assignment or submissions.detect_assignment(path, known, course_root)
    if assignment is None:
        raise CourseError(f"{path} is not a notebook of this course ({', '.join(known)}); pass --assignment")
    return submissions.Submission("you", assignment, path)


def limits(overrides: dict) -> dict:
    """:data:`LEARNER_LIMITS` with the learner's own ``overrides`` (nbgrader config keys) on top.

    Example:
        >>> limits({"LimitedKernelManager.sandbox": "off"})["LimitedKernelManager.sandbox"]
        'off'
    """
    return {**LEARNER_LIMITS, **overrides}


def check(course_root: Path, submission: submissions.Submission, limits: dict, kernel: bool = False) -> grading.Result:
    """Score ``submission`` as ``grade`` would: by :func:`autograder.course.fastcheck.check_notebook`, or with
    ``kernel`` by :func:`autograder.course.grading.grade` in a scratch folder (no feedback, nothing resumed).

    Raises:
        autograder.isolation.sandbox.SandboxUnavailable: ``limits`` require isolation that this machine lacks.
    """
    if kernel:
        with tempfile.TemporaryDirectory(prefix="bpe-check-") as tmp:
            (result,) = grading.grade(course_root, [submission], Path(tmp), feedback=False, resume=False, limits=limits)
        return result
    from . import fastcheck  # the judge's engine, imported only when it runs

    return fastcheck.check_notebook(course_root, submission, overrides=limits)


def full_marks(result: grading.Result) -> bool:
    """Graded, with points to get, and every one of them got (``check`` exits 0 only then)."""
    return not result.error and result.max_score > 0 and result.score >= result.max_score

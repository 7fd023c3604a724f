"""``demo``: the bundled sample class (:mod:`autograder.course.sample_class`) built and graded as ``grade`` would, into
a course directory of its own, with its documented scores.

The sample class is graded with the public seed (its scores are documented and tested) and with isolation where it
works (``auto``). This module holds no expected scores (the tests do) and prints nothing.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from . import grading, sample_class, submissions

DEMO_LIMITS = {"LimitedKernelManager.sandbox": "auto", "JudgeTests.seed": "public"}
"""The bundled class: isolation if available, and the public seed that its documented scores come from."""


def prepare(course_root: Path, out: Path) -> tuple[list[submissions.Submission], Path]:
    """Write the sample class into ``out/sample_class`` (replacing one there) and find its submissions; returns them
    with the course directory that will receive the grades (``out/course``)."""
    submitted = out / "sample_class"
    if submitted.exists():
        shutil.rmtree(submitted)
    sample_class.build(course_root, submitted)
    return submissions.find_submissions(submitted, course_root), out / "course"


def grade(
    course_root: Path,
    found: list[submissions.Submission],
    out: Path,
    course_dir: Path,
    jobs: int,
    progress: Callable | None = None,
) -> list[grading.Result]:
    """Grade the sample class's submissions ``found`` into ``course_dir`` (grade files in ``out``)."""
    return grading.grade(
        course_root,
        found,
        out,
        course_dir=course_dir,
        jobs=jobs,
        resume=False,
        progress=progress,
        limits=dict(DEMO_LIMITS),
    )

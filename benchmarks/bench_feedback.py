"""Benchmark the feedback page: the course's exporter against nbconvert's own page, on the same graded notebooks.

The bundled sample class (60 notebooks, assignments 01 to 06) is graded once without feedback (``grading.grade``,
the demo's limits), then nbgrader's ``generate_feedback`` makes every student's page twice, in one process, as a
grading slot would: once with the course's exporter as it is (``InertFeedbackExporter``: the page not parsed again
where that changes nothing, code cells' highlighting remembered) and once with nbconvert's ``HTMLExporter`` page in
its place (the same policy, sanitiser and template; only how the page is made differs). The two take turns, page by
page, so that a change in the machine's load falls on both alike. CPU time of this process
(``time.process_time``); the output is the ratio, never an absolute pass or fail.

Usage::

    python benchmarks/bench_feedback.py            # about 3 minutes (2 of them grading the class)
    python benchmarks/bench_feedback.py --jobs 1
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def graded_class(out: Path, jobs: int) -> Path:
    """The sample class graded into ``out/course`` (no feedback); returns that course directory."""
    from autograder.course import demo, grading

    found, course_dir = demo.prepare(ROOT, out)
    results = grading.grade(
        ROOT, found, out / "graded", course_dir=course_dir, feedback=False, jobs=jobs, resume=False,
        limits=dict(demo.DEMO_LIMITS),
    )  # fmt: skip
    failed = [r.submission.student for r in results if r.error]
    if failed:
        raise SystemExit(f"not graded: {failed}")
    return course_dir


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="workers grading the class")
    args = parser.parse_args(argv)
    from nbconvert.exporters import HTMLExporter

    from autograder.course.directory import Workspace
    from autograder.course.gradebook import tune_nbgrader
    from autograder.preprocessors import sanitize_feedback

    tune_nbgrader()
    with tempfile.TemporaryDirectory() as tmp:
        print("grading the sample class (no feedback) ...", flush=True)
        course_dir = graded_class(Path(tmp), args.jobs)
        api = Workspace(ROOT, course_dir, {}, None, scratch=False).api()
        pages = sorted((p.parent.parent.name, p.parent.name) for p in (course_dir / "autograded").glob("*/*/*.ipynb"))
        ours = sanitize_feedback.InertFeedbackExporter.page

        def nbconverts(self: Any, nb: Any, resources: Any = None, **kw: Any) -> Any:
            return HTMLExporter.from_notebook_node(self, nb, resources, **kw)

        def make(student: str, assignment: str) -> None:
            done = api.generate_feedback(assignment, student, force=True)
            if not done["success"]:
                raise SystemExit(f"no feedback for {student}/{assignment}: {done.get('log', '')[-500:]}")

        make(*pages[0])  # imports and templates, on neither side's account
        cpu = {"nbconvert's page": 0.0, "the course's page": 0.0}
        for index, page in enumerate(pages):
            order = list(cpu) if index % 2 else list(reversed(cpu))
            for side in order:
                sanitize_feedback.InertFeedbackExporter.page = nbconverts if side == "nbconvert's page" else ours
                start = time.process_time()
                make(*page)
                cpu[side] += time.process_time() - start
        sanitize_feedback.InertFeedbackExporter.page = ours
    base, new = cpu["nbconvert's page"] / len(pages), cpu["the course's page"] / len(pages)
    print(f"{len(pages)} feedback pages, generate_feedback's CPU a page (taking turns, one process):")
    print(f"  nbconvert's page   {base:.3f} s")
    print(f"  the course's page  {new:.3f} s   ({base / new:.2f}x less)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

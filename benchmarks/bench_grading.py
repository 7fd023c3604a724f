"""Benchmark the two places where users wait on grading, each against the tool they would otherwise use.

1. A class: N students x the four assignments, graded by plain ``nbgrader autograde`` (serial, nbgrader's only
   mode) and by ``python -m autograder grade --jobs J`` (the same nbgrader pipeline, J at a time). Target on
   2 cores: >= 1.8x.
2. A self-check: ``python -m autograder check NOTEBOOK`` (and ``check --kernel``, which also runs the notebook in
   a kernel) against a bare ``jupyter nbconvert --execute`` of the same notebook, median of R runs each. Target:
   at most 1.5x.

Both sides of each comparison run in this one process, one after the other, on the same machine; the
table gives times and their ratio. Usage::

    python benchmarks/bench_grading.py                 # 40 students x 4 assignments, jobs=2, 3 runs
    python benchmarks/bench_grading.py --students 10   # a quicker look
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.course import sample_class  # noqa: E402
from autograder.course.directory import assignments  # noqa: E402


def build_class(folder: Path, students: int) -> int:
    """``students`` submissions per assignment, cycling through the sample class; returns the notebook count."""
    made = 0
    staging = folder.parent / "sample"
    sample_class.build(ROOT, staging)
    for assignment in assignments(ROOT):
        sample = sorted((staging).glob(f"*/{assignment}/{assignment}.ipynb"))
        for index in range(students):
            source = sample[index % len(sample)]
            target = folder / f"student-{index:03d}" / assignment / f"{assignment}.ipynb"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, target)
            made += 1
    return made


def timed(command: list[str], cwd: Path, env: dict | None = None) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):  # `check` exits 1 below full marks
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")
    return elapsed


def bench_class(students: int, jobs: int) -> tuple[float, float, int]:
    with tempfile.TemporaryDirectory(prefix="bench-class-") as tmp:
        tmp = Path(tmp)
        submitted = tmp / "submitted"
        count = build_class(submitted, students)
        # nbgrader's own command (it runs the course's pipeline too, from the same config): a course directory with
        # the same config, sources and submissions
        course = tmp / "nbgrader-course"
        course.mkdir()
        shutil.copy(ROOT / "nbgrader_config.py", course / "nbgrader_config.py")
        shutil.copytree(ROOT / "solutions", course / "solutions")
        shutil.copytree(submitted, course / "submitted")
        for assignment in assignments(ROOT):
            timed(["nbgrader", "generate_assignment", assignment, "--force"], course)
        nbgrader = sum(
            timed(["nbgrader", "autograde", assignment, "--force"], course) for assignment in assignments(ROOT)
        )
        ours_course = tmp / "our-course"  # grade writes into its course directory: never the repository's
        ours_course.mkdir()
        shutil.copy(ROOT / "nbgrader_config.py", ours_course / "nbgrader_config.py")
        for name in ("solutions", "notebooks"):
            shutil.copytree(ROOT / name, ours_course / name)
        ours = timed(
            [sys.executable, "-m", "autograder", "--course", str(ours_course), "grade", str(submitted)]
            + ["--out", str(tmp / "out"), "--jobs", str(jobs), "--no-feedback", "--force"],
            ROOT,
        )
    return nbgrader, ours, count


def bench_check(runs: int) -> list[tuple[str, float, float, float]]:
    rows = []
    for assignment in assignments(ROOT):
        notebook = ROOT / "solutions" / assignment / f"{assignment}.ipynb"
        with tempfile.TemporaryDirectory(prefix="bench-check-") as tmp:
            nbconvert = [
                timed(
                    [sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute"]
                    + ["--output-dir", tmp, str(notebook)],
                    ROOT,
                )
                for _ in range(runs)
            ]
            command = [sys.executable, "-m", "autograder", "check", str(notebook)]
            check = [timed(command, ROOT) for _ in range(runs)]
            with_kernel = [timed([*command, "--kernel"], ROOT) for _ in range(runs)]
        rows.append(
            (assignment, statistics.median(nbconvert), statistics.median(check), statistics.median(with_kernel))
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=40, help="students per assignment (default 40)")
    parser.add_argument("--jobs", type=int, default=2, help="workers for `grade` (default 2)")
    parser.add_argument("--runs", type=int, default=3, help="runs per self-check measurement (default 3)")
    parser.add_argument("--skip-class", action="store_true", help="only the self-check benchmark")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} CPUs; python {sys.version.split()[0]}\n")

    print(f"Self-check latency, median of {args.runs} runs (target: check <= 1.5x nbconvert --execute)")
    print(f"{'notebook':<28}{'nbconvert':>12}{'check':>10}{'ratio':>8}{'check --kernel':>17}{'ratio':>8}")
    for assignment, base, ours, kernel in bench_check(args.runs):
        print(f"{assignment:<28}{base:>11.2f}s{ours:>9.2f}s{ours / base:>7.2f}x{kernel:>16.2f}s{kernel / base:>7.2f}x")

    if not args.skip_class:
        nbgrader, ours, count = bench_class(args.students, args.jobs)
        print(f"\nGrading a class: {count} notebooks ({args.students} students x {count // args.students} assignments)")
        print(f"{'tool':<44}{'time':>10}{'per notebook':>14}")
        print(f"{'nbgrader autograde (serial)':<44}{nbgrader:>9.1f}s{nbgrader / count:>13.2f}s")
        print(f"{f'python -m autograder grade --jobs {args.jobs}':<44}{ours:>9.1f}s{ours / count:>13.2f}s")
        print(f"speed-up: {nbgrader / ours:.2f}x (target >= 1.8x on 2 cores)")


if __name__ == "__main__":
    main()

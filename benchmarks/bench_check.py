"""Benchmark the learner's self-check against running the notebook, in one run, as ratios.

For each notebook (the solution notebook of each assignment by default), median of R runs:

* ``nbconvert``: ``jupyter nbconvert --to notebook --execute`` of the notebook, the baseline (what "run all" costs);
* ``bpe-lab``: ``python -m bpe_lab check NOTEBOOK``, the learner's command-line check (start-up included): the
  notebook's definitions in a fresh process, then the public cases with their expected answers; its ratio;
* ``check``: ``python -m autograder check NOTEBOOK``, the instructor's (scored as ``grade`` does, in the sandboxed
  worker), and its ratio to the baseline;
* ``in-notebook``: every ``check("...")`` of the notebook in one live Python process (the kernel's work once the
  notebook's functions are defined), first call and again, and its ratio to the baseline.

Wall times count the other jobs of a shared machine; the ``cpu`` columns (user + system seconds of the command, or of
the in-notebook checks) are what the same work takes on a quiet one, and the load average is printed first.

Then an endless loop: the release notebook of 01 with a ``merge`` that never returns, through ``check`` and through
``nbconvert --execute`` with the course's cell timeout (``LimitedExecute.cell_timeout`` of nbgrader_config.py, 120 s
of CPU time, given to nbconvert as its wall clock: what a kernel-based run needs to get past the loop). Usage::

    python benchmarks/bench_check.py            # 4 notebooks, 3 runs, the endless loop (about 5 minutes)
    python benchmarks/bench_check.py --runs 1 --notebooks 01_pair_counts_and_merge --no-loop
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import nbformat  # noqa: E402

from autograder.course import sample_class  # noqa: E402
from autograder.course.directory import assignments  # noqa: E402
from bpe_lab import cli, harness, selfcheck  # noqa: E402

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
LOOP_TIMEOUT = 120  # nbgrader_config.py: c.LimitedExecute.cell_timeout (CPU seconds; a spinning loop's wall time)


CPU: list[float] = []  # CPU seconds (user + system) of the last command run: what its wall time is on a quiet machine


def _wall(command: list[str], timeout: float | None = None) -> tuple[float, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=ENV, capture_output=True, timeout=timeout)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return wall, done.returncode


def nbconvert(path: Path, cell_timeout: int | None = None) -> float:
    command = [sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute", "--stdout", str(path)]
    if cell_timeout is not None:
        command += [f"--ExecutePreprocessor.timeout={cell_timeout}", "--allow-errors"]
    return _wall(command)[0]


def lab_cli(path: Path) -> tuple[float, int]:
    return _wall([sys.executable, "-m", "bpe_lab", "check", str(path)])


def check_cli(path: Path) -> tuple[float, int]:
    return _wall([sys.executable, "-m", "autograder", "check", str(path)])


def in_notebook(path: Path) -> tuple[float, float]:
    """CPU seconds for every check("...") cell of the notebook in this process: the first time, then again."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    # the notebook's own __main__, as in its kernel: 06's chunk_counts_file sends a function it defines to worker
    # processes, which find it by name in __main__ (this script's, otherwise)
    module = types.ModuleType("__main__")
    namespace = module.__dict__
    script, sys.modules["__main__"] = sys.modules["__main__"], module
    try:
        for cell_id, source in cli.definitions(nb):  # what `bpe-lab check` runs of the notebook
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(source, cell_id, "exec"), namespace)
        names = cli.graded_functions(nb)
        times = []
        for _ in range(2):
            start = time.process_time()
            with contextlib.redirect_stdout(io.StringIO()):
                for name in names:
                    selfcheck.check(name, namespace[name], namespace)
            times.append(time.process_time() - start)
    finally:
        sys.modules["__main__"] = script
    return times[0], times[1]


def endless_loop_notebook(folder: Path) -> Path:
    assignment = "01_pair_counts_and_merge"
    release = nbformat.read(ROOT / "notebooks" / assignment / f"{assignment}.ipynb", 4)
    answers = {
        "get_pair_counts": sample_class.students()[assignment]["correct-loops"]["get_pair_counts"],
        "merge": "def merge(ids, pair, new_id):\n    while True:\n        pass\n",
    }
    path = folder / f"{assignment}.ipynb"
    nbformat.write(sample_class.fill(release, answers), path)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--notebooks", nargs="+", default=None, metavar="ASSIGNMENT")
    parser.add_argument("--no-loop", action="store_true", help="skip the endless-loop notebook")
    args = parser.parse_args(argv)
    chosen = args.notebooks or assignments(ROOT)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; median of {args.runs} runs\n")
    head = f"{'notebook':<26}{'nbconvert':>10}{'cpu':>7}{'bpe-lab':>9}{'cpu':>7}{'ratio':>7}"
    head += f"{'check':>8}{'cpu':>7}{'ratio':>7}"
    head += f"{'in-notebook cpu':>17}{'again':>7}"
    print(head)
    for assignment in chosen:
        path = ROOT / "solutions" / assignment / f"{assignment}.ipynb"
        base = statistics.median(nbconvert(path) for _ in range(args.runs))
        base_cpu = statistics.median(CPU[-args.runs :])
        lab = statistics.median(lab_cli(path)[0] for _ in range(args.runs))
        lab_cpu = statistics.median(CPU[-args.runs :])
        cli = statistics.median(check_cli(path)[0] for _ in range(args.runs))
        cli_cpu = statistics.median(CPU[-args.runs :])
        harness.forget_timeouts()
        first, again = in_notebook(path)
        print(
            f"{assignment:<26}{base:>9.2f}s{base_cpu:>6.2f}s{lab:>8.2f}s{lab_cpu:>6.2f}s{lab / base:>6.2f}x"
            f"{cli:>7.2f}s{cli_cpu:>6.2f}s{cli / base:>6.2f}x"
            f"{first:>16.2f}s{again:>6.2f}s"
        )
    if not args.no_loop:
        with tempfile.TemporaryDirectory() as tmp:
            path = endless_loop_notebook(Path(tmp))
            lab, lab_code = lab_cli(path)
            lab_loop_cpu = CPU[-1]
            cli, code = check_cli(path)
            loop_cpu = CPU[-1]
            base = nbconvert(path, LOOP_TIMEOUT)
        print(f"\nendless loop in merge (01): nbconvert --execute with the course's {LOOP_TIMEOUT} s cell timeout")
        print(f"{'notebook':<26}{'nbconvert':>10}{'check':>8}{'cpu':>7}{'ratio':>8}")
        row = f"{'01 merge loops forever':<26}{base:>9.2f}s{cli:>7.2f}s{loop_cpu:>6.2f}s{cli / base:>7.3f}x"
        print(f"{row}  (check exit {code})")
        row = f"{'  the same, bpe-lab check':<26}{base:>9.2f}s{lab:>7.2f}s{lab_loop_cpu:>6.2f}s{lab / base:>7.3f}x"
        print(f"{row}  (bpe-lab exit {lab_code})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

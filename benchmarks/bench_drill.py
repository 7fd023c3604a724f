"""Benchmark the drill's judge against ``bpe-lab check`` on the same function, in one run, as ratios.

A small exercise (``merge`` by default, done as the course's solution does it) is judged, median of R runs each:

* ``check``: ``python -m bpe_lab check NOTEBOOK --function NAME`` on the finished assignment notebook, the baseline;
  with ``--baseline-root DIR`` (a checkout of another version of the course, say today's main) that version's
  ``bpe_lab`` is run instead, so the figures compare the two versions on this machine at this moment;
* ``drill``: ``python -m bpe_lab drill NAME --check`` on a drill workspace (``.py``) holding the same function;
* ``drill (judge)``: what the drill prints as the time to judge (the worker's start, the learner's code, the public
  cases), without the command's own start-up.

Both run warm: after one run that is not counted, with the bytecode of every module cached (``PYTHONPYCACHEPREFIX``
in the temporary folder), as an installed package has it.

Wall times count the other jobs of a shared machine; the ``cpu`` columns (user + system seconds of the command and
its children) are what the same work takes on a quiet one, and the load average is printed first. Usage::

    python benchmarks/bench_drill.py                       # merge, 7 runs
    python benchmarks/bench_drill.py --name pretokenize --runs 5 --baseline-root /path/to/main
    python benchmarks/bench_drill.py --python /path/to/learner-venv/bin/python   # the drill as a learner runs it
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import nbformat  # noqa: E402

from autograder.course import sample_class  # noqa: E402
from bpe_lab import drill, pages  # noqa: E402


def _run(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return wall, cpu, done.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--name", default="merge", help="the exercise (default: merge)")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--baseline-root", type=Path, help="the course checkout whose bpe-lab check is the baseline")
    parser.add_argument("--python", default=sys.executable, help="the interpreter of the drill (a learner's venv)")
    args = parser.parse_args(argv)
    exercise = pages.exercise(args.name)
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="bench-drill-") as tmp:
        folder = Path(tmp)
        finished = sample_class.finished(ROOT, exercise.assignment)
        notebook = folder / f"{exercise.assignment}.ipynb"
        nbformat.write(finished, notebook)
        answers = [c.source for c in finished.cells if c.get("metadata", {}).get("nbgrader", {}).get("solution")]
        workspace = drill.write_workspace(exercise, folder / "drills", py=True)
        text = workspace.read_text(encoding="utf-8")
        for name in [*exercise.needs, exercise.name]:  # the stubs replaced by the course's solutions
            done = next(a for a in answers if a.lstrip().startswith(f"def {name}("))
            stub = exercise.needs.get(name, exercise.stub).rstrip()
            text = text.replace(stub, done.rstrip(), 1)
        workspace.write_text(text, encoding="utf-8")
        # warm: the bytecode of every module cached (as an installed package has it; PYTHONDONTWRITEBYTECODE off)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(PYTHONPATH=str(ROOT), BPE_LAB_DATA=str(folder / "data"), PYTHONPYCACHEPREFIX=str(folder / "pyc"))
        if args.python != sys.executable:  # a learner's venv: its own bpe_lab, nothing of this checkout
            env.pop("PYTHONPATH")
        base_env = {**env, "PYTHONPATH": str(args.baseline_root or ROOT)}
        check = [sys.executable, "-m", "bpe_lab", "check", str(notebook), "--function", args.name]
        drill_command = [args.python, "-m", "bpe_lab", "drill", args.name, "--check", "--file", str(workspace)]
        rows: dict[str, list[tuple[float, float]]] = {"check": [], "drill": []}
        judged: list[float] = []
        _run(check, base_env, folder), _run(drill_command, env, folder)  # the warm-up: bytecode written
        for _ in range(args.runs):  # interleaved, so that a change of load hits both alike
            wall, cpu, _ = _run(check, base_env, folder)
            rows["check"].append((wall, cpu))
            wall, cpu, out = _run(drill_command, env, folder)
            rows["drill"].append((wall, cpu))
            found = re.search(r"\(([\d.]+) s to judge\)", out)
            judged.append(float(found[1]) if found else float("nan"))
    base_wall = statistics.median(w for w, _ in rows["check"])
    base_cpu = statistics.median(c for _, c in rows["check"])
    label = f"check ({args.baseline_root})" if args.baseline_root else "check"
    print(f"{args.name}: median of {args.runs} runs")
    print(f"  {'command':<34} {'wall s':>7} {'ratio':>6} {'cpu s':>7} {'ratio':>6}")
    for name, values in (("check", rows["check"]), ("drill", rows["drill"])):
        wall, cpu = statistics.median(w for w, _ in values), statistics.median(c for _, c in values)
        shown = label if name == "check" else f"drill {args.name} --check"
        print(f"  {shown:<34} {wall:7.3f} {wall / base_wall:6.2f} {cpu:7.3f} {cpu / base_cpu:6.2f}")
    print(f"  {'drill: time to judge (printed)':<34} {statistics.median(judged):7.3f} "
          f"{statistics.median(judged) / base_wall:6.2f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())

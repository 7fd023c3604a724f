"""Where a notebook's grading time goes: the stages of ``python -m autograder grade``, timed one by one.

Used by ``bench_grading.py`` (which runs it in a fresh process), or on its own::

    python benchmarks/stages.py --course COURSE --class SUBMITTED --out SCRATCH --json stages.json

``COURSE`` is a course directory (``nbgrader_config.py``, ``solutions/``, ``notebooks/``), ``SUBMITTED`` a class
in nbgrader's ``submitted/`` layout. The product is not modified: this process grades the class one notebook at a
time with the product's own per-worker grader (``autograder.course.grading._Grader``, what each worker of
``grade --jobs N`` runs) and publisher (``_Publisher``: the upsert into the course gradebook), with feedback, and
wraps timers around the product's own entry points (in this process only):

* sandbox start: ``autograder.isolation.sandbox.sandbox_argv`` (the grader's side) plus bubblewrap starting
  ``python -I -S -c pass`` less the same command without bubblewrap, measured on its own (median of 5) and counted
  once per sandbox the grading of a notebook starts (the kernel's, the judge worker's), then taken off the stage
  that started it;
* kernel start: ``LimitedExecute.start_new_kernel`` and ``start_new_kernel_client`` (until the kernel is ready),
  then its shutdown (nbclient's ``_cleanup_kernel``) apart;
* execution: the rest of ``LimitedExecute.preprocess``, the notebook's cells in the kernel;
* judge: ``JudgeTests.preprocess`` (the worker's start, the student's cells again, the test cells in the grader);
* nbgrader's converter: the rest of ``NbGraderAPI.autograde`` (the pre-convert doctor, nbgrader's other
  preprocessors, the gradebook writes, reading and writing the notebook);
* grader bookkeeping: the rest of ``_Grader.grade`` (staging the submission, reading the results back);
* gradebook upsert: ``autograder.course.gradebook.upsert_submission`` (the slot's grades into the course gradebook);
* publishing: the rest of ``_Publisher.publish`` (copying ``autograded/`` and the feedback into the course);
* feedback: ``NbGraderAPI.generate_feedback``.

Each stage's time is exclusive (a stage's inner stages are taken off it), so the stages add up to the whole.
CPU time is that of every process of the run: this process, the kernels, the judge's workers and whatever they
start, read from a cgroup that holds this process (:class:`CpuMeter`); where no cgroup can be made, the busy time of
the whole machine from ``/proc/stat`` (right only on an otherwise idle machine; the output says which).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

STAGES = [
    ("sandbox", "sandbox start (bubblewrap)"),
    ("kernel_start", "kernel start to ready"),
    ("kernel_stop", "kernel shutdown"),
    ("execution", "execution in the kernel"),
    ("judge", "judge (worker, test cells)"),
    ("converter", "nbgrader's converter (the rest)"),
    ("bookkeeping", "grader bookkeeping (stage, read back)"),
    ("upsert", "gradebook upsert"),
    ("publish", "publishing (copy into course)"),
    ("feedback", "feedback (generate_feedback)"),
]


# ---------------------------------------------------------------------------------------------------------------
# CPU time of a process and all it starts
# ---------------------------------------------------------------------------------------------------------------


class CpuMeter:
    """CPU seconds of a group of processes: a cgroup's accounting (v1 ``cpuacct`` or v2 ``cpu.stat``), every process
    that ever ran in it and in the cgroups made under it (the grader's kernel and worker cgroups are), reaped or not;
    else the whole machine's busy time (``/proc/stat``).

    :meth:`create` makes a fresh cgroup under this process's own; :meth:`join` puts a process into it (a command's
    ``preexec_fn``, or this process itself). :meth:`close` removes it.
    """

    def __init__(self, folder: str, usage: str, kind: str) -> None:
        self.folder, self.usage, self.kind = folder, usage, kind

    @classmethod
    def create(cls, name: str) -> CpuMeter:
        own = {}
        with open("/proc/self/cgroup") as handle:
            for line in handle:
                _, controllers, path = line.rstrip("\n").split(":", 2)
                own[controllers] = path
        key = next((k for k in own if "cpuacct" in k.split(",")), None)
        candidates = []
        if key is not None:
            for mount in ("/sys/fs/cgroup/cpuacct", "/sys/fs/cgroup/" + key, "/sys/fs/cgroup/cpu,cpuacct"):
                if os.path.isfile(os.path.join(mount, "cpuacct.usage")):
                    base = os.path.join(mount, own[key].lstrip("/"))
                    candidates.append((base, "cpuacct.usage", "cgroup v1 cpuacct"))
                    break
        if "" in own and os.path.isfile("/sys/fs/cgroup/cgroup.controllers"):
            candidates.append((os.path.join("/sys/fs/cgroup", own[""].lstrip("/")), "cpu.stat", "cgroup v2 cpu.stat"))
        for base, usage, kind in candidates:
            folder = os.path.join(base, f"{name}-{os.getpid()}-{time.monotonic_ns()}")
            try:
                os.mkdir(folder)
            except OSError:
                continue
            meter = cls(folder, os.path.join(folder, usage), kind)
            try:
                meter.join(os.getpid(), probe=True)
            except OSError:
                os.rmdir(folder)
                continue
            return meter
        return cls("", "/proc/stat", "/proc/stat busy time of the whole machine (no cgroup could be made)")

    def join(self, pid: int = 0, probe: bool = False) -> None:
        """Move process ``pid`` (0: the caller) into the group. ``probe``: check that it can, then move it back."""
        if not self.folder:
            return
        pid = pid or os.getpid()
        with open(os.path.join(self.folder, "cgroup.procs"), "w") as handle:
            handle.write(str(pid))
        if probe:  # back where it was: only the processes given to join() are measured
            with open(os.path.join(os.path.dirname(self.folder), "cgroup.procs"), "w") as handle:
                handle.write(str(pid))

    def preexec(self) -> Callable[[], None] | None:
        """A ``preexec_fn`` that puts the new process into the group before it runs the command."""
        if not self.folder:
            return None
        procs = os.path.join(self.folder, "cgroup.procs")

        def join() -> None:
            with open(procs, "w") as handle:
                handle.write(str(os.getpid()))

        return join

    def seconds(self) -> float:
        with open(self.usage) as handle:
            text = handle.read()
        if self.usage.endswith("cpuacct.usage"):
            return int(text.strip() or 0) / 1e9
        if self.usage.endswith("cpu.stat"):
            pairs = (line.partition(" ") for line in text.splitlines())
            return next(int(v) for k, _, v in pairs if k == "usage_usec") / 1e6
        fields = text.splitlines()[0].split()[1:]  # cpu  user nice system idle iowait irq softirq steal ...
        ticks = [int(x) for x in fields]
        busy = sum(ticks) - ticks[3] - (ticks[4] if len(ticks) > 4 else 0)
        return busy / os.sysconf("SC_CLK_TCK")

    def close(self) -> None:
        if self.folder:
            for _ in range(100):
                try:
                    os.rmdir(self.folder)
                    return
                except OSError:
                    time.sleep(0.05)  # processes still leaving


def run_measured(command: list[str], cwd: Path, name: str, ok: tuple[int, ...] = (0,)) -> dict[str, Any]:
    """Run ``command`` in a cgroup of its own: ``{"wall", "cpu", "returncode", "meter", "stderr"}``; exits on a
    return code not in ``ok``."""
    meter = CpuMeter.create(name)
    try:
        before = meter.seconds()
        start = time.perf_counter()
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, preexec_fn=meter.preexec())
        wall = time.perf_counter() - start
        cpu = meter.seconds() - before
    finally:
        meter.close()
    if done.returncode not in ok:
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
    return {"wall": wall, "cpu": cpu, "returncode": done.returncode, "meter": meter.kind, "stderr": done.stderr}


# ---------------------------------------------------------------------------------------------------------------
# exclusive timers around the product's entry points
# ---------------------------------------------------------------------------------------------------------------


class Stages:
    """Exclusive wall and CPU seconds per stage; timers nest (an inner stage's time is taken off the outer one)."""

    def __init__(self, meter: CpuMeter) -> None:
        self.meter = meter
        self.wall: dict[str, float] = {}
        self.cpu: dict[str, float] = {}
        self.starts: dict[str, int] = {}  # sandboxes started from within each stage
        self._stack: list[list[Any]] = []  # [name, wall0, cpu0, inner wall, inner cpu]

    def now(self) -> tuple[float, float]:
        return time.perf_counter(), self.meter.seconds()

    def enter(self, name: str) -> None:
        self._stack.append([name, *self.now(), 0.0, 0.0])

    def leave(self) -> None:
        name, wall0, cpu0, inner_wall, inner_cpu = self._stack.pop()
        wall1, cpu1 = self.now()
        wall, cpu = wall1 - wall0, cpu1 - cpu0
        self.wall[name] = self.wall.get(name, 0.0) + wall - inner_wall
        self.cpu[name] = self.cpu.get(name, 0.0) + cpu - inner_cpu
        if self._stack:
            self._stack[-1][3] += wall
            self._stack[-1][4] += cpu

    @contextlib.contextmanager
    def stage(self, name: str) -> Iterator[None]:
        self.enter(name)
        try:
            yield
        finally:
            self.leave()

    def current(self) -> str:
        return self._stack[-1][0] if self._stack else ""

    def wrap(self, owner: Any, attribute: str, name: str) -> None:
        """Time ``owner.attribute`` (a function or coroutine function) as stage ``name``."""
        original = getattr(owner, attribute)
        if _is_coroutine_function(original):

            @functools.wraps(original)
            async def timed_async(*args: Any, **kwargs: Any) -> Any:
                self.enter(name)
                try:
                    return await original(*args, **kwargs)
                finally:
                    self.leave()

            setattr(owner, attribute, timed_async)
            return

        @functools.wraps(original)
        def timed(*args: Any, **kwargs: Any) -> Any:
            with self.stage(name):
                return original(*args, **kwargs)

        setattr(owner, attribute, timed)


def _is_coroutine_function(function: Any) -> bool:
    import inspect

    return inspect.iscoroutinefunction(function)


def sandbox_start_cost(meter: CpuMeter, runs: int = 5) -> dict[str, float]:
    """Wall and CPU seconds that one sandbox start adds: building the argv (``sandbox_argv``, in the grader) and
    bubblewrap starting ``python -I -S -c pass`` less the same command bare; medians of ``runs``."""
    from autograder.isolation import sandbox

    bwrap = sandbox.resolve("required")
    bare = [sys.executable, "-I", "-S", "-c", "pass"]
    walls, cpus = [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="bench-sandbox-") as files:
            w0, c0 = time.perf_counter(), meter.seconds()
            prefix = sandbox.sandbox_argv(bwrap, files_from=files)
            subprocess.run([*prefix, *bare], check=True, capture_output=True)
            w1, c1 = time.perf_counter(), meter.seconds()
            subprocess.run(bare, check=True, capture_output=True)
            w2, c2 = time.perf_counter(), meter.seconds()
        walls.append((w1 - w0) - (w2 - w1))
        cpus.append((c1 - c0) - (c2 - c1))
    return {"wall": max(0.0, statistics.median(walls)), "cpu": max(0.0, statistics.median(cpus))}


def profile(course: Path, class_dir: Path, out: Path) -> dict[str, Any]:
    """Grade the class in ``class_dir`` one notebook at a time through the product's own grader, timing each stage
    (module docstring). Returns the per-notebook means and the set-up cost."""
    meter = CpuMeter.create("bench-stages")
    meter.join()  # this process, and every process it starts from now on
    try:
        return _profile(course, class_dir, out, meter)
    finally:
        if meter.folder:  # back to the parent cgroup, so that this one can be removed
            with open(os.path.join(os.path.dirname(meter.folder), "cgroup.procs"), "w") as handle:
                handle.write(str(os.getpid()))
        meter.close()


def _profile(course: Path, class_dir: Path, out: Path, meter: CpuMeter) -> dict[str, Any]:
    stages = Stages(meter)
    w0, c0 = stages.now()
    from autograder.course import grading
    from autograder.course.directory import Workspace, assignments
    from autograder.course.gradebook import ensure_assignments
    from autograder.course.submissions import find_submissions
    from autograder.isolation import sandbox
    from autograder.preprocessors.judge_tests import JudgeTests
    from autograder.preprocessors.limited_execute import LimitedExecute

    found = find_submissions(class_dir, course)
    names = sorted(set(assignments(course)))
    out.mkdir(parents=True, exist_ok=True)
    limits = grading.batch_config(course)
    template = out / "template"
    error = Workspace.create(course, template, limits).prepare(names)
    if error:
        raise SystemExit(f"the source notebooks failed to build:\n{error[-2000:]}")
    target = grading.course_target(course, out / "course")
    ensure_assignments(target.db_url, f"sqlite:///{template / 'gradebook.db'}", names)
    publisher = grading._Publisher(course, target, out, True)
    grader = grading._Grader(course, out, 0, True, limits)
    w1, c1 = stages.now()
    setup = {"wall": w1 - w0, "cpu": c1 - c0}

    unit = sandbox_start_cost(meter)
    # nbclient's setup_kernel calls the synchronous ones (run_sync of the async ones, bound to the originals)
    for name in ("start_new_kernel", "start_new_kernel_client"):
        stages.wrap(LimitedExecute, name, "kernel_start")
    stages.wrap(LimitedExecute, "_cleanup_kernel", "kernel_stop")
    stages.wrap(LimitedExecute, "preprocess", "execution")
    stages.wrap(JudgeTests, "preprocess", "judge")
    stages.wrap(grader.api, "autograde", "converter")
    stages.wrap(grader.api, "generate_feedback", "feedback")
    stages.wrap(grading, "upsert_submission", "upsert")
    original_argv = sandbox.sandbox_argv

    def counted_argv(*args: Any, **kwargs: Any) -> list[str]:
        stage = stages.current()
        stages.starts[stage] = stages.starts.get(stage, 0) + 1
        return original_argv(*args, **kwargs)

    sandbox.sandbox_argv = counted_argv  # kernel.py and judge.py call it through the module
    errors = []
    w2, c2 = stages.now()
    for index, submission in enumerate(found):
        with stages.stage("bookkeeping"):
            result = grader.grade(submission)
        with stages.stage("publish"):
            publisher.publish(index, result, grader.slot)
        if result.error:
            errors.append(f"{submission.student}/{submission.assignment}: {result.error}")
    w3, c3 = stages.now()
    sandbox.sandbox_argv = original_argv

    count = len(found)
    starts = sum(stages.starts.values())
    for stage, n in stages.starts.items():  # the sandbox's own cost, off the stage that started it
        stages.wall[stage] -= n * unit["wall"]
        stages.cpu[stage] -= n * unit["cpu"]
    stages.wall["sandbox"] = starts * unit["wall"]
    stages.cpu["sandbox"] = starts * unit["cpu"]
    per = {
        key: {"wall": stages.wall.get(key, 0.0) / count, "cpu": stages.cpu.get(key, 0.0) / count} for key, _ in STAGES
    }
    return {
        "notebooks": count,
        "assignments": sorted({s.assignment for s in found}),
        "meter": meter.kind,
        "setup": setup,
        "sandbox_unit": unit,
        "sandbox_starts_per_notebook": starts / count,
        "stages": per,
        "sum": {"wall": sum(v["wall"] for v in per.values()), "cpu": sum(v["cpu"] for v in per.values())},
        "measured": {"wall": (w3 - w2) / count, "cpu": (c3 - c2) / count},
        "errors": errors,
    }


def print_table(data: dict[str, Any], grade_jobs1: dict[str, float] | None = None) -> None:
    n = data["notebooks"]
    print(f"Per-stage cost of grading one notebook ({n} notebooks, one at a time, with feedback; CPU: {data['meter']})")
    print(f"{'stage':<40}{'wall s':>9}{'CPU s':>9}{'CPU %':>8}")
    total_cpu = data["sum"]["cpu"] or 1.0
    for key, label in STAGES:
        row = data["stages"][key]
        print(f"{label:<40}{row['wall']:>9.3f}{row['cpu']:>9.3f}{100 * row['cpu'] / total_cpu:>7.0f}%")
    print(f"{'sum of the stages':<40}{data['sum']['wall']:>9.3f}{data['sum']['cpu']:>9.3f}")
    setup = data["setup"]
    print(f"{'set-up once per run (imports, gradebook)':<40}{setup['wall']:>9.3f}{setup['cpu']:>9.3f}")
    with_setup = {k: data["sum"][k] + setup[k] / n for k in ("wall", "cpu")}
    print(f"{f'stages + set-up / {n}':<40}{with_setup['wall']:>9.3f}{with_setup['cpu']:>9.3f}")
    if grade_jobs1:
        label = f"grade --jobs 1 on the same {n}, per notebook"
        print(f"{label:<40}{grade_jobs1['wall'] / n:>9.3f}{grade_jobs1['cpu'] / n:>9.3f}")
    unit = data["sandbox_unit"]
    print(
        f"(one sandbox start: {unit['wall']:.3f} s wall, {unit['cpu']:.3f} s CPU; "
        f"{data['sandbox_starts_per_notebook']:.1f} per notebook)"
    )
    for error in data["errors"]:
        print(f"  not gradable: {error}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--course", type=Path, required=True, help="a course directory (a copy: grading writes there)")
    parser.add_argument("--class", dest="class_dir", type=Path, required=True, help="submitted/ layout")
    parser.add_argument("--out", type=Path, required=True, help="scratch folder")
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    data = profile(args.course.resolve(), args.class_dir.resolve(), args.out.resolve())
    if args.json:
        args.json.write_text(json.dumps(data, indent=2))
    else:
        print_table(data)


if __name__ == "__main__":
    main()

"""Benchmark what grading a class costs: plain ``nbgrader autograde`` against ``python -m autograder grade``.

Both sides grade the same class in this one run, on the same machine, one after the other, at each class size:

* **plain nbgrader**, the baseline: a course directory whose ``nbgrader_config.py`` holds nbgrader's defaults only
  (``source_directory = "solutions"``, a scratch ``release_directory``): the test cells run in the kernel, no
  sandbox, no judge, no doctor; ``nbgrader generate_assignment --force`` once per assignment (timed apart: an
  instructor does it once), then ``nbgrader autograde <assignment>`` for each assignment, one after the other
  (nbgrader grades serially);
* **grade**: ``python -m autograder grade SUBMITTED --out OUT --jobs N --no-feedback --force`` in a copy of the
  course (the course's own pipeline: the doctor, the sandboxed kernel, the judge), its start-up and gradebook
  preparation included.

Each side must have graded every notebook: the graded submissions in its gradebook are counted and compared with the
class; the script fails otherwise. Speed is given as ratios (plain wall / grade wall) measured in the same run,
never as an absolute pass or fail; growth with class size as the time per notebook at each size against the
smallest, and the marginal cost of an added notebook between sizes, whose verdict (:func:`print_growth`) is on CPU.
Then the per-stage profile (``benchmarks/stages.py``, the product's own pieces timed one by one on the smallest
class, with feedback) against ``grade --jobs 1`` (with feedback) on the same notebooks.

The class is made from the bundled sample class (``autograder.course.sample_class``), of the same make-up at every
size (:func:`build_class`): a unit of two sample students per assignment, repeated under new names. (Cycling through
all the sample students would give each size a different mix, and time per notebook would then compare mixes, not
sizes.) Assignment 06 (its hidden speed
check trains thousands of merges in the plain loop) is left out unless ``--assignments`` names it.

CPU time is that of each command and every process it starts (kernels, judge workers in their sandboxes, reaped
or not), from a cgroup made for the command (``stages.CpuMeter``; the output names the accounting used).

Usage::

    python benchmarks/bench_grading.py                         # 10, 40 and 160 notebooks, --jobs = CPUs
    python benchmarks/bench_grading.py --sizes 10              # a quick look (about 2 minutes)
    python benchmarks/bench_grading.py --sizes 10,40 --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from stages import CpuMeter, print_table, run_measured  # noqa: E402

from autograder.course import sample_class  # noqa: E402
from autograder.course.directory import assignments  # noqa: E402

DEFAULT_ASSIGNMENTS = [a for a in assignments(ROOT) if not a.startswith("06")]

PLAIN_CONFIG = """\
# nbgrader's defaults, but for where the notebooks are: the test cells run in the kernel, no course pipeline
c = get_config()  # noqa: F821
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = {release!r}
"""


UNIT = 2
"""Sample students per assignment in the class's repeating unit (:func:`build_class`)."""


def build_class(folder: Path, size: int, names: list[str], staging: Path, students: str = "*") -> dict[str, int]:
    """``size`` notebooks in nbgrader's ``submitted/`` layout, of the same make-up at every size, so that time per
    notebook compares across sizes: a unit of :data:`UNIT` sample students per assignment (spread over that
    assignment's sample students whose names match the glob ``students``, in name order), repeated under new
    student names. Notebook ``i`` is assignment ``names[i % A]``. Returns the count per assignment."""
    if not staging.exists():
        sample_class.build(ROOT, staging, only=names)
    counts: dict[str, int] = {}
    for index in range(size):
        assignment = names[index % len(names)]
        sample = sorted(staging.glob(f"{students}/{assignment}/{assignment}.ipynb"))
        if not sample:
            raise SystemExit(f"no sample student of {assignment} matches {students!r}")
        unit = [sample[k * len(sample) // UNIT] for k in range(UNIT)]
        source = unit[(index // len(names)) % UNIT]
        target = folder / f"student-{index // len(names):03d}" / assignment / f"{assignment}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, target)
        counts[assignment] = counts.get(assignment, 0) + 1
    return counts


def graded_in(db_url: str, names: list[str]) -> int:
    """Submissions in a gradebook with an automatic score recorded (every test cell of nbgrader's was scored)."""
    from nbgrader.api import Gradebook

    graded = 0
    with Gradebook(db_url) as gradebook:
        for name in names:
            try:
                submissions = gradebook.assignment_submissions(name)
            except Exception:  # noqa: BLE001 - an assignment never built: none graded
                continue
            for submission in submissions:
                grades = [g for nb in submission.notebooks for g in nb.grades if g.auto_score is not None]
                graded += bool(grades)
    return graded


def _check(side: str, graded: int, expected: int) -> None:
    if graded != expected:
        raise SystemExit(f"FAILED: {side} graded {graded} of the {expected} notebooks of the class (its gradebook)")


def plain_nbgrader(tmp: Path, submitted: Path, names: list[str], expected: int) -> dict[str, Any]:
    course = tmp / "plain-course"
    course.mkdir()
    (course / "nbgrader_config.py").write_text(PLAIN_CONFIG.format(release=str(tmp / "plain-release")))
    shutil.copytree(ROOT / "solutions", course / "solutions")
    shutil.copytree(submitted, course / "submitted")
    generate = [run_measured(["nbgrader", "generate_assignment", a, "--force"], course, "bench-gen") for a in names]
    autograde = [run_measured(["nbgrader", "autograde", a], course, "bench-plain") for a in names]
    graded = graded_in(f"sqlite:///{course / 'gradebook.db'}", names)
    _check("plain nbgrader autograde", graded, expected)
    return {
        "wall": sum(r["wall"] for r in autograde),
        "cpu": sum(r["cpu"] for r in autograde),
        "generate_wall": sum(r["wall"] for r in generate),
        "generate_cpu": sum(r["cpu"] for r in generate),
        "graded": graded,
    }


def our_course(tmp: Path, name: str) -> Path:
    """A copy of the course (``grade`` writes into its course directory: never the repository's)."""
    course = tmp / name
    course.mkdir()
    shutil.copy(ROOT / "nbgrader_config.py", course / "nbgrader_config.py")
    for folder in ("solutions", "notebooks"):
        shutil.copytree(ROOT / folder, course / folder)
    return course


def grade(tmp: Path, submitted: Path, names: list[str], expected: int, jobs: int, feedback: bool) -> dict[str, Any]:
    course = our_course(tmp, f"grade-course-{jobs}-{int(feedback)}")
    out = tmp / f"grade-out-{jobs}-{int(feedback)}"
    command = [sys.executable, "-m", "autograder", "--course", str(course), "grade", str(submitted)]
    command += ["--out", str(out), "--jobs", str(jobs), "--force"] + ([] if feedback else ["--no-feedback"])
    done = run_measured(command, ROOT, "bench-grade", ok=(0, 1))
    graded = graded_in(f"sqlite:///{course / 'gradebook.db'}", names)
    _check(f"grade --jobs {jobs}", graded, expected)
    if done["returncode"] != 0:
        print(f"  note: grade exited {done['returncode']}: {done['stderr'][-300:]}")
    return {"wall": done["wall"], "cpu": done["cpu"], "graded": graded, "returncode": done["returncode"]}


def stage_profile(tmp: Path, submitted: Path) -> dict[str, Any]:
    course = our_course(tmp, "stages-course")
    result = tmp / "stages.json"
    command = [sys.executable, str(Path(__file__).resolve().parent / "stages.py"), "--course", str(course)]
    command += ["--class", str(submitted), "--out", str(tmp / "stages-out"), "--json", str(result)]
    run_measured(command, ROOT, "bench-stages-run")
    return json.loads(result.read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10,40,160", help="class sizes in notebooks (default 10,40,160)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="workers of `grade` (default: CPUs)")
    parser.add_argument(
        "--assignments",
        default=",".join(DEFAULT_ASSIGNMENTS),
        help="the assignments the class cycles over (default: all but 06)",
    )
    parser.add_argument(
        "--students",
        default="*",
        help="the sample students the class is made of, a glob of their names (default: all of them; 'correct-*': "
        "right answers only, where every hidden case runs, as in a class that did its work)",
    )
    parser.add_argument("--no-profile", action="store_true", help="skip the per-stage profile")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    names = [a.strip() for a in args.assignments.split(",") if a.strip()]
    unknown = sorted(set(names) - set(assignments(ROOT)))
    if unknown:
        raise SystemExit(f"unknown assignments: {unknown}")

    meter = CpuMeter.create("bench-probe")
    meter.close()
    load = os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(f"{started}; {os.cpu_count()} CPUs; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"python {sys.version.split()[0]}; CPU time from: {meter.kind}")
    print(
        f"class: {UNIT} sample students ({args.students}) per assignment of {', '.join(names)}, repeated; "
        f"grade --jobs {args.jobs}\n"
    )

    report: dict[str, Any] = {
        "started": started,
        "cpus": os.cpu_count(),
        "load_start": load,
        "jobs": args.jobs,
        "assignments": names,
        "students": args.students,
        "meter": meter.kind,
        "sizes": [],
    }
    with tempfile.TemporaryDirectory(prefix="bench-grading-") as scratch:
        tmp = Path(scratch)
        staging = tmp / "sample"
        for size in sizes:
            folder = tmp / f"size-{size}"
            folder.mkdir()
            submitted = folder / "submitted"
            build_class(submitted, size, names, staging, args.students)
            plain = plain_nbgrader(folder, submitted, names, size)
            ours = grade(folder, submitted, names, size, args.jobs, feedback=False)
            row = {"notebooks": size, "plain": plain, "grade": ours, "ratio": plain["wall"] / ours["wall"]}
            report["sizes"].append(row)
            print(
                f"  {size:>4} notebooks: plain {plain['wall']:.1f} s, grade {ours['wall']:.1f} s, "
                f"{row['ratio']:.2f}x (both graded {size})",
                flush=True,
            )
        print_class_table(report)

        if not args.no_profile:
            smallest = tmp / f"size-{sizes[0]}"
            profile = stage_profile(smallest, smallest / "submitted")
            jobs1 = grade(smallest, smallest / "submitted", names, sizes[0], 1, feedback=True)
            report["profile"] = profile
            report["grade_jobs1_feedback"] = jobs1
            print()
            print_table(profile, jobs1)
    report["load_end"] = os.getloadavg()
    print(f"\nload average at the end: {' '.join(f'{x:.2f}' for x in report['load_end'])}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


def print_class_table(report: dict[str, Any]) -> None:
    jobs = report["jobs"]
    rows = report["sizes"]
    print(f"\nGrading a class: plain nbgrader autograde (serial, nbgrader's defaults) against grade --jobs {jobs}")
    header = (
        f"{'notebooks':>9} | {'plain wall':>10} {'/nb':>6} {'CPU/nb':>7} | {'grade wall':>10} {'/nb':>6} "
        f"{'CPU/nb':>7} | {'ratio':>6} | {'plain /nb vs smallest':>21} {'grade /nb vs smallest':>21}"
    )
    print(header)
    print("-" * len(header))
    first = rows[0]
    for row in rows:
        n, plain, ours = row["notebooks"], row["plain"], row["grade"]
        growth_plain = (plain["wall"] / n) / (first["plain"]["wall"] / first["notebooks"])
        growth_grade = (ours["wall"] / n) / (first["grade"]["wall"] / first["notebooks"])
        row["growth"] = {"plain": growth_plain, "grade": growth_grade}
        print(
            f"{n:>9} | {plain['wall']:>9.1f}s {plain['wall'] / n:>5.2f}s {plain['cpu'] / n:>6.2f}s | "
            f"{ours['wall']:>9.1f}s {ours['wall'] / n:>5.2f}s {ours['cpu'] / n:>6.2f}s | {row['ratio']:>5.2f}x | "
            f"{growth_plain:>20.2f}x {growth_grade:>20.2f}x"
        )
    cpu_ratio = [r["plain"]["cpu"] / r["grade"]["cpu"] for r in rows]
    print(f"CPU ratio (plain CPU / grade CPU): {', '.join(f'{x:.2f}x' for x in cpu_ratio)}")
    gen = rows[-1]["plain"]
    once = f"{gen['generate_wall']:.1f} s wall, {gen['generate_cpu']:.1f} s CPU"
    print(f"(not in plain's time: generate_assignment, once per assignment: {once})")
    if len(rows) > 1:
        print_growth(report)


GROWTH_BOUND = 1.25
"""How much dearer than in the smaller classes a notebook added to the largest may be, and the cost still linear."""


def print_growth(report: dict[str, Any]) -> None:
    """The marginal cost of a notebook between each two class sizes, of wall time and of CPU, and the verdict.

    Linear means a notebook added to a large class costs no more than one added to a small class: the verdict
    compares the last step's marginal cost with the cheapest step before it, in that direction (a notebook that gets
    cheaper as fixed costs spread out is linear), and on CPU time, where the meter counts it: CPU is what the command
    itself did, while wall time also moves with whatever else the machine runs (this benchmark's largest class
    takes minutes). (The time a notebook of the whole class falls anyway as fixed costs spread out, so it shows
    nothing.)
    """
    rows = report["sizes"]
    measure = "cpu" if str(report.get("meter", "")).startswith("cgroup") else "wall"  # /proc/stat: the whole machine's
    marginal: dict[str, dict[str, list[float]]] = {kind: {"plain": [], "grade": []} for kind in ("wall", "cpu")}
    steps = []
    for a, b in zip(rows, rows[1:]):
        extra = b["notebooks"] - a["notebooks"]
        for kind, sides in marginal.items():
            for side in sides:
                sides[side].append((b[side][kind] - a[side][kind]) / extra)
        steps.append(
            f"{a['notebooks']}->{b['notebooks']}: plain {marginal['wall']['plain'][-1]:.2f} s wall, "
            f"{marginal['cpu']['plain'][-1]:.2f} s CPU; grade {marginal['wall']['grade'][-1]:.2f} s wall, "
            f"{marginal['cpu']['grade'][-1]:.2f} s CPU"
        )
    print("marginal cost of an added notebook: " + "; ".join(steps))
    for side, costs in marginal[measure].items() if len(rows) > 2 else ():  # growth needs two steps to compare
        earlier = min(costs[:-1])
        growth = costs[-1] / earlier if earlier > 0 else float("inf")
        verdict = "linear" if growth <= GROWTH_BOUND else "NOT linear"
        print(
            f"growth, {side}: an added notebook's {'CPU' if measure == 'cpu' else 'wall time'} in the largest class "
            f"{growth:.2f}x the cheapest before: {verdict} (bound {GROWTH_BOUND}x)"
        )
    report["marginal"] = marginal["wall"]
    report["marginal_cpu"] = marginal["cpu"]


if __name__ == "__main__":
    main()

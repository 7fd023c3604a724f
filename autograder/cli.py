"""The command line of the course: ``python -m autograder`` (also installed as ``bpe-course``).

Commands:

* ``release [--check] [ASSIGNMENT ...]``: regenerate ``notebooks/`` from ``solutions/``; with ``--check``,
  change nothing and exit 1 when ``notebooks/`` is stale.
* ``assignments [ASSIGNMENT ...] [--due A=DATE ...] [--db-url URL]``: put the assignments (default: all) in the
  course gradebook with their cells, points and due dates (``c.CourseSchedule.due_dates``, ``--due`` over it), as
  ``nbgrader release_assignment``, ``autograde`` and the formgrader need them; idempotent
  (:mod:`autograder.course.schedule`).
* ``doctor [--db-url URL]``: before a class is graded, the isolation this machine gives student code (its first
  line: which bubblewrap, and why; or none, how to get it and how to opt out), then what the course directory
  lacks: course id, exchange, late policy, each assignment in the gradebook with its points and due date
  (:mod:`autograder.course.readiness`); exit 1 when something is missing.
* ``check NOTEBOOK``: a learner's self-check. Scores the notebook as ``grade`` would, hidden tests restored,
  and prints each exercise with its points and failure messages; seconds per endless loop, not minutes
  (:mod:`autograder.course.fastcheck`; ``--kernel`` runs the whole of ``grade`` instead). Exit 0 only for full marks.
* ``grade SUBMISSIONS --out DIR``: autograde a class (nbgrader's ``submitted/`` layout, or a folder of
  notebooks) into the course directory (its gradebook, ``autograded/``, ``feedback/``), as ``nbgrader autograde``
  and ``generate_feedback`` would; ``grades.csv``, ``exercise_grades.csv`` and ``report.html`` go into ``DIR``.
* ``demo [--out DIR]``: ``grade`` the bundled sample class into a course directory of its own (``DIR/course``)
  and print each student's score per exercise.
* ``report [--assignment A] [--db-url URL] [--autograded DIR] [--out FILE] [--json]``: the class report (what
  the class got wrong, flagged and late submissions) from a gradebook; ``grade`` and ``demo`` end with it.
* ``export --db-url URL [--db-url URL ...] [--canvas FILE] [--moodle FILE] [--csv FILE]``: grades in the
  formats an LMS imports, from one gradebook or several (the shards of a class).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

# jsonschema (under nbformat) checks "iri" strings with rfc3987-syntax when it is installed (jupyterlab pulls it
# in), and importing that compiles 38 Lark grammars: about 2 s of every command's start, for a format that
# nbformat's schema never uses. jsonschema treats the package as optional, so do without it here.
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]

from .checks import public_cases  # noqa: E402
from .course import batch, demo, grading, readiness, release, schedule, selfcheck, submissions  # noqa: E402
from .course.directory import CourseError, find_course_root  # noqa: E402
from .inert import terminal_text  # noqa: E402
from .isolation.limits import parse_size, sandbox_status  # noqa: E402
from .isolation.sandbox import SandboxUnavailable  # noqa: E402
from .reports import exports, report, summary  # noqa: E402


def _course(args: argparse.Namespace) -> Path:
    return find_course_root(Path(args.course) if args.course else None)


def _progress(label: str):
    def bar(total: int):
        from tqdm import tqdm

        return tqdm(total=total, desc=label, unit="notebook", file=sys.stderr, dynamic_ncols=True)

    return bar


def cmd_release(args: argparse.Namespace) -> int:
    root = _course(args)
    if args.check:
        problems = release.stale(root, args.assignments or None)
        for line in problems:
            print(line)
        if problems:
            print("the release is stale: run `python -m autograder release` and commit the result.")
            return 1
        print(
            "notebooks/ and the toolkit's data (traces, expected answers) are up to date with solutions/ and bpe_ref."
        )
        return 0
    names = release.generate(root, root / "notebooks", args.assignments or None)
    for name in names:
        print(f"released notebooks/{name}/")
    print(f"wrote the charts' traces ({release.TRACES}/) and the public cases' answers ({public_cases.FOLDER}/)")
    return 0


def cmd_assignments(args: argparse.Namespace) -> int:
    root = _course(args)
    done = schedule.put_assignments(root, args.assignments or None, args.due, args.db_url)
    for state in done:
        print(state.line())
    many = "assignment is" if len(done) == 1 else "assignments are"
    print(f"{len(done)} {many} in the gradebook; release one with `nbgrader release_assignment {done[0].name}`")
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    try:
        root = _course(args)
    except CourseError:  # outside a course directory: the isolation only, with the grader's default mode
        root = None
    line, isolated = batch.machine_isolation(root)
    print(line)  # the first line: the isolation this machine gives student code, and why
    findings = readiness.check(root, args.db_url) if root else []
    for finding in findings:
        print(finding.line())
    missing = sum(1 for f in findings if f.status == "missing")
    if root:
        print(f"{missing} missing" if missing else "nothing missing: the class can be graded")
    return 0 if isolated and not missing else 1


def cmd_check(args: argparse.Namespace) -> int:
    root = _course(args)
    path = Path(args.notebook)
    submission = selfcheck.submission_of(root, path, args.assignment)
    limits = selfcheck.limits(_limits(args))
    print(sandbox_status(limits["LimitedKernelManager.sandbox"]))
    if args.kernel:  # the whole of grade: nbgrader's autograde, the notebook run in a kernel, then the judge
        print(
            f"Grading {terminal_text(path.name)} as {terminal_text(submission.assignment)} as `grade` does, in a "
            "kernel (a few seconds)...",
            flush=True,
        )
    else:  # the same scores from the judge alone, without nbgrader's batch machinery
        print(
            f"Checking {terminal_text(path.name)} as {terminal_text(submission.assignment)}, hidden tests included...",
            flush=True,
        )
    result = selfcheck.check(root, submission, limits, kernel=args.kernel)
    for line in result.solution_errors:
        print(f"  your solution cell {terminal_text(line)}")
    _print(summary.result_lines(result))
    full = selfcheck.full_marks(result)
    print("Full marks." if full else "Not full marks yet: see the messages above.")
    return 0 if full else 1


def cmd_grade(args: argparse.Namespace) -> int:
    root = _course(args)
    found = submissions.find_submissions(Path(args.submissions), root, args.assignment)
    out = Path(args.out)
    mode = batch.sandbox_mode(root, _limits(args))
    print(sandbox_status(mode))
    batch.confirm_isolation(root, mode)  # grading for marks: refuse without isolation unless --sandbox off
    found = batch.select(found, Path(args.submissions), args.shard, args.student)
    results = grading.grade(
        root,
        found,
        out,
        course_dir=root,
        regrade=set(args.student or ()),
        feedback=not args.no_feedback,
        jobs=args.jobs,
        resume=not args.force,
        limits=_limits(args),
        gradebook_url=args.db_url,
        progress=_progress("grading"),
    )
    _print(summary.class_lines(results, out, root))
    print(summary.write_class_report(root, root, out, args.db_url, args.assignment))
    failed = grading.failed_by_the_grader(results)
    if failed:  # not done: a scheduler must see it (a shard's job fails, not half a class silently)
        print(
            f"error: {len(failed)} submission{'s' * (len(failed) != 1)} not graded for the grader's own reasons "
            "(see above); run the same command again to grade just those",
            file=sys.stderr,
        )
        return 1
    return 0


def _limits(args: argparse.Namespace) -> dict:
    limits = {}
    if args.memory_limit is not None:
        limits["LimitedKernelManager.memory_limit"] = args.memory_limit
    if args.cpu_limit is not None:
        limits["LimitedKernelManager.cpu_limit"] = args.cpu_limit
    if args.output_limit is not None:
        limits["LimitedExecute.max_output_bytes"] = args.output_limit
    if args.cell_timeout is not None:
        limits["LimitedExecute.cell_timeout"] = float(args.cell_timeout)
        limits["JudgeTests.cell_timeout"] = float(args.cell_timeout)
    if args.sandbox is not None:
        limits["LimitedKernelManager.sandbox"] = args.sandbox
    return limits


def _size(text: str) -> int:
    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _shard(text: str) -> tuple[int, int]:
    try:
        index, count = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--shard takes K/N, e.g. 2/4; got {text!r}") from None
    if not 1 <= index <= count:
        raise argparse.ArgumentTypeError(f"--shard K/N needs 1 <= K <= N; got {text!r}")
    return index, count


def _print(lines: list[str]) -> None:
    for line in lines:
        print(line)


def cmd_demo(args: argparse.Namespace) -> int:
    root = _course(args)
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="bpe-demo-"))
    found, course_dir = demo.prepare(root, out)
    print(sandbox_status("auto"))  # the bundled class: isolation if available
    results = demo.grade(root, found, out, course_dir, args.jobs, progress=_progress("grading the sample class"))
    _print(summary.class_lines(results, out, course_dir))
    print(summary.write_class_report(root, course_dir, out))
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    target = grading.course_target(_course(args), _course(args))
    url, autograded = target.db_url, target.folder("autograded")
    built = report.build_report(args.db_url or url, args.autograded or autograded, args.assignment)
    text = report.to_json(built) if args.json else report.render_html(built)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"wrote {args.out}")
    else:
        sys.stdout.write(text)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    if not (args.canvas or args.moodle or args.csv):
        raise CourseError("export needs at least one of --canvas FILE, --moodle FILE, --csv FILE")
    sheet = exports.collect(
        args.db_url or [grading.course_target(_course(args), _course(args)).db_url], args.assignment
    )
    for path, write in ((args.canvas, exports.write_canvas), (args.moodle, exports.write_moodle)):
        if path:
            write(sheet, Path(path))
            print(f"wrote {path}")
    if args.csv:
        exports.write_combined(sheet, Path(args.csv))
        print(f"wrote {args.csv}")
    for line in exports.warnings(sheet):
        print(f"warning: {terminal_text(line)}")
    return 0


def _limit_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--memory-limit", type=_size, help="memory of a grading kernel, e.g. 2G (default: nbgrader_config)")
    p.add_argument("--cpu-limit", type=int, help="CPU seconds of a grading kernel (default: nbgrader_config)")
    p.add_argument("--output-limit", type=_size, help="output bytes kept per cell, e.g. 1M (default: nbgrader_config)")
    p.add_argument(
        "--cell-timeout",
        type=int,
        help="CPU seconds a cell may use (default: nbgrader_config; its wall clock is set there)",
    )
    p.add_argument(
        "--sandbox",
        choices=["required", "bwrap", "auto", "off"],
        help="isolate student code with bubblewrap: required (grade's default: refuse without it), auto (if it works: "
        "check's default), off (no isolation; say so only when the grader is isolated otherwise)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m autograder",
        description="Release, self-check and grade the bpe-course notebooks with nbgrader.",
    )
    parser.add_argument("--course", help="the course directory (default: found from the working directory)")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("release", help="regenerate notebooks/ from solutions/")
    p.add_argument("assignments", nargs="*", help="assignment ids (default: all)")
    p.add_argument("--check", action="store_true", help="change nothing; exit 1 if notebooks/ is stale")
    p.set_defaults(func=cmd_release)

    p = sub.add_parser("assignments", help="put the assignments and their due dates in the gradebook (idempotent)")
    p.add_argument("assignments", nargs="*", help="assignment ids or their beginnings, e.g. 01 (default: all)")
    p.add_argument(
        "--due",
        action="append",
        default=[],
        metavar="A=DATE",
        help="a due date, e.g. 01=2027-01-15T17:00+01:00 (no zone: UTC); repeatable; over c.CourseSchedule.due_dates",
    )
    p.add_argument("--db-url", help="the course gradebook (default: the course's CourseDirectory.db_url)")
    p.set_defaults(func=cmd_assignments)

    p = sub.add_parser("doctor", help="what this machine and the course directory lack before a class is graded")
    p.add_argument("--db-url", help="the course gradebook (default: the course's CourseDirectory.db_url)")
    p.set_defaults(func=cmd_doctor)

    p = sub.add_parser("check", help="self-check one notebook with the hidden tests; exit 0 only for full marks")
    p.add_argument("notebook", help="path of your notebook (.ipynb)")
    p.add_argument("--assignment", help="the assignment id (default: detected from the notebook)")
    p.add_argument(
        "--kernel",
        action="store_true",
        help="grade exactly as `grade` does, nbgrader and a Jupyter kernel included (same score, seconds more)",
    )
    _limit_options(p)
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("grade", help="autograde a class of submissions")
    p.add_argument("submissions", help="nbgrader's submitted/ folder, or a folder of notebooks")
    p.add_argument("--out", required=True, help="folder for grades.csv, exercise_grades.csv and scratch workspaces")
    p.add_argument("--assignment", help="grade only this assignment (and use it for a flat folder)")
    p.add_argument("--no-feedback", action="store_true", help="do not write feedback HTML")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="submissions graded at once (default: CPUs)")
    p.add_argument("--shard", type=_shard, help="grade only share K of N (K/N), to split a class over machines")
    p.add_argument("--force", action="store_true", help="grade everything again, even what --out already holds")
    p.add_argument(
        "--student",
        action="append",
        metavar="ID",
        help="grade only this student (again, even if unchanged); may be given several times",
    )
    p.add_argument(
        "--db-url",
        help="the course gradebook, e.g. postgresql://user:password@host/db "
        "(default: the course's CourseDirectory.db_url, SQLite gradebook.db at the course root)",
    )
    _limit_options(p)
    p.set_defaults(func=cmd_grade)

    p = sub.add_parser("demo", help="grade the bundled sample class and print the scores")
    p.add_argument("--out", help="output folder (default: a new temporary folder)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="submissions graded at once (default: CPUs)")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("report", help="the class report: what the class got wrong, flagged and late submissions")
    p.add_argument("--assignment", help="report on this assignment only (default: every assignment)")
    p.add_argument("--db-url", help="the nbgrader gradebook (default: the course's CourseDirectory.db_url)")
    p.add_argument("--autograded", help="nbgrader's autograded/ folder (default: the course's)")
    p.add_argument("--out", help="write the report to this file (default: standard output)")
    p.add_argument("--json", action="store_true", help="JSON for scripts instead of HTML")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("export", help="grades as Canvas or Moodle import CSV, or one CSV across shards")
    p.add_argument(
        "--db-url", action="append", help="a gradebook; repeat for the shards of a class (default: the course's)"
    )
    p.add_argument("--assignment", action="append", help="export this assignment (repeatable; default: all)")
    p.add_argument("--canvas", help="write a Canvas gradebook import CSV here")
    p.add_argument("--moodle", help="write a Moodle grade import CSV here")
    p.add_argument("--csv", help="write one row per student and assignment, across every gradebook, here")
    p.set_defaults(func=cmd_export)

    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from .course.gradebook import tune_nbgrader

    tune_nbgrader()  # the schema head in process (works with nothing on PATH), gradebook engines reused
    try:
        return args.func(args)
    except (CourseError, SandboxUnavailable) as exc:
        print(f"error: {terminal_text(exc)}", file=sys.stderr)
        return 2

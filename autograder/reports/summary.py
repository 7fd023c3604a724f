"""What the terminal shows after grading: a learner's result, the class's table, and the class report written beside
the grade files.

``check`` ends with :func:`result_lines`; ``grade`` and ``demo`` with :func:`class_lines` and
:func:`write_class_report`. Text only, built from :class:`autograder.course.grading.Result`; this module prints nothing
(the command line does), grades nothing and changes no gradebook.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from ..course import grading
from ..course.directory import CourseError
from ..inert import terminal_text
from . import report


def result_lines(result: grading.Result, indent: str = "") -> list[str]:
    """One submission's score and each test cell's points, with the first lines of each failure's message.

    Example:
        >>> from autograder.course.submissions import Submission
        >>> result_lines(grading.Result(Submission("you", "01", Path("x.ipynb")), error="no such file"))
        ['01: not graded: no such file']
    """
    sub, t = result.submission, terminal_text  # what a submission chose is shown with its control characters escaped
    if result.error:
        return [f"{indent}{t(sub.assignment)}: not graded: {t(result.error)}"]
    lines = [f"{indent}{t(sub.assignment)}: {result.score:g} / {result.max_score:g} points"]
    for cell in result.cells:
        mark = "PASS" if cell.points >= cell.max_points else "FAIL"
        lines.append(f"{indent}  {mark}  {cell.exercise:<22} {cell.grade_id:<34} {cell.points:g} / {cell.max_points:g}")
        if cell.message and cell.points < cell.max_points:
            lines += [f"{indent}          {t(line)}" for line in [*cell.message.splitlines()[:4], *cell.where]]
    return lines


def class_lines(results: list[grading.Result], out: Path, course_dir: Path) -> list[str]:
    """Per assignment, a table of each student's points per exercise and final total (the course gradebook's: manual
    grades, extra credit and the late penalty applied, each said beside the total); then the problems the doctor
    found, what this run graded (:func:`count_line`), and where the grades and the course directory are. Every name and
    message from a submission has its control characters escaped (:func:`autograder.inert.terminal_text`)."""
    t = terminal_text
    lines: list[str] = []
    by_assignment: dict[str, list[grading.Result]] = defaultdict(list)
    for result in results:
        by_assignment[result.submission.assignment].append(result)
    for assignment, rows in by_assignment.items():
        exercises = list(dict.fromkeys(c.exercise for r in rows for c in r.cells))
        name_width = max([len("student"), *(len(t(r.submission.student)) for r in rows)]) + 2
        widths = [max(len(e), 7) + 2 for e in exercises]
        lines.append(f"\n{t(assignment)}")
        header = f"  {'student':<{name_width}}" + "".join(f"{e:>{w}}" for e, w in zip(exercises, widths))
        lines.append(header + f"{'total':>9}")
        for r in rows:
            per: defaultdict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
            for c in r.cells:
                per[c.exercise][0] += c.points
                per[c.exercise][1] += c.max_points
            cols = "".join(
                f"{(f'{per[e][0]:g}/{per[e][1]:g}' if e in per else '-'):>{w}}" for e, w in zip(exercises, widths)
            )
            total = f"{r.score:g}/{r.max_score:g}"
            line = f"  {t(r.submission.student):<{name_width}}{cols}{total:>9}"
            notes = [f"late: -{r.late_penalty:g}"] * (r.late_penalty > 0) + ["graded by hand"] * r.manual
            notes += [f"not graded: {t(r.error[:200])}"] * bool(r.error)
            lines.append(line + "".join(f"  {note}" for note in notes))
    flagged = [r for r in results if r.problems]
    if flagged:
        lines.append("\nproblems found (also in grades.csv and in each student's feedback):")
        for r in flagged:
            lines += [f"  {t(r.submission.student)}/{t(r.submission.assignment)}: {t(p)}" for p in r.problems]
    lines.append("\n" + count_line(results))
    lines.append("  scores: final, as `nbgrader export` has them (manual grades, extra credit, late penalties applied)")
    lines.append(f"  grades of the whole class: {out}/grades.csv, {out}/exercise_grades.csv")
    lines.append(
        f"  nbgrader course directory: {course_dir}/ (gradebook, autograded/, feedback/<student>/<assignment>/);"
    )
    lines.append("  review there with the formgrader, then `nbgrader release_feedback` or `nbgrader export`")
    return lines


def count_line(results: list[grading.Result]) -> str:
    """What this run did, counted: graded now, left as an earlier run graded them, could not be graded.

    Example:
        >>> from autograder.course.submissions import Submission
        >>> done = grading.Result(Submission("ada", "01", Path("a.ipynb")), resumed=True)
        >>> count_line([done, grading.Result(Submission("bob", "01", Path("b.ipynb")), error="corrupt")])
        '1 submission graded now (1 could not be graded), 1 unchanged since an earlier run and not graded again'
    """
    now = [r for r in results if not r.resumed]
    errors = sum(1 for r in now if r.error)
    line = f"{len(now)} submission{'s' * (len(now) != 1)} graded now ({errors} could not be graded)"
    earlier = len(results) - len(now)
    if earlier:
        line += f", {earlier} unchanged since an earlier run and not graded again"
    return line


def write_class_report(
    course_root: Path, course_dir: Path, out: Path, db_url: str | None = None, assignment: str | None = None
) -> str:
    """The last step of ``grade`` and ``demo``: ``report.html`` in ``out`` from the course directory's gradebook and
    ``autograded/``; returns the line to show. A failure is said in that line, never raised."""
    target = grading.course_target(course_root, course_dir, db_url)
    url, autograded = target.db_url, target.folder("autograded")
    try:
        page = report.render_html(report.build_report(url, autograded, assignment))
    except CourseError as exc:
        return f"no class report: {exc}"
    (out / "report.html").write_text(page, encoding="utf-8")
    return f"  {out}/report.html: the class report (what the class got wrong, flagged and late submissions)"

"""The instructor's class report: what a class got wrong, at a glance, built from nbgrader's gradebook.

:func:`build_report` reads only what nbgrader keeps: the scores from the gradebook (any SQLAlchemy URL that
:class:`nbgrader.api.Gradebook` opens: the course's SQLite ``gradebook.db`` or a shared PostgreSQL database) and
the failure messages from the test cells' error outputs in the autograded notebooks
(``autograded/<student>/<assignment>/<notebook>.ipynb``). For every test cell it groups the failing students by
their mistake: the smallest failing input that the test names, and the value the student's function returned
(:func:`parse_failure` reads both message styles: a hidden check's three lines from :func:`bpe_lab.harness.fail`
and a visible assert's ``"<call> returned <value>"``). It also lists the problems the doctor found in a
submission (:func:`autograder.doctor.report_cell` puts them at the top of the graded notebook) and the late
submissions (nbgrader's ``SubmittedAssignment.total_seconds_late`` and ``late_submission_penalty``).

:func:`render_html` writes one self-contained page (charts as PNG data URIs, no JavaScript, escaped text: a
student's output is hostile), readable on paper and on a phone; :func:`to_json` is the same data for scripts.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import html
import io
import json
import re
import statistics
import typing
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from bpe_lab import cells

from .. import doctor
from ..course.directory import CourseError
from ..course.gradebook import final_score

_FAILURE_PREFIXES = ("CheckFailed: ", "ExampleFailed: ", "AssertionError: ")
_CALL = re.compile(r"[A-Za-z_]\w*\(.*\)", re.S)
_NO_MESSAGE = "(no failure message recorded)"


# ---------------------------------------------------------------------------------------------------------------
# reading one failure message
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Failure:
    """One failure message, read: the call it names (``""`` if none), the expected and the returned value."""

    call: str
    returned: str
    expected: str = ""


def _value_end(text: str) -> int:
    """Where the Python value at the start of ``text`` ends: at the first ``", "``, ``": "`` or ``" ("`` outside
    brackets and quotes (``[7, 7], expected [7, 5]`` -> the index after ``[7, 7]``)."""
    depth, quote, index = 0, "", 0
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif depth <= 0 and text.startswith((", ", ": ", " ("), index):
            return index
        index += 1
    return len(text)


def parse_failure(message: str) -> Failure:
    """Read a test cell's failure message into the call it names, the value returned and the value expected.

    Two styles, both written by the course's test cells: a hidden check's three lines
    (:func:`bpe_lab.harness.fail`: the call, ``expected: ...``, ``returned: ...`` or ``raised: ...``) and a
    visible assert's one line, ``"<call> returned <value>[, expected <value>][: note]"``. Any other message
    (``NotImplementedError``, an assert without a call) is kept whole as the returned text, with no call.

    Args:
        message: the message as :func:`autograder.course.grading.read_results` gives it (``"ExceptionName: text"``).

    Returns:
        A :class:`Failure`; ``call`` is ``""`` when the message names no call.

    Example:
        >>> parse_failure("AssertionError: merge([5, 5, 5], (5, 5), 7) returned [7, 7]")
        Failure(call='merge([5, 5, 5], (5, 5), 7)', returned='[7, 7]', expected='')
        >>> parse_failure("CheckFailed: merge([5, 5, 5], (5, 5), 7)\\n  expected: [7, 5]\\n  returned: [7, 7]")
        Failure(call='merge([5, 5, 5], (5, 5), 7)', returned='[7, 7]', expected='[7, 5]')
        >>> parse_failure("ExampleFailed: merge([5, 5, 5], (5, 5), 7)  # skip\\n  expected: [7, 5]\\n  returned: [7]")
        Failure(call='merge([5, 5, 5], (5, 5), 7)', returned='[7]', expected='[7, 5]')
    """
    text = message.strip()
    for prefix in _FAILURE_PREFIXES:
        if text.startswith(prefix):
            text = text[len(prefix) :]
            break
    if not text:
        return Failure("", _NO_MESSAGE)
    lines = text.splitlines()
    if len(lines) >= 3 and lines[1].startswith("  expected: "):  # a hidden check (harness.fail)
        call = lines[0].split("  # ", 1)[0].strip()
        expected = lines[1][len("  expected: ") :]
        outcome = lines[2].strip()
        if outcome.startswith("returned: "):
            rest = outcome[len("returned: ") :]
            outcome = rest[: _value_end(rest)]
        elif outcome == "raised: NotImplementedError":  # the release stub, whatever the input: not attempted
            return Failure("", "NotImplementedError")
        return Failure(call, outcome, expected)
    first = lines[0]
    head, sep, rest = first.partition(" returned ")
    if sep and _CALL.fullmatch(head.strip()):
        value = rest[: _value_end(rest)]
        after = rest[len(value) :]
        expected = ""
        if after.startswith(", expected "):
            tail = after[len(", expected ") :]
            expected = tail[: _value_end(tail)]
        return Failure(head.strip(), value, expected)
    return Failure("", first[:300])


# ---------------------------------------------------------------------------------------------------------------
# the report's data
# ---------------------------------------------------------------------------------------------------------------


@dataclass
class Mistake:
    """The students whose function gave the same wrong answer on the same smallest failing input."""

    call: str
    returned: str
    expected: str
    students: list[str]
    example: str

    @property
    def count(self) -> int:
        return len(self.students)


@dataclass
class TestStats:
    """One test cell of an assignment: how many passed, and the mistakes of those who failed, most frequent first."""

    name: str
    exercise: str
    max_points: float
    passed: int
    graded: int
    mistakes: list[Mistake] = field(default_factory=list)

    @property
    def failed(self) -> int:
        return self.graded - self.passed

    @property
    def pass_rate(self) -> float:
        return self.passed / self.graded if self.graded else 0.0


@dataclass
class ExerciseStats:
    """One exercise (the solution cell above its test cells): full marks, and the mean of its points."""

    name: str
    max_points: float
    full_marks: int
    graded: int
    mean_points: float

    @property
    def pass_rate(self) -> float:
        return self.full_marks / self.graded if self.graded else 0.0


@dataclass
class SubmissionRow:
    """One student's submission: nbgrader's score, its late penalty, and the doctor's findings."""

    student: str
    score: float
    max_score: float
    penalty: float = 0.0
    timestamp: str = ""
    duedate: str = ""
    seconds_late: float = 0.0
    problems: list[dict[str, str]] = field(default_factory=list)  # {"kind": ..., "text": ...}

    @property
    def final_score(self) -> float:
        """The score less the late penalty, never below 0 (:func:`autograder.course.gradebook.final_score`)."""
        return final_score(self.score, self.penalty)


@dataclass
class AssignmentReport:
    """The report of one assignment."""

    name: str
    max_score: float
    duedate: str
    submissions: list[SubmissionRow]
    tests: list[TestStats]
    exercises: list[ExerciseStats]

    @property
    def flagged(self) -> list[SubmissionRow]:
        return [s for s in self.submissions if s.problems]

    @property
    def late(self) -> list[SubmissionRow]:
        return [s for s in self.submissions if s.seconds_late > 0 or s.penalty > 0]


@dataclass
class Report:
    """The class report: one :class:`AssignmentReport` per assignment, from one gradebook."""

    gradebook: str  # the URL, password hidden
    autograded: str
    generated: str
    assignments: list[AssignmentReport]


# ---------------------------------------------------------------------------------------------------------------
# building it from the gradebook and the autograded notebooks
# ---------------------------------------------------------------------------------------------------------------


def safe_url(db_url: str) -> str:
    """``db_url`` with its password hidden, for messages (``postgresql://bpe:***@host/db``)."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(db_url).render_as_string(hide_password=True)
    except Exception:  # not a URL at all: say so without echoing a secret
        return "(an unreadable database URL)"


def open_gradebook(db_url: str):
    """Open an existing nbgrader gradebook; never create one (nbgrader would make an empty SQLite file).

    Raises:
        CourseError: a SQLite gradebook whose file does not exist, or a database that cannot be opened; the
            message names the URL with its password hidden.

    Example:
        >>> with open_gradebook("sqlite:///out/course/gradebook.db") as gradebook:  # doctest: +SKIP
        ...     print([a.name for a in gradebook.assignments])
    """
    from nbgrader.api import Gradebook
    from sqlalchemy.engine import make_url

    shown = safe_url(db_url)
    try:
        url = make_url(db_url)
    except Exception:
        raise CourseError(f"not a database URL: {shown}") from None
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
        if not Path(url.database).is_file():
            raise CourseError(f"no gradebook at {url.database} ({shown})")
    try:
        return Gradebook(db_url)
    except Exception as exc:
        raise CourseError(f"cannot open the gradebook {shown}: {type(exc).__name__}") from None


def _read_notebook(path: Path, root: Path):
    """The autograded notebook at ``path`` if it lies inside ``root`` and can be read, else ``None``."""
    try:
        resolved = path.resolve()
        if root not in resolved.parents or not resolved.is_file() or resolved.stat().st_size > doctor.MAX_BYTES:
            return None
        return nbformat.reads(resolved.read_text(encoding="utf-8", errors="replace"), 4)
    except Exception:  # a notebook nbformat cannot read: no messages, the scores still count
        return None


def _submissions(assignment) -> list:
    """The assignment's submissions with their students, notebooks, grades and grade cells loaded in a few queries
    (SQLAlchemy's ``selectinload``), not one query for each of them as the objects are read."""
    from nbgrader.api import Grade, SubmittedAssignment, SubmittedNotebook
    from sqlalchemy.orm import object_session, selectinload

    session = object_session(assignment)
    if session is None:
        return list(assignment.submissions)
    return (
        session.query(SubmittedAssignment)
        .filter(SubmittedAssignment.assignment_id == assignment.id)
        .options(
            selectinload(SubmittedAssignment.student),
            selectinload(SubmittedAssignment.notebooks).selectinload(SubmittedNotebook.notebook),
            selectinload(SubmittedAssignment.notebooks).selectinload(SubmittedNotebook.grades).selectinload(Grade.cell),
        )
        .all()
    )


def _messages(nb) -> dict[str, str]:
    """``{grade_id: failure message}`` of the test cells of an autograded notebook (the last copy of an id wins)."""
    found: dict[str, str] = {}
    for cell in nb.cells if nb is not None else []:
        if cells.is_graded(cell) and cell.get("cell_type") == "code" and cells.grade_id(cell):
            found[cells.grade_id(cell)] = cells.error_message(cell)
    return found


def _problems(nb) -> list[dict[str, str]]:
    """The doctor's findings in a graded notebook (:func:`doctor.noted_problems`).

    A student could forge that cell's metadata in a submission the doctor found nothing in: the forgery can only
    flag its own author, and its text is escaped like any other.
    """
    return [{"kind": p.kind, "text": p.text} for p in doctor.noted_problems(nb)]


def _exercise_of(notebook) -> dict[str, str]:
    """``{test cell: exercise}``: the solution cell above each grade cell, in the source notebook's order."""
    solutions = {c.name for c in notebook.solution_cells}
    graded = {c.name for c in notebook.grade_cells}
    mapping, current = {}, ""
    for cell in notebook.source_cells:
        if cell.name in solutions and cell.name not in graded:
            current = cell.name
        elif cell.name in graded:
            mapping[cell.name] = current or cell.name
    for name in graded - set(mapping):
        mapping[name] = name
    return mapping


def iso_time(value: dt.datetime | None) -> str:
    """A gradebook time as ``2027-01-15 17:00:00`` (``""`` for none), as the report and the exports print it."""
    return value.isoformat(sep=" ", timespec="seconds") if value is not None else ""


def build_report(db_url: str, autograded_dir: Path | str, assignment: str | None = None) -> Report:
    """Build the class report of one assignment (or of every assignment) from an nbgrader gradebook.

    Args:
        db_url: the gradebook, a SQLAlchemy URL (``sqlite:////path/gradebook.db``, ``postgresql://...``), read
            with :class:`nbgrader.api.Gradebook`.
        autograded_dir: nbgrader's ``autograded/`` folder (``<student>/<assignment>/<notebook>.ipynb``); the
            failure messages and the doctor's findings come from there. A missing notebook costs only its
            messages.
        assignment: the assignment's name; ``None`` for every assignment in the gradebook.

    Returns:
        A :class:`Report`. In each test's mistakes, the students are grouped by (smallest failing input,
        returned value), most frequent first, then by input and value.

    Raises:
        CourseError: the gradebook cannot be opened, or has no assignment named ``assignment``.

    Example:
        >>> report = build_report("sqlite:///out/course/gradebook.db", "out/course/autograded")  # doctest: +SKIP
        >>> report.assignments[0].tests[3].mistakes[0].returned  # doctest: +SKIP
        '[7, 7]'
    """
    from nbgrader.api import MissingEntry

    root = Path(autograded_dir).resolve()
    with open_gradebook(db_url) as gradebook:
        if assignment is not None:
            try:
                chosen = [gradebook.find_assignment(assignment)]
            except MissingEntry:
                known = ", ".join(a.name for a in gradebook.assignments) or "none"
                raise CourseError(f"no assignment {assignment!r} in the gradebook (it has: {known})") from None
        else:
            chosen = sorted(gradebook.assignments, key=lambda a: a.name)
        reports = [_assignment_report(a, root) for a in chosen]
    generated = dt.datetime.now(dt.timezone.utc).isoformat(sep=" ", timespec="seconds")
    return Report(safe_url(db_url), str(root), generated, reports)


def _top(key: tuple[str, str], grade: typing.Any, max_points: dict[tuple[str, str], float]) -> float:
    """A grade's maximum: its source cell's, or nbgrader's own for a cell the source does not have."""
    return max_points[key] if key in max_points else float(grade.max_score or 0)


def _assignment_report(assignment, root: Path) -> AssignmentReport:
    notebooks = sorted(assignment.notebooks, key=lambda n: n.name)
    several = len(notebooks) > 1
    test_order: list[tuple[str, str]] = []  # (notebook, grade cell)
    exercise_of: dict[tuple[str, str], str] = {}
    max_points: dict[tuple[str, str], float] = {}
    for notebook in notebooks:
        mapping = _exercise_of(notebook)
        by_name = {c.name: c for c in notebook.grade_cells}
        for cell in notebook.source_cells:
            if cell.name in by_name:
                key = (notebook.name, cell.name)
                test_order.append(key)
                exercise_of[key] = (f"{notebook.name}: " if several else "") + mapping[cell.name]
                max_points[key] = float(by_name[cell.name].max_score or 0)

    def label(key: tuple[str, str]) -> str:
        return f"{key[0]}: {key[1]}" if several else key[1]

    passed = dict.fromkeys(test_order, 0)
    graded = dict.fromkeys(test_order, 0)
    failures: dict[tuple[str, str], dict[tuple[str, str], list[tuple[str, str, str]]]] = {k: {} for k in test_order}
    exercise_points: dict[str, dict[str, float]] = {}
    rows = []
    for submission in sorted(_submissions(assignment), key=lambda s: s.student.id):
        student = submission.student.id
        problems: list[dict[str, str]] = []
        for notebook in sorted(submission.notebooks, key=lambda n: n.name):
            grades = {(notebook.name, g.name): g for g in notebook.grades}
            # a cell's maximum from the source cells (nbgrader's Grade.max_score is a query of its own per grade)
            failing = [k for k, g in grades.items() if float(g.score or 0) < _top(k, g, max_points)]
            nb = _read_notebook(root / student / assignment.name / f"{notebook.name}.ipynb", root)
            try:
                found, messages = _problems(nb), _messages(nb)
            except Exception:  # cells that are not what nbgrader writes (a forged output or metadata): only this
                found, messages = [], {}  # notebook's messages are lost, never the report of the class
            problems += found
            for key, grade in grades.items():
                if key not in graded:
                    continue
                graded[key] += 1
                per = exercise_points.setdefault(exercise_of[key], {})
                per[student] = per.get(student, 0.0) + float(grade.score or 0)
                if key not in failing:
                    passed[key] += 1
                    continue
                message = messages.get(key[1], "")
                failure = parse_failure(message)
                groups = failures[key].setdefault((failure.call, failure.returned), [])
                groups.append((student, message or _NO_MESSAGE, failure.expected))
        rows.append(
            SubmissionRow(
                student,
                float(submission.score or 0),
                float(submission.max_score or 0),
                float(submission.late_submission_penalty or 0),
                iso_time(submission.timestamp),
                iso_time(submission.duedate),
                float(submission.total_seconds_late or 0),
                problems,
            )
        )
    tests = []
    for key in test_order:
        mistakes = [
            Mistake(call, returned, next((e for _, _, e in found if e), ""), [s for s, _, _ in found], found[0][1])
            for (call, returned), found in failures[key].items()
        ]
        mistakes.sort(key=lambda m: (-m.count, m.call, m.returned))
        tests.append(TestStats(label(key), exercise_of[key], max_points[key], passed[key], graded[key], mistakes))
    exercises = []
    for name in dict.fromkeys(exercise_of[k] for k in test_order):
        top = sum(max_points[k] for k in test_order if exercise_of[k] == name)
        points = exercise_points.get(name, {})
        full = sum(1 for p in points.values() if p >= top)
        mean = statistics.fmean(points.values()) if points else 0.0
        exercises.append(ExerciseStats(name, top, full, len(points), mean))
    return AssignmentReport(
        assignment.name, float(assignment.max_score or 0), iso_time(assignment.duedate), rows, tests, exercises
    )


def to_json(report: Report) -> str:
    """The report as JSON for scripts: every field of :class:`Report`, plus each test's pass rate and failures.

    Example:
        >>> data = json.loads(to_json(build_report(url, "autograded")))  # doctest: +SKIP
        >>> data["assignments"][0]["tests"][0]["passed"]  # doctest: +SKIP
        7
    """

    def plain(value):
        if dataclasses.is_dataclass(value):
            data = {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
            for extra in ("pass_rate", "failed", "count", "final_score"):
                if hasattr(type(value), extra):
                    data[extra] = getattr(value, extra)
            return data
        if isinstance(value, list):
            return [plain(v) for v in value]
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        return value

    return json.dumps(plain(report), indent=2, ensure_ascii=False)


# ---------------------------------------------------------------------------------------------------------------
# the page
# ---------------------------------------------------------------------------------------------------------------


def _figure(width: float, height: float):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height))
    return fig, fig.subplots()


def _png(fig) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None})
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def histogram_png(part: AssignmentReport) -> str:
    """The distribution of the final scores of an assignment, as a PNG data URI (one bar per point)."""
    fig, ax = _figure(5.2, 2.6)
    top = max(1, int(part.max_score + 0.999))
    scores = [s.final_score for s in part.submissions]
    ax.hist(scores, bins=[x - 0.5 for x in range(top + 2)], color="#3b6ea8", edgecolor="white")
    ax.set_xlim(-0.5, top + 0.5)
    ax.set_xlabel(f"score (of {part.max_score:g} points)", fontsize=11)
    ax.set_ylabel("students", fontsize=11)
    ax.tick_params(labelsize=10)
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.spines[["top", "right"]].set_visible(False)
    return _png(fig)


def pass_rate_png(part: AssignmentReport) -> str:
    """The share of students passing each test cell (its name above its bar, coloured by exercise), as a data URI."""
    tests = part.tests
    fig, ax = _figure(5.2, 0.62 * len(tests) + 0.7)
    palette = ["#3b6ea8", "#c9772b", "#4f9a5a", "#9a4f8f", "#6b6b6b"]
    colours = {e: palette[i % len(palette)] for i, e in enumerate(dict.fromkeys(t.exercise for t in tests))}
    for index, t in enumerate(tests):
        rate = 100 * t.pass_rate
        ax.barh(index, rate, height=0.42, color=colours[t.exercise])
        name = t.name if t.exercise in t.name else f"{t.name} ({t.exercise})"
        ax.text(0, index - 0.26, name, va="bottom", fontsize=11)
        ax.text(min(rate + 1.5, 90), index, f"{t.passed}/{t.graded}", va="center", fontsize=11)
    ax.set_ylim(len(tests) - 0.6, -0.85)
    ax.set_yticks([])
    ax.set_xlim(0, 100)
    ax.set_xlabel("students passing (%)", fontsize=11)
    ax.tick_params(labelsize=10)
    ax.spines[["top", "right", "left"]].set_visible(False)
    return _png(fig)


_CSS = """
:root { color-scheme: light; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d1d1d; margin: 0 auto;
  max-width: 62rem; padding: 1rem; }
h1 { font-size: 1.6rem; margin: 0 0 .3rem; } h2 { font-size: 1.3rem; border-bottom: 2px solid #3b6ea8;
  padding-bottom: .2rem; margin-top: 2.2rem; } h3 { font-size: 1.05rem; margin: 1.4rem 0 .4rem; }
.meta, .muted { color: #555; font-size: .9rem; } .meta code { overflow-wrap: anywhere; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .88rem; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f5f5f3; padding: .5rem .6rem; margin: .3rem 0;
  border-radius: 4px; max-height: 12em; overflow: auto; }
.charts { display: flex; flex-wrap: wrap; gap: 1rem; } figure { margin: 0; flex: 1 1 22rem; }
figure img { width: 100%; height: auto; } figcaption { font-size: .85rem; color: #555; }
.scroll { overflow-x: auto; } table { border-collapse: collapse; width: 100%; margin: .4rem 0; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid #ddd; vertical-align: top; }
th { background: #eef2f7; } td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.mistake { border: 1px solid #ccd; border-left: 4px solid #c9772b; border-radius: 4px; padding: .5rem .7rem;
  margin: .5rem 0; break-inside: avoid; }
.mistake .count { font-weight: 600; } .mistake dl { display: grid; grid-template-columns: max-content 1fr;
  gap: .15rem .7rem; margin: .3rem 0; } .mistake dt { color: #555; } .mistake dd { margin: 0; overflow-wrap: anywhere; }
.students { overflow-wrap: anywhere; } .flag-integrity { color: #a11; font-weight: 600; }
.pass { color: #2a6a33; }
@media (max-width: 40rem) {
  body { font-size: 14px; padding: .6rem; } .mistake dl { grid-template-columns: 1fr; }
  .mistake dt { margin-top: .3rem; }
  th, td { padding: .25rem .3rem; }
}
@media print {
  body { max-width: none; font-size: 10pt; padding: 0; } h2 { break-before: page; }
  h2:first-of-type { break-before: auto; } pre { max-height: none; overflow: visible; }
  .scroll { overflow: visible; } figure, .mistake, tr { break-inside: avoid; }
  a { color: inherit; text-decoration: none; }
}
"""


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _duration(seconds: float) -> str:
    minutes = int(seconds // 60)
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    return (f"{days} d " if days else "") + f"{hours} h {minutes:02d} min"


def _section(part: AssignmentReport) -> list[str]:
    out = [f'<h2 id="{_e(part.name)}">{_e(part.name)}</h2>']
    scores = [s.final_score for s in part.submissions]
    if not scores:
        return [*out, "<p>No graded submissions.</p>"]
    summary = (
        f"{len(scores)} graded submissions · mean {statistics.fmean(scores):.1f}, median {statistics.median(scores):g}"
        f" of {part.max_score:g} points · {sum(1 for s in scores if s >= part.max_score)} with full marks"
    )
    out.append(f"<p>{_e(summary)}" + (f" · due {_e(part.duedate)}" if part.duedate else "") + "</p>")
    hist_alt = "Score histogram: " + ", ".join(f"{s:g}" for s in sorted(scores))
    rate_alt = "Pass rates: " + "; ".join(f"{t.name} {t.passed} of {t.graded}" for t in part.tests)
    out.append('<div class="charts">')
    out.append(
        f'<figure><img src="{histogram_png(part)}" alt="{_e(hist_alt)}"><figcaption>Final scores (after any late '
        "penalty).</figcaption></figure>"
    )
    out.append(
        f'<figure><img src="{pass_rate_png(part)}" alt="{_e(rate_alt)}"><figcaption>Students passing each test cell, '
        "coloured by exercise.</figcaption></figure>"
    )
    out.append("</div>")
    out.append("<h3>Exercises</h3>")
    out.append('<div class="scroll"><table><tr><th>exercise</th><th class="num">full marks</th>')
    out.append('<th class="num">mean points</th></tr>')
    for ex in part.exercises:
        out.append(
            f'<tr><td><code>{_e(ex.name)}</code></td><td class="num">{ex.full_marks} of {ex.graded} '
            f'({100 * ex.pass_rate:.0f}%)</td><td class="num">{ex.mean_points:.1f} of {ex.max_points:g}</td></tr>'
        )
    out.append("</table></div>")
    out.append("<h3>What the class got wrong</h3>")
    failing = sorted((t for t in part.tests if t.failed), key=lambda t: (t.pass_rate, part.tests.index(t)))
    if not failing:
        out.append('<p class="pass">Every submission passed every test.</p>')
    for test in failing:
        out.append(
            f'<h3 id="{_e(part.name)}-{_e(test.name)}"><code>{_e(test.name)}</code> '
            f'<span class="muted">({_e(test.exercise)}): failed by {test.failed} of {test.graded}, '
            f"{len(test.mistakes)} distinct mistake{'s' if len(test.mistakes) != 1 else ''}</span></h3>"
        )
        for m in test.mistakes:
            out.append('<div class="mistake">')
            out.append(f'<div class="count">{m.count} student{"s" if m.count != 1 else ""}</div><dl>')
            if m.call:
                out.append(f'<dt>smallest failing input</dt><dd class="mono">{_e(m.call)}</dd>')
                out.append(f'<dt>returned</dt><dd class="mono">{_e(m.returned)}</dd>')
                if m.expected:
                    out.append(f'<dt>expected</dt><dd class="mono">{_e(m.expected)}</dd>')
            else:
                stub = " (the release stub: not attempted)" if m.returned == "NotImplementedError" else ""
                out.append(f'<dt>failure</dt><dd class="mono">{_e(m.returned)}{stub}</dd>')
            students = ", ".join(f"<bdi>{_e(s)}</bdi>" for s in m.students)
            out.append(f'<dt>students</dt><dd class="students">{students}</dd>')
            if m.call or parse_failure(m.example).returned != m.returned:  # else the message says no more
                out.append(f"<dt>example message</dt><dd><pre>{_e(m.example[:2000])}</pre></dd>")
            out.append("</dl></div>")
    out.append("<h3>Flagged submissions</h3>")
    if not part.flagged:
        out.append("<p>The doctor found nothing to repair or flag.</p>")
    else:
        out.append('<div class="scroll"><table><tr><th>student</th><th>found</th></tr>')
        for row in part.flagged:
            items = "".join(
                f'<li><span class="flag-{_e(p["kind"])}">[{_e(p["kind"])}]</span> {_e(p["text"])}</li>'
                for p in row.problems
            )
            out.append(f"<tr><td><bdi>{_e(row.student)}</bdi></td><td><ul>{items}</ul></td></tr>")
        out.append("</table></div>")
    out.append("<h3>Late submissions</h3>")
    if not part.late:
        out.append("<p>None: every submission came in before its due date (or none was set).</p>")
    else:
        out.append('<div class="scroll"><table><tr><th>student</th><th>submitted (UTC)</th><th>due (UTC)</th>')
        out.append('<th class="num">late by</th><th class="num">penalty</th><th class="num">score</th></tr>')
        for row in part.late:
            out.append(
                f"<tr><td><bdi>{_e(row.student)}</bdi></td><td>{_e(row.timestamp)}</td><td>{_e(row.duedate)}</td>"
                f'<td class="num">{_e(_duration(row.seconds_late))}</td><td class="num">{row.penalty:g}</td>'
                f'<td class="num">{row.final_score:g} of {row.max_score:g}</td></tr>'
            )
        out.append("</table></div>")
    out.append("<h3>All submissions</h3>")
    out.append('<div class="scroll"><table><tr><th>student</th><th class="num">score</th>')
    out.append('<th class="num">late penalty</th><th class="num">final</th></tr>')
    for row in part.submissions:
        out.append(
            f'<tr><td><bdi>{_e(row.student)}</bdi></td><td class="num">{row.score:g}</td>'
            f'<td class="num">{row.penalty:g}</td><td class="num">{row.final_score:g} of {row.max_score:g}</td></tr>'
        )
    out.append("</table></div>")
    return out


def render_html(report: Report) -> str:
    """The report as one self-contained HTML page: charts as PNG data URIs, no script, every text escaped.

    A Content-Security-Policy forbids scripts and any request off the page, so even a mistake in escaping cannot
    run a student's code in the instructor's browser. The layout reflows on a phone and prints one assignment
    per page.

    Example:
        >>> Path("report.html").write_text(render_html(build_report(url, "autograded")))  # doctest: +SKIP
    """
    names = [a.name for a in report.assignments]
    title = "Class report: " + (names[0] if len(names) == 1 else "all assignments")
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; img-src data:; '
        "style-src 'unsafe-inline'\">",
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
        f'<p class="meta">From the gradebook <code>{_e(report.gradebook)}</code> and the autograded notebooks in '
        f"<code>{_e(report.autograded)}</code>, {_e(report.generated)} UTC.</p>",
    ]
    if len(names) > 1:
        out.append("<nav><p>" + " · ".join(f'<a href="#{_e(n)}">{_e(n)}</a>' for n in names) + "</p></nav>")
    if not names:
        out.append("<p>The gradebook holds no assignment.</p>")
    for part in report.assignments:
        out += _section(part)
    out.append("</body></html>")
    return "\n".join(out) + "\n"

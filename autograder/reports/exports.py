"""Grades in the formats instructors upload: a Canvas gradebook CSV, a Moodle grade-import CSV, one CSV across shards.

Everything comes from nbgrader's gradebooks (:class:`nbgrader.api.Gradebook`): the roster from its student
table (``id``, ``first_name``, ``last_name``, ``email``, ``lms_user_id``) and each submission's score less its late
penalty, as nbgrader's own ``nbgrader export`` computes it (``max(0, score - late_submission_penalty)``).
:func:`collect` reads one gradebook or several (a class graded in shards, each into its own gradebook) into
one :class:`Gradesheet`; a student or an assignment that two gradebooks describe differently is an error, never
a silent choice.

Every text field that a spreadsheet would read as a formula (``= + - @``) gets a leading quote mark.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..course.directory import CourseError
from ..course.gradebook import final_score
from ..inert import csv_writer
from .report import iso_time, open_gradebook, safe_url


@dataclass
class Student:
    """A row of nbgrader's student table."""

    id: str
    first_name: str = ""
    last_name: str = ""
    email: str = ""
    lms_user_id: str = ""

    @property
    def name(self) -> str:
        """``"Last, First"`` as Canvas shows a student, else the nbgrader id."""
        if self.last_name and self.first_name:
            return f"{self.last_name}, {self.first_name}"
        return self.last_name or self.first_name or self.id


@dataclass
class Grade:
    """One student's grade on one assignment, and the gradebook it came from."""

    student: str
    assignment: str
    raw_score: float
    penalty: float
    max_score: float
    timestamp: str = ""
    seconds_late: float = 0.0
    source: str = ""

    @property
    def score(self) -> float:
        """The final score (:func:`autograder.course.gradebook.final_score`)."""
        return final_score(self.raw_score, self.penalty)


@dataclass
class Gradesheet:
    """The grades of a class: roster, assignments (name -> max score, due date) and grades by (student, assignment)."""

    students: dict[str, Student] = field(default_factory=dict)
    assignments: dict[str, float] = field(default_factory=dict)
    duedates: dict[str, str] = field(default_factory=dict)
    grades: dict[tuple[str, str], Grade] = field(default_factory=dict)


def collect(db_urls: list[str], assignments: list[str] | None = None) -> Gradesheet:
    """Read the roster and the grades of one or more nbgrader gradebooks into one :class:`Gradesheet`.

    Args:
        db_urls: SQLAlchemy URLs of gradebooks (the same URL twice counts once).
        assignments: only these assignments (default: every assignment of every gradebook).

    Returns:
        The combined :class:`Gradesheet`, students sorted by id, assignments by name.

    Raises:
        CourseError: a gradebook cannot be opened; an assignment asked for is in none of them; two gradebooks
            disagree on a student's roster entry, on an assignment's points, or both hold a grade of the same
            student and assignment.

    Example:
        >>> sheet = collect(["sqlite:///shard1/gradebook.db", "sqlite:///shard2/gradebook.db"])  # doctest: +SKIP
        >>> sheet.grades["ada", "01_pair_counts_and_merge"].score  # doctest: +SKIP
        8.0
    """
    sheet = Gradesheet()
    for url in dict.fromkeys(db_urls):
        shown = safe_url(url)
        with open_gradebook(url) as gradebook:
            for row in gradebook.students:
                _add_student(
                    sheet,
                    Student(
                        row.id, *(str(v or "") for v in (row.first_name, row.last_name, row.email, row.lms_user_id))
                    ),
                    shown,
                )
            for assignment in gradebook.assignments:
                if assignments and assignment.name not in assignments:
                    continue
                top = float(assignment.max_score or 0)
                if sheet.assignments.setdefault(assignment.name, top) != top:
                    raise CourseError(
                        f"assignment {assignment.name!r} is worth {sheet.assignments[assignment.name]:g} points in one "
                        f"gradebook and {top:g} in {shown}"
                    )
                if assignment.duedate is not None:
                    sheet.duedates.setdefault(assignment.name, iso_time(assignment.duedate))
                for sub in assignment.submissions:
                    key = (sub.student.id, assignment.name)
                    if key in sheet.grades:
                        first = sheet.grades[key].source
                        raise CourseError(
                            f"{sub.student.id!r} has a grade for {assignment.name!r} in both {first} and {shown}: "
                            "keep one of them"
                        )
                    sheet.grades[key] = Grade(
                        sub.student.id,
                        assignment.name,
                        float(sub.score or 0),
                        float(sub.late_submission_penalty or 0),
                        top,
                        iso_time(sub.timestamp),
                        float(sub.total_seconds_late or 0),
                        shown,
                    )
    missing = sorted(set(assignments or []) - set(sheet.assignments))
    if missing:
        raise CourseError(f"no assignment {', '.join(map(repr, missing))} in the gradebooks")
    sheet.students = dict(sorted(sheet.students.items()))
    sheet.assignments = dict(sorted(sheet.assignments.items()))
    return sheet


def _add_student(sheet: Gradesheet, student: Student, source: str) -> None:
    known = sheet.students.get(student.id)
    if known is None:
        sheet.students[student.id] = student
        return
    for name in ("first_name", "last_name", "email", "lms_user_id"):
        old, new = getattr(known, name), getattr(student, name)
        if old and new and old != new:
            raise CourseError(f"student {student.id!r} has {name} {old!r} in one gradebook and {new!r} in {source}")
        if new and not old:
            setattr(known, name, new)


def _points(value: float) -> str:
    return f"{value:g}"


def warnings(sheet: Gradesheet) -> list[str]:
    """What an LMS upload of ``sheet`` would miss: students without an LMS user id or an email.

    Example:
        >>> warnings(Gradesheet({"ada": Student("ada")}))
        ['1 student without lms_user_id (Canvas matches rows by it): ada', '1 student without email: ada']
    """
    out = []
    for name, why in (("lms_user_id", " (Canvas matches rows by it)"), ("email", "")):
        lacking = [s.id for s in sheet.students.values() if not getattr(s, name)]
        if lacking:
            listed = ", ".join(lacking[:10]) + (", ..." if len(lacking) > 10 else "")
            out.append(f"{len(lacking)} student{'s' if len(lacking) != 1 else ''} without {name}{why}: {listed}")
    return out


# Canvas: "How do I import grades in the Gradebook?" (Instructure Community, Instructor Guide,
# https://community.canvaslms.com/t5/Instructor-Guide/How-do-I-import-grades-in-the-Gradebook/ta-p/807):
# the CSV starts with the columns Student, ID, SIS User ID, SIS Login ID and Section (the first columns of
# Canvas's own gradebook export), then one column per assignment. A row is matched to a student by ID (the
# Canvas user id: nbgrader's lms_user_id) or by the SIS ids; an existing assignment's column is headed
# "Name (assignment id)" as Canvas exports it, and a header Canvas does not know becomes a new assignment
# (the instructor reviews every change on the import page before it is applied). A blank cell changes nothing.
CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]


def write_canvas(sheet: Gradesheet, path: Path) -> None:
    """Write a Canvas gradebook import CSV: one row per student, one column per assignment (score after penalty).

    ``ID`` is nbgrader's ``lms_user_id``; ``SIS Login ID`` the nbgrader student id (the login, where JupyterHub
    signs students in through the institution); ``SIS User ID`` and ``Section`` stay blank. A missing
    submission is a blank cell.

    Example:
        >>> write_canvas(collect(["sqlite:///gradebook.db"]), Path("canvas.csv"))  # doctest: +SKIP
    """
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv_writer(handle)
        writer.writerow(CANVAS_COLUMNS + list(sheet.assignments))
        for student in sheet.students.values():
            row = [student.name, student.lms_user_id, "", student.id, ""]
            writer.writerow(row + [_score(sheet, student.id, name) for name in sheet.assignments])


# Moodle: "Grade import" (Moodle documentation, https://docs.moodle.org/en/Grade_import): a CSV file with one
# column that identifies the user and one column per grade item; on upload the teacher chooses which column to
# "Map from" and which user field it holds ("Map to": user id, username, ID number or email address), then
# which grade item each grade column goes to.
MOODLE_COLUMNS = ["First name", "Last name", "Username", "User ID", "Email address"]


def write_moodle(sheet: Gradesheet, path: Path) -> None:
    """Write a Moodle grade import CSV: the user columns, then one column per assignment (score after penalty).

    Map from ``Email address`` to the email address (or ``Username`` to the username, or ``User ID``, nbgrader's
    ``lms_user_id``, to the user id) on Moodle's import page. A missing submission is a blank cell.

    Example:
        >>> write_moodle(collect(["sqlite:///gradebook.db"]), Path("moodle.csv"))  # doctest: +SKIP
    """
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv_writer(handle)
        writer.writerow(MOODLE_COLUMNS + list(sheet.assignments))
        for s in sheet.students.values():
            row = [s.first_name, s.last_name, s.id, s.lms_user_id, s.email]
            writer.writerow(row + [_score(sheet, s.id, name) for name in sheet.assignments])


COMBINED_COLUMNS = [
    "student_id", "last_name", "first_name", "email", "lms_user_id", "assignment", "duedate", "timestamp",
    "seconds_late", "raw_score", "late_submission_penalty", "score", "max_score", "status", "gradebook",
]  # fmt: skip


def write_combined(sheet: Gradesheet, path: Path) -> None:
    """Write one row per student and assignment across every gradebook read (the shards of a class).

    The columns of ``nbgrader export`` (assignment, duedate, timestamp, student id, names, email, raw score, late
    penalty, score, max score) plus ``lms_user_id``, ``seconds_late``, ``status`` (``graded`` or ``missing``)
    and the gradebook the grade came from (password hidden).

    Example:
        >>> sheet = collect(["sqlite:///a/gradebook.db", "sqlite:///b/gradebook.db"])  # doctest: +SKIP
        >>> write_combined(sheet, Path("all.csv"))  # doctest: +SKIP
    """
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv_writer(handle)
        writer.writerow(COMBINED_COLUMNS)
        for s in sheet.students.values():
            for name, top in sheet.assignments.items():
                grade = sheet.grades.get((s.id, name))
                people = [s.id, s.last_name, s.first_name, s.email, s.lms_user_id]
                head = [*people, name, sheet.duedates.get(name, "")]
                if grade is None:
                    writer.writerow(head + ["", "", "", "", "", _points(top), "missing", ""])
                    continue
                numbers = [grade.raw_score, grade.penalty, grade.score, top]
                writer.writerow(
                    head
                    + [grade.timestamp, _points(grade.seconds_late)]
                    + [_points(v) for v in numbers]
                    + ["graded", grade.source]
                )


def _score(sheet: Gradesheet, student: str, assignment: str) -> str:
    grade = sheet.grades.get((student, assignment))
    return "" if grade is None else _points(grade.score)


NBGRADER_COLUMNS = [
    "assignment", "duedate", "timestamp", "student_id", "last_name", "first_name", "email", "raw_score",
    "late_submission_penalty", "score", "max_score",
]  # fmt: skip
"""The columns of ``nbgrader export``'s ``grades.csv`` (nbgrader's ``CsvExportPlugin``), in its order."""


def _export_plugin_base() -> type:
    from nbgrader.plugins.export import CsvExportPlugin

    return CsvExportPlugin


class InertCsvExportPlugin(_export_plugin_base()):  # type: ignore[misc]
    """``nbgrader export``'s plugin under the course's configuration (``c.ExportApp.plugin_class``): nbgrader's
    ``grades.csv``, the same columns, rows and scores (``max(0, score - late_submission_penalty)``; a student with
    no submission at 0), its ``--to``, ``--student`` and ``--assignment`` options, but written as real CSV: every
    field quoted where it must be (a comma in a name no longer shifts the columns) and neutralised where a
    spreadsheet would read a formula (:func:`autograder.inert.csv_writer`; nbgrader writes a student id such as
    ``=HYPERLINK(...)`` as it is)."""

    def export(self, gradebook: Any) -> None:
        from nbgrader.api import MissingEntry

        dest = self.to or "grades.csv"
        students, assignments = {str(s) for s in self.student}, {str(a) for a in self.assignment}
        self.log.info("Exporting grades to %s", dest)
        with open(dest, "w", newline="", encoding="utf-8") as handle:
            writer = csv_writer(handle)
            writer.writerow(NBGRADER_COLUMNS)
            for assignment in gradebook.assignments:
                if assignments and assignment.name not in assignments:
                    continue
                for student in gradebook.students:
                    if students and student.id not in students:
                        continue
                    try:
                        submission = gradebook.find_submission(assignment.name, student.id)
                    except MissingEntry:
                        timestamp, raw, penalty = None, 0.0, 0.0
                    else:
                        timestamp, raw = submission.timestamp, submission.score
                        penalty = submission.late_submission_penalty
                    row = [assignment.name, assignment.duedate, timestamp, student.id, student.last_name,
                           student.first_name, student.email, raw, penalty, max(0.0, raw - (penalty or 0.0)),
                           assignment.max_score]  # fmt: skip
                    writer.writerow(["" if value is None else str(value) for value in row])

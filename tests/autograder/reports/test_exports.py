"""The LMS exports of the graded sample class, parsed back: Canvas, Moodle, and one CSV across shards."""

import csv
import shutil
import subprocess
import sys
import warnings

import pytest

from autograder.cli import main
from autograder.course.directory import CourseError
from autograder.inert import csv_text
from autograder.reports import exports

from ..expected_scores import EXPECTED

pytestmark = pytest.mark.slow

TOTALS = {(s, a): float(sum(p.values())) for a, per in EXPECTED.items() for s, p in per.items()}
STUDENTS = sorted({s for s, _ in TOTALS})
ASSIGNMENTS = sorted(EXPECTED)
ROSTER = {  # what an instructor's roster import would put in nbgrader's student table
    "correct-loops": {"first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.org", "lms_user_id": "1001"},
    "blank": {"first_name": '=HYPERLINK("http://x")', "last_name": "Bobbs", "email": "bob@example.org"},
}


def _gradebook(graded_sample_class, path, roster=ROSTER, drop=()):
    """A copy of the sample class's gradebook with ``roster`` filled in and the submissions of ``drop`` removed."""
    from nbgrader.api import Gradebook

    out, _ = graded_sample_class
    shutil.copyfile(out / "course" / "gradebook.db", path)
    url = f"sqlite:///{path}"
    with Gradebook(url) as gradebook, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SQLAlchemy's warnings about nbgrader's own session
        for student, fields in roster.items():
            gradebook.update_or_create_student(student, **fields)
        for student, assignment in drop:
            gradebook.remove_submission(assignment, student)
    return url


def _read(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


@pytest.fixture
def roster_gradebook(graded_sample_class, tmp_path):
    return _gradebook(graded_sample_class, tmp_path / "gradebook.db")


def test_canvas_csv_has_canvas_columns_and_every_grade(roster_gradebook, tmp_path):
    exports.write_canvas(exports.collect([roster_gradebook]), tmp_path / "canvas.csv")
    header, *rows = _read(tmp_path / "canvas.csv")
    assert header == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *ASSIGNMENTS]
    by_login = {row[3]: row for row in rows}
    assert sorted(by_login) == STUDENTS and len(rows) == len(STUDENTS)
    for student, row in by_login.items():
        for assignment, cell in zip(ASSIGNMENTS, row[5:]):
            expected = TOTALS.get((student, assignment))
            assert (float(cell) if cell else None) == expected, (student, assignment)
    assert by_login["correct-loops"][:2] == ["Lovelace, Ada", "1001"]
    assert by_login["blank"][0] == 'Bobbs, =HYPERLINK("http://x")'  # a formula only at the start of a cell
    assert by_login["merge-no-skip"][:2] == ["merge-no-skip", ""]


def test_a_formula_in_a_name_reaches_no_spreadsheet(graded_sample_class, tmp_path):
    url = _gradebook(graded_sample_class, tmp_path / "g.db", {"blank": {"last_name": "=1+1", "first_name": ""}})
    sheet = exports.collect([url])
    exports.write_canvas(sheet, tmp_path / "canvas.csv")
    exports.write_moodle(sheet, tmp_path / "moodle.csv")
    assert {row[0] for row in _read(tmp_path / "canvas.csv")} >= {"'=1+1"}
    assert {row[1] for row in _read(tmp_path / "moodle.csv")} >= {"'=1+1"}


def test_moodle_csv_has_an_identifier_column_and_one_column_per_assignment(roster_gradebook, tmp_path):
    exports.write_moodle(exports.collect([roster_gradebook]), tmp_path / "moodle.csv")
    header, *rows = _read(tmp_path / "moodle.csv")
    assert header == ["First name", "Last name", "Username", "User ID", "Email address", *ASSIGNMENTS]
    by_username = {row[2]: dict(zip(header, row)) for row in rows}
    assert sorted(by_username) == STUDENTS
    assert by_username["correct-loops"]["Email address"] == "ada@example.org"
    assert by_username["correct-loops"]["User ID"] == "1001"
    assert by_username["blank"]["First name"] == '\'=HYPERLINK("http://x")'  # a spreadsheet shows it as text
    for (student, assignment), total in TOTALS.items():
        assert float(by_username[student][assignment]) == total


def test_shards_combine_into_the_whole_class(graded_sample_class, tmp_path):
    keys = sorted(TOTALS)
    first, second = keys[::2], keys[1::2]  # as --shard 1/2 and 2/2 would split the class
    shard_1 = _gradebook(graded_sample_class, tmp_path / "shard1.db", drop=second)
    shard_2 = _gradebook(graded_sample_class, tmp_path / "shard2.db", drop=first)
    sheet = exports.collect([shard_1, shard_2])
    assert {k: g.score for k, g in sheet.grades.items()} == TOTALS
    assert {sheet.grades[k].source for k in first} == {f"sqlite:///{tmp_path / 'shard1.db'}"}
    exports.write_combined(sheet, tmp_path / "all.csv")
    with open(tmp_path / "all.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == len(STUDENTS) * len(ASSIGNMENTS)
    graded = {(r["student_id"], r["assignment"]): float(r["score"]) for r in rows if r["status"] == "graded"}
    assert graded == TOTALS
    missing = [r for r in rows if r["status"] == "missing"]
    assert len(missing) == len(STUDENTS) * len(ASSIGNMENTS) - len(TOTALS) and all(r["score"] == "" for r in missing)
    ada = [r for r in rows if r["student_id"] == "correct-loops" and r["assignment"] == "01_pair_counts_and_merge"]
    assert ada[0]["email"] == "ada@example.org" and ada[0]["max_score"] == "8"


def test_a_grade_in_two_shards_is_an_error_naming_it(graded_sample_class, tmp_path):
    everything = _gradebook(graded_sample_class, tmp_path / "all.db")
    shard = _gradebook(graded_sample_class, tmp_path / "shard.db", drop=sorted(TOTALS)[1:])
    with pytest.raises(CourseError, match=r"'apply-by-replay' has a grade for '04_apply_bpe' in both"):
        exports.collect([everything, shard])
    assert exports.collect([everything, everything]).grades.keys() == TOTALS.keys()  # one gradebook named twice


def test_two_rosters_that_disagree_are_an_error(graded_sample_class, tmp_path):
    one = _gradebook(graded_sample_class, tmp_path / "one.db", drop=sorted(TOTALS))
    other = {"correct-loops": {"email": "someone.else@example.org"}}
    two = _gradebook(graded_sample_class, tmp_path / "two.db", other, drop=sorted(TOTALS))
    with pytest.raises(CourseError, match="'correct-loops' has email 'ada@example.org' in one gradebook"):
        exports.collect([one, two])


def test_export_command_writes_the_files_and_warns_of_unmatched_students(roster_gradebook, tmp_path, capsys):
    files = {name: tmp_path / f"{name}.csv" for name in ("canvas", "moodle", "csv")}
    args = ["export", "--db-url", roster_gradebook, "--assignment", "01_pair_counts_and_merge"]
    assert main(args + [f"--{name}={path}" for name, path in files.items()]) == 0
    assert _read(files["canvas"])[0][5:] == ["01_pair_counts_and_merge"]
    printed = capsys.readouterr().out
    assert f"{len(STUDENTS) - 1} students without lms_user_id" in printed
    assert main(["export", "--db-url", roster_gradebook, "--assignment", "nope", "--csv", str(files["csv"])]) == 2
    assert main(["export", "--db-url", roster_gradebook]) == 2  # no file asked for


def test_a_missing_gradebook_is_an_error_and_is_never_created(tmp_path):
    with pytest.raises(CourseError, match="no gradebook at"):
        exports.collect([f"sqlite:///{tmp_path / 'typo.db'}"])
    assert not (tmp_path / "typo.db").exists()
    with pytest.raises(CourseError) as caught:  # an unreachable server: named, its password never shown
        exports.collect(["postgresql://grader:s3cret@127.0.0.1:1/bpe"])
    assert "grader:***@127.0.0.1:1/bpe" in str(caught.value) and "s3cret" not in str(caught.value)


HOSTILE_ROSTER = {  # an id and names chosen to break a CSV: a formula, a comma, a quote
    '=HYPERLINK("http://x")': {"first_name": "@SUM(1)", "last_name": "Lovelace, Ada", "email": '"q"@example.org'},
}


def test_nbgrader_export_writes_nbgrader_s_grades_as_csv_with_no_formula(graded_sample_class, course_root, tmp_path):
    """`nbgrader export` under the course's configuration: nbgrader's columns, rows and scores (its own plugin's, on
    every row it can write), but a field that starts a formula is neutralised and a comma stays in its column."""
    from autograder.course.directory import make_course_directory

    course = make_course_directory(course_root, tmp_path / "course").path
    _gradebook(graded_sample_class, course / "gradebook.db", {**ROSTER, **HOSTILE_ROSTER})

    def export(*options):
        done = subprocess.run([sys.executable, "-m", "nbgrader", "export", *options], cwd=course,
                              capture_output=True, text=True, timeout=300)  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]

    export("--to", "grades.csv")
    export("--to", "plain.csv", "--ExportApp.plugin_class=nbgrader.plugins.export.CsvExportPlugin")
    header, *rows = _read(course / "grades.csv")
    assert header == exports.NBGRADER_COLUMNS
    plain_header, *plain = [line.split(",") for line in (course / "plain.csv").read_text().splitlines()]
    assert plain_header == header and len(plain) == len(rows) == len(ASSIGNMENTS) * (len(STUDENTS) + 1)
    (hostile,) = [row for row in rows if row[4] == "Lovelace, Ada" and row[0] == ASSIGNMENTS[0]]
    assert hostile[3:7] == ['\'=HYPERLINK("http://x")', "Lovelace, Ada", "'@SUM(1)", '"q"@example.org']
    benign = [row for row in plain if len(row) == len(header)]  # nbgrader's own rows that a comma did not break
    assert len(benign) == len(plain) - len(ASSIGNMENTS)
    assert [[csv_text(field) for field in row] for row in benign] == [row for row in rows if row[4] != hostile[4]]
    for row in benign:
        total = TOTALS.get((row[3], row[0]), 0.0)
        assert float(row[9]) == total, row

"""The class report on the graded sample class: exact pass rates and mistake groups, flags, late work, the page."""

import ast
import doctest
import json
import os
import re
import shutil
import warnings
from datetime import datetime, timedelta
from pathlib import Path

import nbformat
import pytest

import bpe_ref
from autograder import doctor
from autograder.checks import CheckFailed, check_merge
from autograder.cli import main
from autograder.course import sample_class
from autograder.reports import exports, report
from bpe_lab.harness import show
from tests import needs
from tests.needs import CHROMIUM_ARGS

from ..expected_scores import EXPECTED

pytestmark = pytest.mark.slow

A01 = "01_pair_counts_and_merge"
STUDENTS_01 = sample_class.students()[A01]
TESTS_01 = {  # test cell -> exercise, as in solutions/01_pair_counts_and_merge
    "test_get_pair_counts_basic": "get_pair_counts",
    "test_get_pair_counts_overlaps": "get_pair_counts",
    "test_merge_basic": "merge",
    "test_merge_overlaps": "merge",
}
STUB = ("", "NotImplementedError")  # a solution cell left as the release stub raises this in every test


def _stubs(exercise: str) -> dict[str, tuple[str, str]]:
    return {student: STUB for student, answers in STUDENTS_01.items() if exercise not in answers}


# Read from autograder/course/sample_class/pair_counts_and_merge.py: the first assert of each test cell that a
# student's code fails, as (the call it names, the value returned); "" when the assert names no call.
MISTAKES_01 = {
    "test_get_pair_counts_basic": {
        **_stubs("get_pair_counts"),
        # dict(sorted(...)) puts (1, 3) before (3, 1) in [3, 1, 3, 2]: keys not in order of first occurrence
        "counts-sorted": ("get_pair_counts([3, 1, 3, 2])", "{(1, 3): 1, (3, 1): 1, (3, 2): 1}"),
    },
    "test_get_pair_counts_overlaps": {
        **_stubs("get_pair_counts"),
        # jumps two places after a pair of equal ids, so [5, 5, 5] holds (5, 5) only once
        "counts-no-overlap": ("get_pair_counts([5, 5, 5])", "{(5, 5): 1}"),
    },
    "test_merge_basic": {
        **_stubs("merge"),
        # merges in place: the right value, but the worked example's ids are changed (the message says so)
        "merge-mutates-input": ("merge([1, 2, 3, 1, 2], (1, 2), 99)", "[99, 3, 99]"),
    },
    "test_merge_overlaps": {
        **_stubs("merge"),
        # keeps the second 5 of the first match as the start of a second match
        "merge-no-skip": ("merge([5, 5, 5], (5, 5), 7)", "[7, 7]"),
        # [5, 5, 5] comes out right, but merged in place: the input changed
        "merge-mutates-input": ("merge([5, 5, 5], (5, 5), 7)", "[7, 5]"),
    },
}


def _groups(by_student: dict[str, tuple[str, str]]) -> list[tuple[str, str, list[str]]]:
    groups: dict[tuple[str, str], list[str]] = {}
    for student, key in sorted(by_student.items()):
        groups.setdefault(key, []).append(student)
    ordered = sorted(groups.items(), key=lambda item: (-len(item[1]), item[0]))
    return [(call, returned, students) for (call, returned), students in ordered]


@pytest.mark.parametrize("module", [report, exports])
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_the_mistake_table_agrees_with_the_expected_scores():
    # each failing test cell costs its 2 points: the table above and expected_scores.py tell the same story
    for student, per_exercise in EXPECTED[A01].items():
        for exercise, points in per_exercise.items():
            failed = sum(1 for test, ex in TESTS_01.items() if ex == exercise and student in MISTAKES_01[test])
            assert points == 4 - 2 * failed, (student, exercise)


@pytest.fixture(scope="module")
def class_report(graded_sample_class):
    out, _ = graded_sample_class
    return report.build_report(f"sqlite:///{out / 'course' / 'gradebook.db'}", out / "course" / "autograded")


def _part(built: report.Report, name: str) -> report.AssignmentReport:
    (part,) = [a for a in built.assignments if a.name == name]
    return part


def test_every_graded_assignment_is_in_the_report_with_every_student(class_report):
    assert [a.name for a in class_report.assignments] == sorted(EXPECTED)
    for part in class_report.assignments:
        assert {s.student for s in part.submissions} == set(EXPECTED[part.name])
        totals = {s.student: s.final_score for s in part.submissions}
        assert totals == {s: float(sum(p.values())) for s, p in EXPECTED[part.name].items()}


def test_pass_rates_of_01_are_exact(class_report):
    part = _part(class_report, A01)
    assert [(t.name, t.exercise) for t in part.tests] == list(TESTS_01.items())
    for test in part.tests:
        assert (test.passed, test.graded) == (len(STUDENTS_01) - len(MISTAKES_01[test.name]), len(STUDENTS_01))
    full = {ex: sum(1 for per in EXPECTED[A01].values() if per[ex] == 4) for ex in ("get_pair_counts", "merge")}
    assert {e.name: (e.full_marks, e.graded, e.max_points) for e in part.exercises} == {
        ex: (n, len(STUDENTS_01), 4.0) for ex, n in full.items()
    }


@pytest.mark.parametrize("test_cell", sorted(TESTS_01))
def test_the_mistakes_of_01_are_grouped_exactly(class_report, test_cell):
    (test,) = [t for t in _part(class_report, A01).tests if t.name == test_cell]
    got = [(m.call, m.returned, sorted(m.students)) for m in test.mistakes]
    assert got == _groups(MISTAKES_01[test_cell])
    for mistake in test.mistakes:  # the example is one of the students' own messages
        assert mistake.returned in mistake.example


def test_the_issues_example_merge_overlaps_returning_7_7(class_report):
    (test,) = [t for t in _part(class_report, A01).tests if t.name == "test_merge_overlaps"]
    (group,) = [m for m in test.mistakes if m.call == "merge([5, 5, 5], (5, 5), 7)" and m.returned == "[7, 7]"]
    assert group.students == ["merge-no-skip"] and group.expected == "[7, 5]"
    assert group.example.startswith("ExampleFailed: merge([5, 5, 5], (5, 5), 7)")


def test_a_hidden_checks_message_is_read_into_call_returned_and_expected():
    namespace: dict = {}
    exec(STUDENTS_01["merge-no-skip"]["merge"], namespace)
    with pytest.raises(CheckFailed) as caught:
        check_merge(namespace["merge"], "overlaps")
    failure = report.parse_failure(f"CheckFailed: {caught.value}")
    assert failure.call.startswith("merge(")
    args = ast.literal_eval(failure.call[len("merge") :])  # the smallest failing input the check found
    assert failure.returned == show(namespace["merge"](*args))
    assert failure.expected == show(bpe_ref.merge(*args)) != failure.returned


@pytest.mark.parametrize(
    ("message", "call", "returned", "expected"),
    [
        (
            'AssertionError: train_bpe({"aa": 5, "ab": 1}, 1) returned [(\'b\', \'</w>\')], expected [("a", "a")]: '
            'the pairs ("a", "a") and ("a", "</w>") tie at 5',
            'train_bpe({"aa": 5, "ab": 1}, 1)',
            "[('b', '</w>')]",
            '[("a", "a")]',
        ),
        ("AssertionError: f('x') returned '], expected 0', expected 1", "f('x')", "'], expected 0'", "1"),
        ("CheckFailed: f(1)  # a note\n  expected: 2\n  raised: ValueError: no", "f(1)", "raised: ValueError: no", "2"),
        ("CheckFailed: f(1)\n  expected: 2\n  returned: 3 (a str, not a list)", "f(1)", "3", "2"),
        ("ValueError: max() arg is an empty sequence", "", "ValueError: max() arg is an empty sequence", ""),
        ("AssertionError: returned {1: 2}, expected {1: 3}", "", "returned {1: 2}, expected {1: 3}", ""),
        ("", "", "(no failure message recorded)", ""),
    ],
)
def test_parse_failure_reads_both_message_styles(message, call, returned, expected):
    assert report.parse_failure(message) == report.Failure(call, returned, expected)


HOSTILE = "<script>alert('x')</script><img src=x onerror=alert(1)>"


@pytest.fixture
def class_with_late_and_flagged_work(graded_sample_class, tmp_path):
    """A copy of the graded class in which merge-no-skip handed 01 in 26 hours late (1 point off), correct-loops
    was flagged by the doctor, and a student with a hostile id has a submission and no autograded notebook."""
    from nbgrader.api import Gradebook

    out, _ = graded_sample_class
    shutil.copyfile(out / "course" / "gradebook.db", tmp_path / "gradebook.db")
    autograded = tmp_path / "autograded"
    shutil.copytree(out / "course" / "autograded", autograded)
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    due = datetime(2026, 3, 2, 12, 0)
    with Gradebook(url) as gradebook, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nbgrader's add_submission makes SQLAlchemy warn about its own session
        gradebook.update_or_create_assignment(A01, duedate=due)
        submission = gradebook.find_submission(A01, "merge-no-skip")
        submission.timestamp = due + timedelta(hours=26, minutes=5)
        submission.notebooks[0].late_submission_penalty = 1.0
        gradebook.add_student(HOSTILE)
        gradebook.add_submission(A01, HOSTILE)
        gradebook.db.commit()
    path = autograded / "correct-loops" / A01 / f"{A01}.ipynb"
    nb = nbformat.read(path, 4)
    problems = [
        doctor.Problem("integrity", "cell merge, line 1: imports bpe_ref"),
        doctor.Problem("repaired", f"the notebook was named {HOSTILE!r}: graded as '{A01}.ipynb'"),
    ]
    nb.cells.insert(0, doctor.report_cell(problems))
    nbformat.write(nb, path)
    return url, autograded


def test_late_submissions_and_flags_are_listed(class_with_late_and_flagged_work):
    url, autograded = class_with_late_and_flagged_work
    part = _part(report.build_report(url, autograded, A01), A01)
    (late,) = part.late
    assert (late.student, late.seconds_late, late.penalty) == ("merge-no-skip", 26 * 3600 + 300.0, 1.0)
    assert late.final_score == 6 - 1
    flagged = {s.student: [p["kind"] for p in s.problems] for s in part.flagged}
    assert flagged == {"correct-loops": ["integrity", "repaired"]}
    (hostile,) = [s for s in part.submissions if s.student == HOSTILE]
    assert hostile.final_score == 0 and not hostile.problems


def test_the_page_escapes_every_student_text(class_with_late_and_flagged_work):
    url, autograded = class_with_late_and_flagged_work
    page = report.render_html(report.build_report(url, autograded))
    assert "<script" not in page and "<img src=x" not in page and "&lt;script&gt;" in page
    assert "26 h" not in page and "1 d 2 h 05 min" in page  # late by, in days, hours and minutes
    assert "script-src" not in page and "default-src 'none'" in page  # no script may run, even one let through


def test_a_notebook_outside_the_autograded_folder_is_never_read(class_with_late_and_flagged_work, tmp_path):
    from nbgrader.api import Gradebook

    url, autograded = class_with_late_and_flagged_work
    outside = tmp_path / A01 / f"{A01}.ipynb"  # autograded/../<assignment>/...: the student id ".."
    outside.parent.mkdir()
    shutil.copyfile(autograded / "merge-no-skip" / A01 / f"{A01}.ipynb", outside)
    with Gradebook(url) as gradebook, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gradebook.add_student("..")
        gradebook.add_submission(A01, "..")
    (test,) = [
        t for t in _part(report.build_report(url, autograded, A01), A01).tests if t.name == "test_merge_overlaps"
    ]
    (group,) = [m for m in test.mistakes if ".." in m.students]
    assert group.returned == "(no failure message recorded)"


def _every_output(text: str, change) -> str:
    """The notebook ``text`` with ``change(output)`` applied to every output of every cell (JSON as nbgrader writes
    it: multi-line strings as lists of lines)."""
    data = json.loads(text)
    for cell in data["cells"]:
        for output in cell.get("outputs", []):
            change(output)
    return json.dumps(data)


def _first_cell(text: str, **fields) -> str:
    data = json.loads(text)
    data["cells"][0].update(fields)
    return json.dumps(data)


@pytest.mark.parametrize(
    ("garbled", "messages_kept"),
    [
        pytest.param(lambda text: text[: len(text) // 2], False, id="cut-short"),
        pytest.param(lambda text: text.replace('"nbformat": 4', '"nbformat": 3', 1), False, id="version-3"),
        pytest.param(lambda text: text.replace('"cells": [', '"cells": [7, "x", ', 1), False, id="cells-not-objects"),
        pytest.param(lambda text: _first_cell(text, metadata="x"), False, id="metadata-a-string"),
        pytest.param(
            lambda text: _every_output(text, lambda o: o.update(evalue=None) if "evalue" in o else None),
            False,
            id="evalue-null",
        ),
        pytest.param(
            lambda text: text.replace('"outputs": []', '"outputs": "abc"'), False, id="outputs-a-string"
        ),  # fmt: skip
    ],
)
def test_a_garbled_autograded_notebook_costs_only_its_own_messages(
    class_with_late_and_flagged_work, garbled, messages_kept
):
    """The report reads an autograded notebook's failure messages; one it cannot read, or whose cells are not what
    nbgrader writes, loses only its own messages, never the report of the class."""
    url, autograded = class_with_late_and_flagged_work
    student = "merge-no-skip"

    def seen(part):
        scores = [(s.student, s.final_score) for s in part.submissions]
        tests = [(t.name, t.passed, t.graded) for t in part.tests]
        others = [(t.name, m.call, m.returned, [s for s in m.students if s != student]) for t in part.tests
                  for m in t.mistakes]  # fmt: skip
        own = sorted((t.name, m.returned) for t in part.tests for m in t.mistakes if student in m.students)
        return scores, tests, sorted(o for o in others if o[3]), own  # sorted: a group's rank is by its size

    before = seen(_part(report.build_report(url, autograded, A01), A01))
    path = autograded / student / A01 / f"{A01}.ipynb"
    path.write_text(garbled(path.read_text(encoding="utf-8")), encoding="utf-8")
    after = seen(_part(report.build_report(url, autograded, A01), A01))
    assert after[:3] == before[:3]
    assert before[3] and all(returned != "(no failure message recorded)" for _, returned in before[3])
    if messages_kept:
        assert after[3] == before[3]
    else:
        assert after[3] == [(name, "(no failure message recorded)") for name, _ in before[3]]


def test_a_stream_stored_as_a_list_of_lines_is_read_as_one_text(class_with_late_and_flagged_work):
    """nbformat writes a multi-line output as a list of lines: a warning a test cell printed before it failed is the
    cell's message, joined, as nbgrader reads it."""
    url, autograded = class_with_late_and_flagged_work
    path = autograded / "merge-no-skip" / A01 / f"{A01}.ipynb"
    data = json.loads(path.read_text(encoding="utf-8"))
    warned = []
    for cell in data["cells"]:
        outputs = cell.get("outputs", [])
        if any(o.get("output_type") == "error" for o in outputs):
            outputs.insert(0, {"output_type": "stream", "name": "stderr", "text": ["UserWarning: slow\n", "again\n"]})
            warned.append(cell["metadata"]["nbgrader"]["grade_id"])
    path.write_text(json.dumps(data), encoding="utf-8")
    part = _part(report.build_report(url, autograded, A01), A01)
    own = {t.name: m for t in part.tests for m in t.mistakes if "merge-no-skip" in m.students}
    assert warned and set(own) == set(warned)
    assert {m.example for m in own.values()} == {"wrote to stderr: UserWarning: slow\nagain"}


def test_grade_ends_with_a_report_that_lists_what_the_doctor_found(course_root, course_copy, tmp_path, capsys):
    answers = dict(STUDENTS_01["correct-loops"])
    answers["merge"] = "import bpe_ref\n" + answers["merge"]  # an integrity flag, and merge still right
    release = nbformat.read(course_root / "notebooks" / A01 / f"{A01}.ipynb", 4)
    path = tmp_path / "submitted" / "mallory" / A01 / f"{A01}.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(sample_class.fill(release, answers), path)
    args = ["--course", str(course_copy), "grade", str(tmp_path / "submitted"), "--out", str(tmp_path / "out")]
    assert main([*args, "--jobs", "1", "--no-feedback"]) == 0
    assert "report.html" in capsys.readouterr().out
    out = course_copy  # grade writes into the course directory
    part = _part(report.build_report(f"sqlite:///{out / 'gradebook.db'}", out / "autograded"), A01)
    (row,) = part.flagged
    assert row.student == "mallory" and [p["kind"] for p in row.problems] == ["integrity"]
    assert "imports bpe_ref" in row.problems[0]["text"]
    page = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert "[integrity]</span> cell &#x27;merge&#x27;, line 1: imports bpe_ref" in page


def test_report_command_writes_html_and_json(graded_sample_class, tmp_path, course_root):
    out, stdout = graded_sample_class
    assert (out / "report.html").is_file() and "report.html" in stdout  # the demo ends with the report
    args = ["--course", str(course_root), "report", "--db-url", f"sqlite:///{out / 'course' / 'gradebook.db'}"]
    args += ["--autograded", str(out / "course" / "autograded"), "--assignment", A01]
    assert main([*args, "--json", "--out", str(tmp_path / "r.json")]) == 0
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    (part,) = data["assignments"]
    assert [t["passed"] for t in part["tests"]] == [8 - len(MISTAKES_01[t]) for t in TESTS_01]
    assert main([*args, "--out", str(tmp_path / "r.html")]) == 0
    assert "merge([5, 5, 5], (5, 5), 7)" in (tmp_path / "r.html").read_text(encoding="utf-8")
    assert main([*args[:-1], "no-such-assignment"]) == 2


@pytest.mark.needs("chromium")
def test_the_report_reads_on_a_desktop_a_phone_and_paper(graded_sample_class, tmp_path):
    from playwright import sync_api

    out, _ = graded_sample_class
    page_path = out / "report.html"
    shots = Path(os.environ.get("BPE_REPORT_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=needs.chromium(), args=CHROMIUM_ARGS, headless=True)
        try:
            for name, width in (("desktop", 1280), ("phone", 390)):
                page = browser.new_page(viewport={"width": width, "height": 900})
                page.goto(page_path.as_uri())
                assert page.evaluate("document.scripts.length") == 0
                sizes = page.evaluate(
                    "[...document.images].map(i => [i.naturalWidth, i.getBoundingClientRect().right])"
                )
                assert len(sizes) == 2 * len(EXPECTED) and all(w > 0 and right <= width for w, right in sizes)
                # nothing runs off the side of the screen: the page never scrolls sideways
                assert page.evaluate("document.documentElement.scrollWidth") <= width, name
                page.screenshot(path=str(shots / f"report-{name}.png"), full_page=False)
                page.evaluate(
                    'document.getElementById("01_pair_counts_and_merge-test_merge_overlaps").scrollIntoView()'
                )
                page.screenshot(path=str(shots / f"report-{name}-mistakes.png"))
                page.close()
            page = browser.new_page()
            page.goto(page_path.as_uri())
            pdf = page.pdf(format="A4")  # print CSS: one assignment per page at least
            assert len(re.findall(rb"/Type\s*/Page\b(?!s)", pdf)) >= len(EXPECTED)
        finally:
            browser.close()


@pytest.mark.needs("postgres")
def test_a_postgres_gradebook_gives_the_same_report_and_exports(course_root, course_copy, tmp_path, capsys):
    import uuid

    import sqlalchemy

    url = needs.postgres_url()
    name = f"bpe_test_{uuid.uuid4().hex[:10]}"
    admin = sqlalchemy.create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(sqlalchemy.text(f'CREATE DATABASE "{name}"'))
    database = url.rsplit("/", 1)[0] + "/" + name
    try:
        students = ["blank", "counts-sorted", "merge-no-skip"]
        release = nbformat.read(course_root / "notebooks" / A01 / f"{A01}.ipynb", 4)
        for student in students:
            path = tmp_path / "submitted" / student / A01 / f"{A01}.ipynb"
            path.parent.mkdir(parents=True)
            nbformat.write(sample_class.fill(release, STUDENTS_01[student]), path)
        args = ["--course", str(course_copy), "grade", str(tmp_path / "submitted"), "--out", str(tmp_path / "out")]
        assert main([*args, "--db-url", database, "--jobs", "1", "--no-feedback"]) == 0
        assert "report.html" in capsys.readouterr().out
        part = _part(report.build_report(database, course_copy / "autograded", A01), A01)
        for test in part.tests:
            expected = {s: key for s, key in MISTAKES_01[test.name].items() if s in students}
            assert [(m.call, m.returned, sorted(m.students)) for m in test.mistakes] == _groups(expected)
        sheet = exports.collect([database])
        assert {k: g.score for k, g in sheet.grades.items()} == {
            (s, A01): float(sum(EXPECTED[A01][s].values())) for s in students
        }
    finally:
        with admin.connect() as connection:
            connection.execute(sqlalchemy.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

"""One grade run over the honest sample class of 01 plus every attack: each attack stopped or flagged as expected.

With bubblewrap the batch is graded as a class is (``sandbox = "required"``). Without it, the attacks that need
isolation (``adversarial.NEEDS_SANDBOX``) are not built, the rest is graded with ``--sandbox off``, and the tests
that need the sandbox (marked ``needs("sandbox")``, tests/needs.py) skip, saying why.
"""

import csv
import os
import shutil

import nbformat
import pytest

from autograder.course import sample_class, submissions
from autograder.course.directory import CourseError
from tests import needs

from . import adversarial
from .adversarial import active_content
from .expected_scores import EXPECTED

pytestmark = pytest.mark.slow
ASSIGNMENT = adversarial.ASSIGNMENT
SANDBOXED = needs.missing("sandbox") is None
NO_SANDBOX = "isolation is not available here: the attacks that need it are not run"


ONLY = set(filter(None, os.environ.get("BPE_ADVERSARIAL_ONLY", "").split(","))) or None
"""``BPE_ADVERSARIAL_ONLY=attack-a,attack-b``: build and grade only these attacks (and the honest class), to work on
them; the tests of the others skip."""


def _build_all(course_root, folder):
    sample_class.build(course_root, folder, only=[ASSIGNMENT])
    only = None if ONLY is None else ONLY | {adversarial.CANARY}  # the nbgrader runner grades the canary first
    built = adversarial.build(course_root, folder, sandboxed=SANDBOXED, only=only)
    for name in adversarial.build_other(course_root, folder, sandboxed=SANDBOXED):
        if only is None or name in only:
            built.append(name)
        else:
            shutil.rmtree(folder / name)
    return built


@pytest.fixture(scope="module")
def batch(tmp_path_factory, course_root):
    folder = tmp_path_factory.mktemp("class")
    built = _build_all(course_root, folder)
    out = tmp_path_factory.mktemp("graded")
    os.environ["BPE_COURSE_SECRET"] = "a course secret for the adversarial suite, long enough"
    # canaries in the grader's environment (attack-find-canaries looks for them), a folder of them on PYTHONPATH
    canaries = adversarial.plant_canaries() if SANDBOXED else []
    python_path = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(adversarial.CANARY_FOLDER), python_path]))
    try:
        results = adversarial.run_grade(course_root, folder, out, sandbox="required" if SANDBOXED else "off")
    finally:
        del os.environ["BPE_COURSE_SECRET"]
        os.environ.pop("PYTHONPATH") if python_path is None else os.environ.update(PYTHONPATH=python_path)
        adversarial.remove_canaries(canaries)
    return results, out, set(built)


def _per_exercise(result):
    per = {}
    for cell in result.cells:
        per[cell.exercise] = per.get(cell.exercise, 0) + cell.points
    return per


def _built(batch, attack):
    if attack not in batch[2]:
        pytest.skip(NO_SANDBOX if ONLY is None else f"not in BPE_ADVERSARIAL_ONLY: {attack}")


@pytest.mark.parametrize("attack", adversarial.params(adversarial.OUTCOMES))
def test_each_attack_gets_its_expected_outcome(batch, attack):
    _built(batch, attack)
    results, *_ = batch
    result, expected = results[attack], adversarial.OUTCOMES[attack]
    if expected == "error":
        assert result.status == "error" and result.score == 0 and result.error
    else:
        assert not result.error, result.error
        assert _per_exercise(result) == expected, [(c.grade_id, c.points, c.message) for c in result.cells]
        assert result.max_score == 8  # no cell of the submission's own adds points


@pytest.mark.parametrize("attack", adversarial.params(adversarial.OTHER_OUTCOMES))
def test_each_attack_on_another_assignment_gets_its_expected_outcome(batch, attack):
    _built(batch, attack)
    results, *_ = batch
    result = results[attack]
    assert result.submission.assignment == adversarial.OTHER_ATTACKS[attack][0] and not result.error, result.error
    expected = {e: float(p) for e, p in adversarial.OTHER_OUTCOMES[attack].items()}
    assert _per_exercise(result) == expected, [(c.grade_id, c.points, c.message) for c in result.cells]


@pytest.mark.parametrize("attack", adversarial.params(adversarial.FLAGS))
def test_each_attack_is_flagged_in_the_report(batch, attack):
    _built(batch, attack)
    results, out, *_ = batch
    assert any(adversarial.FLAGS[attack] in line for line in results[attack].problems), results[attack].problems
    with open(out / "grades.csv", encoding="utf-8") as handle:
        row = next(r for r in csv.DictReader(handle) if r["student_id"] == attack)
    assert adversarial.FLAGS[attack] in row["problems"]


def test_the_student_feedback_lists_the_problems(batch):
    _built(batch, "attack-deleted-test-cell")
    results, out, *_ = batch
    html = (out / "course" / "feedback" / "attack-deleted-test-cell" / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text(
        encoding="utf-8"
    )
    assert "Notes from the grader" in html and "test_merge_overlaps" in html


def test_honest_students_keep_their_scores(batch):
    results, *_ = batch
    for student, per in EXPECTED[ASSIGNMENT].items():
        assert _per_exercise(results[student]) == {e: float(p) for e, p in per.items()}, student
        assert not results[student].problems, (student, results[student].problems)


def test_the_merged_gradebook_is_untouched_by_the_attacks(batch):
    from nbgrader.api import Gradebook

    results, out, *_ = batch
    with Gradebook(f"sqlite:///{out / 'course' / 'gradebook.db'}") as gradebook:
        for student, result in results.items():
            if result.error:
                continue
            submission = gradebook.find_submission(result.submission.assignment, student)
            assert submission.score == result.score, student
            assert all(grade.manual_score is None for nb in submission.notebooks for grade in nb.grades), student


def _graded(out, student):
    return out / "course" / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"


def _feedback(out, student):
    return (out / "course" / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("attack", adversarial.params(adversarial.AMPLIFIERS))
def test_output_amplification_leaves_a_small_notebook_and_feedback(batch, attack):
    _built(batch, attack)
    _, out, *_ = batch
    honest = len(_feedback(out, "correct-loops"))
    assert _graded(out, attack).stat().st_size < 1_500_000
    assert len(_feedback(out, attack)) < honest + 1_500_000
    assert "widgets" not in nbformat.read(_graded(out, attack), 4).metadata


def test_an_output_flood_is_cut_and_said_so(batch):
    _built(batch, "attack-output-flood")
    _built(batch, "attack-display-updates")
    _, out, *_ = batch
    text = _graded(out, "attack-output-flood").read_text(encoding="utf-8")
    assert "OutputLimitExceeded" in text or "x" * 1000 not in text  # cut, or refused whole (over 64 MB)
    assert "OutputLimitExceeded" in _graded(out, "attack-display-updates").read_text(encoding="utf-8")


def test_a_sleep_in_every_cell_uses_up_the_notebook_budget_once(batch):
    _built(batch, "attack-sleep-in-every-cell")
    results, out, *_ = batch
    messages = [c.message for c in results["attack-sleep-in-every-cell"].cells]
    assert all(messages) and any("used up its 25 s" in m for m in messages), messages
    assert "NotebookTimeout" in _graded(out, "attack-sleep-in-every-cell").read_text(encoding="utf-8")


def _outputs(out, student):
    return adversarial.printed(_graded(out, student))


def test_student_code_never_sees_the_private_seed(batch):
    _built(batch, "attack-read-seed")
    _, out, *_ = batch
    assert "SEED unseen" in _outputs(out, "attack-read-seed")


def test_a_leak_of_the_inputs_shows_only_a_short_view_of_them(batch):
    _built(batch, "attack-leak-inputs")
    results, *_ = batch
    messages = [c.message for c in results["attack-leak-inputs"].cells if c.exercise == "merge"]
    assert messages and all(0 < len(m) < 2_500 for m in messages), [len(m) for m in messages]


@pytest.mark.parametrize("attack", ["attack-script-output", "attack-active-markdown"])
def test_feedback_carries_no_active_content_from_the_submission(batch, attack):
    _, out, *_ = batch
    assert active_content(_feedback(out, attack)) == active_content(_feedback(out, "correct-loops"))
    assert "My notes" in _feedback(out, "attack-active-markdown")  # the text itself is kept


@pytest.mark.needs("sandbox")
@pytest.mark.parametrize("attack", sorted(adversarial.SANDBOX_PROBES))
def test_the_sandbox_shows_student_code_only_what_it_needs(batch, attack):
    _built(batch, attack)
    _, out, *_ = batch
    assert adversarial.SANDBOX_PROBES[attack] in _outputs(out, attack)


@pytest.mark.parametrize("attack", sorted(adversarial.CLASS_ATTACKS))
def test_a_class_folder_attack_is_refused_naming_the_files(course_root, tmp_path, attack):
    from autograder.cli import main

    folder = adversarial.build_class_attack(course_root, tmp_path / "class", attack)
    with pytest.raises(CourseError, match="symbolic link|both give student id"):
        submissions.find_submissions(folder, course_root)
    assert main(["--course", str(course_root), "grade", str(folder), "--out", str(tmp_path / "out")]) == 2
    assert not (tmp_path / "out" / "grades.csv").exists()


# ---------------------------------------------------------------------------------------------------------------
# issue 21: the pages, the terminal and the CSVs; the grader's own costs; the allowlist
# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("attack", adversarial.INERT_PAGES)
def test_the_formgraders_page_of_a_graded_notebook_holds_no_active_content(batch, attack):
    _built(batch, attack)
    _, out, *_ = batch
    honest = active_content(adversarial.formgrade_page(_graded(out, "correct-loops")))
    assert active_content(adversarial.formgrade_page(_graded(out, attack))) == honest
    assert active_content(_feedback(out, attack)) == active_content(_feedback(out, "correct-loops"))


def test_grade_shows_control_characters_escaped_and_no_csv_field_is_a_formula(batch):
    from autograder.reports import summary

    results, out, *_ = batch
    for attack in ("attack-markup-file-name", "attack-markup-empty-file", "attack-formula-assignment"):
        _built(batch, attack)
    lines = summary.class_lines(list(results.values()), out, out)
    assert not [line for line in lines if "\x1b" in line or "\x07" in line]
    assert any("\\x1b]0;owned" in line for line in lines)  # shown, escaped
    for name in ("grades.csv", "exercise_grades.csv"):
        with open(out / name, encoding="utf-8", newline="") as handle:
            fields = [field for row in csv.reader(handle) for field in row]
        formulas = [
            f for f in fields if f[:1] in ("=", "+", "@", "\t", "\r") or (f[:1] == "-" and not f[1:2].isdigit())
        ]
        assert not formulas, (name, formulas[:3])
    with open(out / "grades.csv", encoding="utf-8") as handle:
        row = next(r for r in csv.DictReader(handle) if r["student_id"] == "attack-formula-assignment")
    assert row["assignment"] == "'" + adversarial.FORMULA_ASSIGNMENT


@pytest.mark.needs("sandbox")
def test_the_kernels_sockets_live_in_its_own_memory_not_on_the_hosts_disk(batch):
    _built(batch, "attack-fill-socket-folder")
    _, out, *_ = batch
    printed = _outputs(out, "attack-fill-socket-folder")
    folder = printed.split("SOCKET FOLDER ", 1)[1].split(" ", 1)[0]
    assert folder.startswith("/tmp/") and "<= 64 True" in printed  # its own in-memory /tmp, size-limited
    assert not os.path.exists(os.path.join(folder, "fill"))  # nothing of it on the host


def test_many_error_cells_cost_the_notebook_budget_at_most(batch):
    _built(batch, "attack-many-error-cells")
    _, out, *_ = batch
    honest = len(_feedback(out, "correct-loops"))
    assert _graded(out, "attack-many-error-cells").stat().st_size < 6_000_000  # 5 MB of outputs, then one line each
    assert len(_feedback(out, "attack-many-error-cells")) < honest + 7_000_000


def test_a_quadratic_markdown_cell_is_graded_and_shown_as_text(batch):
    _built(batch, "attack-quadratic-markdown")
    results, out, *_ = batch
    assert results["attack-quadratic-markdown"].feedback is not None
    assert "&lt;b&gt;&lt;p&gt;" in _feedback(out, "attack-quadratic-markdown")

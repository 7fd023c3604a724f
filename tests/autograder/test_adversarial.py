"""One grade run over the honest sample class of 01 plus every attack: each attack stopped or flagged as expected."""

import csv
import os

import nbformat
import pytest

from autograder import cases, grading, sample_class
from autograder.limits import bubblewrap

from . import adversarial
from .expected_scores import EXPECTED

pytestmark = pytest.mark.slow
ASSIGNMENT = adversarial.ASSIGNMENT


@pytest.fixture(scope="module")
def batch(tmp_path_factory, course_root):
    folder = tmp_path_factory.mktemp("class")
    sample_class.build(course_root, folder, only=[ASSIGNMENT])
    adversarial.build(course_root, folder)
    out = tmp_path_factory.mktemp("graded")
    submissions = grading.find_submissions(folder, course_root)
    limits = {
        "Execute.timeout": 15,
        "LimitedExecute.notebook_timeout": 25,
        "JudgeTests.call_timeout": 3.0,
        "JudgeTests.cell_timeout": 15.0,
        "JudgeTests.notebook_timeout": 25.0,
        "LimitedKernelManager.memory_limit": 1024**3,
        "LimitedExecute.max_output_bytes": 200_000,
    }
    os.environ["BPE_COURSE_SEED"] = str(cases.SEED)  # a course's private seed (the same value: same scores)
    try:
        results = grading.grade(course_root, submissions, out, jobs=2, resume=False, limits=limits)
    finally:
        del os.environ["BPE_COURSE_SEED"]
    return {r.submission.student: r for r in results}, out


def _per_exercise(result):
    per = {}
    for cell in result.cells:
        per[cell.exercise] = per.get(cell.exercise, 0) + cell.points
    return per


@pytest.mark.parametrize("attack", sorted(adversarial.OUTCOMES))
def test_each_attack_gets_its_expected_outcome(batch, attack):
    results, _ = batch
    result, expected = results[attack], adversarial.OUTCOMES[attack]
    if expected == "error":
        assert result.status == "error" and result.score == 0 and result.error
    else:
        assert not result.error, result.error
        assert _per_exercise(result) == expected, [(c.grade_id, c.points, c.message) for c in result.cells]


@pytest.mark.parametrize("attack", sorted(adversarial.FLAGS))
def test_each_attack_is_flagged_in_the_report(batch, attack):
    results, out = batch
    assert any(adversarial.FLAGS[attack] in line for line in results[attack].problems), results[attack].problems
    with open(out / "grades.csv", encoding="utf-8") as handle:
        row = next(r for r in csv.DictReader(handle) if r["student_id"] == attack)
    assert adversarial.FLAGS[attack] in row["problems"]


def test_the_student_feedback_lists_the_problems(batch):
    results, out = batch
    html = (out / "course" / "feedback" / "attack-deleted-test-cell" / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text(
        encoding="utf-8"
    )
    assert "Notes from the grader" in html and "test_merge_overlaps" in html


def test_honest_students_keep_their_scores(batch):
    results, _ = batch
    for student, per in EXPECTED[ASSIGNMENT].items():
        assert _per_exercise(results[student]) == {e: float(p) for e, p in per.items()}, student


def test_the_merged_gradebook_is_untouched_by_the_attacks(batch):
    from nbgrader.api import Gradebook

    results, out = batch
    with Gradebook(f"sqlite:///{out / 'course' / 'gradebook.db'}") as gradebook:
        for student, result in results.items():
            if result.error:
                continue
            submission = gradebook.find_submission(ASSIGNMENT, student)
            assert submission.score == result.score, student
            assert all(grade.manual_score is None for nb in submission.notebooks for grade in nb.grades), student


def test_output_flood_is_cut_to_the_limit(batch):
    _, out = batch
    graded = out / "course" / "autograded" / "attack-output-flood" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    assert graded.stat().st_size < 2_000_000
    assert "OutputLimitExceeded" in graded.read_text(encoding="utf-8")


def test_a_huge_error_message_is_cut(batch):
    _, out = batch
    graded = out / "course" / "autograded" / "attack-huge-error" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    assert graded.stat().st_size < 1_000_000 and "ValueError" in graded.read_text(encoding="utf-8")


def test_a_sleep_in_every_cell_uses_up_the_notebook_budget_once(batch):
    results, out = batch
    messages = [c.message for c in results["attack-sleep-in-every-cell"].cells]
    assert all(messages) and any("used up its 25 s" in m for m in messages), messages
    graded = out / "course" / "autograded" / "attack-sleep-in-every-cell" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    assert "NotebookTimeout" in graded.read_text(encoding="utf-8")  # the kernel stopped running cells too


def test_student_code_never_sees_the_private_seed(batch):
    _, out = batch
    assert "SEED unseen" in _outputs(out, "attack-read-seed")


def _outputs(out, student):
    path = out / "course" / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    nb = nbformat.read(path, 4)
    return "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)


@pytest.mark.skipif(bubblewrap() is None, reason="bubblewrap is not available: the sandbox is off")
def test_sandbox_hides_hidden_tests_and_gradebooks(batch):
    _, out = batch
    assert "FOUND 0" in _outputs(out, "attack-read-hidden-tests")
    assert "CHANGED 0" in _outputs(out, "attack-gradebook-write")


@pytest.mark.skipif(bubblewrap() is None, reason="bubblewrap is not available: the sandbox is off")
def test_sandbox_denies_network_and_writes_outside_its_folder(course_root, tmp_path):
    from autograder.limits import LimitedKernelManager

    manager = LimitedKernelManager(sandbox="bwrap", hidden_paths=[str(course_root / "solutions")])
    manager._socket_dir = str(tmp_path)
    manager.connection_file = str(tmp_path / "kernel.json")
    (tmp_path / "kernel.json").write_text("{}")
    argv = manager.sandbox_prefix(str(tmp_path))
    assert "--unshare-net" in argv
    assert argv[argv.index("--tmpfs", 5) + 1] in {"/tmp", str((course_root / "solutions").resolve())}
    probe = (
        "import os, socket, pathlib\n"
        f"assert os.listdir({str(course_root / 'solutions')!r}) == []\n"
        "try:\n    socket.create_connection(('127.0.0.1', 9), timeout=2); print('NET')\n"
        "except OSError: print('no network')\n"
        f"try:\n    open({str(course_root / 'README.md')!r}, 'a'); print('WROTE')\n"
        "except OSError: print('read-only')\n"
        f"pathlib.Path({str(tmp_path / 'scratch.txt')!r}).write_text('ok'); print('scratch ok')\n"
    )
    import subprocess
    import sys

    done = subprocess.run([*argv, sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:3] == ["no network", "read-only", "scratch ok"]

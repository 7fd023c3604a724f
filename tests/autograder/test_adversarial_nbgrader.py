"""The adversarial suite through plain ``nbgrader autograde`` (the course's config, no ``grade``): the same class as
tests/autograder/test_adversarial.py grades with ``grade``, the same scores.

A file of its own: ``nbgrader autograde`` grades one notebook after another, so the class is split over copies of the
course graded at once (:data:`tests.autograder.adversarial.SHARDS`); still one of the suite's longest work units, on
one worker while the other grades the batch with ``grade``.
"""

import os

import nbformat
import pytest

from autograder.course import sample_class

from . import adversarial
from .adversarial import active_content, formgrade_page, printed
from .expected_scores import EXPECTED

pytestmark = pytest.mark.slow
ASSIGNMENT = adversarial.ASSIGNMENT
ALSO = ["attack-many-error-cells", "attack-read-seed", "attack-fill-socket-folder"]


@pytest.mark.needs("sandbox")
def test_the_same_attacks_through_plain_nbgrader_autograde(course_root, tmp_path):
    folder = tmp_path / "class"
    sample_class.build(course_root, folder, only=[ASSIGNMENT])
    adversarial.build(course_root, folder, sandboxed=True)
    adversarial.build_other(course_root, folder)
    scores = adversarial.run_nbgrader_autograde(course_root, folder, tmp_path / "work")
    for student, per in EXPECTED[ASSIGNMENT].items():
        assert scores[student] == {e: float(p) for e, p in per.items()}, student
    wrong = {}
    for attack, expected in adversarial.OUTCOMES.items():
        if expected != "error" and attack not in adversarial.REPAIRED_BY_GRADE:
            if scores.get(attack) != {e: float(p) for e, p in expected.items()}:
                wrong[attack] = scores.get(attack)
    for attack, expected in adversarial.OTHER_OUTCOMES.items():
        if scores.get(attack) != {e: float(p) for e, p in expected.items()}:
            wrong[attack] = scores.get(attack)
    assert not wrong
    # beyond the scores: what nbgrader wrote to autograded/ holds as what `grade` writes does (test_adversarial.py)
    graded = adversarial.autograded_by_nbgrader(tmp_path / "work")
    looked_at = {*adversarial.INERT_PAGES, *adversarial.SANDBOX_PROBES, *adversarial.AMPLIFIERS, *ALSO}
    assert looked_at <= set(graded), sorted(looked_at - set(graded))
    honest = active_content(formgrade_page(graded["correct-loops"]))
    problems = [
        f"{a}: active content" for a in adversarial.INERT_PAGES if active_content(formgrade_page(graded[a])) != honest
    ]
    problems += [
        f"{a}: {p!r} not printed" for a, p in adversarial.SANDBOX_PROBES.items() if p not in printed(graded[a])
    ]
    problems += [
        f"{a}: {graded[a].stat().st_size:,} bytes"
        for a in adversarial.AMPLIFIERS
        if graded[a].stat().st_size >= 1_500_000
    ]
    problems += [
        f"{a}: widgets kept" for a in adversarial.AMPLIFIERS if "widgets" in nbformat.read(graded[a], 4).metadata
    ]
    if graded["attack-many-error-cells"].stat().st_size >= 6_000_000:
        problems.append("attack-many-error-cells: over its budget")
    if "SEED unseen" not in printed(graded["attack-read-seed"]):
        problems.append("attack-read-seed: the seed was seen")
    socket = printed(graded["attack-fill-socket-folder"])
    if "<= 64 True" not in socket or os.path.exists(
        os.path.join(socket.split("SOCKET FOLDER ", 1)[1].split(" ")[0], "fill")
    ):
        problems.append("attack-fill-socket-folder: the socket folder is not the kernel's own in-memory one")
    assert not problems


def test_the_nbgrader_runner_refuses_a_config_that_would_run_attacks_unisolated(course_root, tmp_path, monkeypatch):
    monkeypatch.setattr(adversarial, "PIPELINE", "")  # as if the course ran nbgrader's own Execute (no sandbox)
    if "JudgeTests" in str(adversarial_config(course_root)):
        pytest.skip("the course's nbgrader_config.py runs the pipeline itself: no unisolated config to refuse")
    with pytest.raises(adversarial.Unisolated):
        adversarial.run_nbgrader_autograde(course_root, tmp_path / "class", tmp_path / "work")
    assert not (tmp_path / "work" / "course" / "submitted").exists()


def adversarial_config(course_root):
    from traitlets.config.loader import PyFileConfigLoader

    return PyFileConfigLoader("nbgrader_config.py", path=str(course_root)).load_config().get("Autograde", {})

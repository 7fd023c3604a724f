"""The adversarial suite through plain ``nbgrader autograde`` (the course's config, no ``grade``): the same class as
tests/autograder/test_adversarial.py grades with ``grade``, the same scores.

A file of its own: ``nbgrader autograde`` grades one notebook after another, so the class is split over copies of the
course graded at once (:data:`tests.autograder.adversarial.SHARDS`); still one of the suite's longest work units, on
one worker while the other grades the batch with ``grade``.
"""

import pytest

from autograder.course import sample_class

from . import adversarial
from .expected_scores import EXPECTED

pytestmark = pytest.mark.slow
ASSIGNMENT = adversarial.ASSIGNMENT


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

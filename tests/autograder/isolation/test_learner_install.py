"""The learner's install as the grader sees it: the model solutions (``bpe-lab-solutions``) are never part of it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from autograder.isolation import learner_install, sandbox
from autograder.isolation.kernel import LimitedKernelManager

COURSE = Path(__file__).resolve().parents[3]
SOLUTIONS = COURSE / "learner" / "solutions"


@pytest.mark.parametrize("asked", ["bpe-lab-solutions", "bpe_lab_solutions>=0.1", "BPE.Lab.Solutions"])
def test_the_model_solutions_cannot_be_added_to_what_student_code_sees(asked: str) -> None:
    with pytest.raises(learner_install.AnswerKeyVisible, match="bpe-lab-solutions holds the model solutions"):
        learner_install.distributions((asked,))
    sandbox.allowed_site_entries.cache_clear()
    with pytest.raises(sandbox.SandboxUnavailable, match="bpe-lab-solutions holds the model solutions"):
        sandbox.allowed_site_entries((asked,))


def test_a_distribution_that_needs_the_model_solutions_is_refused_too(monkeypatch) -> None:
    real = learner_install.dependency_closure

    def closure(wanted, needed_by="the learner's install"):
        found = real([w for w in wanted if w != "course-extras"], needed_by)
        if "course-extras" in wanted:  # an instructor's package that depends on the solutions
            found["bpe-lab-solutions"] = object()
        return found

    monkeypatch.setattr(learner_install, "dependency_closure", closure)
    learner_install.distributions.cache_clear()
    try:
        with pytest.raises(learner_install.AnswerKeyVisible):
            learner_install.distributions(("course-extras",))
    finally:
        learner_install.distributions.cache_clear()


def test_the_learners_install_has_no_model_solutions() -> None:
    assert not set(learner_install.distributions()) & set(learner_install.NEVER)


def test_grading_without_the_sandbox_refuses_where_the_solutions_can_be_imported(monkeypatch) -> None:
    """``--sandbox off``: the kernel (and the judge's worker) would see the grader's environment; with
    ``bpe_lab_solutions`` importable there, grading refuses before any student code runs."""
    monkeypatch.syspath_prepend(str(SOLUTIONS))
    importlib.invalidate_caches()
    assert learner_install.answer_keys_importable() == ["bpe_lab_solutions"]
    with pytest.raises(sandbox.SandboxUnavailable, match="pip uninstall bpe-lab-solutions"):
        LimitedKernelManager(sandbox="off")
    from autograder.isolation.judge import worker_session

    limits = {"sandbox": "off", "memory_limit": 0, "cpu_limit": 0, "process_limit": 0}
    with pytest.raises(sandbox.SandboxUnavailable, match="the model solutions"):
        with worker_session(limits, call_timeout=1, cell_timeout=1, notebook_timeout=1):
            pass


def test_a_distributions_site_entries_are_its_top_level_entries_however_its_record_spells_them(tmp_path) -> None:
    import importlib.metadata

    site = tmp_path / "site-packages"
    for name in ("pkg/__init__.py", "pkg/sub/mod.py", "single.py", "__pycache__/single.cpython-311.pyc",
                 "__pycache__/other.cpython-311.pyc", "x-1.0.dist-info/RECORD"):  # fmt: skip
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text("")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "x").write_text("")
    record = [
        "./pkg/__init__.py,sha256=x,0",  # "./": the package, never the folder "." (all of site-packages)
        "pkg//sub/mod.py,,",
        '"single.py",,',  # quoted, as CSV allows
        "__pycache__/single.cpython-311.pyc,,",  # in the shared __pycache__: only its own file
        "../bin/x,,",  # outside site-packages: not an entry
        "gone.py,,",  # recorded but not there: not an entry
        "x-1.0.dist-info/RECORD,,",
    ]
    (site / "x-1.0.dist-info" / "RECORD").write_text("\n".join(record) + "\n")
    dist = importlib.metadata.PathDistribution(site / "x-1.0.dist-info")
    assert learner_install.site_entries(dist) == {
        str(site / "pkg"), str(site / "single.py"), str(site / "__pycache__" / "single.cpython-311.pyc"),
        str(site / "x-1.0.dist-info"),
    }  # fmt: skip

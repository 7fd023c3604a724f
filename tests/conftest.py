"""Shared fixtures: the course directory (the repository root)."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def course_root() -> Path:
    return ROOT


@pytest.fixture
def course_copy(tmp_path: Path) -> Path:
    """A course directory of its own to grade into (its config, source and release notebooks copied): `grade`
    writes into the course's gradebook and folders, which must never be the repository's."""
    import shutil

    copy = tmp_path / "course"
    copy.mkdir()
    shutil.copy2(ROOT / "nbgrader_config.py", copy / "nbgrader_config.py")
    for name in ("solutions", "notebooks"):
        shutil.copytree(ROOT / name, copy / name)
    return copy


COURSE_STATE = ("gradebook.db", "submitted", "autograded", "feedback")


@pytest.fixture(autouse=True)
def _repository_stays_clean():
    """`grade` writes into its course directory: a test that points it at the repository would leave nbgrader's
    state there (and in CI's checkout). Fail that test, naming what it left."""
    before = {name for name in COURSE_STATE if (ROOT / name).exists()}
    yield
    left = sorted(name for name in COURSE_STATE if (ROOT / name).exists() and name not in before)
    assert not left, f"the test left nbgrader course state in the repository: {left} (grade into `course_copy`)"


@pytest.fixture(autouse=True, scope="session")
def _grade_unisolated_where_bubblewrap_is_missing():
    """Without bubblewrap, `grade` refuses to run student code (fail closed). The suite then grades with the sandbox
    off, said here explicitly; the attacks that need isolation skip (tests/autograder/test_adversarial.py)."""
    from autograder.course import directory as course
    from autograder.isolation import sandbox

    if sandbox.bubblewrap() is not None:
        yield
        return
    original = course.load_config

    def load_config(root):
        config = original(root)
        config.LimitedKernelManager.sandbox = "off"
        return config

    patch = pytest.MonkeyPatch()
    patch.setattr(course, "load_config", load_config)
    yield
    patch.undo()

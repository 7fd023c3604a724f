"""Shared fixtures (the course directory, the repository root) and the ``needs`` marker (tests/needs.py)."""

from pathlib import Path

import pytest

from tests import needs

ROOT = Path(__file__).resolve().parent.parent


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"needs(*what): skip, saying why, where this machine lacks one of: {', '.join(needs.PROBES)}"
    )


def pytest_report_header(config: pytest.Config) -> list[str]:
    lines = needs.header()
    if needs.missing("sandbox"):
        lines.append("without a sandbox, the tests not marked needs('sandbox') grade with --sandbox off (fail closed")
        lines.append("  is tested by faking its absence; scores do not depend on isolation, the attacks' do)")
    return lines


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for reason in needs.skip_reasons(item):
            item.add_marker(pytest.mark.skip(reason=reason))


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
    off, said in the run's header; every test whose assertions need isolation is marked ``needs("sandbox")`` and
    skips, saying why."""
    from autograder.course import directory as course

    if needs.missing("sandbox") is None:
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

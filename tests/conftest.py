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


SHARED_FIXTURES = ("graded_sample_class",)
"""Session fixtures that grade a class: every test that uses one is in one worker group, so it is graded once."""

FIRST = (
    "mutants-judged-in-process",
    "tests/mutants/test_mutants.py::test_under_five_seeds",
    "tests/autograder/test_adversarial_nbgrader.py",
    "tests/autograder/test_adversarial.py",
    "graded_sample_class",
    "tests/bpe_lab/test_learner_install.py",
    "tests/autograder/test_instructor_workflow.py",
    "tests/browser/test_jupyterhub.py",
)
"""The longest work units, longest first (measured: README's test command, ``--durations``): a worker that starts
one while the other takes the many short tests keeps both busy until the end, with no long unit left for last."""


def worker_group(item: pytest.Item) -> str | None:
    """The unit of work a test belongs to under ``--dist loadgroup`` (its ``xdist_group``), or ``None`` for a test
    that may run on any worker on its own.

    A test marked ``xdist_group`` is in that group; a test that uses a :data:`SHARED_FIXTURES` fixture is in that
    fixture's group (one worker grades the class, once); a notebook's cells (nbval) and the tests of a file whose
    module-scoped fixtures they use are in their file's group (one kernel, one set-up); any other test is free, so
    the workers share the short tests evenly.
    """
    path = item.nodeid.split("::")[0]
    for mark in item.iter_markers("xdist_group"):  # a test file's own grouping
        return str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
    used = getattr(item, "fixturenames", ())
    for name in SHARED_FIXTURES:
        if name in used:
            return name
    if path.endswith(".ipynb"):
        return path
    info = getattr(item, "_fixtureinfo", None)
    for definitions in info.name2fixturedefs.values() if info else ():
        if definitions and definitions[-1].scope in ("module", "package", "class"):
            return path
    return None


GROUP = pytest.StashKey[str | None]()
"""Where the collected test keeps its :func:`worker_group`."""


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]):
    """Before every other hook: the skips of ``needs`` and the ``xdist_group`` marks (pytest-xdist reads them).
    After them all (pytest's ordering by fixture scope included, which it keeps within each unit): the units of
    :data:`FIRST` first, in its order, every other test where it was (scripts/test.sh passes
    ``--no-loadscope-reorder``, so that pytest-xdist hands the units out in this order)."""
    for item in items:
        for reason in needs.skip_reasons(item):
            item.add_marker(pytest.mark.skip(reason=reason))
        item.stash[GROUP] = group = worker_group(item)
        if group is not None and not any(item.iter_markers("xdist_group")):
            item.add_marker(pytest.mark.xdist_group(group))
    yield

    def rank(item: pytest.Item) -> int:
        unit = item.stash.get(GROUP, None) or item.nodeid
        return next((i for i, prefix in enumerate(FIRST) if unit.startswith(prefix)), len(FIRST))

    items[:] = sorted(items, key=rank)  # stable: each unit's tests stay together and in order


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


@pytest.fixture(autouse=True, scope="session")
def _nbgrader_tuned():
    """nbgrader would run the ``alembic`` command (about 2 s of CPU) each time it creates a gradebook, and compile
    its queries again each time it opens one: the course reads the head in process and reuses the engines
    (``tune_nbgrader``, which its command line and its nbgrader configuration call too), and so do the tests' own
    processes."""
    from autograder.course.gradebook import tune_nbgrader

    tune_nbgrader()

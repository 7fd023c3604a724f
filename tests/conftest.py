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

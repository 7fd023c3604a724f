"""Shared fixtures: the course directory (the repository root)."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def course_root() -> Path:
    return ROOT

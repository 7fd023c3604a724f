"""Fixtures shared by the autograder's tests: the bundled sample class, graded once per test session."""

import subprocess
import sys
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def graded_sample_class(tmp_path_factory, course_root) -> tuple[Path, str]:
    """``python -m autograder demo --out DIR`` run once: ``(DIR, what it printed)``.

    Treat ``DIR`` as read-only; a test that changes a gradebook or a notebook works on a copy.
    """
    out = tmp_path_factory.mktemp("graded-sample-class")
    result = subprocess.run(
        [sys.executable, "-m", "autograder", "demo", "--out", str(out), "--jobs", "4"],
        cwd=course_root,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return out, result.stdout

"""The doctor's hook under plain ``nbgrader autograde`` (the formgrader's button runs the same): ``submitted/``, the
student's evidence, is byte-identical afterwards, and the notebook graded is the one with the work in it.

The course copy and the class of one come from tests/autograder/test_instructor_workflow.py's ``round_trip``.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import nbformat
import pytest

from autograder import doctor
from tests.autograder.expected_scores import EXPECTED
from tests.autograder.test_instructor_workflow import ASSIGNMENT, STUDENT_WORK, _grades, nbgrader, round_trip

pytestmark = pytest.mark.slow
__all__ = ["round_trip"]  # the module-scoped fixture, used here by name


def _hashes(folder: Path) -> dict[str, tuple[str, int]]:
    """Every file under ``folder``: its content's hash and its mode."""
    return {
        str(path.relative_to(folder)): (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mode)
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@pytest.mark.needs("sandbox")  # nbgrader autograde grades with the course's config: sandbox required
@pytest.mark.parametrize("layout", ["renamed", "original and -Copy1"])
def test_nbgrader_autograde_grades_the_work_and_leaves_submitted_byte_identical(round_trip, tmp_path, layout):
    original, _home, student, env, _flags = round_trip
    course = tmp_path / "course"
    shutil.copytree(original, course)
    folder = course / "submitted" / student / ASSIGNMENT
    work = folder / f"{ASSIGNMENT}-Copy1.ipynb"
    (folder / f"{ASSIGNMENT}.ipynb").rename(work)  # the student's work, in the copy
    if layout == "original and -Copy1":  # ... and the untouched original beside it
        shutil.copyfile(course / "notebooks" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", folder / f"{ASSIGNMENT}.ipynb")
    before = _hashes(course / "submitted")
    nbgrader("autograde", ASSIGNMENT, "--force", cwd=course, env=env)
    assert _hashes(course / "submitted") == before
    assert sum(auto for auto, _m in _grades(course, student).values()) == sum(
        EXPECTED[ASSIGNMENT][STUDENT_WORK].values()
    )
    graded = nbformat.read(course / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", 4)
    notes = [str(p) for p in doctor.noted_problems(graded)]  # the formgrader's and the feedback's notes cell
    assert any("the notebook was named" in note for note in notes), notes
    if layout == "original and -Copy1":
        assert (
            f"[choice] 2 notebooks handed in: graded '{work.name}' (work in 2 solution cells), ignored "
            f"'{ASSIGNMENT}.ipynb' (untouched)" in notes
        )

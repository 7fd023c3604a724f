"""The doctor's hook writes nothing into the submission's folder: what it repairs or chooses reaches nbgrader from
memory (its exporter), with its notes in nbgrader's resources, which DoctorRepairs puts at the top of the notebook."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import nbformat
import pytest

from autograder import doctor
from autograder.course import sample_class
from autograder.preprocessors import submission_doctor
from autograder.preprocessors.doctor_repairs import DoctorRepairs
from autograder.preprocessors.submission_doctor import NOTES_KEY, DoctorExporter, SubmissionDoctor

ASSIGNMENT = "01_pair_counts_and_merge"
WORK = "merge-no-skip"


def _hashes(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


@pytest.fixture
def folder(course_root, tmp_path):
    """``submitted/ada/<assignment>/``: the untouched original beside ``-Copy1``, which holds the work."""
    folder = tmp_path / "submitted" / "ada" / ASSIGNMENT
    folder.mkdir(parents=True)
    release = course_root / "notebooks" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    shutil.copyfile(release, folder / f"{ASSIGNMENT}.ipynb")
    filled = sample_class.fill(nbformat.read(release, 4), sample_class.students()[ASSIGNMENT][WORK])
    nbformat.write(filled, folder / f"{ASSIGNMENT}-Copy1.ipynb")
    return folder


def _read(path, resources):
    """What nbgrader's exporter gives its preprocessors for ``path``: the notebook and the resources."""
    output, resources = DoctorExporter().from_filename(str(path), resources)
    return nbformat.reads(output, 4), resources


def _run_hook(course_root, folder):
    notebooks = [str(p) for p in sorted(folder.glob("*.ipynb"))]
    SubmissionDoctor(course_root / "notebooks")(assignment=ASSIGNMENT, student="*", notebooks=notebooks)
    return notebooks


def test_the_work_beside_an_untouched_original_is_graded_from_memory_and_the_folder_is_untouched(course_root, folder):
    before = _hashes(folder)
    notebooks = _run_hook(course_root, folder)
    assert notebooks == [str(folder / f"{ASSIGNMENT}.ipynb")]  # the name the gradebook expects
    nb, resources = _read(notebooks[0], {"nbgrader": {}})
    assert _hashes(folder) == before  # nothing written, nothing renamed, no .unreadable
    assert doctor.work_in(nb, doctor.release_stubs(nbformat.read(folder / f"{ASSIGNMENT}.ipynb", 4))) == 2
    notes = [doctor.Problem(**p) for p in resources[NOTES_KEY]]
    assert (
        doctor.Problem(
            "choice",
            f"2 notebooks handed in: graded '{ASSIGNMENT}-Copy1.ipynb' (work in 2 solution cells), "
            f"ignored '{ASSIGNMENT}.ipynb' (untouched)",
        )
        in notes
    )
    assert resources["metadata"]["path"] == str(folder)  # timestamp.txt is checked in the submission's own folder
    again = _read(notebooks[0], {"nbgrader": {}})[1]  # served once: then the file itself
    assert NOTES_KEY not in again


def test_an_unreadable_notebook_is_graded_as_the_blank_release_without_writing_beside_it(course_root, folder):
    (folder / f"{ASSIGNMENT}-Copy1.ipynb").unlink()
    (folder / f"{ASSIGNMENT}.ipynb").write_bytes(b'{"cells": [')  # corrupt JSON
    before = _hashes(folder)
    notebooks = _run_hook(course_root, folder)
    nb, resources = _read(notebooks[0], {"nbgrader": {}})
    assert _hashes(folder) == before
    assert [p["kind"] for p in resources[NOTES_KEY]] == ["fatal"]
    blank = nbformat.read(course_root / "notebooks" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", 4)
    assert [c.source for c in nb.cells] == [c.source for c in blank.cells]


def test_a_lone_well_formed_notebook_is_left_for_nbgrader_to_read(course_root, folder):
    (folder / f"{ASSIGNMENT}-Copy1.ipynb").unlink()
    path, served = SubmissionDoctor(course_root / "notebooks").prepare(folder, [folder / f"{ASSIGNMENT}.ipynb"])
    assert path == folder / f"{ASSIGNMENT}.ipynb" and served is None


def test_the_notes_reach_the_top_of_the_notebook_and_a_students_own_notes_do_not(course_root, folder, tmp_path):
    notebooks = _run_hook(course_root, folder)
    resources = {
        "nbgrader": {
            "assignment": ASSIGNMENT,
            "notebook": ASSIGNMENT,
            "student": "ada",
            "db_url": f"sqlite:///{tmp_path / 'gradebook.db'}",  # no such assignment: the timestamp is not checked
        }
    }
    nb, resources = _read(notebooks[0], resources)
    forged = {"file_problems": [{"kind": "repaired", "text": "FORGED by the student"}]}
    nb.metadata[NOTES_KEY] = forged
    repairs = DoctorRepairs(source_directory=str(course_root / "solutions"))
    nb, _ = repairs.preprocess(nb, resources)
    noted = [str(p) for p in doctor.noted_problems(nb)]
    assert any(p.startswith("[choice] 2 notebooks handed in: graded") for p in noted), noted
    assert not any("FORGED" in p for p in noted) and NOTES_KEY not in nb.metadata
    # a file name is the student's to choose: it reaches the notes cell escaped
    name = "<img src=x onerror=alert(1)>[a](javascript:x).ipynb"
    hostile = tmp_path / "hostile" / ASSIGNMENT
    hostile.mkdir(parents=True)
    shutil.copyfile(folder / f"{ASSIGNMENT}-Copy1.ipynb", hostile / name)
    shutil.copyfile(folder / f"{ASSIGNMENT}.ipynb", hostile / f"{ASSIGNMENT}.ipynb")
    nb, resources = _read(_run_hook(course_root, hostile)[0], resources)
    nb, _ = repairs.preprocess(nb, resources)
    assert "<img" not in nb.cells[0].source and "](javascript" not in nb.cells[0].source
    assert f"graded {name!r}" in " ".join(str(p) for p in doctor.noted_problems(nb))


def test_the_hook_puts_its_exporter_in_the_calling_converter(course_root, folder, monkeypatch):
    """nbgrader hands the hook the notebooks only: the converter calling it is made to read through the exporter."""
    from nbconvert.exporters import NotebookExporter
    from nbgrader.converters.base import BaseConverter
    from nbgrader.coursedir import CourseDirectory

    converter = BaseConverter()
    converter.exporter = NotebookExporter()
    converter.notebooks = [str(p) for p in sorted(folder.glob("*.ipynb"))]
    converter.pre_convert_hook = SubmissionDoctor(course_root / "notebooks")
    converter.coursedir = CourseDirectory(assignment_id=ASSIGNMENT, student_id="*")
    converter.run_pre_convert_hook()
    assert isinstance(converter.exporter, DoctorExporter)
    assert converter.notebooks == [str(folder / f"{ASSIGNMENT}.ipynb")]
    submission_doctor._take(converter.notebooks[0])

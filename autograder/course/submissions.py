"""The submissions of a class: finding them in a folder, naming their students, staging them for nbgrader.

A class folder is nbgrader's ``submitted/`` layout (``<student>/<assignment>/<notebook>.ipynb``) or a flat folder of
``<student>.ipynb``. Student ids are made safe for nbgrader and the file system (:func:`student_id`); symbolic links
and two files giving one id are refused with both named (:func:`find_submissions`). A folder holding several notebooks
is graded by :func:`autograder.doctor.choose`'s rule, the one the doctor applies under ``nbgrader autograde`` too.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import nbformat

from bpe_lab import cells as nbcells

from .. import doctor
from .directory import CourseError, assignments, source_notebook


@dataclass(frozen=True)
class Submission:
    """One notebook to grade: who handed it in, for which assignment, and where it is."""

    student: str
    assignment: str
    path: Path
    flat: bool = False
    """Found in a flat folder of notebooks: no file beside it is its own (a ``timestamp.txt`` there is nobody's)."""
    others: tuple[Path, ...] = ()
    """The other notebooks of its folder that :func:`autograder.doctor.choose` read and did not choose: :func:`stage`
    copies them too, so that the doctor in nbgrader's pipeline makes the same choice and notes it."""


# ---------------------------------------------------------------------------------------------------------------

_SAFE_ID = re.compile(r"[^\w.@+-]+")


def student_id(name: str) -> str:
    """A student id safe for nbgrader and the file system, made from a file or folder name.

    Two names may give one id (``alice.`` and ``alice``): :func:`find_submissions` refuses such a class.

    Example:
        >>> student_id("Ada Lovelace"), student_id("alice."), student_id("../x")
        ('Ada-Lovelace', 'alice', 'x')
    """
    cleaned = _SAFE_ID.sub("-", name).strip("-.")
    return cleaned or "student"


def detect_assignment(path: Path, known: list[str], course_root: Path) -> str | None:
    """The assignment a notebook belongs to: by name, else by the ``grade_id``s of its cells."""
    for name in known:
        if name in path.name or name in path.parent.name:
            return name
    try:
        if not path.is_file() or path.is_symlink() or path.stat().st_size > doctor.MAX_BYTES:
            return None
        nb = json.loads(path.read_text(encoding="utf-8", errors="replace"))
        ids = {nbcells.grade_id(c) for c in nb.get("cells", [])}
    except Exception:  # anything a student's file can make json or a dict raise
        return None
    best, overlap = None, 0
    for name in known:
        source = source_notebook(course_root, name)
        try:
            source_ids = {nbcells.grade_id(c) for c in nbformat.read(source, 4).cells}
        except (OSError, ValueError):
            continue
        common = len((ids & source_ids) - {""})
        if common > overlap:
            best, overlap = name, common
    return best


def find_submissions(folder: Path, course_root: Path, assignment: str | None = None) -> list[Submission]:
    """The submissions under ``folder``, sorted by student then assignment.

    Layouts: ``folder/<student>/<assignment>/<notebook>.ipynb`` (nbgrader's ``submitted/``), or
    ``folder/<student>.ipynb`` (a flat folder; the assignment is ``assignment`` or detected per notebook). Names
    starting with ``.`` are skipped. Of several notebooks in one assignment folder, the one graded is
    :func:`autograder.doctor.choose`'s (the one with work in the most solution cells; ties to
    ``<assignment>.ipynb``, then to the newest by name order).

    Raises:
        CourseError: ``folder`` does not exist or holds no notebook; a symbolic link anywhere under it (a student's
            folder, an assignment's folder or a notebook: it could make one student's work, or ``solutions/``,
            count as another's); two files that give the same student id and assignment (named both).
    """
    if not folder.is_dir():
        raise CourseError(f"no folder of submissions at {folder}")
    known = assignments(course_root)
    found: list[Submission] = []
    stubs: dict[str, dict[str, str] | None] = {}
    links: list[str] = []

    def entries(parent: Path) -> list[Path]:
        kept = []
        for path in sorted(parent.iterdir()):
            if path.name.startswith("."):
                continue
            if path.is_symlink():
                links.append(f"{path} -> {os.readlink(path)}")
                continue
            kept.append(path)
        return kept

    for student_dir in [p for p in entries(folder) if p.is_dir()]:
        for assignment_dir in [p for p in entries(student_dir) if p.is_dir()]:
            notebooks = [p for p in entries(assignment_dir) if p.suffix == ".ipynb"]
            if notebooks and (assignment is None or assignment_dir.name == assignment):
                task = assignment_dir.name
                path, others = notebooks[0], tuple[Path, ...]()
                if len(notebooks) > 1:
                    if task not in stubs:
                        stubs[task] = _release_stubs(course_root, task)
                    choice = doctor.choose(notebooks, f"{task}.ipynb", stubs[task])
                    path, others = choice.path, tuple(p for p in choice.considered if p != choice.path)
                found.append(Submission(student_id(student_dir.name), task, path, others=others))
    for path in [p for p in entries(folder) if p.suffix == ".ipynb" and p.is_file()]:
        name = assignment or detect_assignment(path, known, course_root)
        stem = path.stem
        if name and stem.endswith(name) and stem != name:
            stem = stem[: -len(name)]
        found.append(Submission(student_id(stem), name or "unknown", path, flat=True))
    if links:
        raise CourseError(
            f"refusing symbolic links in the class folder {folder} (replace each with the real file or folder): "
            + "; ".join(links[:10])
            + (f"; and {len(links) - 10} more" if len(links) > 10 else "")
        )
    if not found:
        raise CourseError(f"no notebooks under {folder} (expected <student>/<assignment>/*.ipynb or *.ipynb)")
    return _distinct(sorted(found, key=lambda s: (s.student, s.assignment, str(s.path))))


RELEASE_FOLDER = "notebooks"
"""The course's release folder (``CourseDirectory.release_directory``), whose solution cells' stubs tell work from
none (:func:`autograder.doctor.work_in`)."""


def _release_stubs(course_root: Path, assignment: str) -> dict[str, str] | None:
    try:
        release = nbformat.read(course_root / RELEASE_FOLDER / assignment / f"{assignment}.ipynb", 4)
    except (OSError, ValueError):
        return None
    return doctor.release_stubs(release)


def _distinct(found: list[Submission]) -> list[Submission]:
    """``found``, if no two submissions share a student id and an assignment (ids compared without case, as a
    macOS or Windows disk would).

    Raises:
        CourseError: naming both files of the first collision (and how many more there are).
    """
    seen: dict[tuple[str, str], Submission] = {}
    clashes: list[str] = []
    for s in found:
        key = (s.student.casefold(), s.assignment)
        if key in seen:
            clashes.append(f"{seen[key].path} and {s.path} both give student id {s.student!r} for {s.assignment}")
        else:
            seen[key] = s
    if clashes:
        more = f" (and {len(clashes) - 1} more)" if len(clashes) > 1 else ""
        raise CourseError(f"{clashes[0]}{more}: rename one so that each student has one id")
    return found


NBGRADER_FILES = ("timestamp.txt", "submission_secret.txt")
"""Files nbgrader's exchange writes beside a submitted notebook; they travel to ``autograded/`` and ``feedback/``
(late penalties read the first, ``release_feedback`` both)."""


def stage(submission: Submission, folder: Path) -> None:
    """Copy a submission into ``folder`` (a ``submitted/<student>/<assignment>/`` folder) as nbgrader expects it.

    The notebook keeps its own file name (the doctor,
    :class:`autograder.preprocessors.submission_doctor.SubmissionDoctor`, grades a renamed notebook under the right one
    and says so), and the other notebooks :func:`find_submissions` weighed against it (``others``, within the
    doctor's size limit) are copied beside it, so the doctor makes the same choice and notes it; of the other files only
    nbgrader's own small ones are copied, and only regular files (never a symbolic link), and only from a submission's
    own folder: in a flat folder of notebooks a ``timestamp.txt`` is nobody's, so no student gets it as theirs.

    Args:
        submission: from :func:`find_submissions`.
        folder: where to stage it (emptied first).

    Example:
        >>> stage(find_submissions(Path("inbox"), root)[0], root / "submitted" / "ada" / "01")  # doctest: +SKIP
    """
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    shutil.copyfile(submission.path, folder / submission.path.name, follow_symlinks=False)
    for other in submission.others:
        if other.is_file() and not other.is_symlink() and other.stat().st_size <= doctor.MAX_BYTES:
            shutil.copyfile(other, folder / other.name, follow_symlinks=False)
    for name in () if submission.flat else NBGRADER_FILES:
        extra = submission.path.parent / name
        if extra.is_file() and not extra.is_symlink() and extra.stat().st_size < 4096:
            shutil.copyfile(extra, folder / name)

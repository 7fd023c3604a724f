"""The bundled sample class: submissions written as real students would, built from the release notebooks.

Each assignment has a module here whose ``STUDENTS`` maps a student id (named by scenario, e.g.
``merge-no-skip``) to the code that student wrote in each solution cell (by ``grade_id``). A solution cell
not listed keeps the release stub, so ``{}`` is a blank submission. :func:`build` writes the class in
nbgrader's ``submitted/`` layout.

Each module's ``EXPECTED`` gives what a careful reader of the notebook would score that student by hand, per
graded function; a function it does not list is at full marks. :func:`expected` fills those in from the points of
the source notebook's test cells, and ``release --check`` holds every score to them
(:func:`autograder.course.contract.sample_class_problems`): the tests assert that grading gives exactly these.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from bpe_lab import cells

from ..directory import source_notebook
from . import apply_bpe, byte_level, pair_counts_and_merge, scale, tie_breaks, training_loop

MODULES = [pair_counts_and_merge, training_loop, tie_breaks, apply_bpe, byte_level, scale]


def fill(release: nbformat.NotebookNode, answers: dict[str, str]) -> nbformat.NotebookNode:
    """A copy of a release notebook with the solution cells named in ``answers`` replaced by that code.

    Raises:
        KeyError: an answer names a cell that is not a solution cell of the notebook.
    """
    nb = nbformat.from_dict(release)
    solution_ids = set()
    for cell in nb.cells:
        if cells.is_solution(cell):
            solution_ids.add(cells.grade_id(cell))
            if cells.grade_id(cell) in answers:
                cell.source = answers[cells.grade_id(cell)].strip("\n")
    unknown = set(answers) - solution_ids
    if unknown:
        raise KeyError(f"no solution cell named {sorted(unknown)} in the release notebook")
    return nb


def finished(course_root: Path, assignment: str) -> nbformat.NotebookNode:
    """The release notebook of ``assignment`` with every exercise answered as ``solutions/`` answers it (and no
    hidden tests): what a student who solved everything has.

    Example:
        >>> nb = finished(Path("."), "01_pair_counts_and_merge")  # doctest: +SKIP
    """
    source = nbformat.read(source_notebook(course_root, assignment), 4)
    answers = {cells.grade_id(c): c.source for c in source.cells if cells.is_solution(c)}
    release = nbformat.read(course_root / "notebooks" / assignment / f"{assignment}.ipynb", 4)
    return fill(release, answers)


def students() -> dict[str, dict[str, dict[str, str]]]:
    """``{assignment: {student: {grade_id: code}}}`` for every bundled assignment."""
    return {module.ASSIGNMENT: module.STUDENTS for module in MODULES if module.STUDENTS}


def full_marks(course_root: Path, assignment: str) -> dict[str, float]:
    """``{function: points}``: the points of each graded function of ``assignment``, summed over its test cells in
    the source notebook (nbgrader's ``points`` metadata), in notebook order.

    Example:
        >>> full_marks(Path("."), "01_pair_counts_and_merge")  # doctest: +SKIP
        {'get_pair_counts': 4.0, 'merge': 4.0}
    """
    from bpe_lab.cli import cell_points

    source = nbformat.read(source_notebook(course_root, assignment), 4)
    return {function: sum(points) for function, points in cell_points(source).items()}


def expected(course_root: Path) -> dict[str, dict[str, dict[str, float]]]:
    """``{assignment: {student: {function: score}}}``: every sample student's expected score on every graded
    function, a function its module's ``EXPECTED`` does not list at :func:`full_marks`.

    Raises:
        KeyError: ``EXPECTED`` names a function the assignment does not grade (named).
    """
    out: dict[str, dict[str, dict[str, float]]] = {}
    for module in MODULES:
        full = full_marks(course_root, module.ASSIGNMENT)
        for student, scores in module.EXPECTED.items():
            unknown = sorted(set(scores) - set(full))
            if unknown:
                raise KeyError(f"{module.ASSIGNMENT}: {student}'s expected scores name {unknown}, not graded there")
            out.setdefault(module.ASSIGNMENT, {})[student] = {**full, **scores}
    return out


def build(
    course_root: Path, dest: Path, only: list[str] | None = None, only_students: list[str] | None = None
) -> list[Path]:
    """Write the sample class as ``dest/<student>/<assignment>/<assignment>.ipynb``; return the paths written.

    ``only``: these assignments; ``only_students``: these students (of each assignment that has them).
    """
    written = []
    for assignment, by_student in students().items():
        if only and assignment not in only:
            continue
        release = nbformat.read(course_root / "notebooks" / assignment / f"{assignment}.ipynb", 4)
        for student, answers in by_student.items():
            if only_students is not None and student not in only_students:
                continue
            path = dest / student / assignment / f"{assignment}.ipynb"
            path.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(fill(release, answers), path)
            written.append(path)
    return written

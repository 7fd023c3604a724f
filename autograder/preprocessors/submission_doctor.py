"""nbgrader's ``pre_convert_hook`` of ``Autograde``: :class:`SubmissionDoctor`, the file-level repairs of a submission.

A hook, not a preprocessor: it runs on the files before nbgrader reads them. What a repair is and how a notebook is
read are :mod:`autograder.doctor`'s (pure notebook logic); this module only applies them to the files nbgrader is
about to read, and leaves its notes in the notebook's metadata for
:class:`~autograder.preprocessors.doctor_repairs.DoctorRepairs`. It starts no process.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import nbformat

from .. import doctor

NOTES_KEY = "bpe_course"
"""Notebook metadata key where :class:`SubmissionDoctor` leaves what it did to the file for
:class:`~autograder.preprocessors.doctor_repairs.DoctorRepairs`."""


class SubmissionDoctor:
    """nbgrader ``pre_convert_hook`` of ``Autograde``: the file-level repairs nbgrader cannot make itself.

    nbgrader calls it as ``hook(assignment=..., student=..., notebooks=[paths])`` before it reads the
    notebooks. A notebook handed in under another name is graded under the name the gradebook expects (a copy
    is written beside it); a file nbgrader could not read (not UTF-8, a byte-order mark, an old nbformat,
    corrupt JSON) is replaced by a readable repair, its original kept beside it as ``<name>.unreadable``. A
    file that cannot be repaired is graded as the blank release notebook, so the student's feedback says why the
    score is 0.
    What was done is written into the notebook's metadata for :class:`DoctorRepairs` to report. Well-formed
    notebooks under the right name, nearly all of them, are not touched.

    Args:
        release_directory: the course's release folder (``notebooks/``), holding ``<assignment>/<assignment>.ipynb``.

    Example:
        >>> hook = SubmissionDoctor(Path("notebooks"))
        >>> hook(assignment="01", student="*", notebooks=["submitted/al/01/x.ipynb"])  # doctest: +SKIP
    """

    def __init__(self, release_directory: Path) -> None:
        self.release_directory = Path(release_directory)

    def __call__(self, assignment: str = "", student: str = "", notebooks: list[str] | None = None, **_: Any) -> None:
        if not notebooks:
            return
        # nbgrader passes the ids it was asked for (globs such as "*"): the real ones are in the paths
        by_folder: dict[Path, list[str]] = {}
        for path in notebooks:
            by_folder.setdefault(Path(path).parent, []).append(path)
        notebooks[:] = [self._repair(folder, paths) for folder, paths in by_folder.items()]

    def _repair(self, folder: Path, paths: list[str]) -> str:
        expected = folder / f"{folder.name}.ipynb"
        chosen = Path(next((p for p in paths if Path(p) == expected), sorted(paths)[0]))
        nb, problems = doctor.read(chosen, expected.name)
        if nb is not None and chosen == expected and not problems:
            return str(expected)
        if chosen == expected:
            shutil.copyfile(chosen, chosen.with_name(chosen.name + ".unreadable"), follow_symlinks=False)
        if nb is None:
            blank = self.release_directory / folder.name / expected.name
            nb = nbformat.read(blank, 4) if blank.is_file() else nbformat.v4.new_notebook()
        nb.metadata[NOTES_KEY] = {"file_problems": [{"kind": p.kind, "text": p.text} for p in problems]}
        partial = expected.with_name(f".{expected.name}.partial")
        nbformat.write(nb, partial)
        partial.replace(expected)
        return str(expected)

"""nbgrader's ``pre_convert_hook`` of ``Autograde``: :class:`SubmissionDoctor`, the file-level repairs of a submission.

A hook, not a preprocessor: it runs before nbgrader reads the files. Which notebook of a folder is graded and how a
notebook is read are :mod:`autograder.doctor`'s (:func:`~autograder.doctor.choose`, pure notebook logic); this module
hands nbgrader the result **without writing a byte into** ``submitted/`` (the student's evidence): a notebook that
needs a repair, or a note, is kept in memory and served to nbgrader by :class:`DoctorExporter` in place of the file,
its notes in the ``resources`` that :class:`~autograder.preprocessors.doctor_repairs.DoctorRepairs` reads. It starts
no process.
"""

from __future__ import annotations

import datetime as dt
import inspect
import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
from nbconvert.exporters import NotebookExporter

from .. import doctor

NOTES_KEY = "bpe_course"
"""The key of nbgrader's ``resources`` where :class:`DoctorExporter` hands :class:`SubmissionDoctor`'s notes to
:class:`~autograder.preprocessors.doctor_repairs.DoctorRepairs` (the same key in a notebook's own metadata is the
student's to write, so it is never read)."""

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Served:
    """A notebook nbgrader is to grade from memory, and the file-level notes on it."""

    notebook: Any
    problems: tuple[doctor.Problem, ...]
    read_from: Path
    """The file it was read from (its modification time is the one nbgrader would have shown)."""


_PENDING: dict[str, Served] = {}
_LOCK = threading.Lock()
_MAX_PENDING = 64
"""Notebooks prepared but not yet read by nbgrader, kept at most (a conversion that failed before reading its
notebook leaves one behind)."""


def _key(path: str | Path) -> str:
    return os.path.abspath(os.fspath(path))


def _serve(path: Path, served: Served) -> None:
    with _LOCK:
        _PENDING.pop(_key(path), None)
        while len(_PENDING) >= _MAX_PENDING:
            _PENDING.pop(next(iter(_PENDING)))
        _PENDING[_key(path)] = served


def _take(path: str | Path) -> Served | None:
    with _LOCK:
        return _PENDING.pop(_key(path), None)


class DoctorExporter(NotebookExporter):
    """nbgrader's notebook exporter, reading the notebooks :class:`SubmissionDoctor` prepared from memory.

    A path the doctor prepared (a renamed notebook, a repaired file, the one chosen of several) is read from memory,
    once, with ``resources["metadata"]`` as nbconvert would have set it for the file and the doctor's notes in
    ``resources[NOTES_KEY]``; any other path is read from its file, as nbconvert does. So the repaired notebook never
    exists in ``submitted/``. ``SubmissionDoctor`` puts it in place of the converter's exporter; set it as
    ``c.Autograde.exporter_class`` and the hook finds it there.

    Example:
        >>> c.Autograde.exporter_class = "autograder.preprocessors.submission_doctor.DoctorExporter"  # doctest: +SKIP
    """

    def from_filename(self, filename: str, resources: dict | None = None, **kw: Any) -> tuple[Any, dict]:
        """The notebook at ``filename`` converted: from memory if the doctor prepared it, else from the file.

        Args:
            filename: the notebook's path (``submitted/<student>/<assignment>/<assignment>.ipynb``).
            resources: nbgrader's resources of the notebook.

        Returns:
            ``(output, resources)``, as :meth:`nbconvert.exporters.Exporter.from_filename`.

        Raises:
            OSError: ``filename`` was not prepared and cannot be read (nbconvert's own errors likewise).
        """
        served = _take(filename)
        if served is None:
            return super().from_filename(filename, resources, **kw)
        resources = dict(resources or {})
        metadata = dict(resources.get("metadata") or {})
        metadata["name"] = os.path.splitext(os.path.basename(filename))[0]
        metadata["path"] = os.path.dirname(filename)  # the submission's folder: its timestamp.txt is checked there
        try:
            modified = dt.datetime.fromtimestamp(served.read_from.lstat().st_mtime, tz=dt.timezone.utc)
            metadata["modified_date"] = f"{modified:%B} {modified.day}, {modified:%Y}"
        except OSError:
            pass
        resources["metadata"] = metadata
        resources[NOTES_KEY] = [{"kind": p.kind, "text": p.text} for p in served.problems]
        return self.from_notebook_node(served.notebook, resources=resources, **kw)


class SubmissionDoctor:
    """nbgrader ``pre_convert_hook`` of ``Autograde``: the file-level repairs nbgrader cannot make itself.

    nbgrader calls it as ``hook(assignment=..., student=..., notebooks=[paths])`` before it reads the notebooks.
    In each submission folder, one notebook is graded, by :func:`autograder.doctor.choose`'s rule (the one with work
    in the most solution cells; ties to the expected name, then to the newest by name order), under the name the
    gradebook expects; a file nbgrader could not read (not UTF-8, a byte-order mark, an old nbformat) is graded as
    its repair; a file that cannot be repaired is graded as the blank release notebook, so the feedback says why the
    score is 0. Nothing is written into the folder: such a notebook is handed to nbgrader from memory
    (:class:`DoctorExporter`), with what was done for :class:`DoctorRepairs` to note at the top of the graded
    notebook. A lone, well-formed notebook under the right name, nearly every submission, is read by nbgrader from
    its file as usual.

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
        _install_exporter()
        # nbgrader passes the ids it was asked for (globs such as "*"): the real ones are in the paths
        by_folder: dict[Path, list[Path]] = {}
        for path in notebooks:
            by_folder.setdefault(Path(path).parent, []).append(Path(path))
        graded = []
        for folder, paths in by_folder.items():
            chosen, served = self.prepare(folder, paths)
            if served is not None:
                _serve(chosen, served)
            graded.append(str(chosen))
        notebooks[:] = graded

    def prepare(self, folder: Path, paths: list[Path]) -> tuple[Path, Served | None]:
        """The notebook nbgrader is to grade for one submission folder, reading the files and writing none.

        Args:
            folder: ``submitted/<student>/<assignment>/``.
            paths: the notebooks nbgrader found there.

        Returns:
            ``(path, served)``: the path to hand nbgrader (``<folder>/<assignment>.ipynb``, which need not exist), and
            the notebook to serve from memory there with its notes, or ``None`` when nbgrader reads that file itself
            (a lone, well-formed notebook under the expected name).

        Example:
            >>> path, served = SubmissionDoctor(Path("notebooks")).prepare(folder, [folder / "a-Copy1.ipynb"])  # doctest: +SKIP
        """  # noqa: E501
        expected = folder / f"{folder.name}.ipynb"
        release = self.release_directory / folder.name / expected.name
        try:
            blank = nbformat.read(release, 4)
            stubs = doctor.release_stubs(blank)
        except (OSError, ValueError):
            blank, stubs = None, None
        choice = doctor.choose(paths, expected.name, stubs)
        if choice.notebook is not None and choice.path == expected and not choice.problems:
            return expected, None
        nb = choice.notebook
        if nb is None:
            nb = blank if blank is not None else nbformat.v4.new_notebook()
        return expected, Served(nb, tuple(choice.problems), choice.path)


def _install_exporter() -> None:
    """Make the ``Autograde`` converter that is calling the hook read through :class:`DoctorExporter`.

    nbgrader calls the hook with the notebooks only; the converter is the ``self`` of the calling frame
    (``BaseConverter.run_pre_convert_hook``). Where ``c.Autograde.exporter_class`` names :class:`DoctorExporter`, it
    is already in place. Without it, a prepared notebook cannot reach nbgrader: said loudly, as nbgrader only logs a
    hook's error at its INFO level.
    """
    from nbgrader.converters.base import BaseConverter

    frame = inspect.currentframe()
    try:
        for _ in range(6):
            frame = frame.f_back if frame is not None else None
            owner = frame.f_locals.get("self") if frame is not None else None
            if isinstance(owner, BaseConverter):
                if not isinstance(owner.exporter, DoctorExporter):
                    owner.exporter = DoctorExporter(parent=owner, config=owner.config)
                return
    finally:
        del frame
    log.error("bpe-course: the doctor's hook was not called by an nbgrader converter: a repaired notebook cannot be "
              "served (set c.Autograde.exporter_class to %s.DoctorExporter)", __name__)  # fmt: skip

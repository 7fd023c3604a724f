"""The learner's install as the grader sees it: the distributions it holds, and their files in site-packages.

The learner's install is ``bpe_lab`` and the requirements of its distribution, written once in
``bpe_lab/data/requirements.txt`` (``learner/pyproject.toml`` reads its dependencies from there), with their
dependencies, transitively. The grading sandbox (:mod:`autograder.isolation.sandbox`) shows student code these
distributions and no other installed package (an allowlist: not nbgrader, not tiktoken, not the grader's test tools),
and the learner-install test builds a virtual environment of exactly them.

Example:
    >>> names = set(distributions())
    >>> {"matplotlib", "ipykernel", "numpy"} <= names, "tiktoken" in names, "nbgrader" in names
    (True, False, False)
"""

from __future__ import annotations

import csv
import functools
import importlib.metadata
import importlib.resources
import importlib.util
import os
from collections.abc import Iterable

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

KERNEL_RUNTIME = ("ipykernel",)
"""What runs the notebooks' code itself (the learner's JupyterLab brings it too; the grader starts it directly)."""

FRONT_END = ("jupyterlab",)
"""Requirements of the learner's install that run beside the notebooks, never in a kernel: the JupyterLab server and
its web pages. Student code does not see them, nor what only they need (:func:`student_code_distributions`)."""

NOT_FOR_GRADING = ("debugpy",)
"""Distributions the kernel runtime brings that grading never uses: ipykernel's debugger back end (a grading kernel
is never debugged; ipykernel runs without it, and starts faster)."""

NEVER = {"bpe-lab-solutions": "bpe_lab_solutions"}
"""Distributions (and their import names) that student code must never see: ``bpe-lab-solutions`` holds the model
solutions of the drill (``learner/solutions``). Asking for one, or for anything that needs one, is refused."""


class AnswerKeyVisible(ValueError):
    """Student code would be able to import the model solutions (``bpe-lab-solutions``)."""


def refuse_answer_keys(names: Iterable[str]) -> None:
    """Raise :class:`AnswerKeyVisible` if a distribution of ``names`` (canonical or not) is one of :data:`NEVER`.

    Example:
        >>> refuse_answer_keys(["matplotlib", "regex"])
        >>> try:
        ...     refuse_answer_keys(["bpe_lab_solutions"])
        ... except AnswerKeyVisible as exc:
        ...     print(str(exc)[:44])
        bpe-lab-solutions holds the model solutions:
    """
    for name in names:
        if canonicalize_name(name) in NEVER:
            raise AnswerKeyVisible(
                f"{canonicalize_name(name)} holds the model solutions: a graded course's student code must never "
                "import it (take it out of extra_distributions, or out of the students' image)"
            )


def answer_keys_importable() -> list[str]:
    """The import names of :data:`NEVER` that this interpreter can import (where the grader runs student code
    itself, without the sandbox, they must be none)."""
    return [module for module in NEVER.values() if importlib.util.find_spec(module) is not None]


def requirements() -> list[str]:
    """The requirements of the learner's distribution (``bpe-lab``), as written in ``bpe_lab/data/requirements.txt``.

    Returns:
        Requirement strings, in file order: ``["jupyterlab>=4", "ipywidgets>=8", ...]``.
    """
    text = importlib.resources.files("bpe_lab").joinpath("data/requirements.txt").read_text("utf-8")
    lines = (line.split("#", 1)[0].strip() for line in text.splitlines())
    return [line for line in lines if line]


def dependency_closure(
    wanted: Iterable[str], needed_by: str = "the learner's install"
) -> dict[str, importlib.metadata.Distribution]:
    """The installed distributions that the requirements ``wanted`` need, transitively: environment markers are
    evaluated here, and a requirement's extras bring the dependencies those extras add.

    Args:
        wanted: requirement strings (``"matplotlib>=3.7"``, ``"jupyter-server[foo]"``, a bare name).
        needed_by: who asks for ``wanted``, for the error message.

    Returns:
        ``{canonical name: distribution}``, each installed distribution once.

    Raises:
        ValueError: a requirement that cannot be parsed (named).
        LookupError: a distribution that is needed but not installed here (named, with what needs it).
    """
    found: dict[str, importlib.metadata.Distribution] = {}
    todo: list[tuple[Requirement, str]] = []
    for text in wanted:
        try:
            todo.append((Requirement(text), needed_by))
        except InvalidRequirement as exc:
            raise ValueError(f"not a requirement: {text!r} ({exc})") from None
    while todo:
        req, needed_by = todo.pop()
        key = canonicalize_name(req.name)
        if key in found:
            continue
        try:
            dist = importlib.metadata.distribution(req.name)
        except importlib.metadata.PackageNotFoundError:
            raise LookupError(f"{req.name} (needed by {needed_by}) is not installed here") from None
        found[key] = dist
        extras = ["", *req.extras]
        for text in dist.requires or []:
            dep = Requirement(text)
            if dep.marker is None or any(dep.marker.evaluate({"extra": extra}) for extra in extras):
                todo.append((dep, req.name))
    return found


@functools.lru_cache(maxsize=8)
def distributions(extra: tuple[str, ...] = ()) -> dict[str, importlib.metadata.Distribution]:
    """The learner's install: the closure of :func:`requirements`, :data:`KERNEL_RUNTIME` and ``extra`` (what an
    instructor's student image adds, as requirement strings). Cached per ``extra``.

    Raises:
        ValueError, LookupError: as :func:`dependency_closure`. AnswerKeyVisible (a ``ValueError``): ``extra``
        asks for the model solutions (:data:`NEVER`), or for something that needs them.
    """
    asked = []
    for text in extra:
        try:
            asked.append(Requirement(text).name)
        except InvalidRequirement:
            asked.append(text)  # dependency_closure names it
    refuse_answer_keys(asked)  # refused by name, installed or not
    found = {**dependency_closure([*requirements(), *KERNEL_RUNTIME]),
             **dependency_closure(extra, "the course's extra_distributions")}  # fmt: skip
    refuse_answer_keys(found)  # needed by what is asked for
    return found


@functools.lru_cache(maxsize=8)
def student_code_distributions(extra: tuple[str, ...] = ()) -> dict[str, importlib.metadata.Distribution]:
    """What student code may import while it is graded (the sandbox's allowlist): the closure of :func:`requirements`
    but :data:`FRONT_END`, of :data:`KERNEL_RUNTIME` and of ``extra`` (an instructor's ``extra_distributions``),
    without :data:`NOT_FOR_GRADING` unless ``extra`` names one. A subset of :func:`distributions`: the packages the
    notebooks' code runs with, not the JupyterLab server that shows them. Cached per ``extra``.

    Raises:
        ValueError, LookupError, AnswerKeyVisible: as :func:`distributions`.

    Example:
        >>> names = set(student_code_distributions())
        >>> {"matplotlib", "ipykernel", "regex"} <= names, "jupyter-server" in names, "debugpy" in names
        (True, False, False)
    """
    distributions(extra)  # the same refusals, by the same rules
    front = {canonicalize_name(Requirement(text).name) for text in FRONT_END}
    kept = [text for text in requirements() if canonicalize_name(Requirement(text).name) not in front]
    found = dependency_closure([*kept, *KERNEL_RUNTIME])
    for name in NOT_FOR_GRADING:
        found.pop(canonicalize_name(name), None)
    return {**found, **dependency_closure(extra, "the course's extra_distributions")}


def _recorded_paths(dist: importlib.metadata.Distribution) -> list[str]:
    """The paths ``dist`` installed, relative to its site-packages folder: its ``RECORD`` read as the CSV it is
    (``dist.files`` gives the same as path objects, several times slower for thousands of files), else
    ``dist.files`` (an older install's list of files)."""
    record = dist.read_text("RECORD")
    if record is not None:
        return [row[0] for row in csv.reader(record.splitlines()) if row and row[0]]
    return [str(file) for file in dist.files or []]


def site_entries(dist: importlib.metadata.Distribution) -> set[str]:
    """The top-level files and folders of its site-packages folder that belong to ``dist``: its packages, modules,
    extension modules, ``.pth`` files and metadata folder; inside ``__pycache__`` (shared by all single-module
    distributions) only its own files. Files it installed outside (scripts in ``bin/``) are not listed.

    Returns:
        Absolute paths that exist.

    Example:
        >>> entries = site_entries(importlib.metadata.distribution("regex"))
        >>> sorted(os.path.basename(p).split("-")[0] for p in entries)
        ['regex', 'regex']
    """
    base = os.path.realpath(str(dist.locate_file("")))
    candidates: set[str] = set()
    for text in _recorded_paths(dist):
        path = os.path.normpath(os.path.join(base, text))  # "./x", "a//b" and "../../bin/x" too
        if not path.startswith(base + os.sep):
            continue  # ../../bin/jupyter-lab and the like
        top = path[len(base) + 1 :].split(os.sep, 1)[0]
        candidates.add(path if top == "__pycache__" else os.path.join(base, top))
    entries = {entry for entry in candidates if os.path.exists(entry)}  # each checked once, not once per file
    if not entries:  # no file list (some system packages): the declared top-level names
        for name in (dist.read_text("top_level.txt") or "").split():
            for candidate in (name, name + ".py"):
                if os.path.exists(os.path.join(base, candidate)):
                    entries.add(os.path.join(base, candidate))
    return entries

"""What an nbgrader cell is, read from its ``metadata.nbgrader``: one home for the course's tools.

nbgrader marks a cell with ``solution`` (the student writes it), ``grade`` (it scores ``points``), ``locked``
(nbgrader puts the source back) and a ``grade_id``. A *test cell* is graded and not a solution (nbgrader's
"autograder tests" cell); a *solution cell* is one the student answers. These helpers accept a plain dict (a
notebook read as JSON) as well as nbformat's ``NotebookNode``, so the grader, the doctor (which reads broken
files) and the learner's self-check read cells alike. The rules are nbgrader's (``nbgrader.utils.is_grade``,
``is_solution``, ``is_locked``), without importing nbgrader, which a learner's install does not have.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = [
    "error_message",
    "grade_id",
    "is_graded",
    "is_locked",
    "is_solution",
    "is_test",
    "meta",
    "points",
    "source",
    "where_lines",
]

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def meta(cell: Mapping[str, Any]) -> dict[str, Any]:
    """The cell's ``metadata.nbgrader`` (``{}`` when absent or not a dict).

    Example:
        >>> meta({"metadata": {"nbgrader": {"grade_id": "merge"}}})
        {'grade_id': 'merge'}
    """
    metadata = cell.get("metadata") or {}
    found = metadata.get("nbgrader") if isinstance(metadata, Mapping) else None
    return found if isinstance(found, dict) else {}


def grade_id(cell: Mapping[str, Any]) -> str:
    """The cell's ``grade_id``, or ``""``."""
    value = meta(cell).get("grade_id")
    return value if isinstance(value, str) else ""


def is_solution(cell: Mapping[str, Any]) -> bool:
    """A cell the student answers (nbgrader's ``solution``)."""
    return bool(meta(cell).get("solution"))


def is_graded(cell: Mapping[str, Any]) -> bool:
    """A cell that scores points (nbgrader's ``grade``)."""
    return bool(meta(cell).get("grade"))


def is_locked(cell: Mapping[str, Any]) -> bool:
    """A read-only cell whose source nbgrader puts back (nbgrader's ``locked``)."""
    return bool(meta(cell).get("locked"))


def is_test(cell: Mapping[str, Any]) -> bool:
    """A code cell of tests: graded and not a solution (nbgrader's autograder tests cell).

    Example:
        >>> is_test({"cell_type": "code", "metadata": {"nbgrader": {"grade": True, "solution": False}}})
        True
    """
    return cell.get("cell_type") == "code" and is_graded(cell) and not is_solution(cell)


def points(cell: Mapping[str, Any]) -> float:
    """The points of a graded cell (0 for any other)."""
    try:
        return float(meta(cell).get("points") or 0) if is_graded(cell) else 0.0
    except (TypeError, ValueError):
        return 0.0


def source(cell: Mapping[str, Any]) -> str:
    """The cell's source as one string (a notebook read as JSON may hold it as a list of lines)."""
    text = cell.get("source", "")
    return "".join(text) if isinstance(text, list) else str(text)


def error_message(cell: Mapping[str, Any]) -> str:
    """What went wrong in an executed cell, as one line: ``"ename: evalue"`` of its first error output, else what it
    wrote to stderr (nbgrader zeroes a graded cell for either), else ``""``. Terminal colours are removed.

    Example:
        >>> error_message({"outputs": [{"output_type": "error", "ename": "KeyError", "evalue": "'a'"}]})
        "KeyError: 'a'"
    """
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            value = _ANSI.sub("", output.get("evalue", "")).strip()
            return f"{output.get('ename', 'Error')}: {value}" if value else output.get("ename", "Error")
        if output.get("output_type") == "stream" and output.get("name") == "stderr":
            return "wrote to stderr: " + _ANSI.sub("", output.get("text", "")).strip()[:300]
    return ""


def where_lines(cell: Mapping[str, Any]) -> list[str]:
    """The lines of the student's own cells an error passed through (the grader's judge marks them ``of your cell``
    in the traceback), the last three."""
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            return [line.strip()[:300] for line in output.get("traceback", []) if "of your cell" in line][-3:]
    return []

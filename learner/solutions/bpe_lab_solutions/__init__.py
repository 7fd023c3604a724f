"""bpe_lab_solutions: the BPE course's model solutions, for ``bpe-lab drill`` (an opt-in distribution).

``solution(name)`` gives one exercise's model solution as ``{"solution": source, "complexity": text, "calls": [...]}``
(``calls``: the graded functions it uses, whose model solutions come with it). The data is written by the course's
``python -m autograder release`` from the source notebooks (``autograder.course.problems``). Not for graded courses: the
grader refuses a kernel that can import this package.

Example:
    >>> solution("merge")["complexity"][:4]
    'O(n)'
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data" / "solutions.json"


@functools.lru_cache(maxsize=1)
def _all() -> dict[str, dict[str, Any]]:
    return json.loads(DATA.read_text(encoding="utf-8"))


def names() -> list[str]:
    """The exercises that have a model solution, in the course's order."""
    return list(_all())


def solution(name: str) -> dict[str, Any]:
    """The model solution of exercise ``name``.

    Raises:
        KeyError: no exercise of that name (the message names the known ones).
    """
    found = _all()
    if name not in found:
        raise KeyError(f"no model solution for {name!r}; there are {', '.join(found)}")
    return dict(found[name])

"""The drill's problem pages, shipped as data: one per exercise of the course, in the course's order.

``bpe_lab/data/drill/exercises.json`` is written by ``python -m autograder release`` (:mod:`autograder.course.problems`)
from the exercises' own text in the source notebooks, so a page says what the notebook says: the contract and
conventions, the three nested hints, the given code, the stub (and the stubs of the graded functions it may call),
the examples (the visible part of its test cells) and each test cell's note. No model solution is in it.

Example:
    >>> page = exercise("merge")
    >>> page.difficulty, page.minutes, len(page.hints)
    ('easy', 15, 3)
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FILE = Path(__file__).resolve().parent / "data" / "drill" / "exercises.json"


@dataclass(frozen=True)
class Exercise:
    """One exercise's page: see the module's docstring. ``tests``: ``{"cell", "note"}`` per test cell, in order
    (one per part of its check)."""

    name: str
    assignment: str
    number: int
    title: str
    difficulty: str
    minutes: int
    points: int
    page: str
    hints: list[str]
    given: str
    stub: str
    needs: dict[str, str] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)
    tests: list[dict[str, str]] = field(default_factory=list)


@functools.lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    if not FILE.exists():
        raise FileNotFoundError(f"no problem pages at {FILE} (reinstall bpe_lab with its data)")
    return json.loads(FILE.read_text(encoding="utf-8"))


def exercises() -> list[Exercise]:
    """Every exercise of the course, in the order of the assignments and of their exercises."""
    return [Exercise(**entry) for entry in _data()["exercises"]]


def exercise(name: str) -> Exercise:
    """The exercise whose graded function is ``name``.

    Raises:
        KeyError: no such exercise; the message names the known ones.
    """
    for entry in exercises():
        if entry.name == name:
            return entry
    raise KeyError(f"no exercise {name!r}; the exercises are {', '.join(e.name for e in exercises())}")


def test_notes(name: str) -> list[str]:
    """Each of ``name``'s test cells as a learner finds it (its place among the function's check cells, which the
    notebook and the drill's page show in this order) with its note, in the order of its check's parts (``[]`` if
    none is known). Never the cell's grade id, which a learner does not see.

    Example:
        >>> test_notes("merge")[1][:43]
        "merge's check cell 2 of 2: Overlaps: skip b"
    """
    try:
        tests = exercise(name).tests
    except (KeyError, FileNotFoundError):
        return []
    places = [f"{name}'s check cell {n} of {len(tests)}" for n in range(1, len(tests) + 1)]
    return [f"{place}: {t['note']}" if t["note"] else place for place, t in zip(places, tests)]

"""The drill's problem pages and model solutions, made from the exercises' own text in ``solutions/`` at release.

Each exercise of a source notebook is a markdown cell headed ``## Exercise N · TITLE (difficulty · M minutes · P
points)`` with its contract, conventions, examples and three nested hints, followed by its solution cell (the
function, ``grade_id`` = its name) and its test cells. From them, and from the freshly released notebook (for the
stub exactly as learners get it), :func:`build` makes:

* ``bpe_lab/data/drill/exercises.json``: per exercise, the page (the notebook's conventions and the exercise's text,
  hints taken out), the three hints, the given code, the stub, the stubs of the graded functions it may call, the
  examples (the visible part of its test cells) and each test cell's note: what ``bpe-lab drill`` writes into a
  workspace and prints. No solution is in it: the learner's install ships it.
* ``learner/solutions/bpe_lab_solutions/data/solutions.json``: per exercise, the model solution (the source cell
  without the ``BEGIN/END SOLUTION`` lines), the ``# Complexity:`` line it states, and the graded functions it calls.
  Only the opt-in distribution ``bpe-lab-solutions`` ships it.

One source: drill and notebook never disagree, and ``release --check`` reports either file stale (:func:`stale`).

Example:
    >>> found = HEADING.search("## Exercise 2 · `merge(ids, pair, new_id)` <span>(easy · 15 minutes · 4 points)</span>")
    >>> found["title"], found["difficulty"], found["minutes"]
    ('`merge(ids, pair, new_id)`', 'easy', '15')
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import nbformat

from bpe_lab import cells
from bpe_lab.selfcheck import HIDDEN_CHECKS, JUDGED_BY

from .directory import source_notebook

PAGES = Path("bpe_lab") / "data" / "drill" / "exercises.json"
"""The problem pages, relative to the course directory (the learner's toolkit ships them)."""
SOLUTIONS = Path("learner") / "solutions" / "bpe_lab_solutions" / "data" / "solutions.json"
"""The model solutions, relative to the course directory (only ``bpe-lab-solutions`` ships them)."""

HEADING = re.compile(
    r"^## Exercise (?P<number>\d+) · (?P<title>.+?)\s*<span[^>]*>\((?P<difficulty>easy|medium|hard) · "
    r"(?P<minutes>\d+) minutes · (?P<points>\d+) points?\)</span>\s*$",
    re.M,
)
HINT = re.compile(r"<details><summary><b>Hint (\d) of 3</b></summary>")
SOLUTION_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")
COMPLEXITY = re.compile(r"^\s*# Complexity: (.+)$", re.M)


def _hints(text: str) -> tuple[str, list[str]]:
    """The page before the first hint, and the three hints' texts."""
    pieces = HINT.split(text)
    page, rest = pieces[0], pieces[1:]
    hints = [re.sub(r"</?details>", "", body).strip() for body in rest[1::2]]
    if [int(n) for n in rest[0::2]] != [1, 2, 3]:
        raise ValueError("an exercise needs three nested hints, 'Hint 1 of 3' to 'Hint 3 of 3'")
    return page.strip(), hints


def _model(source: str) -> str:
    """The solution cell without the ``### BEGIN SOLUTION`` / ``### END SOLUTION`` lines."""
    return "\n".join(line for line in source.splitlines() if line.strip() not in SOLUTION_MARKERS).strip() + "\n"


def _visible(source: str) -> str:
    """A test cell without its hidden tests."""
    return source.split("### BEGIN HIDDEN TESTS")[0].rstrip() + "\n"


def _note(source: str) -> str:
    """The test cell's opening comment: what the cell is about."""
    lines = []
    for line in source.splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("# ").strip())
    return " ".join(lines)


def _calls(source: str, graded: dict[str, str], name: str) -> list[str]:
    """The graded cells of ``graded`` (grade id: solution) whose functions ``source`` (a solution) reads by name, in
    the notebook's order: the graded function itself, or a helper its cell defines (06's ``split_specials``, in the
    cell of ``chunk_counts``)."""
    read = {n.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Name)}
    out = []
    for grade_id, solution in graded.items():
        tree = ast.parse(solution)
        defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))} | {grade_id}
        if grade_id != name and read & defined:
            out.append(grade_id)
    return out


def exercises(solution: nbformat.NotebookNode, released: nbformat.NotebookNode, assignment: str) -> list[dict]:
    """The exercises of one assignment: ``(page data, model solution data)`` merged in one dict per exercise.

    Raises:
        ValueError: an exercise's text without its heading's difficulty and time, or without three hints, or a
        solution cell the release does not have.
    """
    stubs = {cells.grade_id(c): cells.source(c) for c in released.cells if cells.is_solution(c)}
    conventions = [cells.source(c) for c in solution.cells if cells.grade_id(c) == "conventions"]
    given = [cells.source(c) for c in solution.cells if cells.grade_id(c).startswith("given")]
    graded = {
        cells.grade_id(c): cells.source(c)
        for c in solution.cells
        if cells.is_solution(c) and cells.grade_id(c) in HIDDEN_CHECKS
    }
    out: list[dict] = []
    current: dict[str, Any] | None = None
    for cell in solution.cells:
        text, grade_id = cells.source(cell), cells.grade_id(cell)
        heading = HEADING.search(text) if cell.cell_type == "markdown" else None
        if heading:
            page, hints = _hints(text)
            current = {"heading": heading, "page": page, "hints": hints}
        elif current is not None and cells.is_solution(cell) and grade_id in HIDDEN_CHECKS:
            if grade_id not in stubs:
                raise ValueError(f"{assignment}: the release has no solution cell {grade_id!r}")
            found = current["heading"]
            complexity = COMPLEXITY.search(text)
            needs = _calls(text, graded, grade_id) + [n for n in JUDGED_BY if grade_id == "disagreeing_merges"]
            out.append({
                "name": grade_id,
                "assignment": assignment,
                "number": int(found["number"]),
                "title": found["title"].strip(),
                "difficulty": found["difficulty"],
                "minutes": int(found["minutes"]),
                "points": int(found["points"]),
                "page": "\n\n".join([*conventions, current["page"]]),
                "hints": current["hints"],
                "given": "\n\n".join(given),
                "stub": stubs[grade_id],
                "needs": {n: stubs[n] for n in needs},
                "examples": [],
                "tests": [],
                "solution": _model(text),
                "complexity": complexity[1].strip() if complexity else "",
            })  # fmt: skip
        elif out and cells.is_graded(cell) and grade_id.startswith(f"test_{out[-1]['name']}"):
            out[-1]["examples"].append(_visible(text))
            out[-1]["tests"].append({"cell": grade_id, "note": _note(text)})
    return out


SOLUTION_FIELDS = ("solution", "complexity")


def build(course_root: Path, released_root: Path) -> dict[Path, bytes]:
    """The two files (paths relative to the course directory, and their bytes) from every assignment's source
    notebook and its release in ``released_root/<assignment>/``.

    A solution without its ``# Complexity:`` line gets an empty one (the drill says so; a test of the course asks
    every solution for it).

    Raises:
        ValueError: see :func:`exercises`.
    """
    from .directory import assignments

    pages: list[dict] = []
    solutions: dict[str, dict] = {}
    for assignment in assignments(course_root):
        source = nbformat.read(source_notebook(course_root, assignment), as_version=4)
        released = nbformat.read(released_root / assignment / f"{assignment}.ipynb", as_version=4)
        for exercise in exercises(source, released, assignment):
            solutions[exercise["name"]] = {k: exercise.pop(k) for k in SOLUTION_FIELDS}
            solutions[exercise["name"]]["calls"] = list(exercise["needs"])
            pages.append(exercise)
    return {PAGES: _json({"exercises": pages}), SOLUTIONS: _json(solutions)}


def _json(data: Any) -> bytes:
    return (json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n").encode("utf-8")


def write(course_root: Path, released_root: Path) -> list[Path]:
    """Write both files into the course directory; returns their paths."""
    written = []
    for rel, data in build(course_root, released_root).items():
        (course_root / rel).parent.mkdir(parents=True, exist_ok=True)
        (course_root / rel).write_bytes(data)
        written.append(course_root / rel)
    return written


def stale(course_root: Path, released_root: Path) -> list[str]:
    """The files that differ from a fresh :func:`build`, as sentences."""
    problems = []
    for rel, data in build(course_root, released_root).items():
        path = course_root / rel
        if not path.exists():
            problems.append(f"{rel} is missing")
        elif path.read_bytes() != data:
            problems.append(f"{rel} is stale")
    return problems

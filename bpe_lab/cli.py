"""``python -m bpe_lab check NOTEBOOK``: the self-check of a whole notebook from the command line, in about a second.

The notebook's own definitions (its exercise cells, its given code and the cells that only define names: imports,
constants, functions) run in a fresh Python process, without Jupyter; cells that draw, print or test are skipped.
Then each graded function of the notebook goes through :func:`bpe_lab.selfcheck.check`, the same check as a
``check("merge")`` cell: the public cases with their expected answers, smallest first, so a failure names the
smallest input the function gets wrong. The points are the notebook's own (the points of its test cells); a graded
course grades on other inputs (a private seed) and in a sandbox, so a full score here is a strong sign, not a
grade.

Exit status: 0 when every function checked passes, 1 when one fails, 2 when the notebook cannot be read.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import cells

__all__ = ["NotebookError", "Outcome", "check_notebook", "definitions", "graded_functions", "main"]

RUN_TIMEOUT = 60.0
"""Seconds the whole run may take (each call of a learner's function also has its own limit of 2 s)."""


class NotebookError(Exception):
    """The notebook cannot be read (missing, not JSON, not a notebook)."""


@dataclass
class Outcome:
    """One graded function's result: ``passed``, the message of its first failure, and its points."""

    name: str
    passed: bool
    message: str = ""
    points: float = 0.0
    possible: float = 0.0


@dataclass
class Report:
    """The outcomes of one notebook, and what went wrong before any check ran (a cell that raised)."""

    notebook: str
    outcomes: list[Outcome] = field(default_factory=list)
    cell_errors: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def score(self) -> float:
        return sum(o.points for o in self.outcomes)

    @property
    def possible(self) -> float:
        return sum(o.possible for o in self.outcomes)


def _read(path: Path) -> dict[str, Any]:
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise NotebookError(f"{path}: no such notebook") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise NotebookError(f"{path}: not a readable notebook ({type(exc).__name__}: {exc})") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise NotebookError(f"{path}: not a notebook (no list of cells)")
    return nb


_DEFINING = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.Assign, ast.AnnAssign)


def _only_defines(source: str) -> bool:
    """A cell whose every statement is an import, a definition or an assignment (a docstring aside)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue
        if not isinstance(node, _DEFINING):
            return False
        if isinstance(node, (ast.Import, ast.ImportFrom)) and _imports_charts(node):
            return False
    return bool(tree.body)


def _imports_charts(node: ast.Import | ast.ImportFrom) -> bool:
    names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
    drawing = ("matplotlib", "ipywidgets", "IPython")
    return any(n.split(".")[0] in drawing or n.split(".")[:2] == ["bpe_lab", "charts"] for n in names)


def definitions(nb: dict[str, Any]) -> list[tuple[str, str]]:
    """The cells to run, as ``(cell id, source)``: the exercise (solution) cells, the given code (cells whose id
    starts with ``given``) and the cells that only define.

    Example:
        >>> nb = {"cells": [{"cell_type": "code", "source": "X = 1", "metadata": {}},
        ...                 {"cell_type": "code", "source": "print(X)", "metadata": {}}]}
        >>> definitions(nb)
        [('cell 1', 'X = 1')]
    """
    out = []
    for index, cell in enumerate(nb["cells"], start=1):
        if cell.get("cell_type") != "code":
            continue
        source = cells.source(cell)
        given = cells.grade_id(cell).startswith("given")  # the course's given code (constants, helpers)
        if not cells.is_test(cell) and (cells.is_solution(cell) or given or _only_defines(source)):
            out.append((cells.grade_id(cell) or f"cell {index}", source))
    return out


def graded_functions(nb: dict[str, Any]) -> list[str]:
    """The graded functions of the notebook, in order: those its test cells (``test_<function>...``) grade.

    Example:
        >>> nb = {"cells": [{"cell_type": "code", "source": "",
        ...                  "metadata": {"nbgrader": {"grade": True, "grade_id": "test_merge_basic", "points": 2}}}]}
        >>> graded_functions(nb)
        ['merge']
    """
    return list(cell_points(nb))


def cell_points(nb: dict[str, Any]) -> dict[str, list[float]]:
    """The points of each graded function's test cells (``test_<function>...``), in order, as nbgrader has them.

    Example:
        >>> cell = {"cell_type": "code", "metadata": {"nbgrader": {"grade": True, "grade_id": "test_merge_basic",
        ...                                                        "points": 2}}}
        >>> cell_points({"cells": [cell, cell]})
        {'merge': [2.0, 2.0]}
    """
    from .selfcheck import HIDDEN_CHECKS

    out: dict[str, list[float]] = {}
    for cell in nb["cells"]:
        grade_id = cells.grade_id(cell)
        if not (cells.is_graded(cell) and grade_id.startswith("test_")):
            continue
        name = max((n for n in HIDDEN_CHECKS if grade_id[5:] == n or grade_id[5:].startswith(n + "_")), key=len,
                   default=None)  # fmt: skip
        if name is not None:
            out.setdefault(name, []).append(cells.points(cell))
    return out


# The child process: runs the definitions, then the checks, and prints one JSON line of results. It imports only
# bpe_lab (the learner's toolkit) and the standard library.
_CHILD = r"""
import contextlib, io, json, os, sys
request = json.loads(sys.stdin.read())
namespace = {"__name__": "__main__"}
errors = []
os.environ["NBGRADER_EXECUTION"] = "autograde"  # a check() cell among the definitions does nothing
for cell_id, source in request["cells"]:
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(source, cell_id, "exec"), namespace)
    except BaseException as exc:  # the learner's cell: reported, the others still run
        errors.append(f"{cell_id}: {type(exc).__name__}: {str(exc)[:200]}")
del os.environ["NBGRADER_EXECUTION"]
from bpe_lab.selfcheck import check_parts
results = []
for name in request["names"]:
    if name not in namespace:
        results.append([name, [], f"{name} is not defined: its cell raised or does not define it"])
        continue
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            parts = check_parts(name, namespace[name], namespace)
    except Exception as exc:
        results.append([name, [], f"{type(exc).__name__}: {exc}"])
        continue
    shown = [[part, failed is None, "\n".join([str(failed), *getattr(failed, "__notes__", [])]) if failed else ""]
             for part, count, failed in parts]
    results.append([name, shown, ""])
print(json.dumps({"errors": errors, "results": results}))
"""


def check_notebook(path: str | os.PathLike[str], only: list[str] | None = None) -> Report:
    """Check the graded functions of the notebook at ``path`` (or ``only`` those) on the public cases.

    Args:
        path: a course notebook (a release notebook with the exercises done, or any copy of it).
        only: the functions to check (default: every graded function of the notebook).

    Returns:
        A :class:`Report`: one :class:`Outcome` per function, in the notebook's order.

    Raises:
        NotebookError: the notebook cannot be read, or ``only`` names a function it does not define.

    Example:
        >>> check_notebook("01_pair_counts_and_merge.ipynb").score  # doctest: +SKIP
        8.0
    """
    start = time.perf_counter()
    notebook = Path(path)
    nb = _read(notebook)
    names = graded_functions(nb)
    if only:
        unknown = [n for n in only if n not in names]
        if unknown:
            raise NotebookError(
                f"{notebook.name} grades no function {', '.join(map(repr, unknown))}; "
                f"it grades {', '.join(names) or 'none'}"
            )
        names = [n for n in names if n in only]
    request = json.dumps({"cells": definitions(nb), "names": names})
    report = Report(notebook.name)
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD],
            input=request,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            cwd=notebook.resolve().parent,
        )
    except subprocess.TimeoutExpired:
        report.cell_errors.append(f"the notebook's definitions ran past {RUN_TIMEOUT:g} s (a loop at top level?)")
        report.outcomes = [Outcome(n, False, "not checked: the run ran out of time") for n in names]
        return _unchecked(report, nb)
    lines = done.stdout.strip().splitlines()
    try:
        data = json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        report.cell_errors.append(f"the run stopped before reporting (exit {done.returncode}): {tail[:200]}")
        report.outcomes = [Outcome(n, False, "not checked: the run stopped") for n in names]
        return _unchecked(report, nb)
    report.cell_errors = list(data["errors"])
    table = cell_points(nb)
    for name, parts, message in data["results"]:
        cells_of = table.get(name, [])
        outcome = Outcome(name, bool(parts) and all(ok for _, ok, _ in parts), message)
        outcome.possible = sum(cells_of)
        if parts:  # the parts come in the order of the function's test cells, one each
            outcome.points = sum(p for (_, ok, _), p in zip(parts, cells_of) if ok)
            outcome.message = next((text for _, ok, text in parts if not ok), "")
        report.outcomes.append(outcome)
    report.seconds = time.perf_counter() - start
    return report


def _unchecked(report: Report, nb: dict[str, Any]) -> Report:
    table = cell_points(nb)
    for outcome in report.outcomes:
        outcome.possible = sum(table.get(outcome.name, []))
    return report


def format_report(report: Report) -> str:
    """The report as the terminal shows it: one line per function, a failure's three lines under it."""
    lines = [f"{report.notebook}: {report.score:g} of {report.possible:g} points on the public cases"]
    for error in report.cell_errors:
        lines.append(f"  a cell raised: {error}")
    for outcome in report.outcomes:
        mark = "ok  " if outcome.passed else "FAIL"
        lines.append(f"  {mark} {outcome.name}  {outcome.points:g}/{outcome.possible:g}")
        if outcome.message:
            lines += ["       " + line for line in outcome.message.splitlines()]
    lines.append(f"  ({report.seconds:.1f} s; a graded course checks other inputs too)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """``python -m bpe_lab check NOTEBOOK [--function NAME ...]`` (also ``bpe-lab check``)."""
    parser = argparse.ArgumentParser(prog="bpe-lab", description="The learner's toolkit of the BPE course.")
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check", help="check a notebook's graded functions on the public cases")
    check.add_argument("notebook", help="a course notebook (.ipynb)")
    check.add_argument("--function", "-f", action="append", help="check only this function (repeatable)")
    args = parser.parse_args(argv)
    try:
        report = check_notebook(args.notebook, args.function)
    except NotebookError as exc:
        print(f"bpe-lab: {exc}", file=sys.stderr)
        return 2
    print(format_report(report))
    return 0 if all(o.passed for o in report.outcomes) and report.outcomes else 1

"""``python -m bpe_lab check NOTEBOOK``: the self-check of a whole notebook (or ``.py`` file) from the command line.

The notebook's own definitions (its exercise cells, its given code and the cells that only define names: imports,
constants, functions; of a ``.py`` file, its imports, definitions and assignments) run in a second Python process,
without Jupyter (:mod:`bpe_lab.worker`); cells that draw, print or test are skipped. Then each graded function of
the notebook goes through :func:`bpe_lab.selfcheck.check_parts` in this process, the same checks as a
``check("merge")`` cell, calling the learner's functions in the other (:mod:`bpe_lab.remote`): the public cases
with their expected answers, smallest first, so a failure names the smallest input the function gets wrong, and
the test cell it is about. Nothing the learner's code prints or patches reaches this process's verdict.
The points are the notebook's own (the points of its test cells); a graded
course grades on other inputs (a private seed) and in a sandbox, so a full score here is a strong sign, not a
grade.

Exit status: 0 when every function checked passes, 1 when one fails, 2 when the notebook cannot be read.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import cells

__all__ = [
    "NotebookError", "Outcome", "check_notebook", "definitions", "graded_functions", "judge", "main", "py_definitions"
]  # fmt: skip

RUN_TIMEOUT = 60.0
"""Seconds of CPU time the learner's code may take while it loads (each call of a learner's function also has its
own limit of 2 s)."""


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
    cases: int = 0
    measured: list[str] = field(default_factory=list)  # parts only grading measures (06's speed): no public case
    measured_points: float = 0.0


@dataclass
class Report:
    """The outcomes of one notebook, and what went wrong before any check ran (a cell that raised)."""

    notebook: str
    outcomes: list[Outcome] = field(default_factory=list)
    cell_errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    unit: str = "points"

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


def py_definitions(text: str, name: str = "file") -> list[tuple[str, str]]:
    r"""What to run of a plain ``.py`` file (or of one cell), as one ``(name, source)``: its imports, definitions
    and assignments; every other top-level statement (a print, a call, a loop, ``if __name__ == ...``) is blanked
    out, so line numbers stay those of the file.

    Example:
        >>> py_definitions("import regex\nprint(1)\ndef f():\n    return 2\n", "mine.py")
        [('mine.py', 'import regex\n\ndef f():\n    return 2\n')]
    """
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return [(name, text)]  # run as it is: the worker reports the SyntaxError with its line
    lines = text.splitlines(keepends=True)
    for node in tree.body:
        if not _only_defines(ast.get_source_segment(text, node) or ""):
            for index in range(node.lineno - 1, node.end_lineno or node.lineno):
                lines[index] = "\n"
    return [(name, "".join(lines))]


def _defined(text: str) -> list[str]:
    """The graded functions a ``.py`` file defines at top level, in file order."""
    from .selfcheck import HIDDEN_CHECKS

    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    found = [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in HIDDEN_CHECKS]
    return list(dict.fromkeys(found))


def judge(
    folder: str | os.PathLike[str],
    code: list[tuple[str, str]],
    names: list[str],
    points: dict[str, list[float]] | None = None,
    title: str = "",
) -> Report:
    """Judge the learner's ``names`` in ``code`` (``(id, source)`` pieces run in order) on the public cases.

    The code runs in a second process (:class:`bpe_lab.remote.Session`); the checks, the expected answers and the
    points stay in this one, so nothing the code prints or patches changes the report.

    Args:
        folder: where the code runs (its working folder).
        code: the learner's code.
        names: the graded functions to check, in order.
        points: each function's points per part (a notebook's test cells); by default 1 per part.
        title: the report's title (a file name).

    Returns:
        A :class:`Report`.
    """
    from . import pages
    from .remote import Session
    from .selfcheck import HIDDEN_CHECKS, JUDGED_BY, check_parts

    start = time.perf_counter()
    report = Report(title, unit="points" if points is not None else "checks")
    with Session(folder, cell_timeout=RUN_TIMEOUT) as session:
        for cell_id, message, where in session.run(code):
            lines = [f" (line {w[1]} of your {w[0]}: {w[2]})" for w in where if len(w) == 3]
            report.cell_errors.append(f"{cell_id}: {message}{lines[-1] if lines else ''}")
        found = session.functions([*names, *JUDGED_BY, *HIDDEN_CHECKS])
        for name in names:
            parts_points = (points or {}).get(name) or [1.0] * len(HIDDEN_CHECKS[name])
            outcome = Outcome(name, False, possible=sum(parts_points))
            report.outcomes.append(outcome)
            if name not in found:
                outcome.message = f"{name} is not defined: its cell raised or does not define it"
                continue
            try:
                parts = check_parts(name, found[name], found)
            except Exception as exc:  # the judge's data is missing, say
                outcome.message = f"{type(exc).__name__}: {exc}"
                continue
            notes = pages.test_notes(name)
            outcome.passed = all(failed is None for _, _, failed in parts)
            outcome.points = sum(p for (_, _, failed), p in zip(parts, parts_points) if failed is None)
            outcome.cases = sum(count for _, count, _ in parts)
            for index, (_, args) in enumerate(HIDDEN_CHECKS[name][len(parts) :], start=len(parts)):
                outcome.measured.append(str(args[0]) if args else name)
                outcome.measured_points += parts_points[index] if index < len(parts_points) else 0.0
            for index, (_, _, failed) in enumerate(parts):
                if failed is not None:
                    text = "\n".join([str(failed), *getattr(failed, "__notes__", [])])
                    if index < len(notes):
                        text += f"\n({notes[index]})"
                    outcome.message = text
                    break
    report.seconds = time.perf_counter() - start
    return report


def check_notebook(path: str | os.PathLike[str], only: list[str] | None = None) -> Report:
    """Check the graded functions of the notebook (or plain ``.py`` file) at ``path`` on the public cases.

    Args:
        path: a course notebook (a release notebook with the exercises done, or any copy of it), a drill's
            workspace, or a ``.py`` file that defines graded functions.
        only: the functions to check (default: every graded function of the notebook, or that the file defines).

    Returns:
        A :class:`Report`: one :class:`Outcome` per function, in the notebook's order. A notebook's points are its
        test cells'; a ``.py`` file's are 1 per part of each check.

    Raises:
        NotebookError: the file cannot be read, or ``only`` names a function it does not define.

    Example:
        >>> check_notebook("01_pair_counts_and_merge.ipynb").score  # doctest: +SKIP
        8.0
    """
    notebook = Path(path)
    points: dict[str, list[float]] | None
    if notebook.suffix == ".py":
        try:
            text = notebook.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise NotebookError(f"{notebook}: no such file") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise NotebookError(f"{notebook}: not a readable file ({type(exc).__name__}: {exc})") from None
        code, names, points = py_definitions(text, notebook.name), _defined(text), None
    else:
        nb = _read(notebook)
        code, names, points = definitions(nb), graded_functions(nb), cell_points(nb)
        if not names:  # a drill's workspace: no test cells, the graded functions it defines
            names = _defined("\n\n".join(src for _, src in definitions(nb) if _only_defines(src)))
            points = None
    if only:
        unknown = [n for n in only if n not in names]
        if unknown:
            raise NotebookError(
                f"{notebook.name} grades no function {', '.join(map(repr, unknown))}; "
                f"it grades {', '.join(names) or 'none'}"
            )
        names = [n for n in names if n in only]
    return judge(notebook.resolve().parent, code, names, points, notebook.name)


def format_report(report: Report) -> str:
    """The report as the terminal shows it: one line per function, a failure's three lines under it."""
    lines = [f"{report.notebook}: {report.score:g} of {report.possible:g} {report.unit} on the public cases"]
    measured = sum(o.measured_points for o in report.outcomes)
    if measured:  # 06's speed and memory: no public case gives them, and they are not lost either
        lines[0] += f" ({measured:g} of the {report.possible:g} measured only when the course grades it)"
    for error in report.cell_errors:
        lines.append(f"  a cell raised: {error}")
    for outcome in report.outcomes:
        mark = "ok  " if outcome.passed else "FAIL"
        line = f"  {mark} {outcome.name}  {outcome.points:g}/{outcome.possible:g}"
        if outcome.measured:  # its points are not for the public cases to give
            what = " and ".join(outcome.measured)
            line += f"  (+{outcome.measured_points:g} for {what}: measured only when the course grades it)"
        lines.append(line)
        if outcome.message:
            lines += ["       " + line for line in outcome.message.splitlines()]
    lines.append(f"  ({report.seconds:.1f} s; a graded course checks other inputs too)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """``python -m bpe_lab check FILE [--function NAME ...]`` and ``python -m bpe_lab drill ...`` (also
    ``bpe-lab``; see :mod:`bpe_lab.drill`)."""
    parser = argparse.ArgumentParser(prog="bpe-lab", description="The learner's toolkit of the BPE course.")
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check", help="check a notebook's (or .py file's) graded functions on the public cases")
    check.add_argument("notebook", help="a course notebook (.ipynb), a drill's workspace, or a .py file")
    check.add_argument("--function", "-f", action="append", help="check only this function (repeatable)")
    drill = commands.add_parser("drill", help="one exercise alone, against the clock (a list without a name)")
    from . import drill as drill_mode

    drill_mode.build_parser(drill)
    args = parser.parse_args(argv)
    if args.command == "drill":
        try:
            return drill_mode.main(args)
        except BrokenPipeError:  # the output piped into a command that stopped reading (head): not an error here
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
    try:
        report = check_notebook(args.notebook, args.function)
    except NotebookError as exc:
        print(f"bpe-lab: {exc}", file=sys.stderr)
        return 2
    print(format_report(report))
    return 0 if all(o.passed for o in report.outcomes) and report.outcomes else 1

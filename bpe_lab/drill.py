"""``bpe-lab drill``: one exercise of the course alone, against the clock, as in a coding interview.

* ``bpe-lab drill`` lists the exercises (every assignment's, from the course's data: :mod:`bpe_lab.pages`) with their
  difficulty, stated time and your best time so far.
* ``bpe-lab drill NAME`` writes a fresh workspace, ``bpe-drills/NAME.ipynb`` (``--py``: ``NAME.py``, the same text as
  comments): the problem page, the given code, the stub, the examples and a ``check()`` cell; and starts the clock.
* ``bpe-lab drill NAME --check`` judges your function on the course's public cases: the smallest input it gets
  wrong, expected and returned, and the time since you started. The judge runs in its own process and your code in
  another (:mod:`bpe_lab.remote`), so what your code prints or patches cannot pass it. In the notebook, the
  ``check("NAME")`` cell runs the same judge on the code you ran in the kernel.
* ``--hint`` shows the next of the exercise's three nested hints and counts it; ``--reset`` starts afresh;
  ``--give-up`` ends the attempt. After a pass or a give-up the model solution and its complexity are shown beside
  your code (they are the opt-in package ``bpe-lab-solutions``: ``pip install ./learner/solutions``).
* ``--history`` shows every attempt (:mod:`bpe_lab.history`: time to pass, hints, failed checks). ``--mock`` picks an
  exercise you have not mastered (passed without a hint within its stated time) and gives you its stated time as a
  countdown (``bpe-lab drill NAME --clock`` shows it ticking).

Exit status: 0 on a pass (or a command that judges nothing), 1 when a check fails, 2 for an unknown exercise or a
missing workspace.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import json
import os
import random
import shutil
import subprocess
import sys
import time
from html import escape as html_escape
from pathlib import Path
from typing import Any

from . import pages
from .startup import defer_iri_syntax

__all__ = ["check", "hint", "main", "workspace_code", "write_workspace"]

FOLDER = "bpe-drills"
"""The workspaces' folder, in the working folder unless ``--dir`` says otherwise."""

SOLUTIONS_INSTALL = "pip install ./learner/solutions"
"""How to get the model solutions (from a checkout of the course)."""


class DrillError(Exception):
    """An unknown exercise, or a workspace that is not there; the message says what to do."""


def clock(seconds: float) -> str:
    """``seconds`` as ``m:ss`` (or ``h:mm:ss``).

    Example:
        >>> clock(75), clock(3725)
        ('1:15', '1:02:05')
    """
    seconds = int(max(seconds, 0))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def _comment(text: str) -> str:
    return "\n".join(f"# {line}".rstrip() for line in text.splitlines())


def _header(exercise: pages.Exercise) -> str:
    return (
        f"Drill · {exercise.name} · exercise {exercise.number} of {exercise.assignment} "
        f"({exercise.difficulty} · {exercise.minutes} minutes)"
    )


def _py_text(exercise: pages.Exercise) -> str:
    parts = [
        _comment(_header(exercise)),
        _comment(
            f"Write {exercise.name} below. Check it: bpe-lab drill {exercise.name} --check   "
            f"A hint: bpe-lab drill {exercise.name} --hint"
        ),
        _comment(exercise.page),
    ]
    if exercise.given:
        parts.append("# The given code (run as it is).\n" + exercise.given)
    for name, stub in exercise.needs.items():
        parts.append(f"# This exercise uses your {name}: write it too.\n{stub}")
    parts.append(exercise.stub)
    if exercise.examples:
        parts.append(_comment("The examples of the notebook's test cells:\n\n" + "\n".join(exercise.examples)))
    return "\n\n\n".join(p.rstrip() for p in parts) + "\n"


def _notebook(exercise: pages.Exercise) -> Any:
    import nbformat.v4 as v4  # after write_workspace's defer_iri_syntax(), its only caller

    def code(source: str, role: str) -> Any:
        return v4.new_code_cell(source.rstrip(), metadata={"bpe_lab": {"role": role}})

    intro = (
        f"# {_header(exercise)}\n\nWrite `{exercise.name}` in the answer cell and run it, then run the `check` cell: "
        "it judges your function on the course's public cases and says how long you have taken. The `hint` cell "
        "shows the next of three hints (and counts it). From a terminal: "
        f"`bpe-lab drill {exercise.name} --check`, `--hint`, `--give-up`, `--reset`."
    )
    cells = [v4.new_markdown_cell(intro), v4.new_markdown_cell(exercise.page)]
    if exercise.given:
        cells.append(code(exercise.given, "given"))
    for name, stub in exercise.needs.items():
        cells += [v4.new_markdown_cell(f"This exercise uses your `{name}`: write it too."), code(stub, "needs")]
    cells.append(code(exercise.stub, "answer"))
    if exercise.examples:
        cells.append(v4.new_markdown_cell("The examples of the notebook's test cells:"))
        cells += [code(example, "example") for example in exercise.examples]
    cells.append(code(f'from bpe_lab.drill import check, hint\n\ncheck("{exercise.name}")', "check"))
    cells.append(code(f'hint("{exercise.name}")  # the next of three hints', "hint"))
    nb = v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["bpe_lab"] = {"drill": exercise.name}
    return nb


def write_workspace(exercise: pages.Exercise, folder: Path, py: bool = False) -> Path:
    """Write a fresh workspace for ``exercise`` into ``folder`` (replacing one there); returns its path."""
    defer_iri_syntax()
    import nbformat

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{exercise.name}.{'py' if py else 'ipynb'}"
    for old in (folder / f"{exercise.name}.py", folder / f"{exercise.name}.ipynb"):
        old.unlink(missing_ok=True)
    if py:
        path.write_text(_py_text(exercise), encoding="utf-8")
    else:
        nbformat.write(_notebook(exercise), path)
    return path


def workspace_code(path: Path) -> list[tuple[str, str]]:
    """What to run of a workspace (a notebook's code cells, or a ``.py`` file), as ``(id, source)``: imports,
    definitions and assignments only (:func:`bpe_lab.cli.py_definitions`).

    Raises:
        DrillError: the file is not there or not readable.
    """
    from .cli import py_definitions

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DrillError(
            f"no workspace at {path} ({type(exc).__name__}); start one with `bpe-lab drill NAME`"
        ) from None
    if path.suffix == ".py":
        return py_definitions(text, path.name)
    try:
        nb = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DrillError(f"{path} is not a notebook ({exc})") from None
    out = []
    for index, cell in enumerate(nb.get("cells", []), start=1):
        if cell.get("cell_type") == "code":
            source = "".join(cell.get("source", []))
            role = cell.get("metadata", {}).get("bpe_lab", {}).get("role", "")
            out += py_definitions(source, "answer cell" if role == "answer" else f"cell {index}")
    return out


def _function_source(code: list[tuple[str, str]], name: str) -> str:
    """The learner's last definition of ``name`` in ``code``, as written."""
    found = ""
    for _, source in code:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name == name:
                found = ast.get_source_segment(source, node) or found
    return found


def _two_columns_html(left: str, right: str, titles: tuple[str, str]) -> str:
    """Two codes side by side as HTML, every character escaped (the learner's code is shown as text)."""
    column = "<div style='flex:1;min-width:0'><b>{}</b><pre style='overflow-x:auto'>{}</pre></div>"
    return (
        "<div style='display:flex;gap:1.5em'>"
        + column.format(html_escape(titles[0]), html_escape(left.rstrip()))
        + column.format(html_escape(titles[1]), html_escape(right.rstrip()))
        + "</div>"
    )


def side_by_side(left: str, right: str, titles: tuple[str, str], width: int) -> str:
    """Two texts in two columns (each cut to fit ``width`` characters), or one under the other when narrow.

    Example:
        >>> print(side_by_side("a = 1", "b = 2", ("yours", "model"), 70))
        yours                             | model
        a = 1                             | b = 2
    """
    a, b = left.rstrip().splitlines(), right.rstrip().splitlines()
    column = (width - 3) // 2
    if column < 30:
        rule = "-" * max(min(width, 80), 20)
        return "\n".join([f"{titles[0]}:", *a, rule, f"{titles[1]}:", *b])
    cut = [(line if len(line) <= column else line[: column - 1] + "…") for line in a]
    rows = [f"{titles[0]:<{column}} | {titles[1]}"]
    for index in range(max(len(a), len(b))):
        rows.append(f"{cut[index] if index < len(cut) else '':<{column}} | {b[index] if index < len(b) else ''}")
    return "\n".join(r.rstrip() for r in rows)


def _solution(name: str) -> dict[str, Any] | None:
    try:
        import bpe_lab_solutions
    except ImportError:
        return None
    try:
        return bpe_lab_solutions.solution(name)
    except KeyError:
        return None


def _show_solution(name: str, code: list[tuple[str, str]], width: int, html: bool = False) -> str:
    model = _solution(name)
    if model is None:
        text = (
            "The model solution and its complexity are in the opt-in package bpe-lab-solutions: "
            f"`{SOLUTIONS_INSTALL}` from a checkout of the course, then run this again."
        )
        return f"<pre>{html_escape(text)}</pre>" if html else text
    yours = _function_source(code, name) or "(no definition found)"
    titles = ("your code", "the model solution")
    uses = f" It uses the model {', '.join(model['calls'])} (`--give-up` on each shows it)." if model["calls"] else ""
    after = f"Complexity of the model solution: {model['complexity'] or 'not stated'}.{uses}".replace("..", ".")
    if html:
        return _two_columns_html(yours, model["solution"], titles) + f"<pre>{html_escape(after)}</pre>"
    return f"{side_by_side(yours, model['solution'], titles, width)}\n{after}"


def _history() -> Any:
    from .history import History

    return History()


def _width() -> int:
    return shutil.get_terminal_size((120, 24)).columns


def _time_line(attempt: Any) -> str:
    if attempt is None:
        return "(no attempt started: `bpe-lab drill NAME` starts the clock)"
    if attempt.mode == "mock" and attempt.time_limit:
        left = attempt.time_limit - attempt.seconds
        state = f"{clock(left)} left" if left >= 0 else f"over time by {clock(-left)}"
        return f"elapsed {clock(attempt.seconds)} of {clock(attempt.time_limit)} (mock interview: {state})"
    return f"elapsed {clock(attempt.seconds)}"


def do_check(
    name: str, path: Path | None, code: list[tuple[str, str]] | None, folder: Path | None, html: bool = False
) -> int:
    """Judge ``name`` in the workspace (or in ``code``, the kernel's cells) and record the result; ``html``: print
    an HTML fragment (for the notebook's check cell: the two codes in two columns) instead of text."""
    captured = io.StringIO()
    with contextlib.redirect_stdout(captured if html else sys.stdout):
        status, shown = _check(name, path, code, folder)
    if html:
        print(f"<pre>{html_escape(captured.getvalue().rstrip())}</pre>")
    if shown is not None:
        print(_show_solution(name, shown, _width(), html))
    return status


def _check(
    name: str, path: Path | None, code: list[tuple[str, str]] | None, folder: Path | None
) -> tuple[int, list[tuple[str, str]] | None]:
    """Judge and record; print the verdict; return the exit status and, after a pass, the code to show."""
    from .cli import judge

    with _history() as history:
        attempt = history.current(name)
        if code is None:
            if path is None:
                path = Path(attempt.path) if attempt else Path(FOLDER) / f"{name}.ipynb"
                if not path.exists() and path.with_suffix(".py").exists():
                    path = path.with_suffix(".py")
            code = workspace_code(path)
            folder = path.resolve().parent
        report = judge(folder or Path.cwd(), code, [name], None, name)
        (outcome,) = report.outcomes
        if outcome.passed:
            print(f"{name}: PASS, all {outcome.cases} public cases ({report.seconds:.2f} s to judge)")
        else:
            print(f"{name}: FAIL, {outcome.points:g} of {outcome.possible:g} checks pass on the public cases "
                  f"({report.seconds:.2f} s to judge)")  # fmt: skip
            for error in report.cell_errors:
                print(f"  your code raised: {error}")
            print("\n".join("  " + line for line in outcome.message.splitlines()))
        open_before = attempt is not None and attempt.open
        if attempt is not None and open_before:
            (history.passed if outcome.passed else history.failed)(attempt.id)
            attempt = history.current(name)
        print(_time_line(attempt))
        if outcome.passed:
            if attempt is not None:
                exercise = pages.exercise(name)
                within = "within" if attempt.seconds <= exercise.minutes * 60 else "over"
                print(
                    f"passed in {clock(attempt.seconds)} ({within} its stated {exercise.minutes} minutes), "
                    f"{attempt.hints} of 3 hints, {attempt.failed_checks} failed checks"
                )
            print()
        return (0, code) if outcome.passed else (1, None)


def do_hint(name: str) -> int:
    exercise = pages.exercise(name)
    with _history() as history:
        attempt = history.current(name)
        shown = attempt.hints if attempt else 0
        if shown >= len(exercise.hints):
            print(f"All {len(exercise.hints)} hints of {name} are shown:\n")
            number = len(exercise.hints)
        else:
            number = shown + 1
            if attempt is not None and attempt.open:
                history.hint(attempt.id)
        for index in range(number):
            print(f"Hint {index + 1} of {len(exercise.hints)}: {exercise.hints[index]}\n")
        if attempt is None or not attempt.open:
            print("(no attempt is open, so this hint is not counted: `bpe-lab drill NAME` starts one)")
    return 0


def do_start(name: str, folder: Path, py: bool, mode: str = "drill") -> int:
    exercise = pages.exercise(name)
    path = write_workspace(exercise, folder, py)
    limit = exercise.minutes * 60 if mode == "mock" else None
    with _history() as history:
        history.start(name, str(path.resolve()), mode, limit)
        best = history.best(name)
    print(_header(exercise))
    print(f"workspace: {path}")
    if mode == "mock":
        print(f"Mock interview: you have {clock(limit or 0)}, its stated time. The clock is running "
              f"(`bpe-lab drill {name} --clock` shows it ticking).")  # fmt: skip
    else:
        print(f"The clock is running{f' (your best: {clock(best)})' if best else ''}.")
    print(f"Check: bpe-lab drill {name} --check    hint: --hint    start afresh: --reset    give up: --give-up")
    if py:
        print()
        print(exercise.page)
    return 0


def do_give_up(name: str) -> int:
    with _history() as history:
        attempt = history.current(name)
        if attempt is not None and attempt.open:
            history.give_up(attempt.id)
            print(f"{name}: given up after {clock(attempt.seconds)}, {attempt.hints} hints.")
        code = workspace_code(Path(attempt.path)) if attempt and Path(attempt.path).exists() else []
    print(_show_solution(name, code, _width()))
    return 0


def do_list() -> int:
    with _history() as history:
        rows = [("exercise", "assignment", "difficulty", "time", "best", "")]
        for exercise in pages.exercises():
            best = history.best(exercise.name)
            attempt = history.current(exercise.name)
            if history.mastered(exercise.name, exercise.minutes):
                state = "mastered"
            elif best is not None:
                state = "passed"
            else:
                state = "started" if attempt is not None and attempt.open else ""
            rows.append((exercise.name, exercise.assignment, exercise.difficulty, f"{exercise.minutes} min",
                         clock(best) if best is not None else "-", state))  # fmt: skip
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    print("\nStart one: bpe-lab drill NAME   (--py for a .py file; --mock picks one against the clock)")
    return 0


def do_history() -> int:
    with _history() as history:
        attempts = history.attempts()
    if not attempts:
        print("No attempts yet: `bpe-lab drill` lists the exercises.")
        return 0
    print(f"{'started':<17} {'exercise':<20} {'mode':<5} {'result':<10} {'time':>8} {'hints':>5} {'failed':>6}")
    for a in attempts:
        result = "passed" if a.passed else "gave up" if a.gave_up else "open"
        started = time.strftime("%Y-%m-%d %H:%M", time.localtime(a.started))
        print(f"{started:<17} {a.exercise:<20} {a.mode:<5} {result:<10} {clock(a.seconds):>8} {a.hints:>5} "
              f"{a.failed_checks:>6}")  # fmt: skip
    return 0


def do_mock(folder: Path, py: bool, seed: int | None = None) -> int:
    with _history() as history:
        todo = [e for e in pages.exercises() if not history.mastered(e.name, e.minutes)]
        fresh = [e for e in todo if history.best(e.name) is None]
    if not todo:
        print("Every exercise is mastered (passed without a hint within its stated time). Well done.")
        return 0
    choice = random.Random(seed).choice(fresh or todo)
    return do_start(choice.name, folder, py, mode="mock")


def do_clock(name: str) -> int:
    with _history() as history:
        attempt = history.current(name)
    if attempt is None or not attempt.open:
        print(f"No open attempt at {name}.")
        return 0
    try:
        while True:
            print("\r" + _time_line(attempt) + "   ", end="", flush=True)
            if attempt.time_limit and attempt.seconds > attempt.time_limit:
                print("\ntime is up")
                return 0
            time.sleep(1)
    except KeyboardInterrupt:
        print()
        return 0


def build_parser(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The options of ``bpe-lab drill`` on ``parser``."""
    parser.add_argument("name", nargs="?", help="the exercise (its function's name); none: list them")
    parser.add_argument("--py", action="store_true", help="a .py workspace instead of a notebook")
    parser.add_argument("--dir", default=FOLDER, help=f"the workspaces' folder (default: ./{FOLDER})")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--check", action="store_true", help="judge your function on the public cases")
    what.add_argument("--hint", action="store_true", help="show the next of three hints (it is counted)")
    what.add_argument("--reset", action="store_true", help="a fresh workspace, and the clock from zero")
    what.add_argument("--give-up", action="store_true", help="end the attempt and show the model solution")
    what.add_argument("--history", action="store_true", help="every attempt so far")
    what.add_argument("--mock", action="store_true", help="a mock interview: an exercise not mastered, timed")
    what.add_argument("--clock", action="store_true", help="show the attempt's clock ticking")
    parser.add_argument("--file", help="the workspace to check (default: the attempt's)")
    parser.add_argument("--code-from-stdin", action="store_true", help=argparse.SUPPRESS)  # the check() cell's
    parser.add_argument("--html", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, help=argparse.SUPPRESS)
    return parser


def main(args: argparse.Namespace) -> int:
    """Run ``bpe-lab drill`` with parsed ``args`` (see :func:`build_parser`)."""
    folder = Path(args.dir)
    try:
        if args.history:
            return do_history()
        if args.mock:
            return do_mock(folder, args.py, args.seed)
        if not args.name:
            return do_list()
        pages.exercise(args.name)  # an unknown name is refused here, naming the known ones
        if args.check:
            if args.code_from_stdin:
                request = json.loads(sys.stdin.read())
                code = [(str(i), str(s)) for i, s in request["cells"]]
                return do_check(args.name, None, code, Path(request["folder"]), args.html)
            return do_check(args.name, Path(args.file) if args.file else None, None, None, args.html)
        if args.hint:
            return do_hint(args.name)
        if args.give_up:
            return do_give_up(args.name)
        if args.clock:
            return do_clock(args.name)
        if not args.reset:
            with _history() as history:
                attempt = history.current(args.name)
            if attempt is not None and attempt.open and Path(attempt.path).exists():
                print(f"{args.name} is under way since {clock(attempt.seconds)} ago: {attempt.path}")
                print(f"Check it with `bpe-lab drill {args.name} --check`, or start afresh with --reset.")
                return 0
        return do_start(args.name, folder, args.py)
    except KeyError as exc:
        print(f"bpe-lab drill: {exc.args[0]}", file=sys.stderr)
        return 2
    except DrillError as exc:
        print(f"bpe-lab drill: {exc}", file=sys.stderr)
        return 2


# --- in the drill's notebook -----------------------------------------------------------------------------------


def _kernel_cells() -> list[tuple[str, str]]:
    """The code run so far in this kernel, in order, as ``(id, source)`` (IPython's input history)."""
    from .cli import py_definitions

    try:
        shell = get_ipython()  # type: ignore[name-defined]  # noqa: F821
        inputs = list(shell.history_manager.input_hist_parsed)
    except NameError:
        inputs = []
    out = []
    for index, source in enumerate(inputs):
        if source.strip():
            out += py_definitions(source, f"cell In[{index}]")
    return out


def _judge_process(name: str, extra: list[str], stdin: str | None = None, html: bool = False) -> None:
    command = [sys.executable, "-m", "bpe_lab", "drill", name, *extra, *(["--html"] if html else [])]
    env = {**os.environ, "COLUMNS": "160"}
    done = subprocess.run(command, input=stdin, capture_output=True, text=True, env=env)
    if html and done.stdout.startswith(("<pre>", "<div")):
        from IPython.display import HTML, display

        display(HTML(done.stdout))  # made by the judge's process, the learner's code escaped
        if done.stderr.strip():
            print(done.stderr.rstrip())
        return
    print((done.stdout + done.stderr).rstrip())


def _in_notebook() -> bool:
    try:
        return type(get_ipython()).__name__ == "ZMQInteractiveShell"  # type: ignore[name-defined]  # noqa: F821
    except NameError:
        return False


def check(name: str) -> None:
    """The drill notebook's check cell: judge ``name``, as ``bpe-lab drill NAME --check`` does, on the code run in
    this kernel so far (the judge is another process, which records the result; this function only prints it).

    Example:
        >>> check("merge")  # doctest: +SKIP
        merge: PASS, all 312 public cases (0.05 s to judge)
    """
    from .worker import JUDGING

    if os.environ.get(JUDGING) or os.environ.get("NBGRADER_EXECUTION"):
        return
    request = json.dumps({"cells": _kernel_cells(), "folder": os.getcwd()})
    _judge_process(name, ["--check", "--code-from-stdin"], request, html=_in_notebook())


def hint(name: str) -> None:
    """The drill notebook's hint cell: the next of ``name``'s three hints (counted in the history)."""
    from .worker import JUDGING

    if os.environ.get(JUDGING) or os.environ.get("NBGRADER_EXECUTION"):
        return
    _judge_process(name, ["--hint"])

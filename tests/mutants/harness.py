"""Mutation testing of the hidden checks, through the real notebooks.

Every graded function has wrong implementations (*mutants*: the faults people make with BPE) and correct ones in
other styles (*alternatives*), as source strings in :mod:`tests.mutants.m01` ... ``m05``.

**Submissions.** Each mutant becomes one notebook: the release notebook with the mutant in its own function's
solution cell (:func:`autograder.course.sample_class.fill`) and a correct answer in every other solution cell. Those
correct answers are the alternatives, in turn (the ``i``-th mutant notebook of an assignment gets the ``i``-th
alternative of each other function, cyclically), skipping any that calls the mutated function; a function
without a usable alternative gets its *filler*: the source notebook's solution, or the module's ``FILLERS``
where that solution calls another graded function (the trainers of 02 and 03), so that a mutant of
``best_pair`` cannot drag ``learn_bpe`` down with it. So every notebook holds one mutant, its points lost are its
own, and every alternative is graded in one or more notebooks; an alternative that fits in no mutant notebook
would get a notebook of its own (``ok-<nn>-<k>``).

**Grading.** Each notebook is judged in process (:func:`run_in_process`: the answers and the source notebook's
test cells, visible asserts then hidden check, executed in one namespace as the grading kernel does) and through
nbgrader (:func:`grade_through_nbgrader`: one :func:`autograder.course.grading.grade` call, ``jobs=2``). Besides,
:func:`hidden_failures` runs only the hidden checks of the mutant's function and recomputes, from the check's
own cases, the smallest input on which the mutant is wrong.

**Rules** (:func:`verdicts`, :func:`run`; an empty list of problems means all hold):

* a mutant loses points on a test cell of its own function; no other function loses a point (kill rate 100 %);
* an alternative keeps every point of its function in every notebook it is in (false-fail rate 0 %);
* the hidden checks alone kill every mutant, whatever the visible examples do, and each hidden message is three
  lines: the call on the smallest failing input of the check's cases, ``expected: ...``, then
  ``returned: ...``/``raised: ...`` (for a function that changed its argument, what it returned, what changed and
  how to avoid it);
* the message a notebook shows is the first failing statement's. A test cell runs its visible examples before its
  hidden check, so when an example catches the mutant first the message is the example's: the same three lines
  (``ExampleFailed: call``, ``expected``, ``returned``), from :func:`bpe_lab.selfcheck.expect`. Any other
  message (an exception that escapes a visible call, a bare ``assert``) is a problem;
* nbgrader gives exactly the points and messages of the in-process run; a second in-process run of the
  mutants' own cells and a second nbgrader run of one mutant per assignment give the same again.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import functools
import io
import os
import re
import symtable
import sys
import time
import types
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat

from autograder.checks import cases, spec
from autograder.course import grading, sample_class
from autograder.course import submissions as class_folder
from bpe_lab import harness

from . import m01, m02, m03, m04, m05, m06

ROOT = Path(__file__).resolve().parents[2]
MODULES = [m01, m02, m03, m04, m05, m06]
IN_PROCESS_GROUP = "mutants-judged-in-process"
"""The worker group (``xdist_group``) of the tests that hold the in-process results (:func:`judged_in_process`)."""
HIDDEN = "CheckFailed: "
_MARKERS = re.compile(r"^\s*### (BEGIN|END) SOLUTION\s*\n", re.MULTILINE)

# ---------------------------------------------------------------------------------------------------------------
# the notebooks
# ---------------------------------------------------------------------------------------------------------------


@functools.cache
def _notebook(kind: str, assignment: str, root: Path = ROOT) -> nbformat.NotebookNode:
    return nbformat.read(root / kind / assignment / f"{assignment}.ipynb", 4)


def _meta(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


def solution_code(assignment: str, root: Path = ROOT) -> dict[str, str]:
    """``{function: code}``: the source notebook's solution cells without the solution markers."""
    return {
        _meta(c)["grade_id"]: _MARKERS.sub("", c.source)
        for c in _notebook("solutions", assignment, root).cells
        if _meta(c).get("solution")
    }


def functions(assignment: str, root: Path = ROOT) -> list[str]:
    """The graded functions of an assignment, in notebook order."""
    return list(solution_code(assignment, root))


@dataclass(frozen=True)
class GradedCell:
    grade_id: str
    function: str
    points: float
    source: str


def graded_cells(assignment: str, root: Path = ROOT) -> list[GradedCell]:
    """The graded test cells of the source notebook (visible asserts and hidden checks), in order."""
    exercise = grading.exercises(root, assignment)
    return [
        GradedCell(_meta(c)["grade_id"], exercise[_meta(c)["grade_id"]], float(_meta(c)["points"]), c.source)
        for c in _notebook("solutions", assignment, root).cells
        if _meta(c).get("grade") and c.cell_type == "code"
    ]


def fillers(module) -> dict[str, str]:
    """A correct, self-contained answer for every solution cell of ``module``'s assignment."""
    return {**solution_code(module.ASSIGNMENT), **module.FILLERS}


# ---------------------------------------------------------------------------------------------------------------
# submissions
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Variant:
    """One mutant or correct alternative of one function."""

    assignment: str
    function: str
    name: str
    kind: str  # "mutant" or "correct"
    code: str


@dataclass
class Submission:
    """The answers of one notebook and the variants in it: at most one mutant, and correct alternatives."""

    student: str
    assignment: str
    answers: dict[str, str]
    variants: list[Variant]

    @property
    def mutant(self) -> Variant | None:
        return next((v for v in self.variants if v.kind == "mutant"), None)

    @property
    def kind(self) -> str:
        return "mutant" if self.mutant else "correct"


def variants(kind: str | None = None) -> list[Variant]:
    """Every mutant and alternative, in assignment and function order."""
    out = []
    for module in MODULES:
        for what, table in (("mutant", module.MUTANTS), ("correct", module.CORRECT)):
            if kind in (None, what):
                for function in functions(module.ASSIGNMENT):
                    for name, code in table.get(function, {}).items():
                        out.append(Variant(module.ASSIGNMENT, function, name, what, code))
    return out


def calls(code: str, function: str) -> bool:
    """Whether ``code`` calls ``function`` (so it cannot stand next to a mutant of it)."""
    return re.search(rf"\b{re.escape(function)}\(", code) is not None


def submissions(only: Iterable[str] | None = None) -> list[Submission]:
    """One submission per mutant; the correct alternatives answer the other cells of the mutants' notebooks.

    In the ``i``-th mutant notebook of an assignment, every other function ``g`` gets ``g``'s alternatives in
    turn (the ``i``-th, cyclically, among those that do not call the mutated function), or its filler when it
    has none. An alternative that lands in no mutant notebook gets a notebook of its own (``ok-<nn>-<k>``).
    ``only``: student ids to keep (all when ``None``).
    """
    out: list[Submission] = []
    for module in MODULES:
        names = functions(module.ASSIGNMENT)
        base = fillers(module)
        alternatives = {g: list(module.CORRECT.get(g, {}).items()) for g in names}
        placed: set[tuple[str, str]] = set()
        index = 0
        for function in names:
            for name, code in module.MUTANTS.get(function, {}).items():
                answers = {**base, function: code}
                used = [Variant(module.ASSIGNMENT, function, name, "mutant", code)]
                for other in names:
                    usable = [(n, c) for n, c in alternatives[other] if not calls(c, function)]
                    if other != function and usable:
                        alt_name, alt_code = usable[index % len(usable)]
                        answers[other] = alt_code
                        used.append(Variant(module.ASSIGNMENT, other, alt_name, "correct", alt_code))
                        placed.add((other, alt_name))
                out.append(Submission(f"m-{function}-{name}", module.ASSIGNMENT, answers, used))
                index += 1
        left = {g: [(n, c) for n, c in alternatives[g] if (g, n) not in placed] for g in names}
        for k in range(max((len(v) for v in left.values()), default=0)):
            answers, used = dict(base), []
            for other, rest in left.items():
                if k < len(rest):
                    answers[other] = rest[k][1]
                    used.append(Variant(module.ASSIGNMENT, other, rest[k][0], "correct", rest[k][1]))
            out.append(Submission(f"ok-{module.ASSIGNMENT[:2]}-{k + 1}", module.ASSIGNMENT, answers, used))
    if only is not None:
        keep = set(only)
        out = [s for s in out if s.student in keep]
    return out


# ---------------------------------------------------------------------------------------------------------------
# running a submission
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    """The outcome of one graded test cell: points and the failure message (``""`` when it passed)."""

    grade_id: str
    function: str
    points: float
    max_points: float
    message: str


def _message(exc: BaseException) -> str:
    """What nbgrader's error output gives (``ename: evalue``, as :func:`autograder.course.grading.error_message`)."""
    value = str(exc).strip()
    return f"{type(exc).__name__}: {value}" if value else type(exc).__name__


def _given_cells(assignment: str) -> list[str]:
    """The code the release notebook gives the learner (``get_word_symbols``), run before the answers."""
    return [
        c.source
        for c in _notebook("notebooks", assignment).cells
        if c.cell_type == "code" and str(_meta(c).get("grade_id", "")).startswith("given")
    ]


def _walk(submission: Submission, tests: dict[str, GradedCell]) -> Iterator[tuple[GradedCell, dict[str, Any]]]:
    """Execute the given code and the answers in notebook order; stop at each test cell of ``tests``.

    Yields the test cell and the namespace; the caller executes what it wants of the cell. Output is swallowed
    and ``NBGRADER_EXECUTION`` is set, as in the grading kernel.
    """
    with contextlib.redirect_stdout(io.StringIO()), _nbgrader_env(), as_main() as namespace:
        for source in _given_cells(submission.assignment):
            exec(compile(source, "<given>", "exec"), namespace)
        for cell in _notebook("solutions", submission.assignment).cells:
            grade_id = _meta(cell).get("grade_id")
            if _meta(cell).get("solution"):
                with contextlib.suppress(Exception):  # a broken cell: its tests fail with NameError, as in Jupyter
                    exec(compile(submission.answers[grade_id], f"<{grade_id}>", "exec"), namespace)
            elif grade_id in tests:
                yield tests[grade_id], namespace


@contextlib.contextmanager
def as_main() -> Iterator[dict[str, Any]]:
    """The namespace of a fresh module that is ``sys.modules["__main__"]`` meanwhile, as in a kernel and in the
    judge's worker: a function the cells define can then be pickled by name (06's ``chunk_counts_file`` hands one to
    its processes)."""
    main = types.ModuleType("__main__")
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = main
    try:
        yield main.__dict__
    finally:
        if saved is not None:
            sys.modules["__main__"] = saved


def _own(submission: Submission) -> set[str]:
    """The functions whose cells judge the submission's point: the mutant's, else every alternative's."""
    return {submission.mutant.function} if submission.mutant else {v.function for v in submission.variants}


def _global_uses(tree: ast.AST, source: str) -> set[str]:
    """The names ``source`` looks up as globals (``symtable``: a function's parameters and locals are not), and every
    attribute name it reads (conservative: ``module.name``)."""
    used: set[str] = set()

    def walk(table: symtable.SymbolTable) -> None:
        for symbol in table.get_symbols():
            if symbol.is_referenced() and (table.get_type() == "module" or symbol.is_global()):
                used.add(symbol.get_name())
        for child in table.get_children():
            walk(child)

    walk(symtable.symtable(source, "<answer>", "exec"))
    return used | {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}


@functools.cache
def _statements(code: str) -> tuple[tuple[str, frozenset[str], frozenset[str]], ...]:
    """Each top-level statement of ``code``: its source, the names it defines, the global names it uses (a syntax
    error gives none). Cached: every notebook of a seed asks again for the same answers."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return ()
    out = []
    for node in tree.body:
        source = ast.get_source_segment(code, node) or ast.unparse(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined = {node.name}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            defined = {(a.asname or a.name).split(".")[0] for a in node.names}
        else:
            defined = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        out.append((source, frozenset(defined), frozenset(_global_uses(node, source))))
    return tuple(out)


@functools.cache
def _cell_uses(source: str) -> frozenset[str]:
    """The global names a test cell uses (:func:`_global_uses`), once per cell."""
    return frozenset(_global_uses(ast.parse(source), source))


def reach(submission: Submission, test: GradedCell) -> tuple[str, ...]:
    """The code a test cell can reach, in notebook order: the top-level statements of the answers that define a name
    the cell uses, then, in turn, a global name those use (by name, whichever answer a definition is in: a helper
    one answer defines and another calls counts; a function's parameter named like another answer's function
    does not), and every statement that defines nothing (it may act on anything). An import two answers make is
    kept once."""
    statements = [st for code in submission.answers.values() for st in _statements(code)]
    wanted = set(_cell_uses(test.source)) | {test.function}
    kept = {k for k, (_, defined, _) in enumerate(statements) if not defined}
    for k in kept:
        wanted |= statements[k][2]
    while True:
        more = {k for k, (_, defined, _) in enumerate(statements) if k not in kept and defined & wanted}
        if not more:
            return _canonical([statements[k] for k in sorted(kept)])
        kept |= more
        for k in more:
            wanted |= statements[k][2]


@functools.cache
def _is_import(source: str) -> bool:
    """Whether a top-level statement is an import (running one twice is running it once)."""
    return isinstance(ast.parse(source).body[0], (ast.Import, ast.ImportFrom))


def _canonical(statements: list[tuple[str, frozenset[str], frozenset[str]]]) -> tuple[str, ...]:
    """The sources of ``statements``, with the imports once each and first (sorted) where no other statement defines
    a name an import does: then neither their order nor the answer they are in changes what runs. Else as they
    are."""
    imports = [(source, defined) for source, defined, _ in statements if _is_import(source)]
    others = [(source, defined) for source, defined, _ in statements if not _is_import(source)]
    imported = frozenset().union(*(defined for _, defined in imports))
    if any(defined & imported for _, defined in others):
        return tuple(source for source, _, _ in statements)
    return (*sorted({source for source, _ in imports}), *(source for source, _ in others))


_CELLS: dict[tuple, Cell] = {}
"""Outcomes of test cells of functions a submission is not about (a filler's, an alternative's beside a mutant), by
setting, cell and the code it reaches (:func:`reach`): the same code on the same inputs gives the same outcome, so
06's measured cells (seconds each) run once per distinct code instead of once per notebook."""


def run_in_process(
    submission: Submission, own_only: bool = False, measured: dict[str, Cell] | None = None
) -> list[Cell]:
    """Execute the given code, the answers and the source test cells in notebook order, in one namespace.

    ``own_only``: run only the test cells of the mutant's function (of every variant's, when there is no mutant).
    The cells of the submission's own functions always run; any other cell's outcome is the one its code gave in
    an earlier submission, where that code (:func:`reach`) and the setting are the same (:data:`_CELLS`).
    ``measured``: outcomes of this submission's measured cells (:func:`measured_cells`, by grade id) already judged
    on the same inputs, taken instead of measuring them again (:func:`run_matrix`'s fixed cases alone).
    """
    own = _own(submission)
    tests = {t.grade_id: t for t in graded_cells(submission.assignment) if not own_only or t.function in own}
    out = []
    for test, namespace in _walk(submission, tests):
        if measured and test.grade_id in measured:
            out.append(measured[test.grade_id])
            continue
        key = None
        if test.function not in own:
            key = (submission.assignment, test.grade_id, cases.SEED, cases.FIXED_ONLY, reach(submission, test))
            if key in _CELLS:
                out.append(_CELLS[key])
                continue
        try:
            exec(compile(test.source, f"<{test.grade_id}>", "exec"), namespace)
        except Exception as exc:
            out.append(Cell(test.grade_id, test.function, 0.0, test.points, _message(exc)))
        else:
            out.append(Cell(test.grade_id, test.function, test.points, test.points, ""))
        if key is not None:
            _CELLS[key] = out[-1]
    return out


@contextlib.contextmanager
def _nbgrader_env():
    previous = os.environ.get("NBGRADER_EXECUTION")
    os.environ["NBGRADER_EXECUTION"] = "autograde"
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("NBGRADER_EXECUTION", None)
        else:
            os.environ["NBGRADER_EXECUTION"] = previous


def write_submissions(subs: list[Submission], folder: Path) -> None:
    """Write each submission as ``folder/<student>/<assignment>/<assignment>.ipynb`` (nbgrader's layout)."""
    for sub in subs:
        release = _notebook("notebooks", sub.assignment)
        path = folder / sub.student / sub.assignment / f"{sub.assignment}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(sample_class.fill(release, sub.answers), path)


def grade_through_nbgrader(subs: list[Submission], out: Path, jobs: int = 2) -> dict[str, list[Cell]]:
    """Grade ``subs`` with :func:`autograder.course.grading.grade` in one call; ``{student: cells}``.

    Raises:
        RuntimeError: a submission could not be graded at all.
    """
    folder = out / "submitted"
    write_submissions(subs, folder)
    found = class_folder.find_submissions(folder, ROOT)
    # the public seed, as the in-process run uses (grading for marks derives one per student)
    results = grading.grade(
        ROOT, found, out / "graded", feedback=False, jobs=jobs, resume=False, limits={"JudgeTests.seed": "public"}
    )
    graded = {}
    for result in results:
        if result.error:
            raise RuntimeError(f"{result.submission.student}: {result.error}")
        graded[result.submission.student] = [
            Cell(c.grade_id, c.exercise, c.points, c.max_points, c.message) for c in result.cells
        ]
    return graded


# ---------------------------------------------------------------------------------------------------------------
# the smallest failing input: recompute it from the check's own cases
# ---------------------------------------------------------------------------------------------------------------


@dataclass
class _Recorded:
    name: str
    fn: Any
    cases: list
    expected_of: Any
    judge: Any


@contextlib.contextmanager
def _recording() -> Iterator[list[_Recorded]]:
    """Record every ``run_cases`` call the checks make (the cases, the reference and the judge)."""
    seen: list[_Recorded] = []
    original = spec.run_cases  # the one runner of every check (autograder.checks.spec.run_spec) calls it

    def spy(name, fn, cases, expected_of, judge, **kwargs):
        cases = list(cases)
        seen.append(_Recorded(name, fn, cases, expected_of, judge))
        return original(name, fn, cases, expected_of, judge, **kwargs)

    spec.run_cases = spy
    try:
        yield seen
    finally:
        spec.run_cases = original


def _unchanged(before: Any, after: Any) -> bool:
    if isinstance(before, dict) and isinstance(after, dict):
        return list(before.items()) == list(after.items())
    return type(before) is type(after) and before == after


def _fails(record: _Recorded, case) -> bool:
    """Whether the learner's function is wrong on one case: raises, times out, changes an argument, or differs."""
    given = copy.deepcopy(case.args)
    outcome = harness.call(record.fn, given)
    if outcome.timed_out or outcome.error is not None:
        return True
    if not all(_unchanged(a, b) for a, b in zip(case.args, given)):
        return True
    return record.judge(outcome.value, record.expected_of(*copy.deepcopy(case.args)), given) is not None


@dataclass(frozen=True)
class HiddenFailure:
    """A hidden check that failed on its own: its message and the call a smallest failing case makes."""

    message: str
    smallest: str | None  # None: a measured part, which runs no cases


def hidden_failures(
    submission: Submission, recompute: bool = True, judged: list[Cell] | None = None
) -> dict[str, HiddenFailure]:
    """Run only the hidden checks of the mutant's function; for each that fails, its message and the smallest call.

    Every case of the check is run on the learner's function, past the check's early stop; the smallest failing
    one (by size, then repr, as :func:`bpe_lab.harness.run_cases` documents) is the call the message must name.
    ``recompute=False``: the messages only (``smallest`` is ``""``), at the cost of the checks alone.
    ``judged``: the submission's cells as :func:`run_in_process` gave them under the same setting. A measured cell
    (:func:`measured_cells`, seconds each) whose visible part passed there, so that its hidden check ran, is not
    measured again: its outcome there is that check's (a measured part runs no cases to recompute).
    """
    out: dict[str, HiddenFailure] = {}
    if submission.mutant is None:
        return out
    own = submission.mutant.function
    tests = {t.grade_id: t for t in graded_cells(submission.assignment) if t.function == own}
    measured = {
        c.grade_id: c.message
        for c in judged or []
        if c.grade_id in tests and c.grade_id in measured_cells() and (not c.message or c.message.startswith(HIDDEN))
    }
    for grade_id, message in measured.items():
        if message:
            out[grade_id] = HiddenFailure(message, None)
    tests = {g: t for g, t in tests.items() if g not in measured}
    with _recording() as seen:
        for test, namespace in _walk(submission, tests):
            start = len(seen)
            try:
                exec(test.source.split("### BEGIN HIDDEN TESTS", 1)[1], namespace)
                continue
            except Exception as exc:
                message = _message(exc)
            # a measured part (06's speed and memory) runs no cases: no smallest input to hold its message to
            smallest: str | None = "" if seen[start:] or not recompute else None
            for record in seen[start:] if recompute else []:
                unique = {repr(c.args): c for c in reversed(record.cases)}
                failing = [c for c in unique.values() if _fails(record, c)]
                if failing:
                    first = min(failing, key=lambda c: (c.size, repr(c.args)))
                    smallest = harness.format_call(record.name, first.args)
            out[test.grade_id] = HiddenFailure(message, smallest)
    return out


# ---------------------------------------------------------------------------------------------------------------
# the rules
# ---------------------------------------------------------------------------------------------------------------


@dataclass
class Row:
    """One line of the report: a mutant or a correct alternative and what grading did to it."""

    variant: Variant
    students: list[str] = field(default_factory=list)  # the notebooks it is in (one for a mutant)
    lost: float = 0.0  # points lost on the variant's own function, over its notebooks
    possible: float = 0.0  # points of the variant's own function, over its notebooks
    message: str = ""  # the first failing cell's message of the variant's own function ("" if none)
    source: str = ""  # "hidden", "visible", "raised" or ""
    problems: list[str] = field(default_factory=list)

    @property
    def first_line(self) -> str:
        return self.message.splitlines()[0] if self.message else ""


# Test cells whose visible part lets a learner's exception escape (one line, naming neither the input nor the
# expected value). Every visible example now goes through ``bpe_lab.selfcheck.expect``, so the set is empty; it
# is checked to be exact, so a cell that lets an exception escape again is reported.
VISIBLE_RAISES: set[tuple[str, str]] = set()

EXAMPLE = "ExampleFailed: "


def is_visible_raise(message: str) -> bool:
    """A one-line message of an exception other than an assertion: raised by the learner's code in a visible call."""
    return bool(message) and "\n" not in message and not message.startswith(("AssertionError", HIDDEN, EXAMPLE))


def message_problem(message: str, smallest: str | None) -> str | None:
    """Why a failed cell's message breaks the rule, or ``None``.

    ``smallest``: the call a hidden check's message must name (:attr:`HiddenFailure.smallest`), when known.
    """
    lines = message.splitlines()
    for prefix in (HIDDEN, EXAMPLE):
        if message.startswith(prefix):
            if len(lines) != 3:
                return f"message of {len(lines)} lines"
            call = lines[0][len(prefix) :].split("  # ")[0]  # the rule at stake, if any, follows "  # "
            if prefix == HIDDEN and smallest is not None and call != smallest:
                return f"names {call!r}, but the smallest failing input is {smallest!r}"
            if lines[1].startswith("  expected: ") and lines[2].startswith(("  returned: ", "  raised: ")):
                return None
            return f"message without the call, expected and returned lines: {message!r}"
    return f"neither a hidden check's nor an example's three-line message: {message!r}"


def _source(message: str) -> str:
    if not message:
        return ""
    if message.startswith(HIDDEN):
        return "hidden"
    return "raised" if is_visible_raise(message) else "visible"


def verdicts(
    subs: list[Submission],
    graded: dict[str, list[Cell]],
    reference: dict[str, list[Cell]] | None = None,
    hidden: dict[str, dict[str, HiddenFailure]] | None = None,
) -> tuple[list[Row], list[str]]:
    """Hold graded submissions to the rules; return the rows of the table (in notebook order) and the broken rules.

    ``reference``: the same submissions graded another way (in process, or an earlier run): points and
    messages must be identical. ``hidden``: :func:`hidden_failures` per mutant notebook (the hidden-check rules
    are skipped for a notebook not in it).
    """
    rows: dict[Variant, Row] = {}
    problems: list[str] = []
    raised: set[tuple[str, str]] = set()
    for sub in subs:
        cells = graded[sub.student]
        if reference is not None and sub.student in reference:
            problems += compare({sub.student: reference[sub.student]}, {sub.student: cells}, "nbgrader and in process")
        for variant in sub.variants:
            own = [c for c in cells if c.function == variant.function]
            failed = [c for c in own if c.points < c.max_points]
            row = rows.setdefault(variant, Row(variant))
            row.students.append(sub.student)
            row.lost += sum(c.max_points - c.points for c in own)
            row.possible += sum(c.max_points for c in own)
            if failed and not row.message:
                row.message, row.source = failed[0].message, _source(failed[0].message)
            if not own:
                row.problems.append(f"{sub.student}: no test cell of {variant.function}")
            if variant.kind == "correct":
                row.problems += [f"{sub.student}: false fail: {c.grade_id}: {c.message}" for c in failed]
                continue
            if not failed:
                row.problems.append("survived: full marks on its own function")
            alone = (hidden or {}).get(sub.student)
            for c in failed:
                if is_visible_raise(c.message) and (sub.student, c.grade_id) in VISIBLE_RAISES:
                    raised.add((sub.student, c.grade_id))
                    continue
                known = alone.get(c.grade_id) if alone else None
                issue = message_problem(c.message, known.smallest if known else None)
                if issue:
                    row.problems.append(f"{c.grade_id}: {issue}")
            if alone is not None:
                if not alone:
                    row.problems.append("the hidden checks alone do not kill it (only the visible asserts do)")
                for grade_id, failure in alone.items():
                    issue = message_problem(failure.message, failure.smallest)
                    if issue:
                        row.problems.append(f"{grade_id}, hidden check alone: {issue}")
        answered = {v.function for v in sub.variants}
        for c in cells:
            if c.function not in answered and c.points < c.max_points:
                problems.append(f"{sub.student}: {c.grade_id} (solution filler) lost points: {c.message}")
    for row in rows.values():
        v = row.variant
        problems += [f"{v.kind} {v.function}/{v.name}: {p}" for p in row.problems]
    students = {sub.student for sub in subs}
    for student, cell in sorted({k for k in VISIBLE_RAISES if k[0] in students} - raised):
        problems.append(f"{student}: {cell} is listed in VISIBLE_RAISES but no longer raises there: remove it")
    order = {v: i for i, v in enumerate(variants())}
    return sorted(rows.values(), key=lambda r: order.get(r.variant, len(order))), problems


def table(rows: list[Row], width: int = 96) -> str:
    """The report: function, kind, variant, points lost, where the message comes from, its first line.

    ``lost`` is points lost / points of the variant's own function, over the notebooks it is in (``x3``).
    """
    head = ("function", "kind", "variant", "lost", "by", "message (first line)")
    body = []
    for r in rows:
        line = r.first_line if len(r.first_line) <= width else r.first_line[: width - 3] + "..."
        lost = f"{r.lost:g}/{r.possible:g}" + (f" x{len(r.students)}" if len(r.students) > 1 else "")
        body.append((r.variant.function, r.variant.kind, r.variant.name, lost, r.source or "-", line))
    widths = [max(len(str(x[i])) for x in [head, *body]) for i in range(5)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths) + "  {}"
    sep = "  ".join("-" * w for w in widths) + "  " + "-" * 20
    return "\n".join([fmt.format(*head), sep, *(fmt.format(*x) for x in body)])


def summary(rows: list[Row]) -> str:
    mutants = [r for r in rows if r.variant.kind == "mutant"]
    correct = [r for r in rows if r.variant.kind == "correct"]
    killed = sum(1 for r in mutants if r.lost > 0)
    false = sum(1 for r in correct if r.lost > 0)
    return (
        f"kill rate {killed}/{len(mutants)} = {100 * killed / max(1, len(mutants)):.0f} %, "
        f"false-fail rate {false}/{len(correct)} = {100 * false / max(1, len(correct)):.0f} %"
    )


# ---------------------------------------------------------------------------------------------------------------
# the whole run
# ---------------------------------------------------------------------------------------------------------------


_MEASURED_FIGURE = re.compile(r"\d+(?:[.,]\d+)*")


@functools.cache
def measured_cells() -> frozenset[str]:
    """The test cells of a measured part (``check_train_fast(train_fast, "speed")``: a call named by the specs)."""
    from autograder.checks import SPECS

    calls = [f"check_{name}\\([^)]*['\"]{part}['\"]" for name, s in SPECS.items() for part in s.measured]
    pattern = re.compile("|".join(calls) or "(?!)")
    return frozenset(t.grade_id for m in MODULES for t in graded_cells(m.ASSIGNMENT) if pattern.search(t.source))


def steady(message: str, grade_id: str) -> str:
    """``message`` with a measured part's figures (CPU seconds, ratios, megabytes) masked: two runs measure them
    afresh, so they may differ by a little; the points and the words may not."""
    return _MEASURED_FIGURE.sub("#", message) if grade_id in measured_cells() else message


def compare(first: dict[str, list[Cell]], second: dict[str, list[Cell]], what: str) -> list[str]:
    """The students whose points or messages differ between two gradings of the same submissions (a measured part's
    figures aside: :func:`steady`)."""
    out = []
    for student in sorted(set(first) & set(second)):
        cells = {c.grade_id for c in second[student]}
        a = [(c.grade_id, c.points, steady(c.message, c.grade_id)) for c in first[student] if c.grade_id in cells]
        b = [(c.grade_id, c.points, steady(c.message, c.grade_id)) for c in second[student]]
        if a != b:
            out.append(f"{student}: {what} differ: {a} != {b}")
    return out


def same_hidden_messages(student: str, first: dict[str, HiddenFailure], second: dict[str, HiddenFailure]) -> list[str]:
    """The hidden checks whose messages differ between two runs (``[]`` when every one repeats itself)."""
    a = {k: steady(v.message, k) for k, v in first.items()}
    b = {k: steady(v.message, k) for k, v in second.items()}
    return [] if a == b else [f"{student}: two runs of the hidden checks differ: {a} != {b}"]


def rerun_subset(subs: list[Submission], graded: dict[str, list[Cell]]) -> list[Submission]:
    """The mutants graded a second time: per assignment, the one with the most hidden-check messages.

    Hidden checks are where determinism is at stake (generated cases, time limits); a visible assert's message
    is a fixed string. Every other submission's nbgrader grades are compared with the in-process run instead.
    """
    picked: dict[str, tuple[int, Submission]] = {}
    for sub in subs:
        if sub.kind != "mutant":
            continue
        hidden = sum(1 for c in graded[sub.student] if c.message.startswith(HIDDEN))
        if hidden > picked.get(sub.assignment, (0, sub))[0]:
            picked[sub.assignment] = (hidden, sub)
    return [sub for _, sub in picked.values()]


@dataclass
class Report:
    rows: list[Row]
    problems: list[str]
    seconds: dict[str, float]
    submissions: int = 0
    regraded: int = 0

    def text(self) -> str:
        times = ", ".join(f"{k} {v:.1f} s" for k, v in self.seconds.items())
        lines = [table(self.rows), "", summary(self.rows)]
        lines.append(f"{self.submissions} notebooks graded through nbgrader, {self.regraded} of them twice; {times}")
        lines += ["", "PROBLEMS:", *self.problems] if self.problems else ["", "All rules hold."]
        return "\n".join(lines)


@dataclass(frozen=True)
class Judged:
    """A submission judged in process: every test cell (:func:`run_in_process`), its own cells a second time
    (``own_only``), and for a mutant its hidden checks alone (:func:`hidden_failures`) and their messages again."""

    cells: list[Cell]
    again: list[Cell]
    hidden: dict[str, HiddenFailure]
    hidden_again: dict[str, HiddenFailure]


_JUDGED: dict[tuple[str, int, bool], Judged] = {}


def judged_in_process(submission: Submission) -> Judged:
    """:class:`Judged` for ``submission`` under the current setting (``cases.SEED``, ``cases.FIXED_ONLY``), computed
    once per process: the per-notebook tests and :func:`run` hold the same results to their rules."""
    key = (submission.student, cases.SEED, cases.FIXED_ONLY)
    if key not in _JUDGED:
        cells = run_in_process(submission)
        hidden = hidden_failures(submission, judged=cells) if submission.mutant else {}
        again = run_in_process(submission, own_only=True)  # a measured cell's second measurement is this one
        hidden_again = hidden_failures(submission, recompute=False, judged=again) if submission.mutant else {}
        _JUDGED[key] = Judged(cells, again, hidden, hidden_again)
    return _JUDGED[key]


def run(out: Path, jobs: int = 2, only: Iterable[str] | None = None, nbgrader: bool = True) -> Report:
    """Build every submission, judge it in process (twice) and through nbgrader (a subset twice); hold the rules.

    ``nbgrader=False`` judges in process only (seconds instead of minutes; no notebook is graded).
    """
    seconds: dict[str, float] = {}
    start = time.perf_counter()
    subs = submissions(only)
    judged = {s.student: judged_in_process(s) for s in subs}
    local = {student: j.cells for student, j in judged.items()}
    again = {student: j.again for student, j in judged.items()}  # the mutants' own cells, once more
    hidden = {s.student: judged[s.student].hidden for s in subs if s.mutant}
    problems = compare(local, again, "two in-process runs")
    for sub in subs:  # every hidden check of a mutant, run a second time
        if sub.mutant:
            second = judged[sub.student].hidden_again
            problems += same_hidden_messages(sub.student, hidden[sub.student], second)
    seconds["in process"] = time.perf_counter() - start
    graded, regraded = local, []
    if nbgrader:
        start = time.perf_counter()
        graded = grade_through_nbgrader(subs, out / "first", jobs)
        seconds["nbgrader"] = time.perf_counter() - start
        start = time.perf_counter()
        regraded = rerun_subset(subs, graded)
        problems += compare(graded, grade_through_nbgrader(regraded, out / "second", jobs), "two nbgrader runs")
        seconds["nbgrader again"] = time.perf_counter() - start
    rows, broken = verdicts(subs, graded, reference=local if nbgrader else None, hidden=hidden)
    graded_count = len(subs) if nbgrader else 0
    return Report(rows, broken + problems, seconds, graded_count, len(regraded))


# ---------------------------------------------------------------------------------------------------------------
# the same under several seeds, and with the fixed cases alone
# ---------------------------------------------------------------------------------------------------------------

FIXED = "fixed"
"""The setting in which every generator returns nothing: the checks' fixed cases alone."""


@contextlib.contextmanager
def setting(name: str | int) -> Iterator[None]:
    """Run the checks under a seed (an int: the generated inputs of ``autograder.cases.SEED = <seed>``) or with the
    fixed cases alone (:data:`FIXED`)."""
    saved = cases.SEED, cases.FIXED_ONLY
    if name == FIXED:
        cases.FIXED_ONLY = True
    else:
        cases.SEED = int(name)
    try:
        yield
    finally:
        cases.SEED, cases.FIXED_ONLY = saved


@dataclass
class Matrix:
    """Mutants and correct alternatives x settings: points lost on their own function, and the broken rules."""

    settings: list[str]
    rows: dict[Variant, dict[str, float]]
    problems: dict[str, list[str]]

    def text(self) -> str:
        head = ["function", "kind", "variant", *self.settings]
        body = []
        for variant, lost in self.rows.items():
            marks = []
            for name in self.settings:
                value = lost.get(name)
                if variant.kind == "mutant":
                    marks.append("killed" if value else "SURVIVED")
                else:
                    marks.append("ok" if not value else "FALSE-FAIL")
            body.append([variant.function, variant.kind, variant.name, *marks])
        widths = [max(len(str(r[i])) for r in [head, *body]) for i in range(len(head))]
        lines = ["  ".join(str(x).ljust(w) for x, w in zip(r, widths)).rstrip() for r in [head, *body]]
        lines.insert(1, "  ".join("-" * w for w in widths))
        for name in self.settings:
            mutants = [v for v in self.rows if v.kind == "mutant"]
            correct = [v for v in self.rows if v.kind == "correct"]
            killed = sum(1 for v in mutants if self.rows[v].get(name))
            false = sum(1 for v in correct if self.rows[v].get(name))
            lines.append(
                f"{name:>8}: kill rate {killed}/{len(mutants)} = {100 * killed / max(1, len(mutants)):.0f} %, "
                f"false-fail rate {false}/{len(correct)} = {100 * false / max(1, len(correct)):.0f} %, "
                f"{len(self.problems[name])} rules broken"
            )
        for name in self.settings:
            lines += [f"[{name}] {p}" for p in self.problems[name]]
        return "\n".join(lines)

    @property
    def ok(self) -> bool:
        return not any(self.problems.values())


def _measured_before(submission: Submission) -> dict[str, Cell] | None:
    """With the fixed cases alone (:data:`FIXED`): the submission's measured cells as :func:`judged_in_process` gave
    them under the same seed, if this process has judged it. A measured part's input is drawn from the seed, never
    a generated case that the fixed setting drops (06's speed and memory inputs), so these cells ran the same code
    on the same input there (the submission's own ones twice, ``cells`` and ``again``): measuring them again adds
    seconds, not a rule. Else ``None`` (measured here)."""
    judged = _JUDGED.get((submission.student, cases.SEED, False)) if cases.FIXED_ONLY else None
    return {c.grade_id: c for c in judged.cells if c.grade_id in measured_cells()} if judged else None


def run_matrix(settings: Iterable[str | int], only: Iterable[str] | None = None) -> Matrix:
    """Judge every submission in process under each setting (a seed, or :data:`FIXED`) and hold the rules.

    Under the public seed (``cases.PUBLIC_SEED``) the judgements are the per-notebook tests' own
    (:func:`judged_in_process`, once per process): the same cells and hidden checks, not judged a second time.
    With the fixed cases alone, the measured cells are theirs too where this process has them
    (:func:`_measured_before`).
    """
    names = [str(s) for s in settings]
    subs = submissions(only)
    rows: dict[Variant, dict[str, float]] = {v: {} for s in subs for v in s.variants}
    problems: dict[str, list[str]] = {}
    for name in names:
        with setting(name):
            if name == str(cases.PUBLIC_SEED):
                judged = {s.student: judged_in_process(s) for s in subs}
                graded = {student: j.cells for student, j in judged.items()}
                hidden = {s.student: judged[s.student].hidden for s in subs if s.mutant}
            else:
                graded = {s.student: run_in_process(s, measured=_measured_before(s)) for s in subs}
                hidden = {s.student: hidden_failures(s, judged=graded[s.student]) for s in subs if s.mutant}
            table_rows, broken = verdicts(subs, graded, hidden=hidden)
        problems[name] = broken
        for row in table_rows:
            rows[row.variant][name] = row.lost
    order = {v: i for i, v in enumerate(variants())}
    return Matrix(names, dict(sorted(rows.items(), key=lambda kv: order.get(kv[0], len(order)))), problems)

"""The grading contract, verified at ``release``: the checks' specs are its one source, and the notebooks agree.

:data:`autograder.checks.SPECS` says which functions are graded and in which parts (each part one hidden check).
Three other things state the same contract and are held to it here, so that ``release --check`` (and CI) names
any drift before a class is graded:

* each source notebook's test cells: every test cell of a graded function calls its check once, on one part, and
  the parts of a function, in notebook order, are its spec's parts, each graded once, for some points;
* the learner's toolkit's list of checks (:data:`bpe_lab.selfcheck.HIDDEN_CHECKS`, which the learner's install
  needs without the grader), function by function and part by part in the same order;
* a test cell's ``grade_id`` names its function and part (``test_merge_overlaps``; ``test_<function>`` for a
  function checked in one part), as the report and the drill read them, and it sits below that function's solution
  cell (``grade_id`` the function's name), by which the class report names its exercise;
* the sample class's expected scores (:func:`sample_class_problems`): every sample student has them, they name only
  the functions its assignment grades, and each is a score grading can give (a sum of some of that function's test
  cells' points); a function left out is at full marks (:func:`autograder.course.sample_class.expected`).

What this module does not do: run any check, or compare the public expected answers (``release --check`` compares
those with :mod:`autograder.checks.public_cases`, which writes them from the same specs).
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

from bpe_lab import cells as nbcells

from ..checks import SPECS
from ..checks.spec import ALL
from .directory import assignments, source_notebook

_CALL = re.compile(r"^\s*(check_\w+)\(\s*(\w+)\s*(?:,\s*[\"'](\w+)[\"'])?", re.MULTILINE)
"""A hidden check's call in a test cell: ``check_merge(merge, "overlaps")``, ``check_pretokenize(pretokenize)``."""
CHECK_OF = {"disagreeing_merges": "check_counterexample"}
"""Functions whose check has another name than ``check_<function>``."""


def _hidden(source: str) -> str:
    return source.split("### BEGIN HIDDEN TESTS", 1)[1] if "### BEGIN HIDDEN TESTS" in source else ""


def notebook_parts(notebook: nbformat.NotebookNode, where: str = "") -> tuple[dict[str, list[str]], list[str]]:
    """``({function: [part, ...]}, problems)``: the parts each test cell of a source notebook checks, in order.

    Example:
        >>> answer = nbformat.v4.new_code_cell("def merge(ids, pair, new_id): ...")
        >>> answer.metadata["nbgrader"] = {"solution": True, "grade": False, "grade_id": "merge"}
        >>> test = nbformat.v4.new_code_cell('### BEGIN HIDDEN TESTS\\ncheck_merge(merge, "basic")\\n')
        >>> test.metadata["nbgrader"] = {"grade": True, "grade_id": "test_merge_basic", "points": 2}
        >>> notebook_parts(nbformat.v4.new_notebook(cells=[answer, test]))
        ({'merge': ['basic']}, [])
        >>> notebook_parts(nbformat.v4.new_notebook(cells=[test]))[1]
        ["test_merge_basic: a test cell of 'merge' below the solution cell ''"]
    """
    parts: dict[str, list[str]] = {}
    problems: list[str] = []
    answer = ""  # the solution cell above: the report names a test cell's exercise by it (reports.report)
    for cell in notebook.cells:
        if nbcells.is_solution(cell) and not nbcells.is_graded(cell):
            answer = nbcells.grade_id(cell)
        if cell.cell_type != "code" or not nbcells.is_graded(cell) or nbcells.is_solution(cell):
            continue
        grade_id = nbcells.grade_id(cell)
        calls = _CALL.findall(_hidden(cell.source))
        if len(calls) != 1:
            problems.append(f"{where}{grade_id}: {len(calls)} hidden checks (a test cell calls one check, once)")
            continue
        check, function, part = calls[0]
        part = part or ALL
        if function not in SPECS:
            problems.append(f"{where}{grade_id}: {function!r} is not a graded function ({check})")
            continue
        if check != CHECK_OF.get(function, f"check_{function}"):
            problems.append(f"{where}{grade_id}: {function} is checked by {check}, not its own check")
        wanted = f"test_{function}" if part == ALL else f"test_{function}_{part}"
        if grade_id != wanted:
            problems.append(f"{where}{grade_id}: the test cell of {function}'s part {part!r} is named {wanted!r}")
        if answer != function:
            problems.append(f"{where}{grade_id}: a test cell of {function!r} below the solution cell {answer!r}")
        if not nbcells.points(cell) > 0:
            problems.append(f"{where}{grade_id}: a test cell without points")
        parts.setdefault(function, []).append(part)
    return parts, problems


def problems(course_root: Path) -> list[str]:
    """Every place where the notebooks or the learner's list of checks say otherwise than the specs, as sentences
    (``[]`` when the contract holds)."""
    from bpe_lab.selfcheck import HIDDEN_CHECKS

    found: list[str] = []
    graded: dict[str, list[str]] = {}
    for assignment in assignments(course_root):
        path = source_notebook(course_root, assignment)
        parts, said = notebook_parts(nbformat.read(path, 4), f"solutions/{assignment}: ")
        found += said
        for function, listed in parts.items():
            wanted = list(SPECS[function].all_parts)
            if listed != wanted:
                found.append(
                    f"solutions/{assignment}: {function}'s test cells check the parts {listed}; its spec has {wanted}"
                )
            graded[function] = listed
    for function in SPECS:
        if function not in graded:
            found.append(f"{function} has a spec but no test cell in any source notebook")
    for function, spec in SPECS.items():
        check = CHECK_OF.get(function, f"check_{function}")
        wanted_calls = [(check, () if part == ALL else (part,)) for part in spec.all_parts]
        if HIDDEN_CHECKS.get(function) != wanted_calls:
            found.append(
                f"bpe_lab.selfcheck.HIDDEN_CHECKS[{function!r}] is {HIDDEN_CHECKS.get(function)}; the spec gives "
                f"{wanted_calls}"
            )
    for function in HIDDEN_CHECKS:
        if function not in SPECS:
            found.append(f"bpe_lab.selfcheck.HIDDEN_CHECKS lists {function!r}, which no spec grades")
    return found + sample_class_problems(course_root)


def _reachable(points: list[float]) -> set[float]:
    """Every score a function with test cells of these points can get: the sums of its subsets (nbgrader gives a
    test cell all of its points or none)."""
    sums = {0.0}
    for p in points:
        sums |= {s + p for s in sums}
    return sums


def sample_class_problems(course_root: Path) -> list[str]:
    """Where the sample class's expected scores (each module's ``EXPECTED``) disagree with the course: a student
    without them, or with them for nobody; a function the assignment does not grade; a score no set of that
    function's test cells adds up to.

    Example:
        >>> _reachable([2, 2, 1]) == {0, 1, 2, 3, 4, 5}
        True
    """
    from bpe_lab.cli import cell_points

    from . import sample_class

    found: list[str] = []
    for module in sample_class.MODULES:
        where = f"sample class {module.ASSIGNMENT}"
        points = cell_points(nbformat.read(source_notebook(course_root, module.ASSIGNMENT), 4))
        for student in sorted(set(module.STUDENTS) ^ set(module.EXPECTED)):
            has = "answers but no expected scores" if student in module.STUDENTS else "expected scores but no answers"
            found.append(f"{where}: {student} has {has}")
        for student, scores in module.EXPECTED.items():
            for function, score in scores.items():
                if function not in points:
                    found.append(f"{where}: {student}'s expected scores name {function!r}, which it does not grade")
                elif score not in _reachable(points[function]):
                    found.append(
                        f"{where}: {student} is expected to score {score} on {function}, which no set of its test "
                        f"cells ({points[function]} points) gives"
                    )
    return found

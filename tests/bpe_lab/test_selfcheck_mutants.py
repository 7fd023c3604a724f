"""Every mutant of the mutation tests fails the learner's ``check`` exactly as it fails grading with the public seed:
the same smallest input, expected value and reason (so the data holds the same cases, order and judges)."""

import contextlib
import io
import sys
import types

import pytest

from autograder import checks
from autograder.checks import SPECS, a05, cases
from bpe_lab import harness, selfcheck
from tests.mutants import harness as mutants

MUTANTS = [s for s in mutants.submissions() if s.mutant is not None]


def _namespace(submission: mutants.Submission, monkeypatch: pytest.MonkeyPatch) -> dict:
    """The notebook's namespace after its given cells and answers (a broken answer cell is left out): a module's that
    is ``sys.modules["__main__"]`` until the test ends, as in the learner's kernel (so 06's ``chunk_counts_file`` can
    hand a function it defines to its processes)."""
    module = types.ModuleType("__main__")
    monkeypatch.setitem(sys.modules, "__main__", module)
    namespace: dict = module.__dict__
    with contextlib.redirect_stdout(io.StringIO()):
        for source in mutants._given_cells(submission.assignment):
            exec(compile(source, "<given>", "exec"), namespace)
        for cell in mutants._notebook("solutions", submission.assignment).cells:
            grade_id = mutants._meta(cell).get("grade_id")
            if mutants._meta(cell).get("solution"):
                with contextlib.suppress(Exception):
                    exec(compile(submission.answers[grade_id], f"<{grade_id}>", "exec"), namespace)
    return namespace


def _graded(function: str, namespace: dict) -> str:
    """The first failure of grading's checks on the parts with public cases: a measured part (06's speed, memory)
    has none, and only grading measures it (the notebook says so; tests.mutants shows it kills its mutants)."""
    measured = SPECS[function].measured
    for check_name, part in selfcheck.HIDDEN_CHECKS[function]:
        if part and part[0] in measured:
            continue
        check = getattr(checks, check_name, None) or getattr(a05, check_name)
        try:
            check(namespace[function], *part)
        except harness.CheckFailed as failed:
            return str(failed)
    return ""


def _checked(function: str, namespace: dict) -> str:
    try:
        exec(f"check({function!r})", {**namespace, "check": selfcheck.check})
    except harness.CheckFailed as failed:
        return str(failed)
    return ""


@pytest.mark.parametrize("submission", MUTANTS, ids=[s.student for s in MUTANTS])
def test_a_mutant_fails_check_as_it_fails_grading_with_the_public_seed(submission, monkeypatch):
    monkeypatch.setattr(cases, "SEED", cases.PUBLIC_SEED)
    function = submission.mutant.function
    harness.forget_timeouts()
    graded = _graded(function, _namespace(submission, monkeypatch))
    harness.forget_timeouts()
    with contextlib.redirect_stdout(io.StringIO()):
        checked = _checked(function, _namespace(submission, monkeypatch))
    harness.forget_timeouts()
    if not SPECS[function].measured or graded:  # else only a measured part kills it, in grading
        assert graded, "the public seed's hidden checks kill every mutant (tests.mutants)"
    assert checked == graded


def _judged_by_a_mutant(submission: mutants.Submission, function: str) -> bool:
    """``disagreeing_merges`` is judged with the notebook's ``apply_bpe`` and ``encode``: not when one is a mutant."""
    return function == "disagreeing_merges" and submission.mutant.function in selfcheck.JUDGED_BY


def _reached(submission: mutants.Submission, function: str) -> tuple[tuple[str, ...], ...]:
    """The code ``check(function)`` runs in this notebook: what the function's test cells reach
    (:func:`tests.mutants.harness.reach`), and for ``disagreeing_merges`` what those of its judges reach."""
    names = (function, *selfcheck.JUDGED_BY) if function == "disagreeing_merges" else (function,)
    cells = [t for t in mutants.graded_cells(submission.assignment) if t.function in names]
    return tuple(mutants.reach(submission, t) for t in cells)


def _correct_alternatives() -> list[tuple[mutants.Submission, str]]:
    first: dict[tuple, tuple[mutants.Submission, str]] = {}
    for s in mutants.submissions():
        for v in s.variants:
            if v.kind == "correct" and not (s.mutant and _judged_by_a_mutant(s, v.function)):
                first.setdefault((s.assignment, v.function, _reached(s, v.function)), (s, v.function))
    return list(first.values())


CORRECT = _correct_alternatives()
"""Each correct alternative in a notebook, once per distinct code its check runs (the first notebook that holds it):
the same code on the same public cases passes or fails alike beside any mutant, which it never calls (425 -> 52)."""


@pytest.mark.parametrize(("submission", "function"), CORRECT, ids=[f"{s.student}-{f}" for s, f in CORRECT])
def test_a_correct_alternative_passes_check(submission, function, monkeypatch):
    harness.forget_timeouts()
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        assert _checked(function, _namespace(submission, monkeypatch)) == ""
    assert printed.getvalue().startswith(f"{function}: the ")


JUDGES_BROKEN = [s for s in MUTANTS if _judged_by_a_mutant(s, "disagreeing_merges")]


@pytest.mark.parametrize("submission", JUDGES_BROKEN, ids=[s.student for s in JUDGES_BROKEN])
def test_a_right_disagreeing_merges_asks_to_fix_a_mutant_apply_bpe_or_encode_first(submission, monkeypatch):
    harness.forget_timeouts()
    message = _checked("disagreeing_merges", _namespace(submission, monkeypatch))
    harness.forget_timeouts()
    helper = submission.mutant.function
    assert message.startswith(f"disagreeing_merges is judged with your {helper}, which fails its own check: fix it")

"""What the notebooks' own cells use to check a learner's functions: ``expect`` and ``check``.

* :func:`expect` runs one example of the page (the visible tests): it calls the learner's function with a time
  limit and fails with the same three lines as the hidden checks: the call, the expected value, the returned
  one (or what it raised, or that it ran out of time), and the rule at stake after ``#`` when there is one.
* :func:`check` runs the checks of one exercise inside the notebook on the course's public cases, comparing with
  their expected answers shipped as data (:mod:`bpe_lab.expected`): ``check("merge")``. While nbgrader executes
  a notebook (``NBGRADER_EXECUTION`` is set) it does nothing.

Neither the reference answers (``bpe_ref``) nor the grader (``autograder``) is imported here: the learner's
toolkit has neither.
"""

from __future__ import annotations

import copy
import os
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any

from . import expected
from .harness import (
    ADAPTERS,
    DEFAULT_TIME_LIMIT,
    CheckFailed,
    Described,
    Judge,
    Outcome,
    add_note,
    as_pair,
    call,
    format_call,
    judge_for,
    make_judge,
    run_cases,
    show,
    verdict,
)
from .worker import called_names

__all__ = ["HIDDEN_CHECKS", "ExampleFailed", "check", "check_parts", "expect", "failing_helpers"]

_UNSET = object()


class ExampleFailed(CheckFailed):
    """An example of the page (a visible test) went wrong: the call, the expected and the returned value."""


def expect(
    fn: Callable[..., Any],
    *args: Any,
    returns: Any = _UNSET,
    note: str = "",
    ordered: bool = False,
    satisfies: Callable[[Any], bool] | None = None,
    described: str = "",
    raises: type[Exception] | None = None,
    streamed: bool = False,
) -> Any:
    """Call ``fn(*args)`` and fail with a three-line message unless it returns ``returns``.

    Args:
        fn: the learner's function.
        *args: its arguments; the call gets copies, and changing them is a failure.
        returns: the expected value. A dict is compared as a dict (a ``Counter`` is fine), a list item by item
            (a tuple is fine, and pairs may come as lists), a pair as a pair.
        note: the rule the example is about, shown after the call (``# ...``) when it fails.
        ordered: for a dict, the keys must also come in the order of ``returns``.
        satisfies: instead of ``returns``, a test of the returned value; ``described`` says what it asks.
        described: the text of the ``expected:`` line for ``satisfies``.
        raises: instead of ``returns``, the exception the call must raise (``ValueError``); with ``satisfies``,
            a test of the exception raised (its message, say).
        streamed: ``fn(lines, ...)`` returns an iterator: it is called with the lines fed through a generator and
            what it yields, as a list, is judged (``encode_iterable``).

    Returns:
        What ``fn`` returned.

    Raises:
        ExampleFailed: ``fn`` returned something else, raised, ran out of time (2 s) or changed an argument.

    Example:
        >>> expect(sorted, [3, 1, 2], returns=[1, 2, 3])
        [1, 2, 3]
    """
    __tracebackhide__ = True
    if raises is None and (returns is _UNSET) == (satisfies is None):
        raise TypeError("expect() takes either returns= or satisfies=")
    if raises is not None and returns is not _UNSET:
        raise TypeError("expect() takes raises= without returns=")
    name = str(getattr(fn, "__name__", "function"))
    if raises is not None:
        expected = Described(described or f"raises {raises.__name__}")
    else:
        expected = returns if satisfies is None else Described(described or "a value that passes the test")
    given = copy.deepcopy(args)
    outcome = call(
        ADAPTERS["streamed"](fn) if streamed else fn, given, DEFAULT_TIME_LIMIT, name=name, expected=expected
    )
    if streamed and isinstance(outcome.value, dict) and "ids" in outcome.value:
        outcome = Outcome(value=outcome.value["ids"] if outcome.value.get("bad") is None else outcome.value["bad"])
    if raises is not None:
        if isinstance(outcome.error, raises) and (satisfies is None or _passes(satisfies, outcome.error)):
            outcome = Outcome(value=outcome.error)  # what it raised is the value judged (changed arguments too)
            satisfies = _always
        elif outcome.error is None and not outcome.timed_out:
            satisfies = _never
        elif isinstance(outcome.error, raises):  # the right exception, a wrong message
            error = outcome.error
            outcome = Outcome(value=error)
            satisfies = _never
    judge = judge_for(returns, ordered=ordered) if satisfies is None else _judge_by(satisfies)
    failure = verdict(name, args, given, outcome, expected, judge, note)
    if failure is not None:
        text = str(failure)
        named = _by_name(args, sys._getframe(1).f_globals)
        if named != args:
            text = text.replace(format_call(name, args), format_call(name, named), 1)
        example = ExampleFailed(text)
        for line in getattr(failure, "__notes__", []):
            add_note(example, line)
        for line in failing_helpers(fn, sys._getframe(1).f_globals, name):  # a helper it calls is wrong: say so
            add_note(example, line)
        raise example from None
    return outcome.value


LONG = 60
"""An argument shown longer than this (characters) is shown by its name in the notebook, when it has one."""


def _by_name(args: tuple, names: dict[str, Any]) -> tuple:
    """``args`` with each long one (a split pattern, a table of 256 bytes) shown by the notebook's name for it.

    Only a value whose :func:`~bpe_lab.harness.show` is longer than :data:`LONG`, and only a name bound to that
    very object (``GPT4_PATTERN``, ``table``); the function still gets the value itself.
    """
    out = []
    for arg in args:
        found = None
        if len(show(arg)) > LONG:
            found = next((k for k, v in names.items() if v is arg and not k.startswith("_")), None)
        out.append(Described(found) if found else arg)
    return tuple(out)


def _passes(test: Callable[[Any], bool], value: Any) -> bool:
    try:
        return bool(test(value))
    except Exception:
        return False


def _always(value: Any) -> bool:
    return True


def _never(value: Any) -> bool:
    return False


def _judge_by(test: Callable[[Any], bool]) -> Callable[[Any, Any, tuple], str | None]:
    def judge(returned: Any, expected: Any, args: tuple) -> str | None:
        if _passes(test, returned):
            return None
        if isinstance(returned, BaseException):
            return f"raised: {type(returned).__name__}: {str(returned)[:100]}"
        return f"returned: {show(returned)}"

    return judge


# The hidden checks of each graded function, in the order of its test cells: (check, part). The test of this
# module holds it equal to the hidden tests of the source notebooks.
HIDDEN_CHECKS: dict[str, list[tuple[str, tuple[str, ...]]]] = {
    "get_pair_counts": [("check_get_pair_counts", ("basic",)), ("check_get_pair_counts", ("overlaps",))],
    "merge": [("check_merge", ("basic",)), ("check_merge", ("overlaps",))],
    "count_pairs": [("check_count_pairs", ("basic",)), ("check_count_pairs", ("weighted",))],
    "merge_vocab": [("check_merge_vocab", ("basic",)), ("check_merge_vocab", ("edge",))],
    "train_bpe": [("check_train_bpe", ("basic",)), ("check_train_bpe", ("edge",))],
    "best_pair": [
        ("check_best_pair", ("largest",)),
        ("check_best_pair", ("smallest",)),
        ("check_best_pair", ("first",)),
    ],
    "learn_bpe": [("check_learn_bpe", ("basic",)), ("check_learn_bpe", ("edge",))],
    "bpe_train": [("check_bpe_train", ("basic",)), ("check_bpe_train", ("edge",))],
    "apply_bpe": [("check_apply_bpe", ("basic",)), ("check_apply_bpe", ("rank",))],
    "encode": [("check_encode", ("basic",)), ("check_encode", ("replay",))],
    "disagreeing_merges": [("check_counterexample", ())],
    # 05_byte_level_bpe (autograder.checks.a05)
    "pretokenize": [("check_pretokenize", ())],
    "train_bytes": [("check_train_bytes", ("basic",)), ("check_train_bytes", ("ties",))],
    "encode_bytes": [("check_encode_bytes", ("basic",)), ("check_encode_bytes", ("rank",))],
    "decode_bytes": [("check_decode_bytes", ("basic",)), ("check_decode_bytes", ("partial",))],
    "encode_ranks": [
        ("check_encode_ranks", ("basic",)),
        ("check_encode_ranks", ("special",)),
        ("check_encode_ranks", ("gpt4",)),
    ],
    # 06_training_at_scale (autograder.checks.a06); "speed" and "memory" are measured, with no public cases
    "chunk_counts": [("check_chunk_counts", ("basic",)), ("check_chunk_counts", ("special",))],
    "chunk_counts_file": [("check_chunk_counts_file", ("serial",)), ("check_chunk_counts_file", ("parallel",))],
    "train_fast": [
        ("check_train_fast", ("basic",)),
        ("check_train_fast", ("ties",)),
        ("check_train_fast", ("speed",)),
    ],
    "encode_iterable": [
        ("check_encode_iterable", ("basic",)),
        ("check_encode_iterable", ("lazy",)),
        ("check_encode_iterable", ("memory",)),
    ],
    "bytes_to_unicode": [("check_bytes_to_unicode", ())],
    "gpt2_files": [("check_gpt2_files", ("files",)), ("check_gpt2_files", ("load",))],
}


MARKER = "</w>"
"""The end-of-word marker that ``apply_bpe`` adds to a word (``encode`` adds none)."""


def _judge_disagreement(apply_bpe: Callable[..., Any], encode: Callable[..., Any]) -> Judge:
    """A judge of ``disagreeing_merges(word)`` by the learner's own functions: right when ``apply_bpe`` (by rank,
    its final end-of-word marker dropped) and ``encode`` (replay) split the word differently with the table."""

    def judge(returned: Any, expected: Any, args: tuple) -> str | None:
        (word,) = args
        try:
            table = [as_pair(p) for p in returned]
        except TypeError as exc:
            return f"returned: {show(returned)}, not a merge table ({exc})"
        problem = _not_a_table(table)
        if problem:
            return f"returned: {show(returned)}, not a merge table ({problem})"
        by_rank, by_replay = call(apply_bpe, (word, table)), call(encode, (word, table))
        for outcome, name in ((by_rank, "apply_bpe"), (by_replay, "encode")):
            if outcome.error is not None or outcome.timed_out or not isinstance(outcome.value, (list, tuple)):
                return f"returned: {show(table)}, on which your {name} gives no list of symbols"
        ranked = _without_marker(list(by_rank.value))
        if ranked != list(by_replay.value):
            return None
        return f"returned: {show(table)}, on which both give {show(ranked)}"

    return judge


def _not_a_table(table: list[Any]) -> str:
    """What makes ``table`` no merge table (a pair that is not two non-empty strings), in the grader's words."""
    for index, pair in enumerate(table):
        shown = repr(pair) if len(repr(pair)) <= 80 else repr(pair)[:77] + "..."
        if not isinstance(pair, tuple) or len(pair) != 2:
            return f"merges[{index}] must be a tuple of two symbols, got {shown}"
        if not all(isinstance(symbol, str) and symbol for symbol in pair):
            return f"merges[{index}] must hold two non-empty strings, got {shown}"
    return ""


def _without_marker(symbols: list[Any]) -> list[Any]:
    """``apply_bpe``'s symbols without the end-of-word marker it adds: ``["ab", "c</w>"]`` is ``["ab", "c"]``."""
    if symbols and isinstance(symbols[-1], str) and symbols[-1].endswith(MARKER):
        last = symbols[-1][: -len(MARKER)]
        return symbols[:-1] + ([last] if last else [])
    return symbols


JUDGED_BY = ("apply_bpe", "encode")
"""The learner's functions that judge ``disagreeing_merges`` in the self-check (the grader uses the reference)."""


def _run_part(name: str, fn: Callable[..., Any], part: expected.PublicPart, namespace: dict[str, Any]) -> int:
    """Run ``fn`` on the public cases of one part; the number of cases run (all passed)."""
    __tracebackhide__ = True
    learner = ADAPTERS[part.adapter](fn) if part.adapter else fn
    if part.judge[0] == "counterexample":
        judge = _judge_disagreement(*(_passing(helper, namespace) for helper in JUDGED_BY))
    else:
        judge = make_judge(*part.judge)

    def expected_of(*args: Any, _answers: dict[str, Any] = part.answers) -> Any:
        return _answers[repr(args)]  # read only: the judges compare, and the learner's function never sees it

    return run_cases(name, learner, part.cases, expected_of, judge)


def _run_public(name: str, fn: Callable[..., Any], namespace: dict[str, Any]) -> int:
    """Run ``fn`` on the public cases of ``name`` (:mod:`bpe_lab.expected`), each part in the order of the
    notebook; the number of cases run."""
    __tracebackhide__ = True
    return sum(_run_part(name, fn, part, namespace) for part in expected.load(name))


CELL_HELPERS = {"split_specials": "chunk_counts", "count_range": "chunk_counts_file"}
"""Functions a notebook has the learner write beside a graded one, in its cell, with no check of their own: the
graded function whose check covers each (06's ``split_specials``, in ``chunk_counts``' cell, is checked by its
special tokens part)."""


def failing_helpers(fn: Callable[..., Any], namespace: Mapping[str, Any], name: str = "") -> list[str]:
    """The notes to add to a failure of ``fn``: one per graded function it calls by name (``count_pairs`` in a
    ``train_bpe``), directly or through other functions of the notebook (:func:`bpe_lab.worker.called_names`), that
    fails its own public cases, so that the learner fixes that one first.

    Example:
        >>> def count_pairs(vocab): return {}
        >>> def train_bpe(word_freqs, num_merges): return count_pairs(word_freqs)
        >>> failing_helpers(train_bpe, {"count_pairs": count_pairs})[0][:60]
        'note: train_bpe calls your count_pairs, which fails its own '
    """
    calls = getattr(fn, "calls", None)  # a function of the learner's that runs in another process knows its own
    names = calls if isinstance(calls, list) else called_names(fn, namespace)
    via = {n: n for n in names if n in HIDDEN_CHECKS}  # graded function: the name fn calls it by
    for helper in names:  # a helper without a check of its own: the check of its cell's graded function
        via.setdefault(CELL_HELPERS.get(helper, ""), helper)
    notes = []
    for graded, called in via.items():
        if graded in ("", name) or not callable(namespace.get(graded)):
            continue
        try:
            _run_public(graded, namespace[graded], dict(namespace))
        except Exception as failed:  # its own check fails (or cannot run): that is the note
            first = str(failed).splitlines()[0] if str(failed) else type(failed).__name__
            caller = getattr(fn, "__name__", name)
            if called == graded:
                notes.append(
                    f"note: {caller} calls your {graded}, which fails its own check ({first}): fix {graded} first"
                )
            else:
                notes.append(
                    f"note: {caller} calls your {called}, which {graded}'s check covers, and {graded} fails it "
                    f"({first}): fix that cell first"
                )
    return notes


def check_parts(
    name: str, fn: Callable[..., Any], namespace: Mapping[str, Any] | None = None
) -> list[tuple[str, int, CheckFailed | None]]:
    """Every part of ``name``'s public cases, run to the end: ``(part, cases run, failure or None)`` in the
    notebook's order (one part per test cell). A failure carries :func:`failing_helpers`' notes.

    Raises:
        KeyError: ``name`` is not a graded function.
    """
    if name not in HIDDEN_CHECKS:
        raise KeyError(f"{name!r} is not a graded function; use one of {', '.join(HIDDEN_CHECKS)}")
    names = dict(namespace or {})
    results: list[tuple[str, int, CheckFailed | None]] = []
    notes: list[str] | None = None  # found once, at the first failure
    for part in expected.load(name):
        try:
            results.append((part.part, _run_part(name, fn, part, names), None))
        except CheckFailed as failed:
            notes = failing_helpers(fn, names, name) if notes is None else notes
            for note in notes:
                add_note(failed, note)
            results.append((part.part, 0, failed))
    return results


def _passing(name: str, namespace: dict[str, Any]) -> Callable[..., Any]:
    """The notebook's ``name``, once it passes its own public cases (else a message to fix it first)."""
    __tracebackhide__ = True
    if not callable(namespace.get(name)):
        raise NameError(f"define {name} first (run its cell): check('disagreeing_merges') judges with it")
    try:
        _run_public(name, namespace[name], namespace)
    except CheckFailed as failed:
        raise CheckFailed(
            f"disagreeing_merges is judged with your {name}, which fails its own check: fix it first\n{failed}"
        ) from None
    return namespace[name]


def check(name: str, fn: Callable[..., Any] | None = None, namespace: Mapping[str, Any] | None = None) -> None:
    """Run the checks of the function ``name`` here, on the course's public cases, with their expected answers.

    The cases and answers are data of this package (:mod:`bpe_lab.expected`), made from the course's reference by
    ``python -m autograder release``; the judges and the three-line messages are those of grading. For
    ``disagreeing_merges`` the notebook's own ``apply_bpe`` and ``encode`` judge the tables, once they pass their
    own checks.

    Args:
        name: a graded function, e.g. ``"merge"``.
        fn: the function to check; by default the one of that name in ``namespace``.
        namespace: the notebook's names (where ``fn``, and ``apply_bpe`` and ``encode`` for
            ``disagreeing_merges``, are found); by default those where ``check`` is called.

    Raises:
        CheckFailed: the first failing case's three lines (call, expected, returned), as ``grade`` shows them.
        KeyError: ``name`` is not a graded function. NameError: the notebook defines no ``name`` yet (or, for
        ``disagreeing_merges``, no ``apply_bpe`` or ``encode``).

    Example:
        >>> def merge(ids, pair, new_id): ...
        >>> check("merge")  # doctest: +SKIP
        merge: the 312 public cases pass (0.1 s)
    """
    __tracebackhide__ = True
    if os.environ.get("NBGRADER_EXECUTION"):  # grading runs its own checks, on private inputs too
        return
    if name not in HIDDEN_CHECKS:
        raise KeyError(f"{name!r} is not a graded function; use one of {', '.join(HIDDEN_CHECKS)}")
    if namespace is None:
        caller = sys._getframe(1)
        namespace = {**caller.f_globals, **caller.f_locals}
    namespace = dict(namespace)
    if fn is None:
        if name not in namespace:
            raise NameError(f"define {name} first (run its cell), then check it")
        fn = namespace[name]
    start = time.perf_counter()
    try:
        count = _run_public(name, fn, namespace)
    except CheckFailed as failed:
        for note in failing_helpers(fn, namespace, name):
            add_note(failed, note)
        raise
    judged = f", judged with your {' and '.join(JUDGED_BY)}" if name == "disagreeing_merges" else ""
    cases = "the public case passes" if count == 1 else f"the {count} public cases pass"
    print(f"{name}: {cases} ({time.perf_counter() - start:.1f} s{judged})")

"""What the notebooks' own cells use to check a learner's functions: ``expect`` and ``check``.

* :func:`expect` runs one example of the page (the visible tests): it calls the learner's function with a time
  limit and fails with the same three lines as the hidden checks: the call, the expected value, the returned
  one (or what it raised, or that it ran out of time), and the rule at stake after ``#`` when there is one.
* :func:`check` runs the grader's hidden checks of one exercise inside the notebook, with the course's public
  seed: ``check("merge")``. While nbgrader executes a notebook (``NBGRADER_EXECUTION`` is set) it does nothing.

This module is the learner-facing side of :mod:`autograder`: it imports neither the reference answers nor the
grader until :func:`check` is called (which needs them), so that it can move to a learner's toolkit as it is.
"""

from __future__ import annotations

import copy
import importlib
import os
import sys
import time
from collections.abc import Callable
from typing import Any

from .harness import DEFAULT_TIME_LIMIT, CheckFailed, Described, call, judge_for, show, verdict

__all__ = ["HIDDEN_CHECKS", "ExampleFailed", "check", "expect"]

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

    Returns:
        What ``fn`` returned.

    Raises:
        ExampleFailed: ``fn`` returned something else, raised, ran out of time (2 s) or changed an argument.

    Example:
        >>> expect(sorted, [3, 1, 2], returns=[1, 2, 3])
        [1, 2, 3]
    """
    __tracebackhide__ = True
    if (returns is _UNSET) == (satisfies is None):
        raise TypeError("expect() takes either returns= or satisfies=")
    name = str(getattr(fn, "__name__", "function"))
    expected = returns if satisfies is None else Described(described or "a value that passes the test")
    given = copy.deepcopy(args)
    outcome = call(fn, given, DEFAULT_TIME_LIMIT, name=name, expected=expected)
    judge = judge_for(returns, ordered=ordered) if satisfies is None else _judge_by(satisfies)
    failure = verdict(name, args, given, outcome, expected, judge, note)
    if failure is not None:
        example = ExampleFailed(str(failure))
        for line in getattr(failure, "__notes__", []):
            example.add_note(line)
        raise example from None
    return outcome.value


def _judge_by(test: Callable[[Any], bool]) -> Callable[[Any, Any, tuple], str | None]:
    def judge(returned: Any, expected: Any, args: tuple) -> str | None:
        try:
            good = bool(test(returned))
        except Exception:
            good = False
        return None if good else f"returned: {show(returned)}"

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
    # 05_byte_level_bpe (autograder.checks_bytes)
    "pretokenize": [("check_pretokenize", ())],
    "train_bytes": [("check_train_bytes", ("basic",)), ("check_train_bytes", ("ties",))],
    "encode_bytes": [("check_encode_bytes", ("basic",)), ("check_encode_bytes", ("rank",))],
    "decode_bytes": [("check_decode_bytes", ("basic",)), ("check_decode_bytes", ("partial",))],
    "encode_ranks": [
        ("check_encode_ranks", ("basic",)),
        ("check_encode_ranks", ("special",)),
        ("check_encode_ranks", ("gpt4",)),
    ],
}
CHECK_MODULES = ("checks", "checks_bytes")
"""The modules of :mod:`autograder` that hold the checks named in :data:`HIDDEN_CHECKS`, looked up in this order."""


def _the_check(check_name: str) -> Callable[..., None]:
    for module in CHECK_MODULES:
        try:
            found = importlib.import_module(f"{__package__}.{module}")
        except ImportError:
            continue
        if hasattr(found, check_name):
            return getattr(found, check_name)
    raise LookupError(f"no check {check_name} in autograder.{', autograder.'.join(CHECK_MODULES)}")


def check(name: str, fn: Callable[..., Any] | None = None) -> None:
    """Run the grader's hidden checks of the function ``name`` here, with the course's public inputs.

    Args:
        name: a graded function, e.g. ``"merge"``.
        fn: the function to check; by default the one of that name where ``check`` is called (the notebook).

    Raises:
        CheckFailed: the first failing check's three lines (call, expected, returned), as ``grade`` shows them.
        KeyError: ``name`` is not a graded function. NameError: the notebook defines no ``name`` yet.

    Example:
        >>> def merge(ids, pair, new_id): ...
        >>> check("merge")  # doctest: +SKIP
        merge: the 2 hidden checks pass (0.1 s)
    """
    __tracebackhide__ = True
    if os.environ.get("NBGRADER_EXECUTION"):  # grading runs the hidden tests itself
        return
    if name not in HIDDEN_CHECKS:
        raise KeyError(f"{name!r} is not a graded function; use one of {', '.join(HIDDEN_CHECKS)}")
    if fn is None:
        caller = sys._getframe(1)
        namespace = {**caller.f_globals, **caller.f_locals}
        if name not in namespace:
            raise NameError(f"define {name} first (run its cell), then check it")
        fn = namespace[name]
    from . import cases  # the grader: imported only now

    start = time.perf_counter()
    saved = cases.SEED, cases.FIXED_ONLY
    cases.SEED, cases.FIXED_ONLY = cases.PUBLIC_SEED, False
    try:
        for check_name, part in HIDDEN_CHECKS[name]:
            _the_check(check_name)(fn, *part)
    finally:
        cases.SEED, cases.FIXED_ONLY = saved
    count = len(HIDDEN_CHECKS[name])
    print(f"{name}: the {count} hidden check{'s' if count > 1 else ''} pass ({time.perf_counter() - start:.1f} s)")

"""The machinery under every hidden check: call a learner's function safely and report the first wrong answer.

A check runs a learner's function on a list of :class:`Case` inputs ordered from smallest to largest and
stops at the first one that goes wrong, so the failure it reports is the smallest failing input. Each
call:

* gets deep copies of its arguments, and the check fails if the function changed them;
* runs under a time limit (``SIGALRM``, so an infinite loop costs ``time_limit`` seconds, not the cell);
* has its stdout and stderr captured (a learner's progress prints and warnings neither flood the feedback
  nor, on stderr, make nbgrader zero a correct cell).

A failure raises :class:`CheckFailed` (an ``AssertionError``) whose message is at most three lines: the
call, the expected value, what came back.
"""

from __future__ import annotations

import contextlib
import copy
import io
import signal
import threading
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

DEFAULT_TIME_LIMIT = 2.0
"""Seconds one call of a learner's function may take."""

_MAX_ITEMS = 12
_MAX_TEXT = 160


def show(value: Any, _depth: int = 0) -> str:
    """A short, one-line ``repr`` of ``value`` for failure messages: order kept, long containers elided."""
    if _depth > 3:
        return "..."
    if type(value) is dict:
        items = list(value.items())
        body = ", ".join(f"{show(k, _depth + 1)}: {show(v, _depth + 1)}" for k, v in items[:_MAX_ITEMS])
        return "{" + body + (", ..." if len(items) > _MAX_ITEMS else "") + "}"
    if type(value) in (list, tuple):
        body = ", ".join(show(x, _depth + 1) for x in value[:_MAX_ITEMS])
        more = ", ..." if len(value) > _MAX_ITEMS else ""
        if isinstance(value, list):
            return "[" + body + more + "]"
        return "(" + body + ("," if len(value) == 1 else "") + more + ")"
    text = repr(value).replace("\n", "\\n")
    return text if len(text) <= _MAX_TEXT else text[: _MAX_TEXT - 3] + "..."


class CheckFailed(AssertionError):
    """A learner's function gave a wrong answer; the message names the input, the expected and the returned value."""


class CallTimeout(Exception):
    """Raised inside a learner's function when it runs past the time limit."""


@dataclass(frozen=True, eq=False)
class Case:
    """One input of a check: the positional arguments and, optionally, a note shown on failure."""

    args: tuple[Any, ...]
    note: str = ""
    size: int = field(default=0, compare=False)


@contextlib.contextmanager
def _time_limit(seconds: float):
    """Raise :class:`CallTimeout` in the running code after ``seconds`` (main thread only; else no limit)."""
    if seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return

    def _on_alarm(signum, frame):
        raise CallTimeout

    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class _Sink(io.TextIOBase):
    """A write-only stream that keeps nothing (a learner may print a lot)."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        return len(text)


@dataclass
class Outcome:
    """What one call did: its return value or the exception it raised, and whether it timed out."""

    value: Any = None
    error: BaseException | None = None
    timed_out: bool = False


def call(fn: Callable[..., Any], args: Sequence[Any], time_limit: float = DEFAULT_TIME_LIMIT) -> Outcome:
    """Call ``fn(*args)`` with a time limit, stdout/stderr and warnings swallowed, and any exception caught."""
    sink = _Sink()
    try:
        with (
            contextlib.redirect_stdout(sink),
            contextlib.redirect_stderr(sink),
            warnings.catch_warnings(),
        ):
            warnings.simplefilter("ignore")
            with _time_limit(time_limit):
                return Outcome(value=fn(*args))
    except CallTimeout:
        return Outcome(timed_out=True)
    except RecursionError as exc:
        return Outcome(error=exc)
    except Exception as exc:  # the learner's bug, reported in the message
        return Outcome(error=exc)


def format_call(name: str, args: Sequence[Any]) -> str:
    return f"{name}({', '.join(show(a) for a in args)})"


def fail(call_text: str, expected: Any, returned: str, note: str = "") -> CheckFailed:
    lines = [call_text + (f"  # {note}" if note else ""), f"  expected: {show(expected)}", f"  {returned}"]
    return CheckFailed("\n".join(lines))


def run_cases(
    name: str,
    fn: Callable[..., Any],
    cases: Iterable[Case],
    expected_of: Callable[..., Any],
    judge: Callable[[Any, Any, tuple[Any, ...]], str | None],
    *,
    time_limit: float = DEFAULT_TIME_LIMIT,
    check_mutation: bool = True,
) -> int:
    """Run ``fn`` on every case, smallest first, and raise :class:`CheckFailed` at the first wrong answer.

    Args:
        name: the function's name as the learner knows it (used in the message).
        fn: the learner's function.
        cases: the inputs; they are sorted by ``size`` then by ``repr`` so the first failure is the smallest.
        expected_of: the reference function; called on a deep copy of the same arguments.
        judge: ``judge(returned, expected, args)`` returns ``None`` when the answer is right, else a short
            reason such as ``"returned: [7, 7]"``.
        time_limit: seconds per call.
        check_mutation: fail when ``fn`` changes its arguments.

    Returns:
        The number of cases run (all passed).

    Raises:
        TypeError: ``fn`` is not callable. CheckFailed: the first wrong answer.
    """
    __tracebackhide__ = True  # IPython hides this frame: the learner sees only the message
    if not callable(fn):
        raise CheckFailed(f"{name} is not a function: got {show(fn)}")
    unique = {repr(c.args): c for c in reversed(list(cases))}  # first listing wins
    ordered = sorted(unique.values(), key=lambda c: (c.size, repr(c.args)))
    for case in ordered:
        expected = expected_of(*copy.deepcopy(case.args))
        given = copy.deepcopy(case.args)
        outcome = call(fn, given, time_limit)
        text = format_call(name, case.args)
        if outcome.timed_out:
            raise fail(text, expected, f"returned: nothing within {time_limit:g} s (an endless loop?)", case.note)
        if outcome.error is not None:
            err = outcome.error
            message = str(err).splitlines()[0] if str(err) else ""
            reason = f"raised: {type(err).__name__}" + (f": {message[:100]}" if message else "")
            raise fail(text, expected, reason, case.note)
        if check_mutation:
            for index, (before, after) in enumerate(zip(case.args, given)):
                if not _same(before, after):
                    raise CheckFailed(
                        f"{text}  # {case.note or 'inputs must not change'}\n"
                        f"  changed its argument {index + 1}: it was {show(before)}, now {show(after)}\n"
                        "  build and return a new object instead"
                    )
        reason = judge(outcome.value, expected, given)
        if reason is not None:
            raise fail(text, expected, reason, case.note)
    return len(ordered)


def _same(a: Any, b: Any) -> bool:
    """Equal, and equal in order for dicts (a mutation may reorder without changing ``==``)."""
    try:
        if isinstance(a, dict) and isinstance(b, dict):
            return list(a.items()) == list(b.items())
        return type(a) is type(b) and a == b
    except Exception:
        return False

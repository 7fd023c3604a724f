"""The machinery under every hidden check: call a learner's function safely and report the first wrong answer.

A check runs a learner's function on a list of :class:`Case` inputs ordered from smallest to largest and
stops at the first one that goes wrong, so the failure it reports is the smallest failing input. Each
call:

* gets deep copies of its arguments, and the check fails if the function changed them;
* runs under a limit on the **CPU time** it uses (``time.process_time``: the process's CPU, all its threads
  together; :data:`DEFAULT_TIME_LIMIT`), so an endless loop costs about that many seconds and a busy machine,
  which slows a call's wall clock but not its CPU time, never fails a correct function; a generous wall clock
  (:data:`DEFAULT_WALL_LIMIT`) is only a backstop against a call that sleeps or waits. A function
  that used up its CPU time once is not called again: every later call of it, by any check or example of the same
  notebook, fails at once and names the input of that first timeout (a wall-clock timeout is not held against
  it). A function that runs in another process (:class:`autograder.isolation.judge.RemoteFunction`) reads the limit with
  :func:`active_limit` and has that process's CPU time measured there;
* has its stdout and stderr captured (a learner's progress prints and warnings neither flood the feedback
  nor, on stderr, make nbgrader zero a correct cell).

A failure raises :class:`CheckFailed` (an ``AssertionError``) whose message is three lines: the call (and the
rule at stake, when the case names one), the expected value, what came back (returned, raised, or which time limit
it ran past). The judges that compare answers live here too, so that the notebooks' own examples
(:func:`bpe_lab.selfcheck.expect`) fail with the same three lines.
"""

from __future__ import annotations

import collections.abc
import contextlib
import contextvars
import copy
import functools
import io
import itertools
import linecache
import os
import pickle
import re
import sys
import warnings
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from . import cputime

DEFAULT_TIME_LIMIT = 2.0
"""CPU seconds one call of a learner's function may use (its threads together): what an endless loop costs."""

DEFAULT_WALL_LIMIT = 60.0
"""Wall-clock seconds one call may take whatever CPU it uses: a backstop against a call that sleeps or waits, far
above what a correct function needs on the busiest machine (a busy machine slows the wall clock, not CPU time)."""

_MAX_ITEMS = 12
_MAX_TEXT = 160
_TIGHTER = ((_MAX_ITEMS, _MAX_TEXT), (6, 60), (3, 30), (2, 12))
"""The limits :func:`show` and :func:`format_call` try in turn (items per container, characters per text) until
what they show fits its budget."""
SHOW_CHARS = 360
"""At most this many characters for one value a message shows (``expected: ...``, ``returned: ...``)."""
CALL_CHARS = 700
"""At most this many characters for the call a message names, so that the three lines of a failure always fit the
2,000 characters a grader keeps of a message (``autograder.isolation.judge.MAX_MESSAGE``)."""


def show(value: Any, _depth: int = 0) -> str:
    """A short, one-line ``repr`` of ``value`` for failure messages: order kept, long containers elided, and at most
    :data:`SHOW_CHARS` characters in all (a list of long lines shows fewer of them, each shorter).

    A large table of mergeable ranks (bytes keys) shows how many single bytes it has, then its merged tokens.

    Example:
        >>> show({bytes([i]): i for i in range(256)} | {b"ab": 256})
        "{<256 single bytes>, b'ab': 256}"
        >>> len(show(["x" * 500] * 40)) <= SHOW_CHARS
        True
        >>> show({"ids": [7, 8], "count": 2, "crc": 9, "first_read": 1, "read": 1, "lazy": True, "bad": None})
        'an iterator of [7, 8]'
    """
    return _fitted([value], SHOW_CHARS, lambda parts: parts[0])


def _fitted(values: Sequence[Any], budget: int, join: Callable[[list[str]], str]) -> str:
    """``join`` of the values shown under the first limits of :data:`_TIGHTER` that fit ``budget``; else cut."""
    text = ""
    for items, chars in _TIGHTER:
        text = join([_show(v, 0, items, chars) for v in values])
        if len(text) <= budget:
            return text
    return text[: budget - 3] + "..."


STREAM_PROBE_KEYS = frozenset({"ids", "count", "crc", "first_read", "read", "lazy", "bad"})
"""The keys of what :func:`bpe_lab.probes.stream_probe` makes of an iterator: such a dict is shown as the iterator
of ids it stands for (its counts and checksum are the course's bookkeeping, not the answer)."""


def _show(value: Any, _depth: int, items_at_most: int, chars: int) -> str:
    if _depth > 3:
        return "..."
    if type(value) is dict and value.keys() == STREAM_PROBE_KEYS and type(value["ids"]) is list:
        return "an iterator of " + _show(value["ids"], _depth, items_at_most, chars)
    if type(value) is dict:
        items = list(value.items())
        head = ""
        if len(items) > items_at_most and all(type(k) is bytes for k, _ in items):
            # mergeable ranks: the single bytes are the same in every table; the merged tokens are what differs
            singles = sum(1 for k, _ in items if len(k) == 1)
            items = [(k, v) for k, v in items if len(k) != 1]
            head = f"<{singles} single bytes>" + (", " if items else "") if singles else ""
        body = ", ".join(
            f"{_show(k, _depth + 1, items_at_most, chars)}: {_show(v, _depth + 1, items_at_most, chars)}"
            for k, v in items[:items_at_most]
        )
        return "{" + head + body + (", ..." if len(items) > items_at_most else "") + "}"
    if type(value) in (list, tuple):
        body = ", ".join(_show(x, _depth + 1, items_at_most, chars) for x in value[:items_at_most])
        more = ", ..." if len(value) > items_at_most else ""
        if isinstance(value, list):
            return "[" + body + more + "]"
        return "(" + body + ("," if len(value) == 1 else "") + more + ")"
    text = repr(value).replace("\n", "\\n")
    return text if len(text) <= chars else text[: chars - 3] + "..."


class Described:
    """An expected value given by a description, shown as it is (``expected: a merge table on which ...``)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text

    def __deepcopy__(self, memo: dict) -> Described:
        return self


def add_note(error: BaseException, note: str) -> None:
    """``error.add_note(note)`` (PEP 678), also on Python 3.10, which has no ``add_note``: there the note goes into
    ``__notes__`` by hand, where the course's messages read it.

    Example:
        >>> error = ValueError("x")
        >>> add_note(error, "a note")
        >>> error.__notes__
        ['a note']
    """
    if hasattr(error, "add_note"):
        error.add_note(note)
    else:
        vars(error)["__notes__"] = [*getattr(error, "__notes__", []), note]


_SCRATCH = re.compile(r"(?:/[^\s/'\"]+)*/bpe-[a-z0-9]+-[a-z0-9_]{8}(?=/)")
"""A folder the course made with ``tempfile.mkdtemp(prefix="bpe-...-")`` (its files are written there for a call)."""


def without_scratch_folders(text: str) -> str:
    """``text`` with each path into a temporary folder of the course shown as ``<tmp>/name``: the folder's name is
    random, so a message that showed it would differ from one run (and one regrade) to the next.

    Example:
        >>> without_scratch_folders("/tmp/bpe-files-k2x9_q0a/corpus.txt is not UTF-8")
        '<tmp>/corpus.txt is not UTF-8'
    """
    return _SCRATCH.sub("<tmp>", text)


class CheckFailed(AssertionError):
    """A learner's function gave a wrong answer; the message names the input, the expected and the returned value.

    A path into a temporary folder of the course in the message shows as ``<tmp>/name``
    (:func:`without_scratch_folders`), so the same answer gets the same message every time.
    """

    def __init__(self, *args: Any) -> None:
        super().__init__(*(without_scratch_folders(a) if isinstance(a, str) else a for a in args))

    def _render_traceback_(self) -> list[str]:
        """What IPython shows for it in a notebook: the message alone, not the frames of the checking code."""
        return [f"{type(self).__name__}: {self}", *getattr(self, "__notes__", [])]


def timeout_text(kind: str, seconds: float, verb: str = "return") -> str:
    """What a call (or, with ``verb="finish"``, a cell) that ran past a time limit did, in the learner's words:
    ``kind`` is ``"cpu"`` or ``"wall"``.

    Example:
        >>> timeout_text("cpu", 2)
        'used more than 2 s of CPU time (an endless loop?)'
        >>> timeout_text("wall", 60)
        'did not return within 60 s of wall time while using little CPU (sleeping or waiting?)'
    """
    if kind == "cpu":
        return f"used more than {seconds:g} s of CPU time (an endless loop?)"
    if kind == "wall":
        return f"did not {verb} within {seconds:g} s of wall time while using little CPU (sleeping or waiting?)"
    raise ValueError(f"a time limit is 'cpu' or 'wall', not {kind!r}")


class CallTimeout(TimeoutError):
    """A call ran past a time limit: ``kind`` ``"cpu"`` (it used more than ``seconds`` of CPU time) or ``"wall"``
    (it did not return within ``seconds`` of wall time). Raised inside the learner's function (a signal), or by a
    function that runs elsewhere when the process it runs in goes past the limit.

    Example:
        >>> str(CallTimeout("cpu", 2, "merge"))
        'merge used more than 2 s of CPU time (an endless loop?)'
    """

    def __init__(self, kind: str, seconds: float, name: str = "the call") -> None:
        super().__init__(f"{name} {timeout_text(kind, seconds)}")
        self.kind, self.seconds = kind, seconds


@dataclass(frozen=True)
class TimeLimit:
    """The limits of one call: ``cpu`` seconds of CPU time, ``wall`` seconds of wall time (``0``: none)."""

    cpu: float = DEFAULT_TIME_LIMIT
    wall: float = DEFAULT_WALL_LIMIT


_ACTIVE: contextvars.ContextVar[TimeLimit | None] = contextvars.ContextVar("bpe_lab_time_limit", default=None)


def active_limit() -> TimeLimit | None:
    """The limit of the call running now (``None`` outside :func:`call`): a function that runs in another process
    applies it there, where its CPU time is spent.

    Example:
        >>> active_limit() is None
        True
    """
    return _ACTIVE.get()


@dataclass(frozen=True, eq=False)
class Case:
    """One input of a check: the positional arguments and, optionally, a note shown on failure.

    ``size`` orders the cases (smallest first, so the first failure is the smallest failing input): the checks
    set it to the number of words, symbols and merges of the input (see :func:`autograder.checks.cases.size`).
    """

    args: tuple[Any, ...]
    note: str = ""
    size: int = field(default=0, compare=False)


class _Sink(io.TextIOBase):
    """A write-only stream that keeps nothing (a learner may print a lot)."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        return len(text)


@dataclass
class Outcome:
    """What one call did: its return value or the exception it raised, or the time limit it ran past.

    ``timeout``: the :class:`CallTimeout` (its ``kind``, ``"cpu"`` or ``"wall"``, and seconds). ``earlier``: the
    function had already used up its CPU time on another input and was not called; that first call's text and
    expected value.
    """

    value: Any = None
    error: BaseException | None = None
    timeout: CallTimeout | None = None
    earlier: tuple[str, str] | None = None

    @property
    def timed_out(self) -> bool:
        """It ran past a time limit, now or on an earlier input."""
        return self.timeout is not None or self.earlier is not None


# A function that used up its CPU time once, by its owner: the learner's function object itself, or, for a function
# that runs elsewhere (the judge's remote functions), the session it runs in (``_session``), so that the record
# lasts as long as the notebook's code and no longer. A learner who redefines the function starts afresh.
_TIMED_OUT: weakref.WeakKeyDictionary[Any, dict[str, tuple[str, str]]] = weakref.WeakKeyDictionary()


def _owner(fn: Callable[..., Any]) -> tuple[Any, str] | None:
    owner = getattr(fn, "_session", None) or fn
    try:
        weakref.ref(owner)
    except TypeError:  # a built-in: no record
        return None
    return owner, str(getattr(fn, "__name__", "?"))


def timed_out_before(fn: Callable[..., Any]) -> tuple[str, str] | None:
    """The call text and expected value of ``fn``'s first CPU-time timeout, or ``None`` if it never had one."""
    key = _owner(fn)
    return _TIMED_OUT.get(key[0], {}).get(key[1]) if key else None


def timed_out_in(owner: Any) -> list[str]:
    """The names of the functions of ``owner`` (a judge's session) that used up their CPU time."""
    try:
        return list(_TIMED_OUT.get(owner, {}))
    except TypeError:
        return []


def _record_timeout(fn: Callable[..., Any], call_text: str, expected: Any) -> None:
    key = _owner(fn)
    if key is not None:
        _TIMED_OUT.setdefault(key[0], {}).setdefault(key[1], (call_text, show(expected)))


def forget_timeouts() -> None:
    """Forget every recorded timeout (tests; a learner redefining a function needs nothing of the sort)."""
    _TIMED_OUT.clear()


def call(
    fn: Callable[..., Any],
    args: Sequence[Any],
    time_limit: float = DEFAULT_TIME_LIMIT,
    *,
    name: str | None = None,
    expected: Any = None,
    wall_limit: float = DEFAULT_WALL_LIMIT,
) -> Outcome:
    """Call ``fn(*args)`` under ``time_limit`` CPU seconds and ``wall_limit`` wall seconds, stdout/stderr and
    warnings swallowed, and any exception caught. A function with a true ``limits_itself`` (the judge's remote
    functions) gets the limits through :func:`active_limit` and keeps them where it runs: no timer is set here.

    With ``name``, a CPU-time timeout is recorded (``name(*args)`` and ``expected``), and a function that had one
    before is not called: the outcome names that first call (``earlier``). A wall-clock timeout is not recorded:
    a function that waited once may be called again.

    Example:
        >>> call(sorted, ([2, 1],)).value
        [1, 2]
        >>> import time
        >>> call(time.sleep, (5,), wall_limit=0.1).timeout.kind
        'wall'
    """
    if name is not None:
        earlier = timed_out_before(fn)
        if earlier is not None:
            return Outcome(earlier=earlier)
    outcome = _call(fn, args, TimeLimit(time_limit, wall_limit))
    if outcome.timeout is not None and outcome.timeout.kind == "cpu" and name is not None:
        _record_timeout(fn, format_call(name, args), expected)
    return outcome


def _call(fn: Callable[..., Any], args: Sequence[Any], limit: TimeLimit) -> Outcome:
    sink = _Sink()
    try:
        with (
            contextlib.redirect_stdout(sink),
            contextlib.redirect_stderr(sink),
            warnings.catch_warnings(),
        ):
            warnings.simplefilter("ignore")
            outer = _ACTIVE.get()  # inside another limited call the outer limit holds, and no timer is set
            token = _ACTIVE.set(limit if outer is None else outer)  # active_limit() meanwhile
            try:
                if outer is not None or getattr(fn, "limits_itself", False):  # a judge's remote function: its
                    return Outcome(value=fn(*args))  # limits are kept where it runs, read from its cgroup
                # this process's CPU time (all its threads) and the wall clock, by bpe_lab.cputime.limited (the main
                # thread on a POSIX system; elsewhere no limit), entered here directly: no code between its timer's
                # start and the call where a stop could skip its exit
                with cputime.limited(limit.cpu, limit.wall, CallTimeout):
                    return Outcome(value=fn(*args))
            finally:
                _ACTIVE.reset(token)
    except CallTimeout as timeout:  # here, or in the process where a remote function runs
        return Outcome(timeout=timeout)
    except RecursionError as exc:
        return Outcome(error=exc)
    except Exception as exc:  # the learner's bug, reported in the message
        line = learners_line(exc)
        if line:
            add_note(exc, line)
        return Outcome(error=exc)


@functools.cache
def _not_the_learners() -> tuple[str, ...]:
    """The folders of the toolkit, the standard library and the installed packages (not the learner's code)."""
    import sysconfig  # here: importing it costs a tenth of a second of start-up

    paths = sysconfig.get_paths()
    folders = {os.path.dirname(__file__), paths["stdlib"], paths["purelib"], paths["platlib"], sys.prefix,
               sys.base_prefix}  # fmt: skip
    return tuple(os.path.realpath(p) + os.sep for p in folders)


def learners_line(exc: BaseException) -> str:
    """``"  line N of your code: <the line>"`` for the last line of the learner's own code (a notebook cell or a
    file outside the installed packages) that ``exc`` passed through, or ``""``.

    Example:
        >>> def merge(ids):
        ...     return ids[len(ids)]
        >>> try:
        ...     merge([1])
        ... except IndexError as error:
        ...     learners_line(error)[:20]
        '  line 2 of your cod'
    """
    found = ""
    tb = exc.__traceback__
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if not name.startswith("<frozen") and not os.path.realpath(name).startswith(_not_the_learners()):
            text = linecache.getline(name, tb.tb_lineno).strip()
            base = os.path.basename(name)
            where = "your code" if "ipykernel" in name or name.startswith("<") else f"your {base}"
            found = f"  line {tb.tb_lineno} of {where}: {text[:200]}" if text else f"  line {tb.tb_lineno} of {where}"
        tb = tb.tb_next
    return found


def format_call(name: str, args: Sequence[Any]) -> str:
    """``name(arg, ...)`` with each argument shown as :func:`show` does, at most :data:`CALL_CHARS` characters in
    all (forty long lines of text show fewer, shorter ones).

    Example:
        >>> format_call("merge", ([5, 5, 5], (5, 5), 7))
        'merge([5, 5, 5], (5, 5), 7)'
        >>> len(format_call("encode_iterable", (["a line " * 30] * 40, [(b"a", b"b")] * 500))) <= CALL_CHARS
        True
    """
    return _fitted(list(args), CALL_CHARS, lambda parts: f"{name}({', '.join(parts)})")


def fail(call_text: str, expected: Any, returned: str, note: str = "", *, shown: bool = False) -> CheckFailed:
    """The three-line failure: the call (and the convention at stake, after ``  # ``), expected, returned.

    ``shown``: ``expected`` is already text made by :func:`show`.
    """
    lines = [
        call_text + (f"  # {note}" if note else ""),
        f"  expected: {expected if shown else show(expected)}",
        f"  {returned}",
    ]
    return CheckFailed("\n".join(lines))


def timeout_reason(time_limit: float, earlier: bool, timeout: CallTimeout | None = None) -> str:
    """The ``returned:`` line of a call that ran past a limit: ``timeout`` says which (by default the CPU time,
    ``time_limit`` seconds); ``earlier``: it was not called, having used up its CPU time on this input before.

    Example:
        >>> timeout_reason(2, False)
        'returned: nothing: it used more than 2 s of CPU time (an endless loop?)'
    """
    if earlier:
        return "returned: nothing: it used up its CPU time on this input (an endless loop?), so it is not called again"
    kind, seconds = (timeout.kind, timeout.seconds) if timeout is not None else ("cpu", time_limit)
    return f"returned: nothing: it {timeout_text(kind, seconds)}"


def error_reason(err: BaseException) -> str:
    message = str(err).splitlines()[0] if str(err) else ""
    return f"raised: {type(err).__name__}" + (f": {message[:100]}" if message else "")


def verdict(
    name: str,
    args: Sequence[Any],
    given: Sequence[Any],
    outcome: Outcome,
    expected: Any,
    judge: Callable[[Any, Any, tuple[Any, ...]], str | None],
    note: str = "",
    time_limit: float = DEFAULT_TIME_LIMIT,
    check_mutation: bool = True,
) -> CheckFailed | None:
    """The failure of one call (``args`` as they were, ``given`` as the function left them), or ``None``."""
    if outcome.earlier is None and not outcome.timed_out and outcome.error is None:  # the common case: no text
        if not check_mutation or all(same(before, after) for before, after in zip(args, given)):
            reason = judge(outcome.value, expected, tuple(given))
            if reason is None:
                return None
    text = format_call(name, args)
    if outcome.earlier is not None:
        first, shown = outcome.earlier
        return fail(first, shown, timeout_reason(time_limit, True), shown=True)  # the note was for another call
    if outcome.timeout is not None:
        return fail(text, expected, timeout_reason(time_limit, False, outcome.timeout), note)
    if outcome.error is not None:
        failure = fail(text, expected, error_reason(outcome.error), note)
        for line in getattr(outcome.error, "__notes__", []):  # where in the learner's cells it was raised
            add_note(failure, line)
        return failure
    if check_mutation:
        for index, (before, after) in enumerate(zip(args, given)):
            if not same(before, after):
                return fail(
                    text,
                    expected,
                    f"returned: {show(outcome.value)}, and changed argument {index + 1} to {show(after)}"
                    " (build a new object instead)",
                    "inputs must not change",
                )
    reason = judge(outcome.value, expected, tuple(given))
    return None if reason is None else fail(text, expected, reason, note)


def fresh_copy(value: Any) -> Any:
    """A deep copy of ``value``, a check's own inputs or answers (plain data: dicts of pair counts, lists of ids,
    bytes): a round trip through :mod:`pickle`, several times faster than :func:`copy.deepcopy` on such data (a
    dict of 800 pair counts: 0.2 ms against 2.6 ms), or :func:`copy.deepcopy` where pickle cannot copy it. Never for
    values the learner's code made: unpickling may run code that a class names.

    Example:
        >>> counts = {(1, 2): 3}
        >>> copied = fresh_copy(counts)
        >>> copied == counts and copied is not counts
        True
        >>> fresh_copy((lambda: 1, [1]))[1]  # a lambda cannot be pickled: deep-copied instead
        [1]
    """
    try:
        return pickle.loads(pickle.dumps(value, pickle.HIGHEST_PROTOCOL))
    except Exception:  # noqa: BLE001 - not picklable (a lambda, a generator): copy.deepcopy's own rules
        return copy.deepcopy(value)


def ordered_cases(cases: Iterable[Case]) -> list[Case]:
    """The cases as :func:`run_cases` runs them: one per input (its first listing wins), smallest first, then by
    ``repr`` of the arguments.

    Example:
        >>> [c.args for c in ordered_cases([Case((2,), size=2), Case((1,), size=1), Case((2,), "again", 2)])]
        [(1,), (2,)]
    """
    unique = {repr(c.args): c for c in reversed(list(cases))}  # first listing wins
    return sorted(unique.values(), key=lambda c: (c.size, repr(c.args)))


class FreshCopies(collections.abc.Sequence):
    """The arguments of each case, copied afresh (:func:`fresh_copy`) when first asked for and then kept: the calls a
    check plans to make, of which it makes only those up to its first wrong answer.

    Example:
        >>> planned = FreshCopies([Case(([1, 2],)), Case(([3],))])
        >>> planned[0], planned[0] is planned[0], len(planned), planned[1:]
        (([1, 2],), True, 2, [([3],)])
    """

    def __init__(self, cases: Sequence[Case]) -> None:
        self._cases = cases
        self._copies: dict[int, tuple[Any, ...]] = {}

    def __len__(self) -> int:
        return len(self._cases)

    @overload
    def __getitem__(self, index: int) -> tuple[Any, ...]: ...

    @overload
    def __getitem__(self, index: slice) -> list[tuple[Any, ...]]: ...

    def __getitem__(self, index: int | slice) -> tuple[Any, ...] | list[tuple[Any, ...]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        index = range(len(self))[index]  # an IndexError past the end, as a list's
        if index not in self._copies:
            self._copies[index] = fresh_copy(self._cases[index].args)
        return self._copies[index]


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
        fn: the learner's function. One that runs in another process and has a ``prefetch(calls)`` method (the
            judge's and the self-check's remote functions) is told every call first, with the very argument
            objects, so that it can make them in fewer exchanges; it answers each call as it comes, as before.
        cases: the inputs; they are sorted by ``size`` then by ``repr`` so the first failure is the smallest.
        expected_of: the reference function; called on a deep copy of the same arguments.
        judge: ``judge(returned, expected, args)`` returns ``None`` when the answer is right, else a short
            reason such as ``"returned: [7, 7]"``.
        time_limit: CPU seconds per call (the wall clock's backstop is :data:`DEFAULT_WALL_LIMIT`).
        check_mutation: fail when ``fn`` changes its arguments.

    Returns:
        The number of cases run (all passed).

    Raises:
        CheckFailed: the first wrong answer (a ``fn`` that is not a function fails its first call).
    """
    __tracebackhide__ = True  # IPython hides this frame: the learner sees only the message
    ordered = ordered_cases(cases)
    earlier = timed_out_before(fn)
    if earlier is not None:  # out of time before, in this notebook: not called again
        raise fail(earlier[0], earlier[1], timeout_reason(time_limit, True), shown=True)
    prefetch = getattr(fn, "prefetch", None)  # a function in another process: the calls planned, fewer exchanges
    givens = None
    if callable(prefetch):
        givens = FreshCopies(ordered)
        prefetch(givens)
    for index, case in enumerate(ordered):
        expected = expected_of(*fresh_copy(case.args))
        given = givens[index] if givens is not None else fresh_copy(case.args)
        outcome = call(fn, given, time_limit, name=name, expected=expected)
        failure = verdict(name, case.args, given, outcome, expected, judge, case.note, time_limit, check_mutation)
        if failure is not None:
            raise failure
    return len(ordered)


def same(a: Any, b: Any) -> bool:
    """Equal, and equal in order for dicts (a mutation may reorder without changing ``==``)."""
    try:
        if isinstance(a, dict) and isinstance(b, dict):
            return list(a.items()) == list(b.items())
        return type(a) is type(b) and a == b
    except Exception:
        return False


# ---------------------------------------------------------------------------------------------------------------
# judges: is a returned value right? None if so, else "returned: ..." with a short reason
# ---------------------------------------------------------------------------------------------------------------

Judge = Callable[[Any, Any, tuple], "str | None"]


def _returned_an_argument(returned: Any, args: tuple) -> bool:
    return any(returned is a for a in args if isinstance(a, (list, dict)))


def judge_mapping(
    order: bool = False, fresh: bool = False, order_note: str = "right counts, keys not in order of first occurrence"
) -> Judge:
    """A judge of a returned dict: equal to the expected one (any ``Mapping`` is a dict).

    ``order``: the keys must also come in the expected order (order of first occurrence), else ``order_note``.
    ``fresh``: returning one of the arguments itself is wrong (a new dict is asked).
    """

    def judge(returned: Any, expected: Mapping, args: tuple) -> str | None:
        if not isinstance(returned, Mapping):
            return f"returned: {show(returned)} (a {type(returned).__name__}, not a dict)"
        if fresh and _returned_an_argument(returned, args):
            return "returned: the dict it was given, changed or not (build and return a new dict)"
        try:
            items = [(k, returned[k]) for k in returned]
        except Exception as exc:  # a broken mapping subclass
            return f"returned: a dict that cannot be read ({type(exc).__name__})"
        if dict(items) != dict(expected):
            return f"returned: {show(dict(items))}{mapping_differs(dict(items), expected)}"
        if order and [k for k, _ in items] != list(expected):
            return f"returned: {show(dict(items))} ({order_note})"
        return None

    return judge


def mapping_differs(returned: Mapping, expected: Mapping, at_most: int = 2) -> str:
    """Where ``returned`` differs from ``expected``, when a message shows either dict cut short (``, ...``) and so
    may not show it: the first keys that differ, in the expected order, then the keys not expected; else ``""``.

    Example:
        >>> table = {b: chr(b) for b in range(40)}
        >>> mapping_differs({**table, 33: "A"}, table)
        " (at 33: '!' expected, 'A' returned)"
        >>> mapping_differs({1: 2}, {1: 3})  # both shown whole: the message shows the difference itself
        ''
    """
    if ", ..." not in show(dict(returned)) + show(dict(expected)):
        return ""
    said = {
        "missing": lambda key: f"{show(key)} missing",
        "differs": lambda key: f"at {show(key)}: {show(expected[key])} expected, {show(returned[key])} returned",
        "extra": lambda key: f"{show(key)} not expected",
    }
    parts = [said[kind](key) for kind, key in itertools.islice(differing_keys(returned, expected), at_most)]
    return f" ({'; '.join(parts)})" if parts else ""


def differing_keys(got: Mapping, expected: Mapping) -> Iterator[tuple[str, Any]]:
    """Where ``got`` differs from ``expected``, key by key: ``("missing", key)`` and ``("differs", key)`` in the
    expected order, then ``("extra", key)`` for each key not expected (the one walk of the checks' and the charts'
    messages).

    Example:
        >>> list(differing_keys({"a": 1, "b": 3, "z": 0}, {"a": 1, "b": 2, "c": 4}))
        [('differs', 'b'), ('missing', 'c'), ('extra', 'z')]
    """
    for key, value in expected.items():
        if key not in got:
            yield "missing", key
        elif got[key] != value:
            yield "differs", key
    for key in got:
        if key not in expected:
            yield "extra", key


def as_pair(value: Any) -> Any:
    """``[a, b]`` as ``(a, b)``; anything else unchanged (a learner may return pairs as lists)."""
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return tuple(value)
    return value


def judge_sequence(of_pairs: bool = False, fresh: bool = True) -> Judge:
    """A judge of a returned list (a tuple is accepted): equal item by item to the expected one.

    ``of_pairs``: items are pairs, and a pair given as a list counts. ``fresh``: returning the list it was given
    is wrong (a new list is asked).
    """

    def judge(returned: Any, expected: Sequence, args: tuple) -> str | None:
        if isinstance(returned, (str, bytes)) or not isinstance(returned, (list, tuple)):
            return f"returned: {show(returned)} (a {type(returned).__name__}, not a list)"
        if fresh and _returned_an_argument(returned, args):
            return f"returned: {show(returned)}, the list it was given itself (return a new list)"
        items = [as_pair(x) for x in returned] if of_pairs else list(returned)
        if items != list(expected):
            why = _merges_differ(items, list(expected), args) if of_pairs else _symbols_differ(items, list(expected))
            return f"returned: {show(items)}{why}"
        return None

    return judge


def _merges_differ(items: list, expected: list, args: tuple = ()) -> str:
    """How a list of merges differs from the expected one, read off the two lists and the number of merges asked
    (the call's int argument), so that the cause named is the real one.

    Example:
        >>> _merges_differ([("a", "a"), ("aa", "</w>")], [("a", "a")], ({"aa": 5}, 1))
        ' (the first 1 merges are right, then 1 more: 1 were asked, stop after that many rounds)'
        >>> _merges_differ([("a", "a"), ("a", "a")], [("a", "a")], ({"aa": 5}, 10))
        ' (the first 1 merges are right, then no pair is left: stop early)'
    """
    try:
        if sorted(map(repr, items)) == sorted(map(repr, expected)):
            return " (the right merges, in another order)"
    except Exception:
        return ""
    if len(items) < len(expected) and items == expected[: len(items)]:
        return f" (right, but {len(expected)} merges were asked and possible, not {len(items)})"
    if len(items) > len(expected) and items[: len(expected)] == expected:
        asked = next((a for a in args if type(a) is int), None)
        if asked is not None and len(expected) >= asked:
            extra = len(items) - len(expected)
            return (f" (the first {len(expected)} merges are right, then {extra} more: {asked} were asked, stop "
                    "after that many rounds)")  # fmt: skip
        if asked is not None:
            return f" (the first {len(expected)} merges are right, then no pair is left: stop early)"
        return f" (the first {len(expected)} merges are right, then {len(items) - len(expected)} more)"
    same = next(i for i, (a, b) in enumerate(zip(items, expected)) if a != b) if items and expected else 0
    if same:
        return " (the first merge is right)" if same == 1 else f" (the first {same} merges are right)"
    return ""


def _symbols_differ(items: list, expected: list) -> str:
    """What a wrong list of symbols gets wrong about the end-of-word marker, when that is it."""
    marker = "</w>"
    if not all(isinstance(x, str) for x in items) or not all(isinstance(x, str) for x in expected):
        return ""
    if "".join(items) == "".join(expected) + marker:
        return " (no end-of-word marker here: start from the characters only)"
    if "".join(items) + marker == "".join(expected):
        return ' (start from get_word_symbols(word): the characters, then "</w>")'
    return ""


def judge_pair(returned: Any, expected: tuple, args: tuple) -> str | None:
    """A judge of a returned pair (a list of two is accepted)."""
    if as_pair(returned) != expected:
        return f"returned: {show(returned)}"
    return None


def judge_for(expected: Any, *, ordered: bool = False) -> Judge:
    """The judge for an expected value of this type: a dict, a list (of pairs or of symbols), a pair, or ``==``."""
    if isinstance(expected, dict):
        return judge_mapping(order=ordered, fresh=True)
    if isinstance(expected, list):
        return judge_sequence(of_pairs=any(isinstance(x, tuple) for x in expected))
    if isinstance(expected, tuple) and len(expected) == 2:
        return judge_pair

    def judge(returned: Any, wanted: Any, args: tuple) -> str | None:
        return None if type(returned) is type(wanted) and returned == wanted else f"returned: {show(returned)}"

    return judge


def judge_list_of(kind: str, what: str) -> Judge:
    """A judge of a returned list whose items must all be of type ``kind`` (``"int"`` or ``"str"``), exactly.

    ``what`` names the items in the message (``"int ids"``: ``returned: [1, '2'] (not a list of int ids)``).
    """
    wanted = {"int": int, "str": str}[kind]

    def judge(returned: Any, expected: list, args: tuple) -> str | None:
        if isinstance(returned, (str, bytes)) or not isinstance(returned, (list, tuple)):
            return f"returned: {show(returned)} (a {type(returned).__name__}, not a list of {what})"
        items = list(returned)
        if any(type(x) is not wanted for x in items):
            return f"returned: {show(items)} (not a list of {what})"
        if items != list(expected):
            return f"returned: {show(items)}"
        return None

    return judge


class Raised:
    """What a call that raised ``ValueError`` gives inside a check (any other exception still fails it)."""

    def __init__(self, error: ValueError) -> None:
        self.error = error

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Raised)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return "ValueError"


def _standing_in(wrapped: Any, fn: Callable[..., Any], name: str, *, same_calls: bool) -> Any:
    """``wrapped``, a wrapper of the learner's ``fn``, made to stand in for it: a timeout is recorded for ``fn`` itself
    (``_session``, so that the next check does not call it again) and its name is ``fn``'s (else ``name``). When
    ``same_calls`` (each call reaches ``fn`` as a call with the same arguments), ``fn``'s limits on itself
    (``limits_itself``) and its plan of calls (``prefetch``) are its own; otherwise (a stream, run by the session's
    own means) a check's timer is set around it as around any function."""
    wrapped._session = getattr(fn, "_session", None) or fn
    wrapped.__name__ = str(getattr(fn, "__name__", name))
    wrapped.limits_itself = same_calls and bool(getattr(fn, "limits_itself", False))
    if same_calls and callable(getattr(fn, "prefetch", None)):
        wrapped.prefetch = fn.prefetch  # type: ignore[attr-defined]
    return wrapped


def value_error_as_value(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with a ``ValueError`` it raises returned as :class:`Raised` (a ``UnicodeError`` is still raised)."""

    def wrapped(*args: Any) -> Any:
        try:
            return fn(*args)
        except ValueError as exc:
            if isinstance(exc, UnicodeError):  # a UnicodeDecodeError is a ValueError: errors="strict" fails
                raise
            return Raised(exc)

    return _standing_in(wrapped, fn, "decode_bytes", same_calls=True)


def _unknown_id(ids: Any, merges: Any) -> int | None:
    """The first id of ``ids`` that is neither a byte nor a new id of ``merges`` (the one a ValueError must name)."""
    try:
        known = set(merges.values())
        return next((i for i in ids if not (type(i) is int and 0 <= i < 256) and i not in known), None)
    except Exception:
        return None


def judge_text(returned: Any, expected: Any, args: tuple) -> str | None:
    """A judge of ``decode_bytes(ids, merges)``: the same ``str``, or a ``ValueError`` (:class:`Raised`) naming the
    unknown id where one is expected."""
    if isinstance(returned, Raised):
        text = _without_path(str(returned.error), args)
        if not isinstance(expected, Raised):
            return f"raised: ValueError: {text[:100]}"
        unknown = _unknown_id(*args)
        if unknown is not None and not re.search(rf"(?<!\d){unknown}(?!\d)", text):
            return f"raised: ValueError: {text[:100]} (name the unknown id, {unknown}, in the message)"
        return None
    if isinstance(expected, Raised):
        return f"returned: {show(returned)}"
    if not isinstance(returned, str):
        return f"returned: {show(returned)} (a {type(returned).__name__}, not a str)"
    if returned != expected:
        return f"returned: {show(returned)}"
    return None


# ---------------------------------------------------------------------------------------------------------------
# 06: functions of a file and of a stream (the inputs are made where the function runs, by bpe_lab.probes)
# ---------------------------------------------------------------------------------------------------------------


def _runs_remotely(fn: Callable[..., Any]) -> bool:
    """A function of the grading worker (:class:`autograder.judge.RemoteFunction`), which makes files and streams
    on its own side."""
    return hasattr(fn, "_session") and hasattr(getattr(fn, "_session", None), "stream")


def _decode_error(exc: BaseException) -> bool:
    """A ``UnicodeDecodeError``, also as the grader re-raises it from the worker (by name)."""
    return any(cls.__name__ == "UnicodeDecodeError" for cls in type(exc).__mro__)


def with_files(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` whose :class:`bpe_lab.codec.FileBytes` arguments become paths of real files (made in a temporary
    folder here, or by the worker for a function that runs there), with a ``ValueError`` (a ``UnicodeDecodeError``
    too) returned as :class:`Raised`."""
    import shutil
    import tempfile

    from .probes import materialized

    def wrapped(*args: Any) -> Any:
        folder = None
        try:
            if not _runs_remotely(fn):
                folder = tempfile.mkdtemp(prefix="bpe-files-")
                args = tuple(materialized(args, folder))
            return fn(*args)
        except Exception as exc:
            if isinstance(exc, ValueError) or _decode_error(exc):
                return Raised(exc)  # type: ignore[arg-type]
            raise
        finally:
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)

    return _standing_in(wrapped, fn, "chunk_counts_file", same_calls=_runs_remotely(fn))


STREAM_KEEP = 100_000
"""Ids a probe of :func:`streamed` keeps (the checks' streams are shorter; the memory check keeps none)."""


def streamed(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn(lines, *rest)`` called with ``lines`` (a list of str) fed through a generator, and its result consumed:
    the probe of :func:`bpe_lab.probes.stream_probe` (ids, laziness), in the worker for a function that runs
    there."""
    from .probes import stream_probe

    def wrapped(lines: Any, *rest: Any) -> Any:
        if _runs_remotely(fn):
            return fn._session.stream(fn.__name__, list(lines), rest, keep=STREAM_KEEP)[0]  # type: ignore[attr-defined]
        return stream_probe(fn, list(lines), rest, STREAM_KEEP)

    return _standing_in(wrapped, fn, "encode_iterable", same_calls=False)


def _bad_offset(data: Any) -> int | None:
    try:
        bytes(data).decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start
    except Exception:
        return None
    return None


def _without_path(text: str, args: tuple) -> str:
    """``text`` with the path of the file it names replaced by ``<file>``: the file was written in a temporary folder
    whose random name (``bpe-files-35x...``) may hold digits, which must not pass for the offset."""
    name = os.path.basename(str(getattr(args[0], "name", ""))) if args else ""
    if not name:
        return text
    return re.sub(rf"[^\s'\"]*{re.escape(name)}", "<file>", text)


def judge_counts_or_error(returned: Any, expected: Any, args: tuple) -> str | None:
    """A judge of ``chunk_counts_file``: the same dict (any order), or, for a file that is not UTF-8, a
    ``ValueError`` whose message names the offset of its first bad byte."""
    if isinstance(returned, Raised):
        text = _without_path(str(returned.error), args)
        if not isinstance(expected, Raised):
            return f"raised: {type(returned.error).__name__}: {text[:100]}"
        offset = _bad_offset(getattr(args[0], "data", b""))
        if offset is not None and not re.search(rf"(?<!\d){offset}(?!\d)", text):
            return f"raised: ValueError: {text[:100]} (name the offset of the first bad byte, {offset}, in the message)"
        return None
    if isinstance(expected, Raised):
        return f"returned: {show(returned)}"
    return judge_mapping()(returned, expected, args)


def judge_stream(lazy: bool = False) -> Judge:
    """A judge of ``encode_iterable``'s probe (:func:`streamed`): the same ids; with ``lazy``, also an iterator
    whose first id comes before the last line is read."""

    def judge(returned: Any, expected: Any, args: tuple) -> str | None:
        if not isinstance(returned, dict) or "ids" not in returned:
            return f"returned: {show(returned)}"
        if returned.get("bad") is not None:
            return f"returned: an iterator that yielded {returned['bad']} (yield int ids)"
        if returned["ids"] != expected["ids"]:
            return f"returned: an iterator of {show(returned['ids'])}"
        if lazy:
            if not returned.get("lazy"):
                return "returned: a list of the right ids (return an iterator: yield the ids as lines are read)"
            first, read = returned.get("first_read"), returned.get("read")
            if expected["ids"] and first is not None and first >= read:
                return (
                    f"returned: the right ids, but the first only after all {read} lines were read "
                    "(yield the ids of each line before reading on)"
                )
        return None

    return judge


LOAD_TEXT = (
    "In the beginning God created the heaven and the earth.\n"
    "Au commencement, Dieu créa les cieux et la terre. Am Anfang schuf Gott Himmel und Erde.\n"
    "В начале сотворил Бог небо и землю. 太初，上帝创造天地。 はじめに神は天と地とを創造された。\n"
    "def f(x):\n    return x ** 2  # 🙂 12345<|endoftext|>And God said, Let there be light."
)
"""The text on which other libraries must load a learner's ``gpt2_files`` with the right ids (written for the
course: several scripts, code, an emoji, a special token)."""


def judge_gpt2_files(returned: Any, expected: Any, args: tuple) -> str | None:
    """A judge of ``gpt2_files``: the pair ``(vocab, lines)``, a dict equal to the expected one and the same lines."""
    if not isinstance(returned, (tuple, list)) or len(returned) != 2:
        return f"returned: {show(returned)} (not a pair (vocab, merge lines))"
    vocab, lines = returned
    if not isinstance(vocab, Mapping):
        return f"returned: a vocab of {show(vocab)}"
    if dict(vocab) != dict(expected[0]):
        return f"returned: a vocab of {show(vocab)}{mapping_differs(dict(vocab), expected[0])}"
    if not isinstance(lines, (list, tuple)) or list(lines) != list(expected[1]):
        return f"returned: the merge lines {show(lines)}"
    return None


GPT4_SPLIT = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|"""
    r"""\s+(?!\S)|\s"""
)


def _other_files(vocab: Mapping[str, Any], lines: Sequence[str], files: Any) -> str | None:
    """Where ``vocab`` and ``lines`` differ from the course's files (``files``: its ``(vocab, lines)``); ``None``
    when they are the same."""
    if not files:
        return "returned: files this install cannot load: install tiktoken (pip install tiktoken) to check them"
    want_vocab, want_lines = files
    for token in sorted(set(want_vocab) | set(vocab), key=lambda t: (want_vocab.get(t, 1 << 30), t)):
        if vocab.get(token) != want_vocab.get(token):
            return (
                f"returned: files that load to other ids: vocab[{token!r}] is {vocab.get(token)!r}, not "
                f"{want_vocab.get(token)!r} (checked against the course's files: tiktoken is not installed here)"
            )
    if list(lines) != list(want_lines):
        k = next((i for i, (a, b) in enumerate(zip(lines, want_lines)) if a != b), min(len(lines), len(want_lines)))
        got = lines[k] if k < len(lines) else "nothing"
        want = want_lines[k] if k < len(want_lines) else "nothing"
        return f"returned: merges.txt line {k} is {got!r}, not {want!r} (checked against the course's files)"
    return None


def judge_loaded(returned: Any, expected: Any, args: tuple) -> str | None:
    """A judge of ``gpt2_files``'s files as other libraries load them, with GPT-4's split pattern: tiktoken (the
    vocabulary read back into mergeable ranks) and, where it is installed, Hugging Face ``tokenizers`` must give
    the expected ids on :data:`LOAD_TEXT`. ``expected``: ``{"ids", "characters" (GPT-2's character -> byte),
    "specials", "files" (the course's ``(vocab, lines)``)}``. Without tiktoken (the learner's install), the files
    must be the course's files."""
    if not isinstance(returned, (tuple, list)) or len(returned) != 2:
        return f"returned: {show(returned)} (not a pair (vocab, merge lines))"
    vocab, lines = returned
    if (
        not isinstance(vocab, Mapping)
        or not isinstance(lines, (list, tuple))
        or not all(isinstance(x, str) for x in lines)
    ):
        return f"returned: {show(returned)} (not a dict and a list of str)"
    specials, back, want = dict(expected["specials"]), expected["characters"], expected["ids"]
    try:
        ranks = {bytes(back[c] for c in token): int(i) for token, i in vocab.items() if token not in specials}
    except (KeyError, TypeError, ValueError):
        return "returned: a vocab with a token not written in bytes_to_unicode's characters"
    try:
        import tiktoken
    except ImportError:  # the learner's install has no tiktoken: the course's own files are the measure there
        return _other_files(vocab, lines, expected.get("files"))
    try:
        encoding = tiktoken.Encoding(
            name="yours",
            pat_str=GPT4_SPLIT,
            mergeable_ranks=ranks,
            special_tokens={s: vocab.get(s, -1) for s in specials},
        )
        got = encoding.encode(LOAD_TEXT, allowed_special="all")
    except Exception as exc:
        return f"returned: files that tiktoken cannot load ({type(exc).__name__}: {str(exc)[:80]})"
    if got != want:
        return "returned: files on which tiktoken gives other ids than the merges"
    try:
        import tokenizers
        from tokenizers import Regex, models, pre_tokenizers
    except ImportError:
        return None
    try:
        pairs = [tuple(line.split(" ")) for line in lines if line and not line.startswith("#version")]
        tok = tokenizers.Tokenizer(models.BPE(vocab=dict(vocab), merges=pairs))
        tok.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Split(Regex(GPT4_SPLIT), behavior="isolated"),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        )
        tok.add_special_tokens(list(specials))
        loaded = tok.encode(LOAD_TEXT).ids
    except Exception as exc:
        return f"returned: files that Hugging Face tokenizers cannot load ({type(exc).__name__}: {str(exc)[:80]})"
    if loaded != want:
        return "returned: files on which Hugging Face tokenizers gives other ids than the merges"
    return None


JUDGES: dict[str, Callable[..., Judge]] = {
    "mapping": judge_mapping,
    "sequence": judge_sequence,
    "pair": lambda: judge_pair,
    "list_of": judge_list_of,
    "text": lambda: judge_text,
    "counts_or_error": lambda: judge_counts_or_error,
    "stream": judge_stream,
    "gpt2_files": lambda: judge_gpt2_files,
    "loaded": lambda: judge_loaded,
}
"""The judges by name, each made from its parameters: ``("mapping", {"order": True, "fresh": True})``."""

ADAPTERS: dict[str, Callable[[Callable[..., Any]], Callable[..., Any]]] = {
    "value_error_as_value": value_error_as_value,
    "with_files": with_files,
    "streamed": streamed,
}
"""What wraps both the learner's and the expected function of a check, by name."""


def make_judge(name: str, params: Mapping[str, Any] | None = None) -> Judge:
    """The judge called ``name`` (a key of :data:`JUDGES`) made with ``params``.

    Raises:
        KeyError: an unknown judge, naming it and the known ones.

    Example:
        >>> make_judge("mapping", {"order": True})({"a": 1, "b": 2}, {"b": 2, "a": 1}, ())
        "returned: {'a': 1, 'b': 2} (right counts, keys not in order of first occurrence)"
    """
    if name not in JUDGES:
        raise KeyError(f"no judge {name!r}; the judges are {', '.join(JUDGES)}")
    return JUDGES[name](**dict(params or {}))


class Named(str):
    """A string that shows as its constant's name in messages (``GPT4_PATTERN``), and is the same string."""

    name: str

    def __new__(cls, value: str, name: str) -> Named:
        made = super().__new__(cls, value)
        made.name = name
        return made

    def __repr__(self) -> str:
        return self.name

    def __reduce__(self) -> tuple:
        return (Named, (str(self), self.name))

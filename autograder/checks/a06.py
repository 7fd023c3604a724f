"""Hidden checks of assignment 06 (training at scale), each comparing a learner's function with :mod:`bpe_ref.scale`.

As in :mod:`autograder.checks.a05`, a notebook's hidden test is a one-line call such as
``check_train_fast(train_fast, "ties")``; every rule the notebook states is a fixed case (the same whatever the
seed), and generated inputs (:data:`autograder.cases.SEED`) only add to them.

Two parts are measurements, not lists of cases (:attr:`autograder.spec.Spec.measured`):

* ``check_train_fast(fn, "speed")``: on chunk counts of Genesis drawn for the student, the learner's trainer must
  make the reference's merges and spend at most 1/12 of the CPU time of the course's plain loop
  (:func:`bpe_ref.scale.train_plain`) on the same counts. While grading, both run in workers of the same kind (the
  plain loop in a fresh one that holds none of the submission's code, once the submission's worker and whatever it
  left running are stopped, so nothing of it runs beside the baseline; a rerun of the trainer in a new worker, so it
  cannot answer from what an earlier run kept), and the grader reads their CPU time (from the worker's cgroup, which
  counts every process it ran, else from ``/proc``): a ratio of CPU times, which a busy machine changes far less than
  it changes wall time. Both are timed with the garbage collector off (its sweeps cost in proportion to whatever
  else the process holds), and a close call (a trainer under the bar but within a factor of 3 of it, or over it by
  less than half) gets up to two more runs, and the plain loop as many, the fastest of each counting: a burst of
  load beside one run costs no points and gives none. The plain loop always runs next to the learner's trainer,
  never once for many (the load changes), and only as long as the verdict needs: it is stopped once it has spent
  about 18 times the trainer's CPU time (the bar is then met, and not by a close call), so a fast trainer's verdict
  costs about 18 times its own time, not the loop's few seconds (:func:`plain_loop_seconds`). A correct but slow
  trainer fails this part alone, with the measured ratio (the plain loop run to its end) in the message.
* ``check_encode_iterable(fn, "memory")``: the streaming encoder reads about 6 MB of text, line by line, and must
  give the right ids while the worker's resident memory grows by at most 3 MB (read from ``/proc`` by the grader;
  in a learner's own kernel, the kernel's own, likewise).
"""

from __future__ import annotations

import functools
import gc
import inspect
import os
import random
import time
import tracemalloc
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from bpe_lab import cputime, measure
from bpe_lab.codec import FileBytes
from bpe_lab.harness import (
    DEFAULT_TIME_LIMIT,
    LOAD_TEXT,
    CallTimeout,
    Case,
    CheckFailed,
    Named,
    active_limit,
    fresh_copy,
    show,
)
from bpe_lab.probes import ids_crc, release_free_memory, stream_probe
from bpe_ref import scale as ref
from bpe_ref.bytelevel import GPT4_SPECIAL_TOKENS
from bpe_ref.primitives import merge_pair

from . import cases as gen
from .a05 import MIXED_TEXTS, _texts
from .spec import ALL, Part, Spec, run_spec

__all__ = [
    "SPECS",
    "CheckFailed",
    "check_bytes_to_unicode",
    "check_chunk_counts",
    "check_chunk_counts_file",
    "check_encode_iterable",
    "check_gpt2_files",
    "check_train_fast",
]

GPT2_PATTERN = Named(ref.GPT2_PATTERN, "GPT2_PATTERN")
GPT4_PATTERN = Named(ref.GPT4_PATTERN, "GPT4_PATTERN")
EOT = {"<|endoftext|>": 50256}
GENESIS = Path(__file__).resolve().parents[2] / "data" / "kjv_genesis.txt"


def _fixed_then_generated(
    fixed: dict[str, list[Case]], generated: Callable[[str], list[Case]], part: str
) -> list[Case]:
    """A part's cases: its fixed ones (every rule the notebook states), then the generated ones of the seed."""
    return list(fixed[part]) + gen.generated(generated(part))


@functools.lru_cache(maxsize=1)
def genesis() -> str:
    return GENESIS.read_text(encoding="utf-8")


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


# ---------------------------------------------------------------------------------------------------------------
# chunk_counts
# ---------------------------------------------------------------------------------------------------------------

_COUNTS = ("mapping", {"fresh": True})

COUNTS_FIXED = {
    "basic": [
        # keys are the chunks' UTF-8 bytes; equal chunks add up
        Case(("the cat the hat", GPT2_PATTERN, {}), size=15),
        Case(("aaa aaa aaa", GPT2_PATTERN, {}), size=11),
        Case(("éé é", GPT4_PATTERN, {}), note='"é" is two bytes', size=7),
        Case(("Hello world's 123!!", GPT2_PATTERN, {}), size=19),
        Case(("Hello world's 123!!", GPT4_PATTERN, {}), size=19),
        Case(("", GPT2_PATTERN, {}), size=0),
        Case(("the cat", GPT2_PATTERN, EOT), note="a special token that does not occur changes nothing", size=7),
        *(Case((t, p, {}), size=_size(t)) for t in MIXED_TEXTS[:12] for p in (GPT2_PATTERN, GPT4_PATTERN)),
    ],
    "special": [
        # special tokens are split out first, never counted, and no chunk spans one
        Case(("the cat<|endoftext|>the dog", GPT2_PATTERN, EOT), note="a special token is never counted", size=27),
        Case(("<|endoftext|>", GPT2_PATTERN, EOT), size=13),
        Case(("a<|endoftext|><|endoftext|>b", GPT4_PATTERN, EOT), size=28),
        Case(("x<|endoftext|> y", GPT2_PATTERN, EOT), note="the text on each side is split as usual", size=16),
        Case(("no special here", GPT2_PATTERN, EOT), size=15),
        # the longest special token first where two start at one place
        Case(("<|x|>y<|x", GPT2_PATTERN, {"<|x": 1, "<|x|>": 2}), note="the longest special token first", size=9),
        Case(("a<|endoftext|>b<|fim_prefix|>c", GPT4_PATTERN, GPT4_SPECIAL_TOKENS), size=30),
        # without the special token, "<|" and "endoftext" are chunks like any
        Case(("a<|endoftext|>", GPT2_PATTERN, {}), size=14),
    ],
}


@gen.memo
def _counts_generated(part: str) -> list[Case]:
    rng = random.Random(gen.SEED + 600 + len(part))
    pieces = ("the", " cat", "'s", " 12", "é", "  ", "\n", "!", "ab", "<|s|>" if part == "special" else "x")
    specials = {"<|s|>": 9000} if part == "special" else {}
    out = []
    for text in _texts(gen.SEED + 601 + len(part), 120, pieces, 10):
        out.append(Case((text, rng.choice((GPT2_PATTERN, GPT4_PATTERN)), specials), size=_size(text)))
    return out


def check_chunk_counts(fn: Callable[..., Any], part: str = "basic", time_limit: float = DEFAULT_TIME_LIMIT) -> None:
    """Check ``chunk_counts(text, pattern, special_tokens)`` against :func:`bpe_ref.scale.chunk_counts`.

    Parts: ``"basic"``, the chunks' bytes and their counts under both patterns, many scripts, the empty text;
    ``"special"``, special tokens split out first and never counted, the longest first, text on each side split
    as usual.

    Example:
        >>> check_chunk_counts(ref.chunk_counts, "special")
    """
    __tracebackhide__ = True
    run_spec(CHUNK_COUNTS, fn, part, time_limit)


CHUNK_COUNTS = Spec(
    "chunk_counts",
    ref.chunk_counts,
    _COUNTS,
    {p: Part(functools.partial(_fixed_then_generated, COUNTS_FIXED, _counts_generated, p)) for p in COUNTS_FIXED},
    remember=False,
)


# ---------------------------------------------------------------------------------------------------------------
# chunk_counts_file
# ---------------------------------------------------------------------------------------------------------------


def _file(data: bytes | str, name: str = "corpus.txt") -> FileBytes:
    return FileBytes(name, data.encode("utf-8") if isinstance(data, str) else data)


def _stories(text: str, separator: str = "<|endoftext|>") -> str:
    return separator.join(text.split("\n\n")) if "\n\n" in text else separator.join(text.splitlines(keepends=True))


_NOT_UTF8 = "a file that is not UTF-8: ValueError naming the offset of its first bad byte"

FILE_FIXED = {
    "serial": [
        Case((_file("the cat<|endoftext|>the dog"), GPT2_PATTERN, EOT, 1), size=27),
        Case((_file(""), GPT2_PATTERN, EOT, 1), note="an empty file", size=0),
        Case((_file("éé é 日本"), GPT4_PATTERN, {}, 1), size=14),
        # the file's bytes decoded as they are: "\r\n" stays "\r\n" (text mode would make it "\n")
        Case((_file("line one\r\nline two\r\n"), GPT2_PATTERN, {}, 1), note="line ends stay as they are", size=20),
        Case((_file(b"ok\xff"), GPT2_PATTERN, {}, 1), note=_NOT_UTF8, size=3),
        Case((_file("caf\u00e9 au lait".encode("latin-1")), GPT2_PATTERN, {}, 1), note=_NOT_UTF8, size=12),
        Case((_file(b"ok<|endoftext|>" * 3 + b"\xe9t\xe9"), GPT2_PATTERN, EOT, 1), note=_NOT_UTF8, size=48),
    ],
    "parallel": [
        Case((_file("a<|endoftext|>b<|endoftext|>c<|endoftext|>a"), GPT2_PATTERN, EOT, 2), size=43),
        Case((_file("a b<|endoftext|>b c<|endoftext|>c d"), GPT4_PATTERN, EOT, 4), size=35),
        # no special token: the file is one piece, whatever the number of workers
        Case((_file("no special token here at all"), GPT2_PATTERN, EOT, 4), size=28),
        Case((_file("<|endoftext|>starts and ends<|endoftext|>"), GPT2_PATTERN, EOT, 3), size=41),
        # a bad byte in a later piece: the offset in the whole file
        Case((_file(b"one<|endoftext|>two<|endoftext|>thr\xe9e"), GPT2_PATTERN, EOT, 3), note=_NOT_UTF8, size=37),
    ],
}


@gen.memo
def _file_generated(part: str) -> list[Case]:
    rng = random.Random(gen.SEED + 610 + len(part))
    lines = genesis().splitlines(keepends=True)
    out = []
    for index in range(12 if part == "parallel" else 8):
        start = rng.randrange(0, len(lines) - 40)
        text = _stories("".join(lines[start : start + rng.randint(5, 40)]))
        workers = rng.randint(2, 4) if part == "parallel" else 1
        pattern = rng.choice((GPT2_PATTERN, GPT4_PATTERN))
        out.append(Case((_file(text, f"genesis{index}.txt"), pattern, EOT, workers), size=_size(text)))
    return out


FILE_TIME_LIMIT = 5.0
"""Seconds one call of ``chunk_counts_file`` may take (starting processes takes a moment)."""


def check_chunk_counts_file(fn: Callable[..., Any], part: str = "serial", time_limit: float = FILE_TIME_LIMIT) -> None:
    """Check ``chunk_counts_file(path, pattern, special_tokens, workers)`` against
    :func:`bpe_ref.scale.chunk_counts_file`.

    Each case's file is made where the function runs (a private temporary folder) and its path passed. Parts:
    ``"serial"``, ``workers == 1``: the counts of the file's text (its bytes decoded as they are, ``"\\r\\n"`` kept),
    the empty file, and a file that is not UTF-8 (``ValueError`` naming the offset of its first bad byte);
    ``"parallel"``, 2 to 4 workers on files with many special tokens, none, or some at the very ends: exactly the
    serial counts.

    Example:
        >>> check_chunk_counts_file(ref.chunk_counts_file, "parallel")
    """
    __tracebackhide__ = True
    run_spec(CHUNK_COUNTS_FILE, fn, part, time_limit)


def _counts_in_one_process(
    path: str | os.PathLike, pattern: str, special_tokens: Mapping[str, int], workers: int
) -> dict[bytes, int]:
    """The reference's answer to ``chunk_counts_file(path, pattern, special_tokens, workers)``, counted in this
    process whatever ``workers`` asks: the counts (and the error of a file that is not UTF-8, its offset in the whole
    file) are the same for every number of workers, the very rule the check holds a learner's function to, so the
    judge need not start a pool of processes for each case to know them. A ``workers`` that is not an int ``>= 1``
    goes to the reference as it is, which names it in its error.

    Example:
        >>> import tempfile
        >>> with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8") as f:
        ...     _ = f.write("a b<|endoftext|>b c")
        >>> _counts_in_one_process(f.name, GPT2_PATTERN, EOT, 4) == ref.chunk_counts_file(f.name, GPT2_PATTERN, EOT, 4)
        True
    """
    serial = isinstance(workers, int) and not isinstance(workers, bool) and workers >= 1
    return ref.chunk_counts_file(path, pattern, special_tokens, 1 if serial else workers)


CHUNK_COUNTS_FILE = Spec(
    "chunk_counts_file",
    _counts_in_one_process,
    ("counts_or_error", {}),
    {p: Part(functools.partial(_fixed_then_generated, FILE_FIXED, _file_generated, p)) for p in FILE_FIXED},
    adapter="with_files",
    remember=False,
)


# ---------------------------------------------------------------------------------------------------------------
# train_fast
# ---------------------------------------------------------------------------------------------------------------

TRAIN_FIXED = {
    "basic": [
        # the worked example: counts weigh each chunk's pairs
        Case(({b"hug": 10, b"pug": 5, b"hugs": 1}, 258), note="see the worked example", size=12),
        Case(({b"ab": 3, b"ba": 1, b"bb": 1}, 257), size=7),
        # overlaps count: b"aaaa" holds (a, a) three times, more than (b, c) in two chunks of count 1
        Case(({b"aaaa": 1, b"bc": 1, b"xbc": 1}, 257), note="overlaps count", size=10),
        Case(({"éé".encode(): 2}, 258), note='"é" is two bytes', size=6),
        # vocab_size 256: no merge; no pair left: stop early
        Case(({b"hello": 4}, 256), size=5),
        Case(({b"ab": 2}, 1000), note="no pair left: stop early", size=746),
        Case(({b"a": 5, b"b": 3}, 300), note="single bytes have no pair", size=46),
        Case(({}, 300), size=44),
        # merged left to right: b"aaa" is (aa, a), so round 2 merges (b"aa", b"a")
        Case(({b"aaa": 2}, 258), size=5),
    ],
    "ties": [
        # a tie goes to the largest pair of byte strings, whatever the order of the dict
        Case(({b"ab": 1, b"cd": 1}, 257), note="a tie: the largest pair", size=5),
        Case(({b"cd": 1, b"ab": 1}, 257), note="a tie: the largest pair, not the first seen", size=5),
        Case(({b"zy": 1, b"ab": 1, b"mn": 1}, 257), size=7),
        # bytes, not characters: the first byte of "é" (0xc3) is larger than every ASCII byte
        Case(({"é".encode(): 1, b"zz": 1}, 257), note="compare the bytes: 0xc3 > b'z'", size=5),
        # the same left part: the larger right part wins
        Case(({b"ab": 1, b"ac": 1}, 257), size=5),
        # compare byte strings, not ids: b"ab" (id 256) is smaller than b"b" (id 98)
        Case(({b"abx": 1, b"bx": 1}, 258), note="compare the bytes of the tokens, not their ids", size=7),
        Case(({b"abab": 1, b"cd": 2}, 258), size=8),
    ],
}


def _tied(counts: dict[bytes, int], vocab_size: int) -> bool:
    """Whether a round of training ``counts`` up to ``vocab_size`` is decided by a tie."""
    words = [[bytes([b]) for b in chunk] for chunk in counts]
    freqs = list(counts.values())
    for _ in range(vocab_size - 256):
        pairs: dict[tuple[bytes, bytes], int] = {}
        for symbols, n in zip(words, freqs):
            for pair in zip(symbols, symbols[1:]):
                pairs[pair] = pairs.get(pair, 0) + n
        if not pairs:
            return False
        top = max(pairs.values())
        best = [p for p, c in pairs.items() if c == top]
        if len(best) > 1:
            return True
        a, b = best[0]
        for i, symbols in enumerate(words):
            out, j = [], 0
            while j < len(symbols):
                if j + 1 < len(symbols) and symbols[j] == a and symbols[j + 1] == b:
                    out.append(a + b)
                    j += 2
                else:
                    out.append(symbols[j])
                    j += 1
            words[i] = out
    return False


@gen.memo
def _train_generated(part: str) -> list[Case]:
    rng = random.Random(gen.SEED + 620 + len(part))
    out = []
    alphabet = "abc" if part == "ties" else "abcdé"
    for _ in range(150):
        counts: dict[bytes, int] = {}
        for _ in range(rng.randint(1, 5)):
            chunk = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 6))).encode("utf-8")
            counts[chunk] = rng.randint(1, 5)
        vocab_size = 256 + rng.randint(0, 8)
        if part == "basic" and _tied(counts, vocab_size):
            continue  # "basic" holds no tie: the "ties" part is about them
        out.append(Case((counts, vocab_size), size=sum(map(len, counts)) + vocab_size - 256))
    return out


SPEED_RATIO = 12.0
"""How many times less CPU time than the plain loop the learner's trainer must spend on the speed input."""
SPEED_VOCAB = 256 + 1500
SPEED_BUDGET = 120.0
"""Seconds of the wall clock the learner's trainer gets on the speed input (the plain loop needs a few of CPU): a
backstop against a trainer that sleeps or loops; the verdict is the ratio of CPU times."""
SPEED_RERUNS = 2
"""How many more runs a close call gets (:data:`RERUN_FACTOR`, :data:`PASS_MARGIN`)."""
RERUN_FACTOR = 3.0
"""A close call under the bar: a ratio of at least ``SPEED_RATIO / RERUN_FACTOR`` (the plain loop is at 1x, a
correct trainer at 25-45x on this input, a trainer that scans every pair count for the best one at 5-8x)."""
PASS_MARGIN = 1.5
"""A close call over the bar: a ratio under ``SPEED_RATIO * PASS_MARGIN``, measured with the plain loop run to its
end. A burst of load beside one run of the loop (a busy core beside it, a virtual machine's stolen time counted as
its own) makes it look slower, and so a slow trainer fast enough to pass; the fastest runs of each, as under the
bar, decide."""
SPEED_SHARE = 0.75
"""The share of Genesis's lines in the speed input (drawn for each student)."""
STOP_MARGIN = PASS_MARGIN * 1.01
"""The plain loop is stopped at ``SPEED_RATIO * STOP_MARGIN`` times the trainer's CPU time: a stopped loop then shows
a ratio above the close calls (:data:`PASS_MARGIN`), never one equal to their edge within rounding."""


@gen.memo
def _speed_input() -> list[Case]:
    rng = random.Random(gen.SEED + 630)
    lines = [line for line in genesis().splitlines(keepends=True) if rng.random() < SPEED_SHARE]
    counts = ref.chunk_counts("".join(lines), ref.GPT2_PATTERN, {})
    return [Case((counts, SPEED_VOCAB), note=f"{len(counts):,} chunks of Genesis", size=len(counts))]


class _Shown:
    """An argument shown by a description in a message (a dict of thousands of chunks)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _cpu_seconds_here(fn: Callable[..., Any], args: tuple) -> tuple[Any, float]:
    """``fn(*args)`` on a copy of ``args`` and its CPU seconds, with the garbage collector off meanwhile: the
    collector's sweeps cost in proportion to everything else the process holds, not to the trainer's work (the
    judge's worker times its calls the same way)."""
    args = fresh_copy(args)
    paused = gc.isenabled()
    gc.disable()
    try:
        start = time.process_time()
        value = fn(*args)
        return value, time.process_time() - start
    finally:
        if paused:
            gc.enable()


PLAIN_SOURCE = "\n\n".join(
    ["from __future__ import annotations", inspect.getsource(merge_pair), inspect.getsource(ref.train_plain)]
)
"""The course's plain loop as the worker runs it: the merge scan of :mod:`bpe_ref.primitives` and the loop (built-ins
only, no import)."""


class _PastBudget(Exception):
    """The plain loop ran past its budget of CPU time (raised in it by :func:`bpe_lab.cputime.limited`)."""


def plain_loop_seconds(args: tuple, budget: float, session: Any = None) -> tuple[float, bool]:
    """The CPU seconds of the course's plain loop (:func:`bpe_ref.scale.train_plain`) on ``args``, stopped once it has
    spent ``budget`` seconds: ``(seconds, False)`` when it finished, ``(budget, True)`` when it was stopped (it
    would have taken longer). With a judge's ``session``, in a fresh worker of the submission's kind with none of
    its code, once the submission's worker and what it left running are stopped (``session.restart()``: a process
    it left behind cannot compete with the loop); else here, where a limit can be set (the main thread, no limit
    of a running call around it), or to its end.

    :func:`check_speed` needs no more: a trainer passes when the loop takes at least :data:`SPEED_RATIO` times its
    time, which a loop stopped at that budget has shown.

    Raises:
        RuntimeError: the plain loop did not load in the worker. bpe_lab.harness.CallTimeout: the worker's wall
            clock ran out before its CPU budget (a machine too loaded to measure on).

    Example:
        >>> (speed_input,) = _speed_input()  # thousands of chunks: the loop needs a few seconds
        >>> plain_loop_seconds(speed_input.args, budget=0.05)
        (0.05, True)
        >>> plain_loop_seconds(({b"hug": 10, b"pug": 5}, 258), budget=5.0)[1]  # done long before its budget
        False
    """
    if session is not None:
        session.restart()  # the submission's worker stopped, and whatever it left running: nothing of it runs beside
        with session.clean() as clean:
            error = clean.run("course-plain-loop", PLAIN_SOURCE)
            if error:
                raise RuntimeError(f"the course's plain loop did not load in the worker: {error}")
            try:
                return clean.timed_call("train_plain", args, timeout=budget)[1], False
            except CallTimeout as exc:
                if exc.kind != "cpu":
                    raise
                return budget, True
    if active_limit() is not None:  # inside a limited call: its timer is the one running
        return _cpu_seconds_here(ref.train_plain, args)[1], False
    try:
        with cputime.limited(budget, 0, lambda kind, seconds: _PastBudget()):
            return _cpu_seconds_here(ref.train_plain, args)[1], False
    except _PastBudget:
        return budget, True


def check_speed(fn: Callable[..., Any], time_limit: float = DEFAULT_TIME_LIMIT) -> None:
    """The ``"speed"`` part of :func:`check_train_fast` (see the module's docstring)."""
    __tracebackhide__ = True
    (case,) = _speed_input()
    counts, vocab_size = case.args
    expected = ref.train_fast(counts, vocab_size)
    shown = f"train_fast(<{case.note}>, {vocab_size})"
    session = getattr(fn, "_session", None)
    remote = session is not None and hasattr(session, "timed_call") and measure.available()

    def learner(rerun: bool = False) -> float:
        """The CPU seconds of a run of the learner's trainer whose merges are right (each run's are checked: a rerun
        that answers fast and wrong counts for nothing, it fails)."""
        try:
            if remote and session is not None:
                if rerun:  # in a new worker: a rerun is measured, never answered from what an earlier run kept
                    session.restart()
                returned, seconds = session.timed_call(fn.__name__, case.args, timeout=SPEED_BUDGET)
            else:
                returned, seconds = _cpu_seconds_here(fn, case.args)
        except TimeoutError as exc:
            if getattr(exc, "kind", "cpu") == "wall":  # stopped by the wall clock, with little CPU used: asleep
                why = f"nothing within {getattr(exc, 'seconds', 0):.0f} s of wall time, using little CPU (sleeping?)"
            else:
                why = f"nothing within {SPEED_BUDGET:.0f} s of CPU time, much slower than the plain loop"
            raise CheckFailed(
                f"{shown}  # at least {SPEED_RATIO:g}x less CPU time than the plain loop\n"
                f"  expected: the merges, {SPEED_RATIO:g}x faster than the plain loop (which takes a few seconds)\n"
                f"  returned: {why}"
            ) from None
        except Exception as exc:
            raise CheckFailed(
                f"{shown}\n  expected: {len(expected)} merges\n  raised: {type(exc).__name__}: {exc}"[:600]
            ) from None
        listed = isinstance(returned, (list, tuple))
        items = [tuple(p) if isinstance(p, list) else p for p in returned] if listed else None
        if items != expected:
            raise CheckFailed(
                f"{shown}  # the speed input: the plain loop's merges first\n  expected: {show(expected)}\n"
                f"  returned: {show(returned)}"
            )
        return seconds

    spent = learner()  # the learner's first: a wrong or broken trainer costs no baseline

    def baseline() -> float:  # measured next to the learner's run, never earlier (the load may have changed since),
        # and stopped once it has shown the bar met: a stopped loop counts as its budget, a ratio above the bar
        budget = SPEED_RATIO * max(spent, 0.01) * STOP_MARGIN
        return plain_loop_seconds(case.args, budget, session if remote else None)[0]

    plain = baseline()
    ratio = plain / max(spent, 0.01)
    owed = 0  # runs of the plain loop not made yet
    for _ in range(SPEED_RERUNS):  # a close call (under the bar but within RERUN_FACTOR of it, or over it by less
        # than PASS_MARGIN) runs again, and so does the plain loop, the fastest run of each counting (as timeit takes
        # the minimum): a burst of load beside one run, either's, decides nothing; a trainer further below the bar is
        # the wrong algorithm, and one further above it stopped the loop at its budget
        if not SPEED_RATIO / RERUN_FACTOR <= ratio < SPEED_RATIO * PASS_MARGIN:
            break
        spent = min(spent, learner(rerun=True))
        owed += 1
        # Another run of the plain loop can only lower its fastest time, and so the ratio: while the trainer stays
        # under the bar it cannot change the verdict, and waits (seconds each, 2 of a close call's 3 runs). Once
        # the trainer reaches the bar, the loop makes every run it owes, so a verdict rests on as many runs of each.
        if plain / max(spent, 0.01) >= SPEED_RATIO:
            for _ in range(owed):
                plain = min(plain, baseline())
            owed = 0
        ratio = plain / max(spent, 0.01)
    if ratio < SPEED_RATIO:
        raise CheckFailed(
            f"{shown}  # at least {SPEED_RATIO:g}x less CPU time than the plain loop\n"
            f"  expected: the merges within {plain / SPEED_RATIO:.2f} s of CPU (the plain loop took {plain:.2f} s)\n"
            f"  returned: the right merges in {spent:.2f} s of CPU: {ratio:.1f}x the plain loop's speed, "
            f"{SPEED_RATIO / ratio:.1f}x slower than required (update the pair counts of the chunks a merge changes, "
            "and find the best pair with a heap)"
        )


def check_train_fast(fn: Callable[..., Any], part: str = "basic", time_limit: float = DEFAULT_TIME_LIMIT) -> None:
    """Check ``train_fast(chunk_counts, vocab_size)`` against :func:`bpe_ref.scale.train_fast`.

    Parts: ``"basic"``, weighted counts, overlaps, multi-byte characters, ``vocab_size == 256``, the early stop,
    merges left to right, on inputs where no round has a tie; ``"ties"``, ties to the lexicographically largest
    pair of byte strings (whatever the dict's order, bytes not ids); ``"speed"``, the merges of Genesis's chunks with
    at least 12 times less CPU time than the plain loop (see the module's docstring).

    Example:
        >>> check_train_fast(ref.train_fast, "ties")
    """
    __tracebackhide__ = True
    run_spec(TRAIN_FAST, fn, part, time_limit)


TRAIN_FAST = Spec(
    "train_fast",
    ref.train_fast,
    ("sequence", {"of_pairs": True}),
    {p: Part(functools.partial(_fixed_then_generated, TRAIN_FIXED, _train_generated, p)) for p in TRAIN_FIXED},
    remember=False,
    measured={"speed": check_speed},
)


# ---------------------------------------------------------------------------------------------------------------
# encode_iterable
# ---------------------------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=4)
def merges_of(pattern: str, vocab_size: int, characters: int = 60_000) -> list[tuple[bytes, bytes]]:
    """Merges trained on the start of Genesis (the notebook's corpus)."""
    return ref.train_fast(ref.chunk_counts(genesis()[:characters], pattern, {}), vocab_size)


def _tables() -> dict[str, list[tuple[bytes, bytes]]]:
    return {"gpt2": merges_of(ref.GPT2_PATTERN, 256 + 120), "gpt4": merges_of(ref.GPT4_PATTERN, 256 + 120)}


def _stream_cases(part: str) -> list[Case]:
    t = _tables()
    g2, g4 = (GPT2_PATTERN, t["gpt2"]), (GPT4_PATTERN, t["gpt4"])
    fixed = {
        "basic": [
            Case((["And God said\n", "Let there be light\n"], g2[1], g2[0], {}), size=32),
            Case(([], g2[1], g2[0], {}), note="no lines: no ids", size=0),
            Case((["", "the", ""], g2[1], g2[0], {}), size=3),
            # a chunk may span two lines (or any two strings): the ids are those of the joined text
            Case((["the ear", "th was"], g2[1], g2[0], {}), note="the ids of the joined text", size=13),
            Case((["a\n", "\n", "\n", "b"], g2[1], g2[0], {}), note="whitespace runs across lines", size=5),
            # the chunks of the whole text: "word\n\n" split on its own ends in the one chunk "\n\n", which a merge
            # of "\n" with "\n" joins; in the whole text the last "\n" goes with "Word"'s run, a chunk apart
            Case((["word\n\nWord end"], [(b"\n", b"\n")], g2[0], {}), note="the chunks of the whole text", size=14),
            Case((["a\n\n", "b c"], [(b"\n", b"\n")], g2[0], {}), note="the chunks of the whole text", size=6),
            Case((["it'l", "l be"], g2[1], g2[0], {}), note="'ll is one chunk once its second l comes", size=8),
            Case((["it'l", "l be"], [(b"'", b"l")], g2[0], {}), note="'ll is one chunk: hold back two chunks", size=8),
            # a token made twice keeps the first merge's id: b"abc" is 258, not 259
            Case(
                (["abc", " abc"], [(b"a", b"b"), (b"b", b"c"), (b"ab", b"c"), (b"a", b"bc")], g2[0], {}),
                note="a token made twice keeps its first id",
                size=7,
            ),  # fmt: skip
            Case((["1234", "5 678"], g4[1], g4[0], {}), size=9),
            # special tokens are single ids, also when a line holds only part of one
            Case((["the end<|endoftext|>The", " start"], g2[1], g2[0], EOT), note="a special token is one id", size=29),
            Case((["a<|endof", "text|>b"], g4[1], g4[0], EOT), note="a special token across two strings", size=15),
            Case((["<|endoftext|>"], g4[1], g4[0], EOT), size=13),
            Case(
                (["<|x", "|>y"], g2[1], g2[0], {"<|x": 1000, "<|x|>": 1001}), note="the longest special token", size=6
            ),  # fmt: skip
            Case((["<|x", "y"], g2[1], g2[0], {"<|x": 1000, "<|x|>": 1001}), size=4),
        ],
        "lazy": [
            Case(
                (genesis().splitlines(keepends=True)[:50], g2[1], g2[0], {}),
                note="yield ids as lines are read",
                size=50,
            ),  # fmt: skip
        ],
    }[part]
    if part == "lazy":
        return fixed + gen.generated(_lazy_generated())
    return fixed + gen.generated(_stream_generated())


@gen.memo
def _lazy_generated() -> list[Case]:
    """Passages of Genesis (whole lines, drawn for the student): the first ids must come before the last line."""
    rng = random.Random(gen.SEED + 642)
    lines = genesis().splitlines(keepends=True)
    t = _tables()
    out = []
    for _ in range(2):
        start = rng.randrange(0, len(lines) - 40)
        name = rng.choice(("gpt2", "gpt4"))
        pattern = GPT2_PATTERN if name == "gpt2" else GPT4_PATTERN
        out.append(Case((lines[start : start + 40], t[name], pattern, {}), note="yield ids as lines are read", size=40))
    return out


@gen.memo
def _stream_generated() -> list[Case]:
    rng = random.Random(gen.SEED + 640)
    t = _tables()
    out = []
    pieces = ("the", " earth", "'", "s", "ll", " ", "  ", "\n", "é", "12", "3", "<|endof", "text|>", "!")
    for text in _texts(gen.SEED + 641, 100, pieces, 12):
        cuts = sorted({rng.randint(0, len(text)) for _ in range(rng.randint(0, 4))})
        lines = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
        name = rng.choice(("gpt2", "gpt4"))
        pattern = GPT2_PATTERN if name == "gpt2" else GPT4_PATTERN
        out.append(Case((lines, t[name], pattern, rng.choice(({}, EOT))), size=_size(text)))
    return out


MEMORY_BOUND = 3 * 1024**2
"""Bytes the streaming encoder may hold beyond what the worker held before (resident memory, or tracemalloc's
peak in a learner's kernel)."""
MEMORY_TEXT = 6 * 1024**2
"""Bytes of text the memory check streams (twice the bound, and more)."""


@gen.memo
def _memory_input() -> list[Case]:
    """A passage of Genesis (about 64 KB, whole lines, drawn for the student) that repeats with the same ids."""
    rng = random.Random(gen.SEED + 650)
    lines = genesis().splitlines(keepends=True)
    merges = merges_of(ref.GPT2_PATTERN, 256 + 1000, 200_000)
    while True:
        start = rng.randrange(0, len(lines) // 2)
        passage: list[str] = []
        end = start
        while sum(map(len, passage)) < 64_000:
            passage.append(lines[end])
            end += 1
        text = "".join(passage)
        ids = ref.encode_text(text, merges, ref.GPT2_PATTERN, {})
        if ref.encode_text(text * 3, merges, ref.GPT2_PATTERN, {}) == ids * 3:  # the passage repeats cleanly
            repeat = MEMORY_TEXT // len(text.encode("utf-8")) + 1
            return [Case((passage, merges, GPT2_PATTERN, {}), note=f"{repeat}", size=len(ids))]


def check_memory(fn: Callable[..., Any], time_limit: float = DEFAULT_TIME_LIMIT) -> None:
    """The ``"memory"`` part of :func:`check_encode_iterable` (see the module's docstring)."""
    __tracebackhide__ = True
    (case,) = _memory_input()
    passage, merges, pattern, specials = case.args
    repeat = int(case.note)
    text_bytes = repeat * sum(len(line.encode("utf-8")) for line in passage)
    ids = ref.encode_text("".join(passage), merges, pattern, specials)
    expected = {"count": len(ids) * repeat, "crc": ids_crc(ids * repeat)}
    what = f"<{repeat * len(passage):,} lines of Genesis, {text_bytes / 1e6:.1f} MB>"
    shown = f"encode_iterable({what}, merges, {pattern!r}, {{}})"
    session = getattr(fn, "_session", None)
    remote = session is not None and hasattr(session, "stream") and measure.available()
    try:
        if remote and session is not None:
            probe, watch = session.stream(fn.__name__, passage, (merges, pattern, specials), keep=0, repeat=repeat,
                                          timeout=120.0, watch=True)  # fmt: skip
            held, how = watch.rss_growth, "resident memory"
        elif measure.available():  # this process, as the grader reads the worker: resident memory, from /proc
            release_free_memory()  # what earlier work freed is not there to reuse: the figure is this call's
            with measure.Watch(os.getpid()) as watch:
                probe = stream_probe(fn, passage, (merges, pattern, specials), 0, repeat)
            held, how = watch.rss_growth, "resident memory"
        else:
            tracemalloc.start()
            try:
                probe = stream_probe(fn, passage, (merges, pattern, specials), 0, repeat)
                held, how = tracemalloc.get_traced_memory()[1], "memory (tracemalloc's peak)"
            finally:
                tracemalloc.stop()
    except Exception as exc:
        raise CheckFailed(
            f"{shown}\n  expected: {expected['count']:,} ids\n  raised: {type(exc).__name__}: {exc}"[:600]
        ) from None
    if probe.get("bad") is not None or probe.get("count") != expected["count"] or probe.get("crc") != expected["crc"]:
        got = f"an item {probe['bad']}" if probe.get("bad") else f"{probe.get('count', 0):,} ids"
        raise CheckFailed(f"{shown}\n  expected: {expected['count']:,} ids, those of the joined text\n  returned: {got}"
                          + ("" if probe.get("bad") else " (not the ids of the joined text)"))  # fmt: skip
    if held > MEMORY_BOUND:
        raise CheckFailed(
            f"{shown}  # memory bounded by a line and a cache, not by the input\n"
            f"  expected: the right ids holding at most {MEMORY_BOUND / 2**20:.0f} MB while streaming\n"
            f"  returned: the right ids, holding {held / 2**20:.1f} MB more {how} (keep only the text that can still "
            "change and a cache of chunks; never the whole text or a list of all the ids)"
        )


def check_encode_iterable(fn: Callable[..., Any], part: str = "basic", time_limit: float = DEFAULT_TIME_LIMIT) -> None:
    """Check ``encode_iterable(lines, merges, pattern, special_tokens)`` against :func:`bpe_ref.scale.encode_iterable`.

    The lines are fed through a generator where the function runs and what it returns is consumed there. Parts:
    ``"basic"``, the ids of the joined text (chunks and special tokens across strings, empty strings and no
    strings); ``"lazy"``, an iterator whose first id comes before the last line is read; ``"memory"``, about 6 MB
    of text streamed while holding at most 3 MB (see the module's docstring).

    Example:
        >>> check_encode_iterable(ref.encode_iterable, "lazy")
    """
    __tracebackhide__ = True
    run_spec(ENCODE_ITERABLE, fn, part, time_limit)


ENCODE_ITERABLE = Spec(
    "encode_iterable",
    ref.encode_iterable,
    ("stream", {}),
    {
        "basic": Part(lambda: _stream_cases("basic")),
        "lazy": Part(lambda: _stream_cases("lazy"), judge=("stream", {"lazy": True})),
    },
    adapter="streamed",
    remember=False,
    measured={"memory": check_memory},
)


# ---------------------------------------------------------------------------------------------------------------
# bytes_to_unicode, gpt2_files
# ---------------------------------------------------------------------------------------------------------------


def check_bytes_to_unicode(fn: Callable[..., Any], time_limit: float = DEFAULT_TIME_LIMIT) -> None:
    """Check ``bytes_to_unicode()`` against :func:`bpe_ref.scale.bytes_to_unicode` (GPT-2's table, any order).

    Example:
        >>> check_bytes_to_unicode(ref.bytes_to_unicode)
    """
    __tracebackhide__ = True
    run_spec(BYTES_TO_UNICODE, fn, ALL, time_limit)


BYTES_TO_UNICODE = Spec(
    "bytes_to_unicode",
    ref.bytes_to_unicode,
    ("mapping", {}),
    {ALL: Part(lambda: [Case(())])},
    remember=False,
)


def _gpt2_cases(part: str) -> list[Case]:
    t = _tables()
    small = [(b" ", b"t"), (b"h", b"e"), (b" t", b"he")]
    if part == "files":
        return [
            Case((small, {"<|endoftext|>": 259}), note="see the worked example", size=4),
            Case(([], {}), note="no merges: the 256 bytes alone", size=0),
            Case(([(b"\n", b"\n"), (b"\xc3", b"\xa9")], {}), note="bytes that are no printable character", size=2),
            Case(
                ([(b"a", b"b"), (b"b", b"c"), (b"ab", b"c"), (b"a", b"bc")], {}),
                note="a token made twice: its first id",
                size=4,
            ),  # fmt: skip
            Case((t["gpt2"][:40], EOT), size=41),
            Case((t["gpt4"], {"<|endoftext|>": 1000, "<|fim_prefix|>": 1001}), size=122),
            *gen.generated(_gpt2_generated("files")),
        ]
    fixed = Case((merges_of(ref.GPT4_PATTERN, 256 + 600), EOT), note="loaded by tiktoken and tokenizers", size=600)
    return [fixed, *gen.generated(_gpt2_generated("load"))]


@gen.memo
def _gpt2_generated(part: str) -> list[Case]:
    """Merges trained on a passage of Genesis drawn for the student, with special tokens at drawn ids after them."""
    rng = random.Random(gen.SEED + 660 + len(part))
    text = genesis()
    out = []
    for _ in range(4 if part == "files" else 1):
        start = rng.randrange(0, len(text) - 20_000)
        pattern = rng.choice((ref.GPT2_PATTERN, ref.GPT4_PATTERN))
        merges = ref.train_fast(ref.chunk_counts(text[start : start + 20_000], pattern, {}), 256 + rng.randint(5, 80))
        first = 256 + len(merges) + rng.randint(0, 3)
        specials = {"<|endoftext|>": first} if rng.random() < 0.7 else {}
        if specials and rng.random() < 0.5:
            specials["<|fim_prefix|>"] = first + 1
        note = "loaded by tiktoken and tokenizers" if part == "load" else ""
        out.append(Case((merges, specials), note=note, size=len(merges) + len(specials)))
    return out


def _loaded_reference(merges: list[tuple[bytes, bytes]], special_tokens: dict[str, int]) -> dict[str, Any]:
    """What other libraries must give on :data:`bpe_lab.harness.LOAD_TEXT` with the files of these merges."""
    ids = ref.encode_text(LOAD_TEXT, merges, ref.GPT4_PATTERN, special_tokens)
    characters = {c: b for b, c in ref.bytes_to_unicode().items()}
    files = ref.gpt2_files(merges, special_tokens)
    return {"ids": ids, "characters": characters, "specials": special_tokens, "files": files}


def check_gpt2_files(fn: Callable[..., Any], part: str = "files", time_limit: float = DEFAULT_TIME_LIMIT) -> None:
    """Check ``gpt2_files(merges, special_tokens)`` against :func:`bpe_ref.scale.gpt2_files`.

    Parts: ``"files"``, the ``vocab.json`` mapping and the ``merges.txt`` lines themselves (the version line, GPT-2's
    characters for every byte, special tokens at their ids); ``"load"``, the files of a trained vocabulary loaded by
    tiktoken and Hugging Face ``tokenizers`` (where it is installed) give the ids of the merges on a text of many
    scripts.

    Example:
        >>> check_gpt2_files(ref.gpt2_files, "load")
    """
    __tracebackhide__ = True
    run_spec(GPT2_FILES, fn, part, time_limit)


GPT2_FILES = Spec(
    "gpt2_files",
    ref.gpt2_files,
    ("gpt2_files", {}),
    {
        "files": Part(lambda: _gpt2_cases("files")),
        "load": Part(lambda: _gpt2_cases("load"), judge=("loaded", {}), reference=_loaded_reference),
    },
    remember=False,
)


SPECS: dict[str, Spec] = {
    spec.function: spec
    for spec in (CHUNK_COUNTS, CHUNK_COUNTS_FILE, TRAIN_FAST, ENCODE_ITERABLE, BYTES_TO_UNICODE, GPT2_FILES)
}
"""The checks of assignment 06 as data, by graded function."""

"""Traces: the course's own rounds for the inputs the notebooks chart, read from data shipped with ``bpe_lab``.

A trace is plain data (JSON in ``bpe_lab/data/traces/``): what the reference computed on one input, such as every
round of training on a corpus (the pair counts, the pair merged, its tied rivals, the words after the merge). The
charts draw a trace, and compare the learner's own functions with it round by round; nothing here trains,
chooses a pair or applies a merge table. ``python -m autograder release`` writes the traces (with
:mod:`bpe_ref.traces`, where the list of traced inputs is kept) and ``release --check`` reports them stale.

A chart asked for an input that has no trace raises :class:`TraceMissing`, naming the input.

Example:
    >>> rounds = explorer_rounds({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10, "first")
    >>> rounds[0].pair, rounds[0].count
    (('e', 's'), 9)
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "KINDS",
    "TRACE_DIR",
    "Round",
    "ApplyComparison",
    "TieBreakComparison",
    "TraceMissing",
    "apply_comparison",
    "charted_inputs",
    "entry_key",
    "explorer_rounds",
    "lookup",
    "read_rounds",
    "read_vocab",
    "start_vocab",
    "tie_break_comparison",
    "trained_merges",
]

TRACE_DIR = Path(__file__).resolve().parent / "data" / "traces"
"""Where the traces ship: one JSON file per kind."""

KINDS = ("training", "merges", "tie_breaks", "apply", "byte_rounds", "bytes_per_token", "gpt4")
"""The kinds of trace, one file each (``<kind>.json``)."""

_LONG = 120  # a text longer than this is keyed by its SHA-256 (Genesis is 197 kB)

Pair = tuple[str, str]


class TraceMissing(LookupError):
    """A chart was asked for an input the course ships no trace for."""


def _canonical(value: Any) -> Any:
    """``value`` as JSON data that keeps order: mappings become lists of ``[key, value]``, long texts a hash."""
    if isinstance(value, str):
        if len(value) > _LONG:
            return f"sha256:{hashlib.sha256(value.encode('utf-8')).hexdigest()} ({len(value)} characters)"
        return value
    if isinstance(value, bool) or value is None or isinstance(value, int | float):
        return value
    if isinstance(value, Mapping):
        return [[_canonical(k), _canonical(v)] for k, v in value.items()]
    if isinstance(value, Sequence):
        return [_canonical(item) for item in value]
    raise TypeError(f"a trace input must be text, numbers, lists or dicts, got {type(value).__name__} {value!r}")


def entry_key(**inputs: Any) -> str:
    """The key of a trace entry: the chart's inputs as one line of JSON (in the order given; long texts hashed).

    Args:
        **inputs: the chart's arguments that decide what it shows (e.g. ``word_freqs``, ``num_merges``).

    Returns:
        A string, the same for the same inputs in the same order.

    Raises:
        TypeError: an input that is not text, a number, a list or a dict.

    Example:
        >>> entry_key(word="abc", merges=[("ab", "c")])
        '{"merges": [["ab", "c"]], "word": "abc"}'
    """
    return json.dumps({name: _canonical(value) for name, value in inputs.items()}, sort_keys=True, ensure_ascii=False)


@functools.cache
def _entries(kind: str, folder: str) -> dict[str, Any]:
    path = Path(folder) / f"{kind}.json"
    if not path.is_file():
        raise TraceMissing(
            f"the {kind} traces are not installed ({path} is missing): reinstall the course's bpe_lab package, "
            "or, in the course repository, run `python -m autograder release`"
        )
    return json.loads(path.read_text(encoding="utf-8"))


def lookup(kind: str, **inputs: Any) -> Any:
    """The trace of ``kind`` for ``inputs``.

    Args:
        kind: one of :data:`KINDS`.
        **inputs: the chart's inputs, as :func:`entry_key` takes them.

    Returns:
        The trace (JSON data: dicts, lists, strings, numbers).

    Raises:
        ValueError: an unknown kind. TraceMissing: no trace for these inputs (the message names them).

    Example:
        >>> lookup("apply", word="abc", merges=[("ab", "c"), ("a", "b")], marker=False)["rank_result"]
        ['abc']
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(map(repr, KINDS))}; got {kind!r}")
    key = entry_key(**inputs)
    entries = _entries(kind, str(TRACE_DIR))
    if key not in entries:
        examples = "; ".join(_short(k, 160) for k in list(entries)[:3])
        raise TraceMissing(
            f"no {kind} trace for {_short(key, 400)}. This chart draws the course's own run, shipped as data for the "
            f"inputs the notebooks chart, {len(entries)} of them, such as: {examples}. "
            f"bpe_lab.traces.charted_inputs({kind!r}) lists them all. To see what happens on inputs of your own, "
            f"call your functions on them."
        )
    return entries[key]


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + " …"


def charted_inputs(kind: str) -> list[str]:
    """The inputs that have a trace of ``kind``, as :func:`entry_key` writes them (a chart draws only these).

    Raises:
        ValueError: an unknown kind. TraceMissing: the traces are not installed.

    Example:
        >>> '{"marker": false, "merges": [["ab", "c"], ["a", "b"]], "word": "abc"}' in charted_inputs("apply")
        True
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(map(repr, KINDS))}; got {kind!r}")
    return list(_entries(kind, str(TRACE_DIR)))


@dataclass(frozen=True)
class Round:
    """One round of training as a trace records it.

    Attributes:
        round: 1 for the first merge.
        pair_counts: the weighted pair counts before the merge (first-seen order).
        pair: the pair merged.
        count: its count.
        tied: the other pairs with the same count, first-seen order.
        vocab: the vocab after the merge (symbol tuples to counts, in the corpus's order).
    """

    round: int
    pair_counts: dict[Pair, int]
    pair: Pair
    count: int
    tied: list[Pair]
    vocab: dict[tuple[str, ...], int]

    @property
    def num_symbols(self) -> int:
        """The symbols in the corpus after the merge, each word weighted by its count."""
        return sum(len(symbols) * count for symbols, count in self.vocab.items())


def _pair(value: Sequence[str]) -> Pair:
    return (value[0], value[1])


def read_vocab(data: Sequence[Sequence[Any]]) -> dict[tuple[str, ...], int]:
    """A vocab from its trace form ``[[symbols, count], ...]``."""
    return {tuple(symbols): count for symbols, count in data}


def read_rounds(data: Sequence[Mapping[str, Any]]) -> list[Round]:
    """The :class:`Round` records of a training trace."""
    return [
        Round(
            number,
            {(a, b): count for a, b, count in step["pair_counts"]},
            _pair(step["pair"]),
            step["count"],
            [_pair(p) for p in step["tied"]],
            read_vocab(step["vocab"]),
        )
        for number, step in enumerate(data, start=1)
    ]


def _training(word_freqs: Mapping[str, int], num_merges: int, tie_break: str, marker: bool) -> dict[str, Any]:
    return lookup("training", word_freqs=word_freqs, num_merges=num_merges, tie_break=tie_break, marker=marker)


def explorer_rounds(
    word_freqs: Mapping[str, int], num_merges: int, tie_break: str = "largest", *, marker: bool = True
) -> list[Round]:
    """The course's rounds of training on ``word_freqs`` (as ``train_bpe`` with the tie-break given).

    Args:
        word_freqs: the word counts, in the chart cell's order.
        num_merges: the rounds asked for.
        tie_break: ``"largest"``, ``"smallest"`` or ``"first"``.
        marker: whether words end with ``"</w>"``.

    Returns:
        A new list of :class:`Round` records (fewer than ``num_merges`` when no pair was left).

    Raises:
        TraceMissing: the course ships no trace for these inputs.

    Example:
        >>> rounds = explorer_rounds({"hug": 9, "pug": 8, "hugs": 7, "bun": 6}, 8)
        >>> rounds[0].pair, rounds[0].count, len(rounds)
        (('u', 'g'), 24, 8)
    """
    return read_rounds(_training(word_freqs, num_merges, tie_break, marker)["rounds"])


def start_vocab(word_freqs: Mapping[str, int], num_merges: int, tie_break: str, *, marker: bool = True) -> dict:
    """The vocab the traced training starts from (each word's symbols, with ``"</w>"`` when ``marker``).

    Raises:
        TraceMissing: the course ships no trace for these inputs.

    Example:
        >>> start_vocab({"hug": 9, "pug": 8, "hugs": 7, "bun": 6}, 8, "largest")[("h", "u", "g", "</w>")]
        9
    """
    return read_vocab(_training(word_freqs, num_merges, tie_break, marker)["start"])


def trained_merges(word_freqs: Mapping[str, int], num_merges: int) -> list[Pair]:
    """The merge table ``train_bpe(word_freqs, num_merges)`` of assignment 02 learns, shipped as data.

    For the inputs the notebooks use (04's verses of Genesis), so that a notebook can show a trained table whatever
    the state of the learner's own ``train_bpe``.

    Args:
        word_freqs: the word counts, in the order the notebook builds them.
        num_merges: the number of merges.

    Returns:
        A new list of ``(str, str)`` pairs.

    Raises:
        TraceMissing: the course ships no table for these inputs.

    Example:
        >>> trained_merges({"low": 5}, 3)  # doctest: +IGNORE_EXCEPTION_DETAIL
        Traceback (most recent call last):
        bpe_lab.traces.TraceMissing: no merges trace for {"num_merges": 3, "word_freqs": [["low", 5]]}: ...
    """
    return [_pair(pair) for pair in lookup("merges", word_freqs=word_freqs, num_merges=num_merges)["merges"]]


# ---------------------------------------------------------------------------------------------------------------
# The three tie-breaks side by side
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TieBreakRow:
    """One round of the three policies.

    Attributes:
        round: the 1-based round.
        pairs: policy -> the pair it merged (``None`` when its run had already stopped).
        counts: policy -> that pair's count (``None`` likewise).
        tied: policy -> whether it had to break a tie this round.
        agree: whether every policy merged the same pair.
        same_start: whether every policy started this round from the same vocab.
        stand_out: the policies whose pair is not the one most policies merged.
    """

    round: int
    pairs: dict[str, Pair | None]
    counts: dict[str, int | None]
    tied: dict[str, bool]
    agree: bool
    same_start: bool
    stand_out: tuple[str, ...] = ()

    def same_as(self, policy: str) -> list[str]:
        """The other policies that merged the same pair as ``policy`` this round."""
        return [p for p in self.pairs if p != policy and self.pairs[p] == self.pairs[policy]]


@dataclass(frozen=True)
class TieBreakComparison:
    """The policies' traced runs on one corpus, and where they part.

    Attributes:
        policies: the tie-breaks compared, in order.
        traces: policy -> its rounds.
        rows: one :class:`TieBreakRow` per round, as many as the longest run.
        first_difference: the first round at which two policies merge different pairs (``None``: never).
        same_merges: whether all learned the same merges (perhaps in another order).
    """

    policies: tuple[str, ...]
    traces: dict[str, list[Round]]
    rows: tuple[TieBreakRow, ...]
    first_difference: int | None
    same_merges: bool


def tie_break_comparison(word_freqs: Mapping[str, int], num_merges: int, *, marker: bool = True) -> TieBreakComparison:
    """The three tie-breaks' traced runs on ``word_freqs``, lined up round by round.

    Raises:
        TraceMissing: the course ships no trace for these inputs.

    Example:
        >>> cmp = tie_break_comparison({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 8)
        >>> cmp.first_difference, cmp.rows[0].pairs["largest"], cmp.rows[0].pairs["smallest"]
        (1, ('t', '</w>'), ('e', 's'))
    """
    data = lookup("tie_breaks", word_freqs=word_freqs, num_merges=num_merges, marker=marker)
    rows = tuple(
        TieBreakRow(
            row["round"],
            {p: None if pair is None else _pair(pair) for p, pair in row["pairs"].items()},
            dict(row["counts"]),
            dict(row["tied"]),
            row["agree"],
            row["same_start"],
            tuple(row["stand_out"]),
        )
        for row in data["rows"]
    )
    return TieBreakComparison(
        tuple(data["policies"]),
        {policy: read_rounds(rounds) for policy, rounds in data["traces"].items()},
        rows,
        data["first_difference"],
        data["same_merges"],
    )


# ---------------------------------------------------------------------------------------------------------------
# Applying a merge table: by rank, by replay
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RankStep:
    """One merge by rank: the symbols before, each adjacent pair's rank (``None``: not in the table), the pair with
    the lowest rank, its rank, where it was merged and the symbols after."""

    before: tuple[str, ...]
    ranks: tuple[int | None, ...]
    chosen: Pair
    rank: int
    positions: tuple[int, ...]
    after: tuple[str, ...]


@dataclass(frozen=True)
class RankRun:
    """A merge table applied by rank, step by step (``end_ranks``: all ``None``, no pair left in the table)."""

    start: tuple[str, ...]
    steps: tuple[RankStep, ...]
    end_ranks: tuple[None, ...]
    result: tuple[str, ...]


@dataclass(frozen=True)
class ReplayStep:
    """One rule replayed: its index and pair, the symbols before, where it matched, the symbols after, and the
    indices in ``after`` of the symbols it made."""

    index: int
    rule: Pair
    before: tuple[str, ...]
    positions: tuple[int, ...]
    after: tuple[str, ...]
    made: tuple[int, ...]


@dataclass(frozen=True)
class ReplayRun:
    """A merge table replayed rule by rule."""

    start: tuple[str, ...]
    steps: tuple[ReplayStep, ...]
    result: tuple[str, ...]


@dataclass(frozen=True)
class ApplyComparison:
    """A word under a merge table, by rank and by replay, from the same starting symbols."""

    word: str
    marker: bool
    merges: tuple[Pair, ...]
    rank: RankRun
    replay: ReplayRun
    differ: bool


def apply_comparison(word: str, merges: Sequence[Pair], *, marker: bool = True) -> ApplyComparison:
    """The traced application of ``merges`` to ``word``, by rank and by replay.

    Raises:
        TraceMissing: the course ships no trace for this word and table.

    Example:
        >>> cmp = apply_comparison("abc", [("ab", "c"), ("a", "b")], marker=False)
        >>> cmp.rank.result, cmp.replay.result, cmp.differ
        (('abc',), ('ab', 'c'), True)
    """
    table = tuple(_pair(pair) for pair in merges)
    data = lookup("apply", word=word, merges=table, marker=marker)
    start = tuple(data["start"])
    rank_result = tuple(data["rank_result"])
    rank = RankRun(
        start,
        tuple(
            RankStep(
                tuple(s["before"]),
                tuple(s["ranks"]),
                _pair(s["chosen"]),
                s["rank"],
                tuple(s["positions"]),
                tuple(s["after"]),
            )
            for s in data["rank"]
        ),
        tuple(None for _ in rank_result[1:]),
        rank_result,
    )
    replay = ReplayRun(
        start,
        tuple(
            ReplayStep(
                s["index"],
                _pair(s["rule"]),
                tuple(s["before"]),
                tuple(s["positions"]),
                tuple(s["after"]),
                tuple(s["made"]),
            )
            for s in data["replay"]
        ),
        tuple(data["replay_result"]),
    )
    return ApplyComparison(word, marker, table, rank, replay, rank.result != replay.result)

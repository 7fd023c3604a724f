"""What the charts show of a trace, without drawing: labels, the bars of a round, the words, the learner's run.

* :func:`symbol_label`, :func:`pair_label`: plain-text labels (the drawing escapes what matplotlib would read as
  mathtext);
* :func:`top_pairs`, :func:`segmentation`: the bars and the words of one traced round (the pair merged comes from
  the trace: nothing here chooses a pair);
* :func:`check_learner`: the learner's ``count_pairs`` / ``best_pair`` / ``merge_vocab`` called on each traced
  round's inputs and compared with the trace's outputs, up to the first round where they differ.

From which data: the rounds of a trace (:class:`bpe_lab.traces.Round`, read from ``bpe_lab/data/traces/``) and the
learner's functions. Used by the explorer and the comparison (:mod:`bpe_lab.charts.explorer`,
:mod:`bpe_lab.charts.comparison`).

What it does not do: draw (no matplotlib, no widget), read files, or train: it never chooses a pair, and where the
learner's functions depart it says so; it does not carry on with their run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..harness import differing_keys
from ..traces import Pair, Round

__all__ = [
    "END_OF_WORD",
    "TIE_BREAK_RULES",
    "Bar",
    "Departure",
    "LearnerRun",
    "SegmentRow",
    "TopPairs",
    "check_learner",
    "pair_label",
    "segmentation",
    "symbol_label",
    "top_pairs",
]

END_OF_WORD = "</w>"
"""The end-of-word marker of Sennrich et al. (2016), as the notebooks write it."""

#: One sentence per tie-break policy, as the charts name it.
TIE_BREAK_RULES: dict[str, str] = {
    "largest": "of equal counts, the lexicographically largest pair wins",
    "smallest": "of equal counts, the lexicographically smallest pair wins",
    "first": "of equal counts, the pair seen first (words in dict order, each left to right) wins",
}

_VISIBLE = {" ": "\u2423", "\t": "\u21e5", "\n": "\u21b5", "\r": "\u240d"}

Vocab = dict[tuple[str, ...], int]


def symbol_label(symbol: str) -> str:
    """A symbol as a chart label: whitespace made visible, ``</w>`` kept as it is.

    Args:
        symbol: one symbol (a str).

    Returns:
        The label; only spaces, tabs and line breaks are changed (to ␣ ⇥ ↵ ␍).

    Example:
        >>> symbol_label("o</w>"), symbol_label("a b")
        ('o</w>', 'a␣b')
    """
    return "".join(_VISIBLE.get(char, char) for char in symbol)


def pair_label(pair: Pair) -> str:
    """A pair as a bar label: both symbols and the symbol their merge makes.

    Example:
        >>> pair_label(("o", "</w>"))
        'o + </w> → o</w>'
    """
    first, second = pair
    return f"{symbol_label(first)} + {symbol_label(second)} \u2192 {symbol_label(first + second)}"


@dataclass(frozen=True)
class Bar:
    """One bar of the pair-count chart.

    Attributes:
        pair: the pair counted.
        count: its weighted count in that round.
        role: ``"chosen"`` (the pair merged that round), ``"tied"`` (a rival with the same count) or ``"other"``.
    """

    pair: Pair
    count: int
    role: str

    @property
    def label(self) -> str:
        return pair_label(self.pair)


@dataclass(frozen=True)
class TopPairs:
    """The bars of one round: the top pairs by count, and what was left out.

    Attributes:
        bars: at most ``k`` bars, by count (largest first), equal counts in first-seen order.
        hidden: how many pairs of the round are not drawn.
        hidden_tied: how many of those are tied rivals of the chosen pair.
    """

    bars: tuple[Bar, ...]
    hidden: int
    hidden_tied: int


def top_pairs(pair_counts: Mapping[Pair, int], chosen: Pair, k: int) -> TopPairs:
    """The ``k`` bars to draw for one round: the chosen pair always, then its tied rivals, then the rest.

    Pairs are taken by count (largest first). The chosen pair (given: the trace's) is always among them, and its
    tied rivals come before the other pairs of the same count, so that a cut at ``k`` never hides the chosen pair
    and hides a rival only when there are more than ``k - 1`` of them. The bars are ordered by count, largest
    first, equal counts in first-seen order (the order of ``pair_counts``).

    Args:
        pair_counts: the round's pair counts (first-seen order), as :attr:`bpe_lab.traces.Round.pair_counts`.
        chosen: the pair merged that round; a key of ``pair_counts``.
        k: the number of bars, ``>= 1``.

    Returns:
        A :class:`TopPairs`.

    Raises:
        ValueError: ``k < 1``, or ``chosen`` is not a key of ``pair_counts``. TypeError: ``k`` is not an int.

    Example:
        >>> top = top_pairs({("a", "b"): 2, ("b", "c"): 5, ("c", "d"): 5}, ("c", "d"), 2)
        >>> [(bar.pair, bar.count, bar.role) for bar in top.bars], top.hidden
        ([(('b', 'c'), 5, 'tied'), (('c', 'd'), 5, 'chosen')], 1)
    """
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"k must be an int, got {type(k).__name__} {k!r}")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k!r}")
    if chosen not in pair_counts:
        raise ValueError(f"chosen pair {chosen!r} is not one of the pair counts")
    best = pair_counts[chosen]
    order = {pair: index for index, pair in enumerate(pair_counts)}

    def role(pair: Pair) -> str:
        if pair == chosen:
            return "chosen"
        return "tied" if pair_counts[pair] == best else "other"

    priority = {"chosen": 0, "tied": 1, "other": 2}
    picked = sorted(pair_counts, key=lambda p: (p != chosen, -pair_counts[p], priority[role(p)], order[p]))[:k]
    picked.sort(key=lambda p: (-pair_counts[p], order[p]))
    bars = tuple(Bar(pair, pair_counts[pair], role(pair)) for pair in picked)
    tied_total = sum(1 for pair in pair_counts if role(pair) == "tied")
    tied_shown = sum(1 for bar in bars if bar.role == "tied")
    return TopPairs(bars, len(pair_counts) - len(bars), tied_total - tied_shown)


@dataclass(frozen=True)
class SegmentRow:
    """One word of the corpus as the chart writes it.

    Attributes:
        word: the word (its symbols joined, without a final ``"</w>"``).
        count: its count.
        symbols: its symbols.
        new: the indices of ``symbols`` that are the symbol made by the round's merge.
    """

    word: str
    count: int
    symbols: tuple[str, ...]
    new: tuple[int, ...]


def segmentation(
    vocab: Mapping[tuple[str, ...], int], new_symbol: str | None = None, *, limit: int | None = None
) -> tuple[list[SegmentRow], int]:
    """The words of ``vocab`` with their symbols, most frequent first (equal counts in vocab order).

    Args:
        vocab: a dict mapping symbol tuples to counts (a :attr:`bpe_lab.traces.Round.vocab`).
        new_symbol: the symbol made by the round's merge, whose occurrences are marked (``None``: none).
        limit: at most this many rows (``None``: all).

    Returns:
        ``(rows, hidden)``: the rows and the number of words left out by ``limit``.

    Example:
        >>> rows, hidden = segmentation({("a", "b</w>"): 1, ("b</w>",): 3}, "b</w>")
        >>> [(row.word, row.symbols, row.new) for row in rows], hidden
        ([('b', ('b</w>',), (0,)), ('ab', ('a', 'b</w>'), (1,))], 0)
    """
    items = sorted(enumerate(vocab.items()), key=lambda item: (-item[1][1], item[0]))
    rows = []
    for _, (symbols, count) in items[: len(items) if limit is None else max(limit, 0)]:
        word = "".join(symbols)
        if word.endswith(END_OF_WORD) and word != END_OF_WORD:
            word = word[: -len(END_OF_WORD)]
        new = tuple(i for i, symbol in enumerate(symbols) if new_symbol is not None and symbol == new_symbol)
        rows.append(SegmentRow(word, count, tuple(symbols), new))
    return rows, len(items) - len(rows)


# ---------------------------------------------------------------------------------------------------------------
# The learner's functions against a trace
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Departure:
    """Where and how a learner's function first gives another result than the trace.

    Attributes:
        round: the 1-based round.
        function: ``"count_pairs"``, ``"best_pair"`` or ``"merge_vocab"``.
        message: what it did and what the course's run does.
        pair: the pair the learner's ``best_pair`` chose (only for a ``best_pair`` departure).
    """

    round: int
    function: str
    message: str
    pair: Pair | None = None


@dataclass(frozen=True)
class LearnerRun:
    """The learner's functions checked against a trace, round by round.

    Attributes:
        status: ``"reference"`` (no learner function given), ``"matches"`` (every round agrees), ``"departs"``
            (a round differs: see ``departure``), ``"error"`` (a learner function raised or returned a value of
            the wrong shape) or ``"stub"`` (it raises ``NotImplementedError``).
        functions: the names of the learner's functions given.
        departure: the first round that differs (or fails), or ``None``.
        message: one sentence for the learner.
    """

    status: str
    functions: tuple[str, ...]
    departure: Departure | None
    message: str


class _Stub(Exception):
    pass


class _Failed(Exception):
    pass


def _call(name: str, function: Callable[..., Any], *args: Any) -> Any:
    try:
        return function(*args)
    except NotImplementedError:
        raise _Stub(name) from None
    except Exception as error:  # noqa: BLE001 - the learner's code may raise anything; say what it was
        raise _Failed(f"{name} raised {type(error).__name__}: {error}") from error


def _short(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _diff(got: Mapping[Any, Any], expected: Mapping[Any, Any], limit: int = 3) -> str:
    said = {
        "missing": lambda key: f"{key!r} is missing (course's run: {expected[key]})",
        "differs": lambda key: f"{key!r}: yours {got[key]!r}, the course's run {expected[key]}",
        "extra": lambda key: f"{key!r} should not be there (yours {got[key]!r})",
    }
    parts = [said[kind](key) for kind, key in differing_keys(got, expected)]
    return "; ".join(parts[:limit]) + (f"; and {len(parts) - limit} more" if len(parts) > limit else "")


def _is_counts(value: Any) -> bool:
    return isinstance(value, Mapping) and all(isinstance(k, tuple) and len(k) == 2 for k in value)


def _is_vocab(value: Any) -> bool:
    return isinstance(value, Mapping) and all(isinstance(k, tuple) for k in value)


def _same(got: Mapping[Any, Any], expected: Mapping[Any, Any], ordered: bool) -> bool:
    return dict(got) == dict(expected) and (not ordered or list(got) == list(expected))


def _round_departure(
    step: Round, before: Vocab, tie_break: str, functions: Mapping[str, Callable[..., Any] | None]
) -> Departure | None:
    """Call each given function on the round's inputs (copies) and compare with the round's outputs."""
    first = tie_break == "first"  # under "first" the order of the counts and of the words decides the next tie
    count_pairs, best_pair, merge_vocab = (functions[n] for n in ("count_pairs", "best_pair", "merge_vocab"))
    if count_pairs is not None:
        given = dict(before)
        got = _call("count_pairs", count_pairs, given)
        if given != before:
            return Departure(step.round, "count_pairs", "count_pairs changed the vocab it was given.")
        if not _is_counts(got):
            raise _Failed(f"count_pairs returned {_short(got)}; expected a dict mapping (a, b) pairs to counts.")
        if not _same(got, step.pair_counts, first):
            if dict(got) == step.pair_counts:
                message = (
                    "count_pairs gave the right counts in another order; under the 'first' tie-break the order "
                    "decides ties: list pairs in the order they are first seen."
                )
            else:
                message = f"count_pairs gave other counts: {_diff(got, step.pair_counts)}."
            return Departure(step.round, "count_pairs", message)
    if best_pair is not None:
        given_counts = dict(step.pair_counts)
        pair = _call("best_pair", best_pair, given_counts, tie_break)
        if given_counts != step.pair_counts:
            return Departure(step.round, "best_pair", "best_pair changed the pair counts it was given.")
        if not isinstance(pair, tuple) or pair not in step.pair_counts:
            raise _Failed(f"best_pair returned {_short(pair)}, which is not a key of the pair counts.")
        if pair != step.pair:
            if step.pair_counts[pair] == step.count:
                how = f"a tie at {step.count}, and under {tie_break!r} {TIE_BREAK_RULES.get(tie_break, '')}"
            else:
                how = f"{step.pair!r} is more frequent ({step.count})"
            message = (
                f"best_pair chose {pair!r} (count {step.pair_counts[pair]}); the course's run merges {step.pair!r}: "
                f"{how}."
            )
            return Departure(step.round, "best_pair", message, pair)
    if merge_vocab is not None:
        given = dict(before)
        new = _call("merge_vocab", merge_vocab, step.pair, given)
        if given != before:
            return Departure(step.round, "merge_vocab", "merge_vocab changed the vocab it was given.")
        if not _is_vocab(new):
            raise _Failed(f"merge_vocab returned {_short(new)}; expected a dict mapping symbol tuples to counts.")
        if not _same(new, step.vocab, first):
            if dict(new) == step.vocab:
                message = (
                    "merge_vocab kept the right words in another order; under the 'first' tie-break the order "
                    "decides the next tie: keep the order of the vocab it was given."
                )
            else:
                message = f"merge_vocab of {step.pair!r} gave another vocab: {_diff(new, step.vocab, 2)}."
            return Departure(step.round, "merge_vocab", message)
    return None


def check_learner(
    rounds: Sequence[Round],
    start: Vocab,
    tie_break: str,
    num_merges: int,
    *,
    count_pairs: Callable[..., Any] | None = None,
    best_pair: Callable[..., Any] | None = None,
    merge_vocab: Callable[..., Any] | None = None,
) -> LearnerRun:
    """Call the learner's functions on each traced round's inputs and compare with the round's outputs.

    Round ``k`` gives ``count_pairs`` the vocab before it (``start``, then the vocab after round ``k - 1``),
    ``best_pair`` the round's pair counts and the tie-break, and ``merge_vocab`` the round's pair and the vocab
    before it (fresh copies, so a function that changes its argument is caught). The first difference is the
    departure; the check stops there (the chart keeps drawing the trace). Under the ``"first"`` tie-break the order
    of the counts and of the words must be the trace's too. When the trace stopped early (no pair left),
    ``count_pairs`` must find no pair in the last vocab.

    Args:
        rounds: the traced rounds (:func:`bpe_lab.traces.explorer_rounds`).
        start: the vocab before round 1.
        tie_break: the policy (passed to ``best_pair``).
        num_merges: the rounds asked for.
        count_pairs / best_pair / merge_vocab: the learner's functions, or ``None``.

    Returns:
        A :class:`LearnerRun`.

    Example:
        >>> from bpe_lab.traces import explorer_rounds, start_vocab
        >>> freqs = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
        >>> def mine(counts, tie_break):
        ...     return max(counts, key=lambda p: (counts[p], p))  # "largest", not "smallest"
        >>> run = check_learner(explorer_rounds(freqs, 8, "smallest"), start_vocab(freqs, 8, "smallest"),
        ...                     "smallest", 8, best_pair=mine)
        >>> run.status, run.departure.round, run.departure.pair
        ('departs', 1, ('t', '</w>'))
    """
    functions = {"count_pairs": count_pairs, "best_pair": best_pair, "merge_vocab": merge_vocab}
    names = tuple(name for name, function in functions.items() if function is not None)
    if not names:
        return LearnerRun("reference", (), None, "The course's run (shipped as a trace).")
    number = 0
    try:
        before = dict(start)
        for step in rounds:
            number = step.round
            departure = _round_departure(step, before, tie_break, functions)
            if departure is not None:
                message = (
                    f"Your {departure.function} departs from the course's run at round {departure.round}: "
                    f"{departure.message} The chart shows the course's run."
                )
                return LearnerRun("departs", names, departure, message)
            before = dict(step.vocab)
        if count_pairs is not None and len(rounds) < num_merges:
            number = len(rounds) + 1
            left = _call("count_pairs", count_pairs, dict(before))
            if left:
                departure = Departure(
                    number, "count_pairs", f"count_pairs found pairs {_short(left)} in words of one symbol."
                )
                return LearnerRun(
                    "departs", names, departure, f"Your count_pairs departs at round {number}: {departure.message}"
                )
    except _Stub as stub:
        message = f"Your {stub} is still a stub (it raises NotImplementedError): showing the course's run alone."
        return LearnerRun("stub", names, None, message)
    except _Failed as failed:
        function = str(failed).split(" ", 1)[0]
        departure = Departure(number, function, str(failed))
        return LearnerRun(
            "error", names, departure, f"Your run stops at round {number}: {failed} Showing the course's run."
        )
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    verb = "matches" if len(names) == 1 else "match"
    return LearnerRun(
        "matches", names, None, f"Your {listed} {verb} the course's run in every round ({len(rounds)} rounds)."
    )

"""The computation behind the charts of :mod:`bpe_ref.widgets`: pure functions, no drawing.

Every chart draws one of the records built here, so that what it shows can be tested without a screen:

* :func:`top_pairs`, :func:`segmentation`, :func:`symbols_per_round`: what one training round of
  :func:`bpe_ref.train_trace` looks like (the bars, the words, the shrinking corpus);
* :func:`check_learner`: the learner's ``count_pairs`` / ``merge_vocab`` / ``best_pair`` run side by side
  with the reference, and the first round at which they part (or the reference run while they are stubs);
* :func:`compare_tie_breaks`: the three tie-break policies on one corpus, round by round;
* :func:`rank_steps`, :func:`replay_steps`, :func:`compare_apply`: applying a merge table by rank
  (:func:`bpe_ref.apply_bpe`) and by replay (:func:`bpe_ref.encode`) one step at a time.

Labels (:func:`symbol_label`, :func:`pair_label`) are plain text (the drawing escapes what matplotlib would
otherwise read as mathtext).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import core
from . import primitives as bpe
from . import validate as check
from .primitives import END_OF_WORD, TIE_BREAKS, Pair, TraceRound, Vocab

__all__ = [
    "TIE_BREAK_RULES",
    "ApplyComparison",
    "Bar",
    "Departure",
    "LearnerRun",
    "RankRun",
    "RankStep",
    "ReplayRun",
    "ReplayStep",
    "SegmentRow",
    "TieBreakComparison",
    "TieBreakRow",
    "TopPairs",
    "check_learner",
    "compare_apply",
    "compare_tie_breaks",
    "initial_vocab",
    "made_positions",
    "merge_positions",
    "pair_label",
    "rank_steps",
    "replay_steps",
    "segmentation",
    "symbol_label",
    "symbols_per_round",
    "top_pairs",
    "vocab_before",
]

#: One sentence per tie-break policy, as the charts name it.
TIE_BREAK_RULES: dict[str, str] = {
    "largest": "of equal counts, the lexicographically largest pair wins",
    "smallest": "of equal counts, the lexicographically smallest pair wins",
    "first": "of equal counts, the pair seen first (words in dict order, each left to right) wins",
}

_VISIBLE = {" ": "\u2423", "\t": "\u21e5", "\n": "\u21b5", "\r": "\u240d"}


# ---------------------------------------------------------------------------------------------------------------
# Labels
# ---------------------------------------------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------------------------------------------
# One training round: bars, words, corpus size
# ---------------------------------------------------------------------------------------------------------------


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

    Pairs are taken by count (largest first). The chosen pair is always among them, and its tied rivals
    come before the other pairs of the same count, so that a cut at ``k`` never hides the chosen pair and
    hides a rival only when there are more than ``k - 1`` of them. The bars are ordered by count, largest
    first, equal counts in first-seen order (the order of ``pair_counts``).

    Args:
        pair_counts: the round's pair counts (first-seen order), as :attr:`TraceRound.pair_counts`.
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
    tied_total = len(bpe.tied_rivals(pair_counts, chosen))
    tied_shown = sum(1 for bar in bars if bar.role == "tied")
    return TopPairs(bars, len(pair_counts) - len(bars), tied_total - tied_shown)


def initial_vocab(word_freqs: Mapping[str, int], *, marker: bool = True) -> Vocab:
    """The vocab training starts from: each word split into characters, then ``"</w>"`` when ``marker``.

    Args:
        word_freqs: a dict mapping non-empty words to positive int counts.
        marker: append the end-of-word marker (as :func:`bpe_ref.train_bpe`) or not (as :func:`bpe_ref.learn_bpe`).

    Returns:
        A new dict mapping symbol tuples to counts, in the order of ``word_freqs``.

    Raises:
        TypeError / ValueError: a word is not a non-empty str or a count is not a positive int.

    Example:
        >>> initial_vocab({"ab": 2})
        {('a', 'b', '</w>'): 2}
    """
    check.word_counts("word_freqs", word_freqs)
    return bpe.vocab_from_words(word_freqs, END_OF_WORD if marker else None)


def vocab_before(trace: Sequence[TraceRound], round: int, start: Mapping[tuple[str, ...], int]) -> Vocab:
    """The vocab that round ``round`` (1-based) of ``trace`` starts from: ``start`` for round 1.

    Example:
        >>> trace = core.train_trace({"ab": 1}, 2)
        >>> vocab_before(trace, 2, initial_vocab({"ab": 1}))
        {('a', 'b</w>'): 1}
    """
    if not 1 <= round <= len(trace) + 1:
        raise ValueError(f"round must be between 1 and {len(trace) + 1}, got {round!r}")
    return dict(start) if round == 1 else dict(trace[round - 2].vocab)


def symbols_per_round(trace: Sequence[TraceRound], start: Mapping[tuple[str, ...], int]) -> list[int]:
    """The total number of symbols in the corpus (words weighted by count) before round 1 and after each round.

    Args:
        trace: the rounds, as :func:`bpe_ref.train_trace` returns them.
        start: the vocab before round 1 (see :func:`initial_vocab`).

    Returns:
        ``len(trace) + 1`` ints; each merge shortens the corpus by the merged pair's count, so the
        list falls by ``trace[i].count`` at step ``i`` when the trace is the reference's.

    Example:
        >>> freqs = {"aa": 5, "ab": 1}
        >>> symbols_per_round(core.train_trace(freqs, 2), initial_vocab(freqs))
        [18, 13, 8]
    """
    return [bpe.num_symbols(start), *(step.num_symbols for step in trace)]


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
        vocab: a dict mapping symbol tuples to counts (a :attr:`TraceRound.vocab`).
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
# The learner's functions against the reference
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Departure:
    """Where and how a learner's run first parts from the reference.

    Attributes:
        round: the 1-based round.
        function: the learner's function at fault: ``"count_pairs"``, ``"best_pair"`` or ``"merge_vocab"``.
        message: what it did and what the reference does, in one or two sentences.
    """

    round: int
    function: str
    message: str


@dataclass(frozen=True)
class LearnerRun:
    """A training run on the learner's functions, checked against the reference round by round.

    Attributes:
        status: ``"reference"`` (no learner function given), ``"matches"`` (every round equals the reference),
            ``"departs"`` (a round differs: see ``departure``), ``"error"`` (a learner function raised) or
            ``"stub"`` (a learner function raises ``NotImplementedError``).
        source: ``"learner"`` or ``"reference"``: whose rounds ``shown`` holds.
        shown: the rounds to draw: the learner's completed rounds, or the reference's when the learner's run is
            a stub or failed before completing a round.
        learner: the learner's completed rounds.
        reference: the reference rounds (:func:`bpe_ref.train_trace`).
        departure: the first departure, or ``None``.
        functions: the names of the learner's functions that were used.
        message: one sentence that says which run is shown and why.
    """

    status: str
    source: str
    shown: list[TraceRound]
    learner: list[TraceRound]
    reference: list[TraceRound]
    departure: Departure | None
    functions: tuple[str, ...]
    message: str


class _Stub(Exception):
    def __init__(self, function: str) -> None:
        super().__init__(function)
        self.function = function


class _Failed(Exception):
    def __init__(self, function: str, message: str, *, raised: bool) -> None:
        super().__init__(message)
        self.function = function
        self.message = message
        self.raised = raised


def _call(name: str, function: Callable[..., Any], *args: Any) -> Any:
    try:
        return function(*args)
    except NotImplementedError:
        raise _Stub(name) from None
    except Exception as error:  # noqa: BLE001 - the learner's code may raise anything; say what it was
        raise _Failed(name, f"{name} raised {type(error).__name__}: {error}", raised=True) from error


def _show(value: Any, limit: int = 120) -> str:
    return check.short(value, limit)


def _diff_counts(got: Mapping[Any, Any], expected: Mapping[Pair, int]) -> str:
    parts = []
    for pair, count in expected.items():
        if pair not in got:
            parts.append(f"{pair!r} is missing (reference {count})")
        elif got[pair] != count:
            parts.append(f"{pair!r}: yours {got[pair]!r}, reference {count}")
    for pair in got:
        if pair not in expected:
            parts.append(f"{pair!r} should not be there (yours {got[pair]!r})")
    shown = "; ".join(parts[:3])
    return shown + (f"; and {len(parts) - 3} more" if len(parts) > 3 else "")


def _diff_vocab(got: Mapping[Any, Any], expected: Vocab) -> str:
    parts = []
    got_by_word = {}
    for symbols, count in got.items():
        if isinstance(symbols, tuple) and all(isinstance(s, str) for s in symbols):
            got_by_word.setdefault("".join(symbols), []).append((symbols, count))
    for symbols, count in expected.items():
        if symbols in got and got[symbols] == count:
            continue
        mine = got_by_word.get("".join(symbols))
        if mine:
            parts.append(f"yours has {mine[0][0]!r}: {mine[0][1]!r}, the reference {symbols!r}: {count}")
        else:
            parts.append(f"the reference has {symbols!r}: {count}, yours has no such word")
    expected_words = {"".join(symbols) for symbols in expected}
    for symbols in got:
        if not isinstance(symbols, tuple) or "".join(map(str, symbols)) not in expected_words:
            parts.append(f"yours has {symbols!r}, which is not a word of the corpus")
    shown = "; ".join(parts[:2])
    return shown + (f"; and {len(parts) - 2} more" if len(parts) > 2 else "")


def _is_pair_counts(value: Any) -> bool:
    return isinstance(value, Mapping) and all(
        isinstance(pair, tuple) and len(pair) == 2 and isinstance(count, int) and not isinstance(count, bool)
        for pair, count in value.items()
    )


def _is_vocab(value: Any) -> bool:
    return isinstance(value, Mapping) and all(
        isinstance(symbols, tuple)
        and symbols
        and all(isinstance(s, str) and s for s in symbols)
        and isinstance(count, int)
        and not isinstance(count, bool)
        and count > 0
        for symbols, count in value.items()
    )


def _first_choice(vocab: Mapping[tuple[str, ...], int]) -> Pair | None:
    counts = bpe.vocab_pair_counts(vocab)
    return bpe.choose_pair(counts, "first") if counts else None


def check_learner(
    word_freqs: Mapping[str, int],
    num_merges: int,
    tie_break: str = "largest",
    *,
    count_pairs: Callable[[Vocab], Mapping[Pair, int]] | None = None,
    merge_vocab: Callable[[Pair, Vocab], Vocab] | None = None,
    best_pair: Callable[[Mapping[Pair, int], str], Pair] | None = None,
    marker: bool = True,
) -> LearnerRun:
    """Train with the learner's functions (the reference's where one is ``None``) and compare every round.

    Each round the learner's functions get what the reference's would get: ``count_pairs(vocab)``,
    ``best_pair(pair_counts, tie_break)``, ``merge_vocab(pair, vocab)`` (fresh copies, so that a function
    that changes its argument is caught). Until the first departure the learner's vocab equals the
    reference's, so each step is checked on the reference's own input and a departure names the one
    function at fault: counts that differ, a different pair from equal counts, a different vocab after
    the merge, an argument changed in place, or a result of the wrong shape. Under the ``"first"``
    tie-break the order of the counts and of the vocab matters too, and an order that changes the pair
    chosen is a departure. After a departure the learner's run goes on unchecked (so the chart can show
    it) until it ends or a function fails.

    A learner function that raises ``NotImplementedError`` is a stub: the result shows the reference run.

    Args:
        word_freqs: a dict mapping non-empty words to positive int counts.
        num_merges: the number of rounds, ``>= 0``.
        tie_break: ``"largest"``, ``"smallest"`` or ``"first"`` (passed to ``best_pair``).
        count_pairs / merge_vocab / best_pair: the learner's functions, with the course's signatures.
        marker: start words with the end-of-word marker (as 02 does).

    Returns:
        A :class:`LearnerRun`.

    Raises:
        TypeError / ValueError: a bad ``word_freqs``, ``num_merges`` or ``tie_break`` (never for the learner's
        functions: what they do is reported in the result).

    Example:
        >>> def my_best_pair(counts, tie_break):
        ...     return min(counts, key=lambda p: (-counts[p], p))  # "smallest", not "largest"
        >>> run = check_learner({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 3, best_pair=my_best_pair)
        >>> run.status, run.departure.round, run.departure.function
        ('departs', 1, 'best_pair')
    """
    check.word_counts("word_freqs", word_freqs)
    check.num_merges("num_merges", num_merges)
    check.tie_break(tie_break)
    reference = core.train_trace(word_freqs, num_merges, tie_break, marker=marker)
    given = {"count_pairs": count_pairs, "best_pair": best_pair, "merge_vocab": merge_vocab}
    names = tuple(name for name, function in given.items() if function is not None)
    if not names:
        return LearnerRun("reference", "reference", reference, [], reference, None, (), "The reference run (bpe_ref).")
    functions = {
        "count_pairs": count_pairs or bpe.vocab_pair_counts,
        "best_pair": best_pair or bpe.choose_pair,
        "merge_vocab": merge_vocab or bpe.merge_pair_in_vocab,
    }
    vocab = initial_vocab(word_freqs, marker=marker)
    learner: list[TraceRound] = []
    run = _Referee(tie_break)
    try:
        for number in range(1, num_merges + 1):
            run.round = number
            counts = run.call("count_pairs", functions["count_pairs"], vocab)
            if not counts:
                break
            pair = run.call("best_pair", functions["best_pair"], counts, tie_break)
            new_vocab = run.call("merge_vocab", functions["merge_vocab"], pair, vocab)
            learner.append(TraceRound(number, dict(counts), pair, bpe.tied_rivals(counts, pair), dict(new_vocab)))
            vocab = dict(new_vocab)
    except _Stub as stub:
        message = f"Your {stub.function} is still a stub (it raises NotImplementedError): showing the reference run."
        return LearnerRun("stub", "reference", reference, learner, reference, run.departure, names, message)
    except _Failed as failed:
        return _failed_run(failed, run, learner, reference, names)
    departure = run.departure
    if departure is None and len(learner) != len(reference):  # pragma: no cover - equal counts imply equal stops
        departure = Departure(len(learner) + 1, "count_pairs", "your run stopped at another round than the reference.")
    if departure is None:
        listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        verb = "matches" if len(names) == 1 else "match"
        message = f"Your {listed} {verb} the reference in every round ({len(learner)} rounds)."
        return LearnerRun("matches", "learner", learner, learner, reference, None, names, message)
    message = f"Your run departs from the reference at round {departure.round}: {departure.message}"
    if not learner:
        message += " Your run has no round to show: showing the reference run."
        return LearnerRun("departs", "reference", reference, learner, reference, departure, names, message)
    return LearnerRun(
        "departs", "learner", learner, learner, reference, departure, names, message + " Showing your run."
    )


def _failed_run(
    failed: _Failed, run: _Referee, learner: list[TraceRound], reference: list[TraceRound], names: tuple[str, ...]
) -> LearnerRun:
    """The run when a learner function raised, or returned a value of the wrong shape, in round ``len(learner) + 1``."""
    number = len(learner) + 1
    departure = run.departure or Departure(number, failed.function, failed.message)
    status = "error" if failed.raised and departure.round == number else "departs"
    source = "learner" if learner else "reference"
    shown = learner if learner else reference
    where = f"Your run stops at round {number}: {failed.message.rstrip('.')}."
    if departure.round < number:
        where = f"Your run departs from the reference at round {departure.round}: {departure.message} " + where
    showing = "Showing your rounds before it." if learner else "Showing the reference run."
    return LearnerRun(status, source, shown, learner, reference, departure, names, f"{where} {showing}")


def _counts_difference(got: Mapping[Any, Any], vocab: Vocab, tie_break: str) -> str | None:
    expected = bpe.vocab_pair_counts(vocab)
    if dict(got) != expected:
        return f"count_pairs gave other counts: {_diff_counts(got, expected)}."
    if tie_break == "first" and expected and bpe.choose_pair(dict(got), "first") != bpe.choose_pair(expected, "first"):
        return (
            "count_pairs gave the right counts in another order, and under the 'first' tie-break the "
            f"order decides the tie: yours lists {list(got)[:4]!r}..., the reference (first seen) "
            f"{list(expected)[:4]!r}..."
        )
    return None


def _choice_difference(pair: Pair, counts: Mapping[Pair, int], tie_break: str) -> str | None:
    expected = bpe.choose_pair(dict(counts), tie_break)
    if pair == expected:
        return None
    if counts[pair] == counts[expected]:
        how = f"a tie at {counts[pair]}, and under {tie_break!r} {TIE_BREAK_RULES[tie_break]}"
    else:
        how = f"{expected!r} is more frequent ({counts[expected]})"
    return f"best_pair chose {pair!r} (count {counts[pair]}); the reference chooses {expected!r}: {how}."


def _merge_difference(new_vocab: Mapping[Any, Any], pair: Pair, vocab: Vocab, tie_break: str) -> str | None:
    expected = bpe.merge_pair_in_vocab(pair, vocab)
    if dict(new_vocab) != expected:
        return f"merge_vocab of {pair!r} gave another vocab: {_diff_vocab(new_vocab, expected)}."
    if tie_break == "first" and _first_choice(dict(new_vocab)) != _first_choice(expected):
        return (
            "merge_vocab kept the right words in another order, and under the 'first' tie-break the "
            "order of the words decides the next tie: keep the order of the vocab it was given."
        )
    return None


@dataclass(frozen=True)
class _Rule:
    """How :func:`check_learner` judges one of the learner's functions."""

    argument: int  # the index of the argument that the function must leave as it was
    changed: str  # the departure when it changed that argument
    shape: Callable[[Any, Any], bool]  # (result, first argument) -> whether the result has the right shape
    wrong_shape: str  # the failure when the shape is wrong, with {} for the result
    difference: Callable[..., str | None]  # (result, *arguments, tie_break) -> the departure, or None


_RULES = {
    "count_pairs": _Rule(
        0,
        "count_pairs changed the vocab it was given; it must leave it as it was.",
        lambda result, _: _is_pair_counts(result),
        "count_pairs returned {}; expected a dict mapping (a, b) pairs to int counts.",
        _counts_difference,
    ),
    "best_pair": _Rule(
        0,
        "best_pair changed the pair counts it was given.",
        lambda result, pair_counts: isinstance(result, tuple) and result in pair_counts,
        "best_pair returned {}, which is not a key of the pair counts.",
        lambda pair, pair_counts, tie_break, _: _choice_difference(pair, pair_counts, tie_break),
    ),
    "merge_vocab": _Rule(
        1,
        "merge_vocab changed the vocab it was given; it must return a new dict.",
        lambda result, _: _is_vocab(result),
        "merge_vocab returned {}; expected a dict mapping symbol tuples to counts.",
        _merge_difference,
    ),
}


class _Referee:
    """Calls the learner's functions one round at a time and keeps the first departure from the reference."""

    def __init__(self, tie_break: str) -> None:
        self.tie_break = tie_break
        self.round = 0
        self.departure: Departure | None = None

    def depart(self, function: str, message: str | None) -> None:
        if self.departure is None and message is not None:
            self.departure = Departure(self.round, function, message)

    def call(self, name: str, function: Callable[..., Any], *args: Any) -> Any:
        """``function(*args)`` with a fresh copy of the argument it must not change; judged by ``_RULES[name]``.

        Raises:
            _Stub / _Failed: it raised (``NotImplementedError``: a stub) or returned a value of the wrong shape.
        """
        rule = _RULES[name]
        given = list(args)
        given[rule.argument] = dict(args[rule.argument])
        result = _call(name, function, *given)
        if given[rule.argument] != dict(args[rule.argument]):
            self.depart(name, rule.changed)
        if not rule.shape(result, args[0]):
            raise _Failed(name, rule.wrong_shape.format(_show(result)), raised=False)
        if self.departure is None:  # until the first departure the learner's input equals the reference's
            self.depart(name, rule.difference(result, *args, self.tie_break))
        return result


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
        stand_out: the policies whose pair is not the one most policies merged: none when all agree, the odd one
            when the others agree, all of them when all differ.
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
    """The policies' runs on one corpus, and where they part.

    Attributes:
        policies: the tie-breaks compared, in order.
        traces: policy -> its :func:`bpe_ref.train_trace`.
        rows: one :class:`TieBreakRow` per round, as many as the longest run.
        first_difference: the first round at which two policies merge different pairs (``None``: never).
        merges: policy -> the merges it learned.
        same_merges: whether all learned the same merges (perhaps in another order).
    """

    policies: tuple[str, ...]
    traces: dict[str, list[TraceRound]]
    rows: tuple[TieBreakRow, ...]
    first_difference: int | None
    merges: dict[str, list[Pair]]
    same_merges: bool


def compare_tie_breaks(
    word_freqs: Mapping[str, int],
    num_merges: int,
    *,
    policies: Sequence[str] = TIE_BREAKS,
    marker: bool = True,
) -> TieBreakComparison:
    """Train on ``word_freqs`` once per tie-break policy and line the runs up round by round.

    Args:
        word_freqs: a dict mapping non-empty words to positive int counts.
        num_merges: the number of rounds, ``>= 0``.
        policies: the tie-breaks to compare (default: all three, ``"largest"``, ``"smallest"``, ``"first"``).
        marker: start words with the end-of-word marker.

    Returns:
        A :class:`TieBreakComparison`.

    Raises:
        TypeError / ValueError: a bad ``word_freqs`` or ``num_merges``, an unknown or repeated policy, or none.

    Example (the corpus of ``learn_bpe``, no marker: e s and s t tie at 9):
        >>> cmp = compare_tie_breaks({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 2, marker=False)
        >>> cmp.first_difference, cmp.rows[0].pairs
        (1, {'largest': ('s', 't'), 'smallest': ('e', 's'), 'first': ('e', 's')})
    """
    policies = tuple(policies)
    if not policies:
        raise ValueError("policies is empty: nothing to compare")
    for policy in policies:
        check.tie_break(policy)
    if len(set(policies)) != len(policies):
        raise ValueError(f"policies repeats a tie-break: {policies!r}")
    traces = {policy: core.train_trace(word_freqs, num_merges, policy, marker=marker) for policy in policies}
    start = initial_vocab(word_freqs, marker=marker)
    rows = []
    first_difference = None
    for number in range(1, max(len(t) for t in traces.values()) + 1):
        steps = {p: traces[p][number - 1] if number <= len(traces[p]) else None for p in policies}
        pairs = {p: step.pair if step else None for p, step in steps.items()}
        starts = [vocab_before(traces[p], number, start) if number <= len(traces[p]) + 1 else None for p in policies]
        agree = len(set(pairs.values())) == 1
        if not agree and first_difference is None:
            first_difference = number
        chosen = list(pairs.values())
        most = max(chosen.count(pair) for pair in chosen)
        stand_out = () if agree else tuple(p for p in policies if most == 1 or chosen.count(pairs[p]) < most)
        rows.append(
            TieBreakRow(
                number,
                pairs,
                {p: step.count if step else None for p, step in steps.items()},
                {p: bool(step and step.tied) for p, step in steps.items()},
                agree,
                all(s == starts[0] for s in starts),
                stand_out,
            )
        )
    merges = {policy: [step.pair for step in trace] for policy, trace in traces.items()}
    same = all(sorted(m) == sorted(merges[policies[0]]) for m in merges.values())
    return TieBreakComparison(policies, traces, tuple(rows), first_difference, merges, same)


# ---------------------------------------------------------------------------------------------------------------
# Applying a merge table: by rank, by replay
# ---------------------------------------------------------------------------------------------------------------


def merge_positions(symbols: Sequence[str], pair: Pair) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """Merge ``pair`` left to right as :func:`bpe_ref.merge` does, and say where.

    Args:
        symbols: the symbols before the merge.
        pair: the two symbols to join.

    Returns:
        ``(after, positions)``: the merged symbols (equal to ``merge(symbols, pair, a + b)``) and the indices
        in ``symbols`` at which a match started.

    Example:
        >>> merge_positions(("a", "a", "a", "b"), ("a", "a"))
        (('aa', 'a', 'b'), (0,))
    """
    positions: list[int] = []
    after = bpe.merge_pair(symbols, pair, bpe.concatenate(pair), positions)
    return tuple(after), tuple(positions)


def made_positions(before: Sequence[str], positions: Sequence[int]) -> tuple[int, ...]:
    """Where the merged symbols land: the indices in the result of merging ``before`` at ``positions``.

    Args:
        before: the symbols before a merge.
        positions: the indices in ``before`` at which a match started (as :func:`merge_positions` gives).

    Returns:
        The indices in the merged symbols of the symbols the merge made, in order.

    Example:
        >>> made_positions(("a", "a", "b", "a", "a"), (0, 3))
        (0, 2)
    """
    return tuple(start - index for index, start in enumerate(positions))


@dataclass(frozen=True)
class RankStep:
    """One merge of :func:`rank_steps`.

    Attributes:
        before: the symbols before the step.
        ranks: for each adjacent pair of ``before``, left to right, its rank in the table or ``None``.
        chosen: the pair with the lowest rank, merged at this step.
        rank: its rank.
        positions: the indices in ``before`` at which it was merged.
        after: the symbols after the step.
    """

    before: tuple[str, ...]
    ranks: tuple[int | None, ...]
    chosen: Pair
    rank: int
    positions: tuple[int, ...]
    after: tuple[str, ...]


@dataclass(frozen=True)
class RankRun:
    """Applying a merge table by rank, step by step.

    Attributes:
        start: the symbols at the start.
        steps: one :class:`RankStep` per merge.
        end_ranks: the ranks of the adjacent pairs of the result: all ``None`` (no pair left in the table).
        result: the symbols at the end (equal to :func:`bpe_ref.apply_ranked`).
    """

    start: tuple[str, ...]
    steps: tuple[RankStep, ...]
    end_ranks: tuple[None, ...]
    result: tuple[str, ...]


def _ranks_of(symbols: Sequence[str], ranks: Mapping[Pair, int]) -> tuple[int | None, ...]:
    return tuple(ranks.get(pair) for pair in zip(symbols, symbols[1:]))


def rank_steps(symbols: Sequence[str], merges: Sequence[Pair]) -> RankRun:
    """Apply ``merges`` to ``symbols`` by rank (as :func:`bpe_ref.apply_ranked`), recording every step.

    Each step lists the rank of every adjacent pair, takes the lowest and merges all its occurrences left
    to right; the run stops when no adjacent pair is in the table. A pair listed twice keeps its first rank.

    Args:
        symbols: the starting symbols (e.g. :func:`bpe_ref.get_word_symbols` of a word).
        merges: a list of ``(str, str)`` pairs, most important first.

    Returns:
        A :class:`RankRun`; ``run.result == tuple(apply_ranked(symbols, merge_ranks(merges)))``.

    Raises:
        TypeError / ValueError: ``symbols`` is not a list or tuple of non-empty str, or an entry of ``merges``
        is not two non-empty strings.

    Example (assignment 04):
        >>> run = rank_steps(("a", "b", "c", "</w>"), [("a", "b"), ("ab", "c")])
        >>> [(step.chosen, step.rank, step.after) for step in run.steps]
        [(('a', 'b'), 0, ('ab', 'c', '</w>')), (('ab', 'c'), 1, ('abc', '</w>'))]
    """
    start = check.symbols("symbols", symbols)
    ranks = core.merge_ranks(merges)
    steps = tuple(
        RankStep(
            tuple(step.before),
            _ranks_of(step.before, ranks),
            step.pair,
            step.rank,
            tuple(step.positions),
            tuple(step.after),
        )
        for step in bpe.rank_merges(start, ranks)
    )
    result = steps[-1].after if steps else start
    return RankRun(start, steps, tuple(None for _ in result[1:]), result)


@dataclass(frozen=True)
class ReplayStep:
    """One rule of :func:`replay_steps`.

    Attributes:
        index: the rule's index in the table.
        rule: the rule.
        before: the symbols before it.
        positions: where it matched (empty: nowhere).
        after: the symbols after it.
    """

    index: int
    rule: Pair
    before: tuple[str, ...]
    positions: tuple[int, ...]
    after: tuple[str, ...]

    @property
    def made(self) -> tuple[int, ...]:
        """The indices in ``after`` of the symbols this rule made."""
        return made_positions(self.before, self.positions)


@dataclass(frozen=True)
class ReplayRun:
    """Applying a merge table by replay, rule by rule.

    Attributes:
        start: the symbols at the start.
        steps: one :class:`ReplayStep` per rule tried (replay stops trying once one symbol is left).
        result: the symbols at the end (equal to :func:`bpe_ref.replay`).
    """

    start: tuple[str, ...]
    steps: tuple[ReplayStep, ...]
    result: tuple[str, ...]


def replay_steps(symbols: Sequence[str], rules: Sequence[Pair]) -> ReplayRun:
    """Replay ``rules`` on ``symbols`` in order (as :func:`bpe_ref.replay`), recording every rule.

    Args:
        symbols: the starting symbols.
        rules: a list of ``(str, str)`` merges, in learned order.

    Returns:
        A :class:`ReplayRun`; ``run.result == tuple(replay(symbols, rules))``.

    Raises:
        TypeError / ValueError: as :func:`rank_steps`.

    Example (assignment 04):
        >>> run = replay_steps(tuple("lowest"), [("e", "s"), ("es", "t"), ("l", "o"), ("lo", "w")])
        >>> [step.positions for step in run.steps], run.result
        ([(3,), (3,), (0,), (0,)], ('low', 'est'))
    """
    start = check.symbols("symbols", symbols)
    rules = check.merges("rules", rules)
    steps = tuple(
        ReplayStep(step.rank, step.pair, tuple(step.before), tuple(step.positions), tuple(step.after))
        for step in bpe.replay_merges(start, rules)
    )
    return ReplayRun(start, steps, steps[-1].after if steps else start)


@dataclass(frozen=True)
class ApplyComparison:
    """A word under a merge table, by rank and by replay.

    Attributes:
        word: the word.
        marker: whether the symbols start with the end-of-word marker appended.
        merges: the table.
        rank: the :class:`RankRun` (with ``marker``, its result is :func:`bpe_ref.apply_bpe`'s).
        replay: the :class:`ReplayRun` from the same symbols (without ``marker``, :func:`bpe_ref.encode`'s).
        differ: whether the two results differ.
    """

    word: str
    marker: bool
    merges: tuple[Pair, ...]
    rank: RankRun
    replay: ReplayRun
    differ: bool


def compare_apply(word: str, merges: Sequence[Pair], *, marker: bool = True) -> ApplyComparison:
    """Apply ``merges`` to ``word`` by rank and by replay, from the same starting symbols.

    Args:
        word: a non-empty string.
        merges: a list of ``(str, str)`` pairs.
        marker: start from ``get_word_symbols(word)`` (with ``"</w>"``, as :func:`bpe_ref.apply_bpe`) or from the
            bare characters (as :func:`bpe_ref.encode` and :func:`bpe_ref.rank_and_replay_disagree`).

    Returns:
        An :class:`ApplyComparison`.

    Raises:
        TypeError / ValueError: a bad ``word`` or ``merges``.

    Example (the second table is one on which the two orders disagree):
        >>> cmp = compare_apply("abc", [("b", "c"), ("a", "b")], marker=False)
        >>> cmp.rank.result, cmp.replay.result, cmp.differ
        (('a', 'bc'), ('a', 'bc'), False)
        >>> cmp = compare_apply("abc", [("ab", "c"), ("a", "b")], marker=False)
        >>> cmp.rank.result, cmp.replay.result, cmp.differ
        (('abc',), ('ab', 'c'), True)
    """
    check.word("word", word)
    table = tuple(check.merges("merges", merges))
    start = bpe.word_to_symbols(word, END_OF_WORD if marker else None)
    rank = rank_steps(start, table)
    replayed = replay_steps(start, table)
    return ApplyComparison(word, marker, table, rank, replayed, rank.result != replayed.result)

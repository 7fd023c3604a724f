"""The computation behind the learner's charts: the reference's records that :mod:`bpe_ref.traces` writes as data.

* :func:`compare_tie_breaks`: the three tie-break policies on one corpus, round by round;
* :func:`rank_steps`, :func:`replay_steps`, :func:`compare_apply`: applying a merge table by rank
  (:func:`bpe_ref.apply_bpe`) and by replay (:func:`bpe_ref.encode`) one step at a time;
* :func:`initial_vocab`, :func:`vocab_before`: the vocab a round starts from.

The drawing, and the comparison of the learner's functions with these records, live in :mod:`bpe_lab` (which reads
them as traces); nothing here draws.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bpe_lab.traces import ApplyComparison, RankRun, RankStep, ReplayRun, ReplayStep, Round, TieBreakRow

from . import core
from . import primitives as bpe
from . import validate as check
from .primitives import END_OF_WORD, TIE_BREAKS, Pair, Vocab

__all__ = [
    "ApplyComparison",
    "RankRun",
    "RankStep",
    "ReplayRun",
    "ReplayStep",
    "TieBreakComparison",
    "TieBreakRow",
    "compare_apply",
    "compare_tie_breaks",
    "initial_vocab",
    "made_positions",
    "merge_positions",
    "rank_steps",
    "replay_steps",
    "vocab_before",
]


# ---------------------------------------------------------------------------------------------------------------
# The vocab training starts from
# ---------------------------------------------------------------------------------------------------------------


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


def vocab_before(trace: Sequence[Round], round: int, start: Mapping[tuple[str, ...], int]) -> Vocab:
    """The vocab that round ``round`` (1-based) of ``trace`` starts from: ``start`` for round 1.

    Example:
        >>> trace = core.train_trace({"ab": 1}, 2)
        >>> vocab_before(trace, 2, initial_vocab({"ab": 1}))
        {('a', 'b</w>'): 1}
    """
    if not 1 <= round <= len(trace) + 1:
        raise ValueError(f"round must be between 1 and {len(trace) + 1}, got {round!r}")
    return dict(start) if round == 1 else dict(trace[round - 2].vocab)


# ---------------------------------------------------------------------------------------------------------------
# The three tie-breaks side by side
# ---------------------------------------------------------------------------------------------------------------


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
    traces: dict[str, list[Round]]
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
        ReplayStep(
            step.rank,
            step.pair,
            tuple(step.before),
            tuple(step.positions),
            tuple(step.after),
            made_positions(step.before, step.positions),
        )
        for step in bpe.replay_merges(start, rules)
    )
    return ReplayRun(start, steps, steps[-1].after if steps else start)


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

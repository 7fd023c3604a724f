"""The primitives of byte-pair encoding, unchecked: the one home of every step the rest of :mod:`bpe_ref` builds on.

* words to symbols: :func:`word_to_symbols` (the end-of-word marker given as a string, or ``None`` for none),
  :func:`vocab_from_words`, :func:`collect_vocab`;
* pair counts: :func:`weighted_pair_counts`, :func:`sequence_pair_counts`, :func:`vocab_pair_counts` (overlaps
  counted, pairs never across words, keys in order of first occurrence);
* merging: :func:`merge_pair` (left to right, skipping past each match), :func:`merge_pair_in_vocab`;
* choosing: :func:`choose_pair` (the three tie-breaks), :func:`tied_rivals`;
* training: :func:`train_rounds`, one :class:`bpe_lab.traces.Round` per merge; :func:`num_symbols`, the corpus's length;
* applying a merge table: :func:`rank_table`, :func:`lowest_ranked_pair`, :func:`rank_merges` and
  :func:`apply_by_rank` (lowest rank first, all its occurrences), :func:`replay_merges` and :func:`replay_rules`
  (every rule in learned order).

Nothing here checks its arguments: the public functions of :mod:`bpe_ref.core`, :mod:`bpe_ref.fast`,
:mod:`bpe_ref.codes` and :mod:`bpe_ref.steps` validate first (with :mod:`bpe_ref.validate`) and then call these.
Every function returns a new object and never changes its arguments.

Sources: the counting and merging steps are those of Karpathy's minbpe (``get_stats``, ``merge``); training on word
counts with an end-of-word marker is Sennrich, Haddow and Birch (2016), *Neural Machine Translation of Rare Words with
Subword Units*, and ``subword-nmt``'s ``learn_bpe.py``; applying merges by rank is GPT-2's ``encoder.py``
(``bpe_ranks``) and ``subword-nmt``'s ``apply_bpe.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple, TypeVar

from bpe_lab.traces import Round  # the trace record: written here, read by the charts

END_OF_WORD = "</w>"
"""The end-of-word marker of Sennrich et al. (2016) and ``subword-nmt``."""

TIE_BREAKS = ("largest", "smallest", "first")
"""The tie-break policies of :func:`choose_pair`."""

MARKER_STYLES: dict[str, tuple[str | None, bool]] = {
    "separate": (END_OF_WORD, False),
    "attached": (END_OF_WORD, True),
    "none": (None, False),
}
"""``subword-nmt``'s marker styles as the arguments ``(end_of_word, attached)`` of :func:`word_to_symbols`."""

Symbol = TypeVar("Symbol", bound=Hashable)
Pair = tuple[str, str]
Vocab = dict[tuple[str, ...], int]


def concatenate(pair: tuple[Any, Any]) -> Any:
    """The symbol a merge of ``pair`` makes when symbols are strings: ``a + b``.

    Example:
        >>> concatenate(("lo", "w</w>"))
        'low</w>'
    """
    return pair[0] + pair[1]


# ---------------------------------------------------------------------------------------------------------------
# words to symbols
# ---------------------------------------------------------------------------------------------------------------


def word_to_symbols(word: str, end_of_word: str | None = END_OF_WORD, attached: bool = False) -> tuple[str, ...]:
    """The symbols a word starts as: its characters (code points), then the end-of-word marker.

    Args:
        word: a non-empty str.
        end_of_word: the marker, a str (``"</w>"`` by default), or ``None`` for no marker.
        attached: glue the marker to the last character (``subword-nmt`` >= 0.2) instead of adding it as a
            symbol of its own (Sennrich et al. 2016). Ignored when ``end_of_word`` is ``None``.

    Returns:
        A tuple of str symbols whose concatenation is ``word + end_of_word`` (or ``word``).

    Example:
        >>> word_to_symbols("low"), word_to_symbols("low", attached=True), word_to_symbols("low", None)
        (('l', 'o', 'w', '</w>'), ('l', 'o', 'w</w>'), ('l', 'o', 'w'))
    """
    if end_of_word is None:
        return tuple(word)
    if attached:
        return (*word[:-1], word[-1] + end_of_word)
    return (*word, end_of_word)


def collect_vocab(items: Iterable[tuple[tuple[str, ...], int]]) -> Vocab:
    """A vocab from ``(symbols, count)`` items: equal symbol tuples become one key whose count is their sum.

    Returns:
        A new dict, its keys in order of first occurrence.

    Example:
        >>> collect_vocab([(("a", "b"), 2), (("c",), 1), (("a", "b"), 3)])
        {('a', 'b'): 5, ('c',): 1}
    """
    vocab: Vocab = {}
    for symbols, count in items:
        vocab[symbols] = vocab.get(symbols, 0) + count
    return vocab


def vocab_from_words(
    word_freqs: Mapping[str, int], end_of_word: str | None = END_OF_WORD, attached: bool = False
) -> Vocab:
    """The vocab training starts from: each word as :func:`word_to_symbols`, with its count, in the order given.

    Example:
        >>> vocab_from_words({"ab": 2, "b": 1}), vocab_from_words({"ab": 2}, None)
        ({('a', 'b', '</w>'): 2, ('b', '</w>'): 1}, {('a', 'b'): 2})
    """
    return collect_vocab((word_to_symbols(word, end_of_word, attached), count) for word, count in word_freqs.items())


# ---------------------------------------------------------------------------------------------------------------
# pair counts
# ---------------------------------------------------------------------------------------------------------------


def weighted_pair_counts(
    sequences: Iterable[tuple[Sequence[Symbol], int]],
) -> dict[tuple[Symbol, Symbol], int]:
    """Total the adjacent pairs of every sequence, each pair counted with its sequence's weight.

    Overlaps count (``a a a`` holds ``(a, a)`` twice); no pair spans two sequences. Keys are in order of first
    occurrence: the sequences in the order given, each left to right (the ``"first"`` tie-break relies on it).

    Example:
        >>> weighted_pair_counts([(("a", "a", "a"), 2), (("a", "b"), 1)])
        {('a', 'a'): 4, ('a', 'b'): 1}
    """
    counts: dict[tuple[Symbol, Symbol], int] = {}
    for symbols, weight in sequences:
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = counts.get(pair, 0) + weight
    return counts


def sequence_pair_counts(ids: Sequence[Symbol]) -> dict[tuple[Symbol, Symbol], int]:
    """How often each adjacent pair of one sequence occurs (minbpe's ``get_stats``).

    Example:
        >>> sequence_pair_counts([1, 2, 3, 1, 2])
        {(1, 2): 2, (2, 3): 1, (3, 1): 1}
    """
    return weighted_pair_counts([(ids, 1)])


def vocab_pair_counts(vocab: Mapping[tuple[str, ...], int]) -> dict[Pair, int]:
    """The pair counts of a vocab: each word's pairs weighted by its count (Sennrich et al. 2016).

    Example:
        >>> vocab_pair_counts({("a", "a", "</w>"): 5, ("a", "b", "</w>"): 1})
        {('a', 'a'): 5, ('a', '</w>'): 5, ('a', 'b'): 1, ('b', '</w>'): 1}
    """
    return weighted_pair_counts(vocab.items())


# ---------------------------------------------------------------------------------------------------------------
# merging
# ---------------------------------------------------------------------------------------------------------------


def merge_pair(
    symbols: Sequence[Symbol],
    pair: tuple[Symbol, Symbol],
    new_symbol: Symbol,
    positions: list[int] | None = None,
) -> list[Symbol]:
    """Replace every occurrence of ``pair`` in ``symbols`` by ``new_symbol``, scanning left to right.

    At a match the scan writes ``new_symbol`` and skips past both positions, so of two overlapping matches only the
    leftmost is merged (minbpe's ``merge``).

    Args:
        symbols: the sequence; it is not changed.
        pair: the two symbols ``(a, b)`` to join.
        new_symbol: written in place of each match.
        positions: if a list is given, the index in ``symbols`` at which each match starts is appended to it.

    Returns:
        A new list, one element shorter per match.

    Example:
        >>> where = []
        >>> merge_pair([5, 5, 5, 1, 5, 5], (5, 5), 7, where), where
        ([7, 5, 1, 7], [0, 4])
    """
    first, second = pair
    out: list[Symbol] = []
    i, n = 0, len(symbols)
    while i < n:
        if i + 1 < n and symbols[i] == first and symbols[i + 1] == second:
            out.append(new_symbol)
            if positions is not None:
                positions.append(i)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def merge_pair_in_vocab(pair: Pair, vocab: Mapping[tuple[str, ...], int]) -> Vocab:
    """Join every occurrence of ``pair`` in every word of ``vocab`` into ``a + b`` (:func:`merge_pair` per word).

    Returns:
        A new dict in the order of ``vocab``; words that become equal are one key with the sum of their counts.

    Example:
        >>> merge_pair_in_vocab(("a", "a"), {("a", "a", "a", "</w>"): 2, ("b", "</w>"): 1})
        {('aa', 'a', '</w>'): 2, ('b', '</w>'): 1}
    """
    joined = concatenate(pair)
    return collect_vocab((tuple(merge_pair(symbols, pair, joined)), count) for symbols, count in vocab.items())


# ---------------------------------------------------------------------------------------------------------------
# choosing the pair of a round, and training
# ---------------------------------------------------------------------------------------------------------------


def choose_pair(pair_counts: Mapping[Pair, int], tie_break: str) -> Pair:
    """The most frequent pair of non-empty ``pair_counts``; ``tie_break`` decides between equal counts.

    ``"largest"``: the lexicographically largest pair (``subword-nmt``); ``"smallest"``: the smallest;
    ``"first"``: the first key of ``pair_counts`` (minbpe: ``max`` keeps the first of equal maxima).

    Example:
        >>> counts = {("s", "t"): 9, ("e", "s"): 9, ("l", "o"): 7}
        >>> [choose_pair(counts, tie_break) for tie_break in TIE_BREAKS]
        [('s', 't'), ('e', 's'), ('s', 't')]
    """
    if tie_break == "largest":
        return max(pair_counts, key=lambda p: (pair_counts[p], p))
    if tie_break == "smallest":
        return min(pair_counts, key=lambda p: (-pair_counts[p], p))
    return max(pair_counts, key=pair_counts.__getitem__)


def tied_rivals(pair_counts: Mapping[Pair, int], pair: Pair) -> list[Pair]:
    """The other pairs whose count equals ``pair``'s, in the order of ``pair_counts``.

    Example:
        >>> tied_rivals({("a", "b"): 2, ("b", "c"): 5, ("c", "d"): 5}, ("c", "d"))
        [('b', 'c')]
    """
    count = pair_counts[pair]
    return [other for other, c in pair_counts.items() if c == count and other != pair]


def num_symbols(vocab: Mapping[tuple[str, ...], int]) -> int:
    """The number of symbols in the corpus: each word's symbols times its count.

    Example:
        >>> num_symbols({("ab", "</w>"): 3, ("c",): 1})
        7
    """
    return sum(len(symbols) * count for symbols, count in vocab.items())


def train_rounds(vocab: Vocab, num_merges: int, tie_break: str) -> Iterator[Round]:
    """The plain BPE training loop, one round at a time: count, choose, merge; stop when no pair is left.

    Every round recounts the pairs from scratch (:func:`vocab_pair_counts`), so the first-seen order of the counts
    is that of the current vocab.

    Example:
        >>> [(r.pair, r.count) for r in train_rounds({("a", "b", "</w>"): 1}, 5, "first")]
        [(('a', 'b'), 1), (('ab', '</w>'), 1)]
    """
    for number in range(1, num_merges + 1):
        pair_counts = vocab_pair_counts(vocab)
        if not pair_counts:
            return
        pair = choose_pair(pair_counts, tie_break)
        vocab = merge_pair_in_vocab(pair, vocab)
        yield Round(number, pair_counts, pair, pair_counts[pair], tied_rivals(pair_counts, pair), vocab)


# ---------------------------------------------------------------------------------------------------------------
# applying a merge table: by rank, by replay
# ---------------------------------------------------------------------------------------------------------------


class MergeStep(NamedTuple):
    """One merge made while applying a merge table.

    Attributes:
        pair: the pair merged.
        rank: its rank in the table (by rank), or the rule's index (by replay).
        before: the symbols before the merge.
        after: the symbols after it (a new list).
        positions: the indices in ``before`` at which a match started (empty: the rule matched nowhere).
    """

    pair: tuple[Any, Any]
    rank: int
    before: list[Any]
    after: list[Any]
    positions: list[int]


def _step(before: list[Any], pair: tuple[Any, Any], rank: int, join: Callable[[Any], Any]) -> MergeStep:
    positions: list[int] = []
    return MergeStep(pair, rank, before, merge_pair(before, pair, join(pair), positions), positions)


def rank_table(merges: Iterable[tuple[Any, Any]]) -> dict[tuple[Any, Any], int]:
    """Each pair of a merge table mapped to its rank: the index of its first listing (a repeat keeps it).

    Example:
        >>> rank_table([("a", "b"), ("b", "c"), ("a", "b")])
        {('a', 'b'): 0, ('b', 'c'): 1}
    """
    ranks: dict[tuple[Any, Any], int] = {}
    for rank, pair in enumerate(merges):
        ranks.setdefault(pair, rank)
    return ranks


def lowest_ranked_pair(symbols: Sequence[Any], ranks: Mapping[tuple[Any, Any], int]) -> tuple[Any, int] | None:
    """The adjacent pair of ``symbols`` with the lowest rank in ``ranks``, and that rank; ``None`` if none is ranked.

    Example:
        >>> lowest_ranked_pair(("a", "b", "c"), {("b", "c"): 0, ("a", "b"): 1}), lowest_ranked_pair(("x",), {})
        ((('b', 'c'), 0), None)
    """
    best = None
    best_rank = 0
    for pair in zip(symbols, symbols[1:]):
        rank = ranks.get(pair)
        if rank is not None and (best is None or rank < best_rank):
            best, best_rank = pair, rank
    return None if best is None else (best, best_rank)


def rank_merges(
    symbols: Sequence[Any], ranks: Mapping[tuple[Any, Any], int], join: Callable[[Any], Any] = concatenate
) -> Iterator[MergeStep]:
    """Apply a merge table by rank, one merge at a time (GPT-2's ``encoder.py``, ``subword-nmt apply-bpe``).

    Each step takes the adjacent pair with the lowest rank and merges all its occurrences left to right into
    ``join(pair)``; the steps stop when no adjacent pair is in ``ranks``.

    Example:
        >>> [(step.pair, step.after) for step in rank_merges(("a", "b", "c"), {("b", "c"): 0, ("a", "bc"): 1})]
        [(('b', 'c'), ['a', 'bc']), (('a', 'bc'), ['abc'])]
    """
    current = list(symbols)
    while len(current) > 1:
        found = lowest_ranked_pair(current, ranks)
        if found is None:
            return
        step = _step(current, *found, join)
        yield step
        current = step.after


def apply_by_rank(
    symbols: Sequence[Any], ranks: Mapping[tuple[Any, Any], int], join: Callable[[Any], Any] = concatenate
) -> list[Any]:
    """The symbols at the end of :func:`rank_merges` (a new list).

    Example:
        >>> apply_by_rank(("a", "b", "c", "</w>"), {("ab", "c"): 0, ("a", "b"): 1})
        ['abc', '</w>']
    """
    out = list(symbols)
    for step in rank_merges(out, ranks, join):
        out = step.after
    return out


def replay_merges(
    symbols: Sequence[Any], rules: Iterable[tuple[Any, Any]], join: Callable[[Any], Any] = concatenate
) -> Iterator[MergeStep]:
    """Apply merge rules in the order given, one step per rule: each rule merged everywhere, left to right.

    A rule that matches nowhere is a step with no positions; the steps stop once one symbol is left.

    Example:
        >>> [step.positions for step in replay_merges(tuple("lowest"), [("e", "s"), ("x", "y"), ("es", "t")])]
        [[3], [], [3]]
    """
    current = list(symbols)
    for index, rule in enumerate(rules):
        if len(current) < 2:
            return
        step = _step(current, rule, index, join)
        yield step
        current = step.after


def replay_rules(
    symbols: Sequence[Any], rules: Iterable[tuple[Any, Any]], join: Callable[[Any], Any] = concatenate
) -> list[Any]:
    """The symbols at the end of :func:`replay_merges` (a new list).

    Example:
        >>> replay_rules(tuple("lowest"), [("e", "s"), ("es", "t"), ("l", "o"), ("lo", "w")])
        ['low', 'est']
    """
    out = list(symbols)
    for step in replay_merges(out, rules, join):
        out = step.after
    return out

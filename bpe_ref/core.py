"""Reference solutions for every graded function of the course, with the conventions the assignments state.

The functions are grouped by assignment:

* 01 ``get_pair_counts``, ``merge`` (the counting and merging steps of Karpathy's minbpe);
* 02 ``get_word_symbols``, ``count_pairs``, ``merge_vocab``, ``train_bpe`` (Sennrich et al. 2016, with the
  end-of-word marker ``"</w>"`` and the tie-break of ``subword-nmt``);
* 03 ``best_pair`` (three tie-breaks), ``learn_bpe`` (no marker, smallest pair), ``bpe_train`` (words already split
  into symbols, the pair seen first, as minbpe);
* 04 ``apply_bpe`` (by merge rank, as GPT-2's ``encoder.py``), ``encode`` (by replay of the rules in learned order),
  ``rank_and_replay_disagree`` (the counterexample checker).

Each function validates its arguments (:mod:`bpe_ref.validate`) and then runs the unchecked primitive of
:mod:`bpe_ref.primitives` that does the work. Every function returns a new object and never changes its arguments.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bpe_lab.traces import Round

from . import primitives as bpe
from . import validate as check
from .primitives import END_OF_WORD, Pair, Symbol, Vocab
from .primitives import TIE_BREAKS as TIE_BREAKS  # re-exported: bpe_ref.TIE_BREAKS

# ---------------------------------------------------------------------------------------------------------------
# 01: pair counts and merge on a list of ids
# ---------------------------------------------------------------------------------------------------------------


def get_pair_counts(ids: Sequence[Symbol]) -> dict[tuple[Symbol, Symbol], int]:
    """Count every adjacent pair of ``ids``, overlaps included, in order of first occurrence.

    Args:
        ids: a list (or tuple) of n hashable token ids.

    Returns:
        A dict with at most n - 1 entries mapping each adjacent pair ``(a, b)`` to how often it occurs;
        its keys are in the order in which each pair first occurs (later exercises break ties on that
        order). A sequence of length 0 or 1 gives ``{}``.

    Raises:
        TypeError: ``ids`` is not a list or tuple, or holds an unhashable element.

    Example (assignment 01):
        >>> get_pair_counts([1, 2, 3, 1, 2])
        {(1, 2): 2, (2, 3): 1, (3, 1): 1}
        >>> get_pair_counts([5, 5, 5])
        {(5, 5): 2}
    """
    check.sequence("ids", ids)
    return bpe.sequence_pair_counts(ids)


def merge(ids: Sequence[Symbol], pair: tuple[Symbol, Symbol], new_id: Symbol) -> list[Symbol]:
    """Replace every occurrence of ``pair`` in ``ids`` by ``new_id``, scanning left to right.

    At a match the scan writes ``new_id`` and skips both positions, so of two overlapping matches only
    the leftmost is merged: ``[5, 5, 5]`` with ``(5, 5)`` gives ``[7, 5]``.

    Args:
        ids: a list (or tuple) of hashable token ids; it is not changed.
        pair: the two ids ``(a, b)`` to join.
        new_id: the id written in place of each match.

    Returns:
        A new list, as long as ``ids`` less one per match. Length 0 or 1: a copy of ``ids`` as a list.

    Raises:
        TypeError: ``ids`` is not a list or tuple, or ``pair`` is not a tuple of two ids.

    Example (assignment 01):
        >>> merge([1, 2, 3, 1, 2], (1, 2), 99)
        [99, 3, 99]
        >>> merge([5, 5, 5], (5, 5), 7)
        [7, 5]
    """
    check.sequence("ids", ids)
    check.pair("pair", pair)
    return bpe.merge_pair(ids, pair, new_id)


# ---------------------------------------------------------------------------------------------------------------
# 02: the training loop on a vocab of symbol tuples, with the end-of-word marker
# ---------------------------------------------------------------------------------------------------------------


def get_word_symbols(word: str) -> tuple[str, ...]:
    """Split ``word`` into its characters (code points) followed by the end-of-word marker ``"</w>"``.

    Args:
        word: a non-empty string.

    Returns:
        A tuple of ``len(word) + 1`` symbols.

    Raises:
        TypeError: ``word`` is not a str. ValueError: ``word`` is empty.

    Example (assignment 02; Sennrich et al. 2016):
        >>> get_word_symbols("low")
        ('l', 'o', 'w', '</w>')
    """
    check.word("word", word)
    return bpe.word_to_symbols(word)


def count_pairs(vocab: Mapping[tuple[str, ...], int]) -> dict[Pair, int]:
    """Total the adjacent symbol pairs of every word, each weighted by the word's count.

    Pairs never cross words; overlaps count (``("a", "a", "a")`` holds ``("a", "a")`` twice). Keys are
    in order of first occurrence when the words are scanned in dict order, each left to right.

    Args:
        vocab: a dict mapping a tuple of symbols (one word) to its positive int count.

    Returns:
        A new dict mapping each pair ``(a, b)`` of str symbols to its weighted count.

    Raises:
        TypeError / ValueError: a key is not a non-empty tuple of non-empty strings, or a count is not a
        positive int.

    Example (assignment 02):
        >>> count_pairs({("a", "a", "</w>"): 5, ("a", "b", "</w>"): 1})
        {('a', 'a'): 5, ('a', '</w>'): 5, ('a', 'b'): 1, ('b', '</w>'): 1}
    """
    check.vocab("vocab", vocab)
    return bpe.vocab_pair_counts(vocab)


def merge_vocab(pair: Pair, vocab: Mapping[tuple[str, ...], int]) -> Vocab:
    """Join every occurrence of ``pair`` in every word of ``vocab`` into one symbol ``a + b``.

    Each word is scanned left to right as in :func:`merge`. The result is a new dict in the order of
    ``vocab``; two words that become equal are one key whose count is the sum of theirs.

    Args:
        pair: two non-empty str symbols ``(a, b)``.
        vocab: a dict mapping a tuple of symbols to its positive int count; it is not changed.

    Returns:
        A new dict of the same shape.

    Raises:
        TypeError / ValueError: as :func:`count_pairs`, or ``pair`` is not two non-empty strings.

    Example (assignment 02):
        >>> merge_vocab(("a", "a"), {("a", "a", "a", "</w>"): 2, ("b", "</w>"): 1})
        {('aa', 'a', '</w>'): 2, ('b', '</w>'): 1}
    """
    check.pair("pair", pair, of_str=True)
    check.vocab("vocab", vocab)
    return bpe.merge_pair_in_vocab(pair, vocab)


def best_pair(pair_counts: Mapping[Pair, int], tie_break: str) -> Pair:
    """The most frequent pair of ``pair_counts``; ``tie_break`` decides between equal counts.

    * ``"largest"``: the lexicographically largest pair tuple (subword-nmt, Stanford CS336; assignment 02);
    * ``"smallest"``: the lexicographically smallest pair tuple (``learn_bpe``, assignment 03);
    * ``"first"``: the pair that comes first in ``pair_counts`` (minbpe; ``bpe_train``, assignment 03), which is
      the pair seen first when the counts were built by scanning the words in order (``max`` returns the first of
      equal maxima).

    Comparisons are Python's on tuples of str (code-point order, so ``"</w>"`` sorts before letters).

    Args:
        pair_counts: a non-empty dict mapping pairs to positive int counts.
        tie_break: ``"largest"``, ``"smallest"`` or ``"first"``.

    Returns:
        One key of ``pair_counts``.

    Raises:
        ValueError: ``pair_counts`` is empty, holds a count that is not positive, or ``tie_break`` is
        unknown. TypeError: a key is not a 2-tuple or a count not an int.

    Example:
        >>> counts = {("s", "t"): 9, ("e", "s"): 9, ("l", "o"): 7}
        >>> best_pair(counts, "largest"), best_pair(counts, "smallest"), best_pair(counts, "first")
        (('s', 't'), ('e', 's'), ('s', 't'))
    """
    check.tie_break(tie_break)
    check.pair_counts("pair_counts", pair_counts)
    return bpe.choose_pair(pair_counts, tie_break)


def train_vocab(vocab: Mapping[tuple[str, ...], int], num_merges: int, tie_break: str) -> list[Pair]:
    """The BPE training loop on a vocab of symbol tuples: count, pick, merge, repeat; stop early.

    Every round rebuilds the pair counts with :func:`count_pairs`, takes :func:`best_pair` under
    ``tie_break``, records it and merges it with :func:`merge_vocab`. It stops after ``num_merges``
    rounds, or earlier when no word has two symbols left.

    Args:
        vocab: a dict mapping tuples of str symbols to positive int counts (not changed).
        num_merges: the maximum number of merges, ``>= 0``.
        tie_break: ``"largest"``, ``"smallest"`` or ``"first"``.

    Returns:
        The list of merges ``(a, b)`` in the order learned, at most ``num_merges`` long.

    Raises:
        TypeError / ValueError: as :func:`count_pairs`, or a bad ``num_merges`` / ``tie_break``.

    Example:
        >>> train_vocab({("a", "b", "</w>"): 1}, 5, "first")
        [('a', 'b'), ('ab', '</w>')]
        >>> train_vocab({("a", "b", "</w>"): 1}, 5, "largest")
        [('b', '</w>'), ('a', 'b</w>')]
    """
    check.vocab("vocab", vocab)
    check.num_merges("num_merges", num_merges)
    check.tie_break(tie_break)
    return [step.pair for step in bpe.train_rounds(dict(vocab), num_merges, tie_break)]


def train_bpe(word_freqs: Mapping[str, int], num_merges: int) -> list[Pair]:
    """Learn up to ``num_merges`` merges from raw words, with the end-of-word marker and the largest tie-break.

    Each word starts as :func:`get_word_symbols` (characters, then ``"</w>"``); ties go to the
    lexicographically largest pair, ``max(counts, key=lambda p: (counts[p], p))``.

    Args:
        word_freqs: a dict mapping non-empty words to positive int counts.
        num_merges: the maximum number of merges, ``>= 0``.

    Returns:
        The merges ``(a, b)`` in the order learned; shorter than ``num_merges`` when no pair is left.

    Raises:
        TypeError / ValueError: naming the bad word, count or ``num_merges``.

    Example (assignment 02):
        >>> train_bpe({"aa": 5, "ab": 1}, 1)
        [('a', 'a')]
    """
    check.word_counts("word_freqs", word_freqs)
    check.num_merges("num_merges", num_merges)
    vocab = bpe.vocab_from_words(word_freqs)
    return [step.pair for step in bpe.train_rounds(vocab, num_merges, "largest")]


# ---------------------------------------------------------------------------------------------------------------
# 03: tie-break variants
# ---------------------------------------------------------------------------------------------------------------


def learn_bpe(word_counts: Mapping[str, int], merges: int) -> list[Pair]:
    """Learn up to ``merges`` merges from raw words with no end-of-word marker, smallest tie-break.

    Args:
        word_counts: a dict mapping non-empty words to positive int counts.
        merges: the maximum number of merges, ``>= 0``.

    Returns:
        The merge rules ``(a, b)`` in the order learned.

    Raises:
        TypeError / ValueError: naming the bad word, count or ``merges``.

    Example (assignment 03):
        >>> learn_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 4)
        [('e', 's'), ('es', 't'), ('l', 'o'), ('lo', 'w')]
    """
    check.word_counts("word_counts", word_counts)
    check.num_merges("merges", merges)
    vocab = bpe.vocab_from_words(word_counts, None)
    return [step.pair for step in bpe.train_rounds(vocab, merges, "smallest")]


def bpe_train(word_freqs: Mapping[str, int], num_merges: int) -> list[Pair]:
    """Learn merges from words already split into symbols by spaces; ties go to the pair seen first.

    The keys are in the format of many tutorials: ``"h u g </w>"`` is the word ``hug`` with its marker. The counts are
    rebuilt every round by scanning the words in dict order, each left to right; among equal counts the
    pair met first wins. Training stops early when no word has two symbols left.

    Args:
        word_freqs: a dict mapping space-separated symbol strings to positive int counts.
        num_merges: the maximum number of merges, ``>= 0``.

    Returns:
        The merges ``(a, b)`` in the order learned.

    Raises:
        TypeError / ValueError: naming the bad key, count or ``num_merges``.

    Example (assignment 03):
        >>> bpe_train({"h u g </w>": 10, "p u g </w>": 5, "b u g </w>": 2}, 3)
        [('u', 'g'), ('ug', '</w>'), ('h', 'ug</w>')]
    """
    check.split_word_counts("word_freqs", word_freqs)
    check.num_merges("num_merges", num_merges)
    vocab = bpe.collect_vocab((tuple(key.split()), freq) for key, freq in word_freqs.items())
    return [step.pair for step in bpe.train_rounds(vocab, num_merges, "first")]


# ---------------------------------------------------------------------------------------------------------------
# 04: applying a merge table
# ---------------------------------------------------------------------------------------------------------------


def merge_ranks(merges: Sequence[Pair]) -> dict[Pair, int]:
    """Map each pair of a merge table to its rank, the index of its first listing (duplicates keep it).

    Example:
        >>> merge_ranks([("a", "b"), ("b", "c"), ("a", "b")])
        {('a', 'b'): 0, ('b', 'c'): 1}
    """
    return bpe.rank_table(check.merges("merges", merges))


def apply_ranked(symbols: Sequence[str], ranks: Mapping[Pair, int]) -> list[str]:
    """Merge ``symbols`` by rank with a precomputed ``ranks`` table (see :func:`apply_bpe`)."""
    return bpe.apply_by_rank(symbols, ranks)


def apply_bpe(word: str, merges: Sequence[Pair]) -> list[str]:
    """Segment ``word`` with a learned merge table, by merge rank.

    Start from :func:`get_word_symbols` (characters, then ``"</w>"``). Repeatedly take the adjacent pair
    with the lowest index in ``merges`` and merge all its occurrences left to right; stop when no adjacent
    pair is in ``merges``. A pair listed twice keeps its first (lowest) rank. This is how GPT-2's
    ``encoder.py`` applies its ``bpe_ranks``.

    Args:
        word: a non-empty string.
        merges: a list of ``(str, str)`` pairs, most important first.

    Returns:
        A new list of symbols whose concatenation is ``word + "</w>"``.

    Raises:
        TypeError / ValueError: ``word`` is not a non-empty str, or an entry of ``merges`` is not two
        non-empty strings.

    Example (assignment 04):
        >>> apply_bpe("abc", [("a", "b"), ("ab", "c")])
        ['abc', '</w>']
        >>> apply_bpe("abc", [("ab", "c"), ("a", "b")])
        ['abc', '</w>']
    """
    symbols = get_word_symbols(word)
    return apply_ranked(symbols, merge_ranks(merges))


def replay(symbols: Sequence[str], rules: Sequence[Pair]) -> list[str]:
    """Merge each rule of ``rules`` everywhere in ``symbols``, in the order given (see :func:`encode`)."""
    return bpe.replay_rules(symbols, check.merges("rules", rules))


def encode(word: str, rules: Sequence[Pair]) -> list[str]:
    """Segment ``word`` by replaying ``rules`` in learned order; no end-of-word marker.

    Args:
        word: a non-empty string.
        rules: a list of ``(str, str)`` merges, in the order learned.

    Returns:
        A new list of symbols whose concatenation is ``word``.

    Raises:
        TypeError / ValueError: ``word`` is not a non-empty str, or a rule is not two non-empty strings.

    Example (assignment 04):
        >>> rules = [("e", "s"), ("es", "t"), ("l", "o"), ("lo", "w")]
        >>> encode("lowest", rules), encode("xyz", rules)
        (['low', 'est'], ['x', 'y', 'z'])
    """
    check.word("word", word)
    return replay(bpe.word_to_symbols(word, None), rules)


def rank_and_replay_disagree(word: str, merges: Sequence[Pair]) -> bool:
    """Whether applying ``merges`` to ``word`` by rank and by replay give different segmentations.

    Both start from the word's characters with no marker (as :func:`encode`), so that the only difference
    is the order in which merges are tried.

    Example:
        >>> rank_and_replay_disagree("abc", [("ab", "c"), ("a", "b")])
        True
        >>> rank_and_replay_disagree("abc", [("a", "b"), ("ab", "c")])
        False
    """
    check.word("word", word)
    merges = check.merges("merges", merges)
    symbols = bpe.word_to_symbols(word, None)
    return bpe.apply_by_rank(symbols, bpe.rank_table(merges)) != bpe.replay_rules(symbols, merges)


# ---------------------------------------------------------------------------------------------------------------
# The training trace the charts draw
# ---------------------------------------------------------------------------------------------------------------


def train_trace(
    word_freqs: Mapping[str, int],
    num_merges: int,
    tie_break: str = "largest",
    *,
    marker: bool = True,
) -> list[Round]:
    """Train as :func:`train_bpe` and record every round: pair counts, chosen pair, tied rivals, vocab.

    Args:
        word_freqs: a dict mapping non-empty words to positive int counts.
        num_merges: the maximum number of rounds, ``>= 0``.
        tie_break: ``"largest"`` (default, as ``train_bpe``), ``"smallest"`` or ``"first"``.
        marker: append ``"</w>"`` to every word (default) or not (as ``learn_bpe``).

    Returns:
        One :class:`Round` per merge; ``[r.pair for r in trace]`` equals the merges learned.

    Raises:
        TypeError / ValueError: as :func:`train_bpe`, or an unknown ``tie_break``.

    Example:
        >>> [(r.pair, r.count, r.tied) for r in train_trace({"aa": 5, "ab": 1}, 1)]
        [(('a', 'a'), 5, [('a', '</w>')])]
    """
    check.word_counts("word_freqs", word_freqs)
    check.num_merges("num_merges", num_merges)
    check.tie_break(tie_break)
    vocab = bpe.vocab_from_words(word_freqs, END_OF_WORD if marker else None)
    return list(bpe.train_rounds(vocab, num_merges, tie_break))

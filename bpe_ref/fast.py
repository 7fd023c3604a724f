"""An incremental BPE trainer that learns exactly the merges of the plain loop in :mod:`bpe_ref.core`, much faster.

The plain loop (:func:`bpe_ref.core.train_vocab`) rebuilds every pair count from scratch in every round, which costs
O(size of the vocab) per merge. Real trainers (Sennrich et al. 2016, ``subword-nmt``'s ``learn_bpe.py``) keep three
structures between rounds instead, and this module does the same:

* ``counts``: the weighted count of every adjacent pair;
* ``where``: an index pair -> the words that hold it, so that a merge visits only the words it changes;
* a priority queue (``heapq``) of ``(key, pair)`` entries with *lazy deletion*: when a count changes a new entry is
  pushed and the old one is left behind; an entry popped from the top is used only if it still agrees with
  ``counts`` (and, for ``"first"``, with the pair's first position), else it is dropped. For ``"largest"`` and
  ``"smallest"`` a count that goes *down* pushes nothing: the pair's older, higher entry stays queued and, when it
  reaches the top, is replaced by one with the pair's current count. Every pair thus always has an entry at least
  as high as its count, which is all that popping the right pair needs.

A merge of ``(x, y)`` only changes the pairs around each occurrence of ``x y``: for ``a x y b`` the pairs ``(a, x)``
and ``(y, b)`` lose the word's count and ``(a, xy)`` and ``(xy, b)`` gain it. Everything else stays.

Tie-breaks are those of :func:`bpe_ref.best_pair`, and the result equals :func:`bpe_ref.core.train_vocab` for each:

* ``"largest"`` / ``"smallest"``: the heap key is ``(-count, pair)``, with the pair's order reversed for
  ``"largest"`` (each symbol is mapped to a key whose order is the reverse of the symbol's, see :func:`_reverse`).
* ``"first"``: the plain loop picks, among the tied pairs, the one met first when the current vocab is scanned in dict
  order, each word left to right. The heap key is ``(-count, word index, character offset)`` of the pair's first
  occurrence. Two facts make this cheap. Words that become equal after a merge collapse into the earlier word's slot
  in the plain loop; here they stay apart under their original index, which changes nothing because the later copy
  never holds a first occurrence. And a pair occurrence is keyed by the character offset of its first symbol, which
  no merge changes (a merged symbol starts where its left part started), so only occurrences that a merge creates or
  destroys need new keys. When the first occurrence of a pair is destroyed, the next one is found through the
  (exact, in this mode) pair -> words index.

Reference: Rico Sennrich, Barry Haddow and Alexandra Birch (2016), *Neural Machine Translation of Rare Words with
Subword Units*, ACL 2016; the incremental statistics follow ``subword-nmt``'s ``learn_bpe.py`` (``get_pair_statistics``,
``update_pair_statistics``), with a heap in place of its pruned ``max`` scan.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from . import primitives as bpe
from . import validate as check
from .primitives import Pair

MARKERS = tuple(bpe.MARKER_STYLES)
"""End-of-word marker styles: ``"separate"`` appends the symbol ``"</w>"`` (as :func:`bpe_ref.get_word_symbols`);
``"attached"`` glues ``"</w>"`` to the last character (``subword-nmt`` >= 0.2); ``"none"`` adds nothing."""


# ---------------------------------------------------------------------------------------------------------------
# validation of the arguments that only this module has
# ---------------------------------------------------------------------------------------------------------------


def check_marker(value: object) -> str:
    """Return ``value`` if it is one of :data:`MARKERS`, else raise ``ValueError`` naming it."""
    if not isinstance(value, str) or value not in MARKERS:
        raise ValueError(f"marker must be one of {', '.join(map(repr, MARKERS))}; got {check.short(value)}")
    return value


def check_min_frequency(value: object) -> int:
    """Return ``value`` if it is an int ``>= 1``; ``TypeError`` / ``ValueError`` naming it otherwise."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"min_frequency must be an int, got {type(value).__name__} {check.short(value)}")
    if value < 1:
        raise ValueError(f"min_frequency must be >= 1, got {value!r}")
    return value


# ---------------------------------------------------------------------------------------------------------------
# public API
# ---------------------------------------------------------------------------------------------------------------


def word_symbols(word: str, marker: str = "separate") -> tuple[str, ...]:
    """The initial symbols of ``word`` under an end-of-word ``marker`` style.

    Args:
        word: a non-empty str.
        marker: ``"separate"`` (characters, then ``"</w>"``, as :func:`bpe_ref.get_word_symbols`), ``"attached"``
            (the last character carries ``"</w>"``, as ``subword-nmt`` >= 0.2) or ``"none"`` (characters only).

    Returns:
        A tuple of str symbols whose concatenation is ``word + "</w>"`` (or ``word`` for ``"none"``).

    Raises:
        TypeError: ``word`` is not a str. ValueError: ``word`` is empty or ``marker`` unknown.

    Example:
        >>> word_symbols("low"), word_symbols("low", "attached"), word_symbols("low", "none")
        (('l', 'o', 'w', '</w>'), ('l', 'o', 'w</w>'), ('l', 'o', 'w'))
    """
    check.word("word", word)
    check_marker(marker)
    return bpe.word_to_symbols(word, *bpe.MARKER_STYLES[marker])


def train_fast(
    word_freqs: Mapping[str, int],
    num_merges: int,
    tie_break: str = "largest",
    *,
    marker: str = "separate",
    min_frequency: int = 1,
) -> list[Pair]:
    """Learn up to ``num_merges`` BPE merges from word counts, incrementally; same merges as the plain loop.

    Each word starts as :func:`word_symbols` under ``marker``; every round merges the most frequent adjacent pair
    (counts weighted by the word's count, overlaps included, never across words), ties broken by ``tie_break``.
    Training stops after ``num_merges`` merges, when no pair is left, or when the best pair's count is below
    ``min_frequency`` (``subword-nmt learn-bpe --min-frequency``). The result is exactly
    ``bpe_ref.train_vocab(vocab, num_merges, tie_break)`` cut at the first count below ``min_frequency``, where
    ``vocab`` maps each word's symbols to its count in the order of ``word_freqs`` (which ``"first"`` depends on).

    Args:
        word_freqs: a dict mapping non-empty str words to positive int counts.
        num_merges: the maximum number of merges, an int ``>= 0``.
        tie_break: ``"largest"`` (default; subword-nmt), ``"smallest"`` or ``"first"`` (minbpe).
        marker: ``"separate"`` (default), ``"attached"`` or ``"none"``; see :func:`word_symbols`.
        min_frequency: stop once the best pair occurs fewer times than this, an int ``>= 1`` (default 1: never).

    Returns:
        A new list of ``(str, str)`` merges in the order learned, at most ``num_merges`` long.

    Raises:
        TypeError / ValueError: a word is not a non-empty str, a count not a positive int, ``num_merges`` or
        ``min_frequency`` out of range, or ``tie_break`` / ``marker`` unknown; the message names the value.

    Example (Sennrich et al. 2016; with ``marker="attached"`` and ``tie_break="largest"`` these are subword-nmt's):
        >>> train_fast({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 3, marker="attached")
        [('s', 't</w>'), ('e', 'st</w>'), ('l', 'o')]
        >>> train_fast({"aaaa": 1}, 5, tie_break="first", marker="none")
        [('a', 'a'), ('aa', 'aa')]
    """
    vocab = _starting_vocab(word_freqs, num_merges, tie_break, marker, min_frequency)
    return _train(list(vocab), list(vocab.values()), num_merges, tie_break, min_frequency)


def train_vocab_fast(
    vocab: Mapping[tuple[str, ...], int],
    num_merges: int,
    tie_break: str = "largest",
    *,
    min_frequency: int = 1,
) -> list[Pair]:
    """:func:`bpe_ref.train_vocab` done incrementally: the same merges, on a vocab of symbol tuples.

    Args:
        vocab: a dict mapping non-empty tuples of non-empty str symbols to positive int counts (not changed).
        num_merges: the maximum number of merges, an int ``>= 0``.
        tie_break: ``"largest"`` (default), ``"smallest"`` or ``"first"``.
        min_frequency: stop once the best pair occurs fewer times than this, an int ``>= 1`` (default 1: never).

    Returns:
        A new list of ``(str, str)`` merges in the order learned.

    Raises:
        TypeError / ValueError: as :func:`bpe_ref.train_vocab`, or a bad ``min_frequency``.

    Example:
        >>> train_vocab_fast({("a", "b", "</w>"): 1}, 5, "first")
        [('a', 'b'), ('ab', '</w>')]
    """
    check.vocab("vocab", vocab)
    check.num_merges("num_merges", num_merges)
    check.tie_break(tie_break)
    check_min_frequency(min_frequency)
    return _train(list(vocab), list(vocab.values()), num_merges, tie_break, min_frequency)


def train_plain(
    word_freqs: Mapping[str, int],
    num_merges: int,
    tie_break: str = "largest",
    *,
    marker: str = "separate",
    min_frequency: int = 1,
) -> list[Pair]:
    """The readable reference for :func:`train_fast`: the plain loop of :func:`bpe_ref.train_vocab`, same arguments.

    Every round recounts all pairs (O(size of the vocab) per merge), so this is for checking and teaching, not for
    big corpora. It stops at the first round whose best pair occurs fewer than ``min_frequency`` times.

    Example:
        >>> train_plain({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 3, marker="attached")
        [('s', 't</w>'), ('e', 'st</w>'), ('l', 'o')]
    """
    vocab = _starting_vocab(word_freqs, num_merges, tie_break, marker, min_frequency)
    merges = []
    for step in bpe.train_rounds(vocab, num_merges, tie_break):
        if step.count < min_frequency:
            break
        merges.append(step.pair)
    return merges


def _starting_vocab(
    word_freqs: Mapping[str, int], num_merges: int, tie_break: str, marker: str, min_frequency: int
) -> bpe.Vocab:
    """Check the arguments of :func:`train_fast` / :func:`train_plain`; the vocab both start from."""
    check.word_counts("word_freqs", word_freqs)
    check.num_merges("num_merges", num_merges)
    check.tie_break(tie_break)
    check_marker(marker)
    check_min_frequency(min_frequency)
    return bpe.vocab_from_words(word_freqs, *bpe.MARKER_STYLES[marker])


# ---------------------------------------------------------------------------------------------------------------
# the trainers
# ---------------------------------------------------------------------------------------------------------------


def _train(
    words: list[tuple[str, ...]], freqs: list[int], num_merges: int, tie_break: str, min_frequency: int
) -> list[Pair]:
    if num_merges == 0:
        return []
    if tie_break == "first":
        return _train_first(words, freqs, num_merges, min_frequency)
    return train_incremental(words, freqs, num_merges, tie_break == "largest", min_frequency)


def _reverse(symbol: str) -> tuple[int, ...]:
    """A key whose order is the reverse of ``symbol``'s order among strs.

    Each code point c becomes -c (reversing the order of characters), and a 1, larger than every -c, is appended so
    that a prefix sorts *after* its extensions, as a larger str would.

    >>> sorted(["a", "ab", "b", "</w>"], key=_reverse)
    ['b', 'ab', 'a', '</w>']
    """
    return (*[-ord(c) for c in symbol], 1)


def train_incremental(
    words_in: list[tuple[str, ...]], freqs: list[int], num_merges: int, largest: bool, min_frequency: int
) -> list[Pair]:
    """The incremental trainer behind :func:`train_fast` (tie-break ``"largest"`` or ``"smallest"``) and 06's
    ``train_fast``: pair counts kept up to date merge by merge, the best pair taken from a heap.

    Args:
        words_in: each word as its symbols (str); not validated, not changed.
        freqs: each word's count (``freqs[i]`` for ``words_in[i]``).
        num_merges: at most this many merges.
        largest: ties go to the largest pair if true, else to the smallest.
        min_frequency: stop before a pair counted fewer times.

    Returns:
        The merges in order, as pairs of symbols.

    Example:
        >>> train_incremental([("h", "u", "g"), ("p", "u", "g")], [10, 5], 2, True, 1)
        [('u', 'g'), ('h', 'ug')]

    Source: the incremental statistics of ``subword-nmt``'s ``learn_bpe.py`` (Sennrich et al. 2016).

    The heap key depends on the count and the pair only.
    For speed, symbols are ints (``names[i]`` is the str) and a pair ``(a, b)`` is the int ``a << shift | b``. The
    pair -> words index is lazy: a word is appended when it gains a pair and never removed, so a merge may visit a
    word that no longer holds its pair (or visit a word twice); such a visit finds nothing to merge and changes
    nothing.
    """
    ids: dict[str, int] = {}
    names: list[str] = []
    words: list[list[int]] = []
    for symbols in words_in:
        word = []
        for symbol in symbols:
            number = ids.get(symbol)
            if number is None:
                number = ids[symbol] = len(names)
                names.append(symbol)
            word.append(number)
        words.append(word)
    # room for every symbol that can exist: the initial ones plus one per merge
    shift = (len(names) + min(num_merges, sum(map(len, words)))).bit_length()
    mask = (1 << shift) - 1

    counts: defaultdict[int, int] = defaultdict(int)
    where: defaultdict[int, list[int]] = defaultdict(list)
    for index, word in enumerate(words):
        freq = freqs[index]
        for a, b in zip(word, word[1:]):
            key = a << shift | b
            counts[key] += freq
            where[key].append(index)

    # heap entries are (-count, order key of the left symbol, of the right symbol, pair); the pair never decides
    # (the symbols' order keys: _reverse's for "largest", else the symbols themselves, the very list of names)
    order: list[Any] = [_reverse(name) for name in names] if largest else names
    # a pair below min_frequency never gets an entry (it could not be chosen); it gets one if its count ever rises
    heap = [(-c, order[key >> shift], order[key & mask], key) for key, c in counts.items() if c >= min_frequency]
    heapq.heapify(heap)
    heappop, heappush = heapq.heappop, heapq.heappush

    merges: list[Pair] = []
    while len(merges) < num_merges:
        while heap:  # lazy deletion: skip entries whose count is out of date
            entry = heappop(heap)
            key = entry[3]
            count = counts.get(key)
            if count == -entry[0]:
                break
            if count is not None and min_frequency <= count < -entry[0]:  # decreased since: queue its count now
                heappush(heap, (-count, entry[1], entry[2], key))
        else:
            break
        if -entry[0] < min_frequency:
            break
        x, y = key >> shift, key & mask
        merges.append((names[x], names[y]))
        name = names[x] + names[y]
        xy = ids.get(name)  # the joined symbol may exist already (an initial symbol, or made by another split)
        if xy is None:
            xy = ids[name] = len(names)
            names.append(name)
            if largest:
                order.append(_reverse(name))
        xy_left = xy << shift
        same = x == y

        delta: defaultdict[int, int] = defaultdict(int)
        for index in where.pop(key):
            word = words[index]
            remaining = word.count(x)  # occurrences of x still to look at (no exception-driven loop)
            if remaining == 1:  # the common case, straight through: a x y b -> a xy b
                i = word.index(x)
                after = i + 2
                size = len(word)
                if after > size or word[i + 1] != y:
                    continue
                freq = freqs[index]
                if i:
                    a = word[i - 1]
                    delta[a << shift | x] -= freq
                    left = a << shift | xy
                    delta[left] += freq
                    where[left].append(index)
                if after < size:
                    b = word[after]
                    delta[y << shift | b] -= freq
                    right = xy_left | b
                    delta[right] += freq
                    where[right].append(index)
                word[i:after] = (xy,)
                continue
            if not remaining:
                continue
            last = len(word) - 1
            i = start = 0
            new: list[int] | None = None
            while remaining:
                i = word.index(x, i)
                remaining -= 1
                if i == last:
                    break
                if word[i + 1] != y:
                    i += 1
                    continue
                if new is None:
                    new = word[:i]
                    freq = freqs[index]
                else:
                    new += word[start:i]
                if new:  # a x y -> a xy; a may be an xy made just before
                    delta[word[i - 1] << shift | x] -= freq
                    left = new[-1] << shift | xy
                    delta[left] += freq
                    where[left].append(index)
                after = i + 2
                if same:  # y was an x too
                    remaining -= 1
                if after <= last:  # x y b -> xy b, unless b x... starts the next occurrence (handled there)
                    b = word[after]
                    if b != x or after == last or word[after + 1] != y:
                        delta[y << shift | b] -= freq
                        right = xy_left | b
                        delta[right] += freq
                        where[right].append(index)
                new.append(xy)
                i = start = after
            if new is not None:
                new += word[start:]
                words[index] = new

        del counts[key]  # every occurrence is merged: the pair is gone
        delta.pop(key, None)
        for other, change in delta.items():
            if change:
                count = counts[other] + change
                if count:
                    counts[other] = count
                    if change > 0 and count >= min_frequency:  # a decrease is queued when its entry comes up
                        heappush(heap, (-count, order[other >> shift], order[other & mask], other))
                else:
                    del counts[other]
    return merges


def _first_offsets(word: list[str]) -> tuple[dict[Pair, int], list[Pair]]:
    """The character offset of the first occurrence of each pair of ``word``, and all its pair occurrences."""
    first: dict[Pair, int] = {}
    pairs = list(zip(word, word[1:]))
    offset = 0
    for pair in pairs:
        if pair not in first:
            first[pair] = offset
        offset += len(pair[0])
    return first, pairs


def _train_first(words_in: list[tuple[str, ...]], freqs: list[int], num_merges: int, min_frequency: int) -> list[Pair]:
    """Tie-break ``"first"``: the heap key is ``(-count, word index, character offset)`` of the first occurrence.

    The pair -> words index is exact here (a word is removed when it loses its last occurrence of a pair), so that
    the next first occurrence of a pair is ``min(where[pair])``.
    """
    words = [list(w) for w in words_in]
    counts: defaultdict[Pair, int] = defaultdict(int)
    where: defaultdict[Pair, set[int]] = defaultdict(set)
    first: dict[Pair, tuple[int, int]] = {}
    for index, word in enumerate(words):
        freq = freqs[index]
        offsets, pairs = _first_offsets(word)
        for pair in pairs:
            counts[pair] += freq
        for pair, offset in offsets.items():
            where[pair].add(index)
            if pair not in first:
                first[pair] = (index, offset)
    heap = [(-c, *first[p], p) for p, c in counts.items()]
    heapq.heapify(heap)
    heappop, heappush = heapq.heappop, heapq.heappush

    merges: list[Pair] = []
    while len(merges) < num_merges:
        while heap:
            negcount, index, offset, pair = heappop(heap)
            if counts.get(pair) == -negcount and first[pair] == (index, offset):
                break
        else:
            break
        if -negcount < min_frequency:
            break
        merges.append(pair)
        x, y = pair
        xy = x + y

        delta: defaultdict[Pair, int] = defaultdict(int)
        moved: set[Pair] = set()  # pairs whose first occurrence changed
        lost: set[Pair] = set()  # pairs whose first occurrence was in a word that no longer holds them
        for index in where.pop(pair):
            old = words[index]
            new = bpe.merge_pair(old, pair, xy)
            words[index] = new
            freq = freqs[index]
            old_first, old_pairs = _first_offsets(old)
            new_first, new_pairs = _first_offsets(new)
            for other in old_pairs:
                delta[other] -= freq
            for other in new_pairs:
                delta[other] += freq
            for other, offset in new_first.items():
                if other not in old_first:
                    where[other].add(index)
                known = first.get(other)
                if known is None or known[0] == index or (index, offset) < known:
                    if known != (index, offset):
                        first[other] = (index, offset)
                        moved.add(other)
            for other in old_first:
                if other not in new_first:
                    where[other].discard(index)
                    if first[other][0] == index:
                        lost.add(other)

        del counts[pair], first[pair]
        delta.pop(pair, None)
        lost.discard(pair)
        moved.discard(pair)
        for other in lost:
            holders = where.get(other)
            if holders:
                index = min(holders)
                first[other] = (index, _first_offsets(words[index])[0][other])
                moved.add(other)
        for other, change in delta.items():
            if change:
                count = counts[other] + change
                if count:
                    counts[other] = count
                    moved.add(other)
                else:
                    del counts[other], first[other]
                    where.pop(other, None)
                    moved.discard(other)
        for other in moved:
            heappush(heap, (-counts[other], *first[other], other))
    return merges

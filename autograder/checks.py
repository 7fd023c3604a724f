"""Hidden checks: one per graded function of the four assignments, each comparing a learner's function with bpe_ref.

A notebook's hidden test is a one-line call, for example ``check_merge(merge, "overlaps")``. A check
returns ``None`` when every case passes (nbgrader then gives the cell its points) and raises
:class:`~bpe_lab.harness.CheckFailed` with a three-line message naming the smallest failing input
otherwise. Checks are deterministic and accept any correct style: a ``Counter`` or ``defaultdict``
where a dict is asked is a dict; a tuple where a list is asked is a sequence.

The ``part`` argument chooses the group of cases, so that one notebook can give partial credit:
``"basic"`` is the main behaviour on ordinary inputs; the other parts are the conventions of the spec.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import bpe_ref
from bpe_lab.harness import DEFAULT_TIME_LIMIT, Case, CheckFailed, Described, as_pair, show

from . import cases as gen
from .spec import ALL, GRADER_JUDGES, Part, Spec, run_spec

__all__ = [
    "SPECS",
    "CheckFailed",
    "check_apply_bpe",
    "check_best_pair",
    "check_bpe_train",
    "check_count_pairs",
    "check_counterexample",
    "check_encode",
    "check_get_pair_counts",
    "check_learn_bpe",
    "check_merge",
    "check_merge_vocab",
    "check_train_bpe",
]


def _sized(build: Callable[[], list[Case]]) -> Callable[[], list[Case]]:
    """A part's cases with their size filled in (:func:`autograder.cases.sized`), built when the part runs."""
    return lambda: gen.sized(build())


# ---------------------------------------------------------------------------------------------------------------
# 01_pair_counts_and_merge
# ---------------------------------------------------------------------------------------------------------------


def check_get_pair_counts(fn: Callable[..., Any], part: str = "basic", time_limit: float = DEFAULT_TIME_LIMIT) -> None:
    """Check ``get_pair_counts(ids)`` against :func:`bpe_ref.get_pair_counts`.

    Parts: ``"basic"``, the counts and their order (keys in order of first occurrence) on lists with no two equal
    neighbours; ``"overlaps"``, overlapping pairs and lists of length 0 and 1 (the order is not judged there, so
    that an order mistake is filed under the part that states the order).

    Raises:
        CheckFailed: the smallest input on which ``fn`` is wrong, with the expected and returned values.

    Example:
        >>> check_get_pair_counts(bpe_ref.get_pair_counts, "overlaps")
    """
    __tracebackhide__ = True
    run_spec(GET_PAIR_COUNTS, fn, part, time_limit)


GET_PAIR_COUNTS = Spec(
    "get_pair_counts",
    bpe_ref.get_pair_counts,
    ("mapping", {"fresh": True}),
    {
        "basic": Part(_sized(lambda: gen.pair_count_cases("basic")), ("mapping", {"order": True, "fresh": True})),
        "overlaps": Part(_sized(lambda: gen.pair_count_cases("overlaps"))),
    },
)


def check_merge(fn: Callable[..., Any], part: str = "basic", time_limit: float = DEFAULT_TIME_LIMIT) -> None:
    """Check ``merge(ids, pair, new_id)`` against :func:`bpe_ref.merge`.

    Parts: ``"basic"``, pairs of two different ids (no overlaps), multi-digit ids among them (``[21, 2]``
    holds no pair ``(1, 2)``, which a ``str.replace`` on the joined ids gets wrong); ``"overlaps"``, runs such as
    ``[5, 5, 5]``, lists of length 0 and 1 and a ``new_id`` equal to an id of the list. Every part fails a
    function that changes ``ids`` or returns it instead of a new list.

    Raises:
        CheckFailed: the smallest input on which ``fn`` is wrong.

    Example:
        >>> check_merge(bpe_ref.merge, "overlaps")
    """
    __tracebackhide__ = True
    run_spec(MERGE, fn, part, time_limit)


MERGE = Spec(
    "merge",
    bpe_ref.merge,
    ("sequence", {"fresh": True}),
    {part: Part(_sized(lambda part=part: gen.merge_cases(part))) for part in ("basic", "overlaps")},
)


# ---------------------------------------------------------------------------------------------------------------
# 02_training_loop
# ---------------------------------------------------------------------------------------------------------------


@gen.memo
def _vocab_cases(part: str, seed: int) -> list[Case]:
    rng = random.Random(seed)
    out = []
    for _ in range(250):
        words = gen.random_words(rng, "abc" if part != "basic" else "abcdef", 4, 5, 1 if part == "basic" else 7)
        if part == "basic":
            # distinct letters inside a word: no overlaps, every count 1
            words = {"".join(dict.fromkeys(w)): 1 for w in words}
        out.append(Case((gen.vocab_of(words),)))
    return gen.generated(out)


def _v(*words: str, count: int = 1) -> dict[tuple[str, ...], int]:
    """A vocab of space-separated words, each with ``count``: ``_v("a b </w>")``."""
    return {tuple(w.split()): count for w in words}


COUNT_PAIRS_FIXED = {
    "basic": [
        Case(({("l", "o", "w", "</w>"): 1, ("n", "e", "w", "</w>"): 1},)),
        Case((_v("a b </w>"),)),
        Case((_v("a b </w>", "c d </w>"),)),
        Case((_v("a </w>", "b </w>"),)),
    ],
    "weighted": [
        Case(({("a", "a", "</w>"): 5, ("a", "b", "</w>"): 1},)),
        Case(({("a", "b", "</w>"): 3},)),
        Case(({("a", "a", "a", "</w>"): 2},)),
        Case(({("a", "a", "a", "</w>"): 1},)),
        Case(({("l", "o", "w", "</w>"): 5, ("l", "o", "w", "e", "r", "</w>"): 2},)),
        Case(({("b", "</w>"): 2, ("a", "b", "</w>"): 3},)),
    ],
}


def check_count_pairs(fn: Callable[..., Any], part: str = "basic", time_limit: float = DEFAULT_TIME_LIMIT) -> None:
    """Check ``count_pairs(vocab)`` against :func:`bpe_ref.count_pairs` (dict equality; order not judged).

    Parts: ``"basic"``, every word counted once and no repeated pair inside a word; ``"weighted"``, counts
    above one, repeated and overlapping pairs, the same pair in several words.

    Example:
        >>> check_count_pairs(bpe_ref.count_pairs, "weighted")
    """
    __tracebackhide__ = True
    run_spec(COUNT_PAIRS, fn, part, time_limit)


COUNT_PAIRS = Spec(
    "count_pairs",
    bpe_ref.count_pairs,
    ("mapping", {"fresh": True}),
    {
        part: Part(_sized(lambda part=part: COUNT_PAIRS_FIXED[part] + _vocab_cases(part, gen.SEED + 20)))
        for part in ("basic", "weighted")
    },
)


MERGE_VOCAB_FIXED = {
    "basic": [
        Case((("u", "g"), _v("h u g </w>", "b u n </w>", count=9))),
        Case(
            (("a", "b"), _v("a b </w>")),
        ),
        Case((("a", "b"), _v("c d </w>"))),
        Case((("a", "b"), _v("a b </w>", "c </w>"))),
    ],
    "edge": [
        Case((("a", "a"), {("a", "a", "a", "</w>"): 2, ("b", "</w>"): 1})),
        Case((("a", "a"), _v("a a a </w>"))),
        Case((("a", "b"), {("a", "b", "</w>"): 2, ("ab", "</w>"): 3})),
        Case((("a", "b"), {("ab", "</w>"): 3, ("a", "b", "</w>"): 2, ("c", "</w>"): 1})),
        Case((("c", "</w>"), {("a", "c", "</w>"): 4, ("b", "c", "</w>"): 1})),
        Case((("b", "</w>"), _v("a b </w>"))),
        Case((("a", "b"), {("ca", "b", "</w>"): 3, ("a", "b", "</w>"): 1})),
        Case((("a", "b"), _v("ca b </w>"))),
        Case((("b", "</w>"), {("ab", "</w>"): 2, ("b", "</w>"): 1})),
        Case((("a", "a"), {("aa", "a", "a", "</w>"): 1})),
    ],
}


@gen.memo
def _merge_vocab_cases(part: str) -> list[Case]:
    rng = random.Random(gen.SEED + 21)
    cases = []
    for case in _vocab_cases(part, gen.SEED + 22):
        (vocab,) = case.args
        pairs = sorted({p for word in vocab for p in zip(word, word[1:])})
        pair = rng.choice(pairs) if pairs else ("a", "b")
        cases.append(Case((pair, vocab)))
    if part == "edge":
        for _ in range(150):  # vocabs in the middle of training: a few merges already made
            vocab = gen.vocab_of(gen.random_words(rng, "ab", 4, 6, 7))
            for _ in range(rng.randint(1, 4)):
                pairs = sorted({p for word in vocab for p in zip(word, word[1:])})
                vocab = bpe_ref.merge_vocab(rng.choice(pairs), vocab) if pairs else vocab
            pairs = sorted({p for word in vocab for p in zip(word, word[1:])})
            if pairs:
                cases.append(Case((rng.choice(pairs), vocab)))
    return cases


def check_merge_vocab(fn: Callable[..., Any], part: str = "basic", time_limit: float = DEFAULT_TIME_LIMIT) -> None:
    """Check ``merge_vocab(pair, vocab)`` against :func:`bpe_ref.merge_vocab`.

    Parts: ``"basic"``, a pair that occurs at most once per word; ``"edge"``, overlapping occurrences
    (``a a a``), pairs with the marker, words that become equal and must add their counts, and
    multi-letter symbols as training makes them (``("ca", "b")`` holds no pair ``("a", "b")``, which a
    ``str.replace`` on the joined word gets wrong). Every part fails a function that changes ``vocab`` or
    returns it instead of a new dict.

    Example:
        >>> check_merge_vocab(bpe_ref.merge_vocab, "edge")
    """
    __tracebackhide__ = True
    run_spec(MERGE_VOCAB, fn, part, time_limit)


MERGE_VOCAB = Spec(
    "merge_vocab",
    bpe_ref.merge_vocab,
    ("mapping", {"fresh": True}),
    {
        part: Part(_sized(lambda part=part: MERGE_VOCAB_FIXED[part] + gen.generated(_merge_vocab_cases(part))))
        for part in ("basic", "edge")
    },
)


def _trainer_cases(part: str, seed: int, fixed: list[Case]) -> list[Case]:
    if part == "basic":
        return fixed + gen.corpus_cases(seed, 120, alphabet="abcde", max_merges=6)
    return gen.corpus_cases(seed + 1, 150, alphabet="ab", max_merges=10) + [
        Case(({"aaaa": 3}, 5)),
        Case(({"ab": 1, "ba": 1}, 0)),
        Case(({"a": 4}, 3)),
        Case(({"ab": 2, "cd": 2}, 9)),
    ]


@gen.memo
def _untied_corpora(seed: int, count: int) -> list[Case]:
    """``(word_freqs, num_merges)`` on which every round has one most frequent pair and pairs never run out."""
    rng = random.Random(seed)
    out: list[Case] = []
    while len(out) < count:
        words = gen.random_words(rng, "abcd", 8, 6, 99)
        rounds = bpe_ref.train_trace(words, 6)
        untied = next((i for i, step in enumerate(rounds) if step.tied), len(rounds))
        if untied >= 2:  # the rounds before the first tie; at least two, so that a merge changes the counts
            merges = rng.randint(2, untied)
            out.append(Case((words, merges)))
    return gen.generated(out)


TRAIN_BPE_FIXED = {
    "basic": [
        Case(({"hug": 9, "pug": 8, "hugs": 7, "bun": 6}, 4), "the text's worked example"),
        Case(({"hug": 9, "pug": 8, "hugs": 7, "bun": 6}, 2), "the text's worked example"),
        Case(({"b": 1, "ab": 3}, 2)),
    ],
    "edge": [
        Case(({"aa": 5, "ab": 1}, 1)),
        Case(({"aa": 5, "ab": 1}, 10)),
        Case(({"ab": 1, "ba": 1}, 1)),
        Case(({"ab": 1}, 2)),
        Case(({"baa": 1, "bba": 1}, 2)),
        Case(({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10)),
        Case(({"newest": 6, "widest": 3, "estate": 4, "tester": 3}, 4)),
    ],
}


def check_train_bpe(fn: Callable[..., Any], part: str = "basic", time_limit: float = DEFAULT_TIME_LIMIT) -> None:
    """Check ``train_bpe(word_freqs, num_merges)`` against :func:`bpe_ref.train_bpe` (marker, largest tie-break).

    Parts: ``"basic"``, the loop itself: corpora on which every round has a single most frequent pair and
    the pairs never run out, so that neither the tie-break nor the early stop matters; ``"edge"``, ties
    (the largest pair wins: ``{"aa": 5, "ab": 1}``), two-letter corpora full of ties and runs,
    ``num_merges == 0`` and more merges than the corpus allows (early stop).

    Example:
        >>> check_train_bpe(bpe_ref.train_bpe, "edge")
    """
    __tracebackhide__ = True
    run_spec(TRAIN_BPE, fn, part, time_limit)


TRAIN_BPE = Spec(
    "train_bpe",
    bpe_ref.train_bpe,
    ("sequence", {"of_pairs": True}),
    {
        "basic": Part(_sized(lambda: TRAIN_BPE_FIXED["basic"] + _untied_corpora(gen.SEED + 30, 120))),
        "edge": Part(_sized(lambda: TRAIN_BPE_FIXED["edge"] + _trainer_cases("edge", gen.SEED + 30, []))),
    },
)


# ---------------------------------------------------------------------------------------------------------------
# 03_tie_breaks
# ---------------------------------------------------------------------------------------------------------------


@gen.memo
def _pair_count_dicts(seed: int) -> list[Case]:
    rng = random.Random(seed)
    symbols = ["a", "b", "c", "ab", "</w>", "b</w>", "B"]
    out = []
    for _ in range(200):
        size = rng.randint(1, 6)
        pairs = list(dict.fromkeys((rng.choice(symbols), rng.choice(symbols)) for _ in range(size)))
        top = rng.randint(1, 4)
        counts = {p: rng.randint(1, top) for p in pairs}
        out.append(Case((counts,)))
    return gen.generated(out)


BEST_PAIR_FIXED = [
    # the text's example, and the count before the pair
    {("s", "t"): 9, ("e", "s"): 9, ("l", "o"): 7},
    {("e", "s"): 1, ("l", "o"): 7},
    {("a", "b"): 1, ("b", "a"): 2},
    {("l", "o"): 7, ("s", "t"): 9, ("e", "s"): 9},
    {("a", "b"): 1, ("c", "d"): 2, ("b", "a"): 2},
    # code points: "</w>" before letters, capitals before small letters
    {("a", "b"): 3, ("a", "</w>"): 3},
    {("a", "</w>"): 3, ("a", "b"): 3},
    {("B", "a"): 2, ("a", "b"): 2},
    {("a", "b"): 2, ("B", "a"): 2},
    # Joined strings tie ("ab</w>" twice) or order the other way ("aba" < "ac"); each in both dict orders, so
    # that a comparison of joined strings fails whichever of two equal keys max()/min() keeps.
    {("a", "b</w>"): 2, ("ab", "</w>"): 2},
    {("ab", "</w>"): 2, ("a", "b</w>"): 2},
    {("a", "c"): 2, ("ab", "a"): 2},
    {("ab", "a"): 2, ("a", "c"): 2},
]


def check_best_pair(fn: Callable[..., Any], tie_break: str = "largest", time_limit: float = DEFAULT_TIME_LIMIT) -> None:
    """Check ``best_pair(pair_counts, tie_break)`` for one tie-break against :func:`bpe_ref.best_pair`.

    The cases are small dicts full of ties, with multi-letter symbols, capitals and ``"</w>"`` (which sorts
    before letters), so comparing joined strings instead of tuples, or letters without their case, is caught.

    Example:
        >>> check_best_pair(bpe_ref.best_pair, "first")
    """
    __tracebackhide__ = True
    run_spec(BEST_PAIR, fn, tie_break, time_limit)


def _best_pair_cases(tie_break: str) -> list[Case]:
    seeds = {"largest": 31, "smallest": 32, "first": 33}
    cases = [Case((counts, tie_break)) for counts in BEST_PAIR_FIXED]
    return cases + [Case((c.args[0], tie_break)) for c in _pair_count_dicts(gen.SEED + seeds[tie_break])]


BEST_PAIR = Spec(
    "best_pair",
    bpe_ref.best_pair,
    ("pair", {}),
    {tie_break: Part(_sized(lambda t=tie_break: _best_pair_cases(t))) for tie_break in bpe_ref.TIE_BREAKS},
)


LEARN_BPE_FIXED = {
    "basic": [
        Case(({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 4), "the text's worked example"),
        Case(({"baa": 1}, 1)),
        Case(({"ab": 1, "cb": 2}, 1)),
        Case(({"aaa": 2, "bc": 3}, 1)),
        Case(({"ab": 3, "abab": 1}, 2)),
    ],
    "edge": [
        Case(({"ab": 1}, 0)),
        Case(({"a": 4, "b": 1}, 3)),
        Case(({"ab": 1}, 2)),
        Case(({"ab": 1, "c": 5}, 1)),
        Case(({"aaa": 1}, 2)),
        Case(({"aaaa": 3}, 5)),
    ],
}


def check_learn_bpe(fn: Callable[..., Any], part: str = "basic", time_limit: float = DEFAULT_TIME_LIMIT) -> None:
    """Check ``learn_bpe(word_counts, merges)`` against :func:`bpe_ref.learn_bpe` (no marker, smallest tie-break).

    Parts: ``"basic"``, the seed example and corpora over five letters on which every round after the first
    has one top pair and no round runs out of pairs (so the loop, the weighted counts, the merges and the
    tie-break of round one are judged); ``"edge"``, two-letter corpora with ties in every round, runs,
    ``merges == 0`` and more merges than the corpus allows (early stop).

    Example:
        >>> check_learn_bpe(bpe_ref.learn_bpe, "edge")
    """
    __tracebackhide__ = True
    run_spec(LEARN_BPE, fn, part, time_limit)


@gen.memo
def _ordinary_corpora(seed: int, tie_break: str, *, marker: bool, count: int = 150) -> list[Case]:
    """Trainer inputs with no tie at the top after round one and a pair left for every merge asked.

    A tie in round one is settled the same way by a first-seen order kept across rounds and by one rebuilt
    every round, and over single letters comparing tuples and comparing joined strings agree; so on these
    inputs only the ``"edge"`` part tells such mistakes (and a missing early stop) apart from right code.
    """
    rng = random.Random(seed)
    out: list[Case] = []
    while len(out) < count:
        words = gen.random_words(rng, "abcde", 6, 7, 20)
        rounds = bpe_ref.train_trace(words, 10, tie_break, marker=marker)
        clear = next((i for i, r in enumerate(rounds) if i and r.tied), len(rounds))  # rounds before a late tie
        if clear == 0 or (clear == 1 and rng.random() < 0.9):  # mostly several rounds
            continue
        merges = clear if rng.random() < 0.7 else rng.randint(1, clear)
        out.append(Case((words, merges)))
    return gen.generated(out)


LEARN_BPE = Spec(
    "learn_bpe",
    bpe_ref.learn_bpe,
    ("sequence", {"of_pairs": True}),
    {
        "basic": Part(
            _sized(lambda: LEARN_BPE_FIXED["basic"] + _ordinary_corpora(gen.SEED + 40, "smallest", marker=False))
        ),
        "edge": Part(_sized(lambda: LEARN_BPE_FIXED["edge"] + _trainer_cases("edge", gen.SEED + 40, []))),
    },
)


def _split(case: Case) -> Case:
    words, merges = case.args
    return Case(({" ".join((*w, "</w>")): c for w, c in words.items()}, merges), case.note)


BPE_TRAIN_FIXED = {
    "basic": [
        Case(({"h u g </w>": 10, "p u g </w>": 5, "b u g </w>": 2}, 3), "the text's worked example"),
        Case(({"a </w>": 1}, 1)),
        Case(({"a </w>": 1, "b </w>": 2}, 1)),
        Case(({"a b a b </w>": 1, "a b </w>": 3}, 2)),
    ],
    "edge": [
        Case(({"a b </w>": 1, "c d </w>": 1}, 5)),
        Case(({"a b b </w>": 4}, 2)),
        Case(({"a b </w>": 1}, 0)),
        Case(({"a a a </w>": 1}, 3)),
        Case(({"a b </w>": 3, "ab </w>": 1, "c c </w>": 3}, 2)),
    ],
}


def check_bpe_train(fn: Callable[..., Any], part: str = "basic", time_limit: float = DEFAULT_TIME_LIMIT) -> None:
    """Check ``bpe_train(word_freqs, num_merges)`` against :func:`bpe_ref.bpe_train` (pre-split words, first seen).

    Parts as :func:`check_learn_bpe`; the words are given as space-separated symbols with ``"</w>"``. The first
    seed example is in ``"basic"``; the second, which stops early, in ``"edge"``. In ``"edge"`` a first-seen
    order that is not rebuilt every round fails (``bpe_train({"a b b </w>": 4}, 2)`` is one such input).

    Example:
        >>> check_bpe_train(bpe_ref.bpe_train, "edge")
    """
    __tracebackhide__ = True
    run_spec(BPE_TRAIN, fn, part, time_limit)


BPE_TRAIN = Spec(
    "bpe_train",
    bpe_ref.bpe_train,
    ("sequence", {"of_pairs": True}),
    {
        "basic": Part(
            _sized(
                lambda: (
                    BPE_TRAIN_FIXED["basic"]
                    + [_split(c) for c in _ordinary_corpora(gen.SEED + 50, "first", marker=True)]
                )
            )
        ),
        "edge": Part(
            _sized(lambda: BPE_TRAIN_FIXED["edge"] + [_split(c) for c in _trainer_cases("edge", gen.SEED + 50, [])])
        ),
    },
)


# ---------------------------------------------------------------------------------------------------------------
# 04_apply_bpe
# ---------------------------------------------------------------------------------------------------------------


@gen.memo
def _table_cases(seed: int, marker: bool) -> list[Case]:
    """Words with merge tables: trained on a small corpus, then applied to other words."""
    rng = random.Random(seed)
    out = []
    for _ in range(150):
        words = gen.random_words(rng, "abc", 4, 6, 5)
        table = bpe_ref.train_bpe(words, rng.randint(0, 8)) if marker else bpe_ref.learn_bpe(words, rng.randint(0, 8))
        word = "".join(rng.choice("abc") for _ in range(rng.randint(1, 7)))
        out.append(Case((word, table)))
    return gen.generated(out)


@gen.memo
def _hand_made_tables(seed: int, symbols: list[str]) -> list[Case]:
    rng = random.Random(seed)
    out = []
    for _ in range(200):
        table = [(rng.choice(symbols), rng.choice(symbols)) for _ in range(rng.randint(1, 6))]
        word = "".join(rng.choice("ab") for _ in range(rng.randint(1, 6)))
        out.append(Case((word, table)))
    return gen.generated(out)


_LEARNED = [("e", "s"), ("es", "t"), ("l", "o"), ("lo", "w")]  # learn_bpe's rules of the worked example

APPLY_BPE_FIXED = {
    "basic": [
        Case(("abc", [("a", "b"), ("ab", "c")]), "the text's example"),
        Case(("ab", [])),
        Case(("ab", [("a", "b")])),
        Case(("é", [])),
        Case(("a b", [("a", "b")])),
        Case(("aaa", [("a", "a")])),
        Case(("abc", [("a", "b"), ("a", "bc")])),
        Case(("abc", [("ab", "c")])),
    ],
    "rank": [
        Case(("abc", [("ab", "c"), ("a", "b")])),
        Case(("abcd", [("bc", "d"), ("c", "d"), ("b", "c")])),
        Case(("aaa", [("aa", "a"), ("a", "a")])),
        # merging only the leftmost "a a" lets ("aa", "a") in between: ["aaa", "a", "</w>"]
        Case(("aaaa", [("aa", "a"), ("a", "a")])),
        Case(("ab", [("b", "</w>"), ("a", "b"), ("a", "b</w>")])),
        Case(("ab", [("b", "</w>"), ("a", "b</w>")])),
        Case(("abab", [("a", "b"), ("b", "a"), ("a", "b")])),
        Case(("bab", [("a", "b"), ("b", "a"), ("a", "b")])),
        Case(("bab", [("b", "a"), ("a", "b"), ("b", "a")])),
        Case(("abcab", [("c", "a"), ("b", "c"), ("a", "b"), ("ab", "c"), ("c", "a")])),
    ],
}


def check_apply_bpe(fn: Callable[..., Any], part: str = "basic", time_limit: float = DEFAULT_TIME_LIMIT) -> None:
    """Check ``apply_bpe(word, merges)`` against :func:`bpe_ref.apply_bpe` (by rank, with the marker).

    Parts: ``"basic"``, tables trained by ``train_bpe`` applied to new words, and the conventions of symbols
    (characters, the marker, empty tables, pairs not in the table); ``"rank"``, hand-made tables on which
    merging by rank differs from replaying in order, pairs listed twice (the first rank counts) and merges
    with ``"</w>"``.

    Example:
        >>> check_apply_bpe(bpe_ref.apply_bpe, "rank")
    """
    __tracebackhide__ = True
    run_spec(APPLY_BPE, fn, part, time_limit)


APPLY_BPE = Spec(
    "apply_bpe",
    bpe_ref.apply_bpe,
    ("sequence", {}),
    {
        "basic": Part(_sized(lambda: APPLY_BPE_FIXED["basic"] + _table_cases(gen.SEED + 60, marker=True))),
        "rank": Part(
            _sized(
                lambda: (
                    APPLY_BPE_FIXED["rank"]
                    + _hand_made_tables(gen.SEED + 61, ["a", "b", "ab", "ba", "aa", "b</w>", "</w>"])
                )
            )
        ),
    },
)


ENCODE_FIXED = {
    "basic": [
        Case(("lowest", _LEARNED), "the text's worked example"),
        Case(("newest", _LEARNED)),
        # learn_bpe({"bc": 2, "ab": 1}, 2): the rule order matters even on a trained table (a sweep gives ab c)
        Case(("abc", [("b", "c"), ("a", "b")])),
        Case(("ab", [("a", "b")])),
        Case(("é", [])),
        Case(("a b", [("a", "b")])),
        Case(("aaa", [("a", "a")])),
    ],
    "replay": [
        Case(("xyz", _LEARNED)),
        Case(("abc", [("ab", "c"), ("a", "b")])),
        Case(("aaa", [("aa", "a"), ("a", "a")])),
        Case(("aaaa", [("a", "a"), ("a", "a")])),
        Case(("abc", [("ab", "c"), ("a", "b"), ("ab", "c")])),
        Case(("abcd", [("bc", "d"), ("c", "d"), ("b", "c")])),
    ],
}


def check_encode(fn: Callable[..., Any], part: str = "basic", time_limit: float = DEFAULT_TIME_LIMIT) -> None:
    """Check ``encode(word, rules)`` against :func:`bpe_ref.encode` (replay in learned order, no marker).

    Parts: ``"basic"``, rules learned by ``learn_bpe`` applied to new words, and the conventions of symbols;
    ``"replay"``, hand-made tables on which replay differs from merging by rank, rules listed twice (two turns)
    and words no rule touches.

    Example:
        >>> check_encode(bpe_ref.encode, "replay")
    """
    __tracebackhide__ = True
    run_spec(ENCODE, fn, part, time_limit)


ENCODE = Spec(
    "encode",
    bpe_ref.encode,
    ("sequence", {}),
    {
        "basic": Part(_sized(lambda: ENCODE_FIXED["basic"] + _table_cases(gen.SEED + 70, marker=False))),
        "replay": Part(
            _sized(
                lambda: ENCODE_FIXED["replay"] + _hand_made_tables(gen.SEED + 71, ["a", "b", "ab", "ba", "aa", "bb"])
            )
        ),
    },
)


# "abab": the first merge gives ab ab, so a table built from the third character, [("ab", "a"), ("a", "b")], agrees
COUNTEREXAMPLE_WORDS = ("abc", "low", "aaa", "abab", "hug", "banana", "tokenizer", "xy z", "ééé")


def check_counterexample(fn: Callable[..., Any], time_limit: float = DEFAULT_TIME_LIMIT) -> None:
    """Check ``disagreeing_merges(word)``: it must return a merge table on which rank and replay disagree.

    For each word of :func:`counterexample_cases` (the public words, then words drawn with the seed, all of at
    least three characters), ``fn(word)`` must return a list of ``(str, str)`` pairs
    such that :func:`bpe_ref.rank_and_replay_disagree` is true for that word (both start from the
    characters, without the marker).

    Example:
        >>> def counterexample(w):  # the first merge, then a merge of its result listed ahead of it
        ...     symbols = bpe_ref.replay(list(w), [(w[0], w[1])])
        ...     return [(symbols[0], symbols[1]), (w[0], w[1])]
        >>> check_counterexample(counterexample)
    """
    __tracebackhide__ = True
    run_spec(COUNTEREXAMPLE, fn, ALL, time_limit)


def _disagreement(word: str) -> Described:
    """The expected answer of ``disagreeing_merges(word)``: any table of a kind, so it is described."""
    return Described(f"a merge table on which applying by rank and replaying split {word!r} differently")


def _judge_counterexample() -> Callable[[Any, Any, tuple], str | None]:
    """Right when :func:`bpe_ref.rank_and_replay_disagree` holds for the word and the returned table."""

    def judge(returned: Any, expected: Any, args: tuple) -> str | None:
        (word,) = args
        try:
            table = [as_pair(p) for p in returned]
            if bpe_ref.rank_and_replay_disagree(word, table):
                return None
            by_rank = bpe_ref.apply_ranked(tuple(word), bpe_ref.merge_ranks(table))
        except (TypeError, ValueError) as exc:
            return f"returned: {show(returned)}, not a merge table ({exc})"
        return f"returned: {show(table)}, on which both give {show(by_rank)}"

    return judge


GRADER_JUDGES["counterexample"] = _judge_counterexample

COUNTEREXAMPLE_ALPHABET = "abcé"


@gen.memo
def counterexample_cases(seed: int, count: int = 12) -> list[Case]:
    """The words of ``check_counterexample``: :data:`COUNTEREXAMPLE_WORDS` (public, in the learner's data), then
    ``count`` words of 3 to 8 characters drawn with ``seed`` (the student's while grading), so that a table of
    answers for the public words alone is not enough.

    Example:
        >>> [c.args for c in counterexample_cases(1)][:2]
        [('abc',), ('low',)]
    """
    rng = random.Random(seed)
    drawn = ["".join(rng.choice(COUNTEREXAMPLE_ALPHABET) for _ in range(rng.randint(3, 8))) for _ in range(count)]
    return gen.sized([Case((w,)) for w in COUNTEREXAMPLE_WORDS] + gen.generated([Case((w,)) for w in drawn]))


COUNTEREXAMPLE = Spec(
    "disagreeing_merges",
    _disagreement,
    ("counterexample", {}),
    {ALL: Part(lambda: counterexample_cases(gen.SEED + 80))},
    remember=False,
)

SPECS: dict[str, Spec] = {
    spec.function: spec
    for spec in (
        GET_PAIR_COUNTS,
        MERGE,
        COUNT_PAIRS,
        MERGE_VOCAB,
        TRAIN_BPE,
        BEST_PAIR,
        LEARN_BPE,
        BPE_TRAIN,
        APPLY_BPE,
        ENCODE,
        COUNTEREXAMPLE,
    )
}
"""The checks of assignments 01-04 as data, by graded function."""

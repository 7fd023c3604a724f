"""Hidden checks of 02_training_loop, each comparing a learner's function with :mod:`bpe_ref`.

Its graded functions: pair counts of a vocab, one merge of a vocab, and the training loop with the end-of-word marker.

A notebook's hidden test is a one-line call into this module (through :mod:`autograder.checks`), for example
``check_count_pairs(fn, ...)``. What a check returns and raises, and what ``part`` means, is said once in
:mod:`autograder.checks`. This module holds the specs (:class:`~autograder.checks.spec.Spec`) of the assignment's
graded functions and their case generators; it runs no process, reads no file and knows nothing of nbgrader.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import Any

import bpe_ref
from bpe_lab.harness import DEFAULT_TIME_LIMIT, Case, CheckFailed

from . import cases as gen
from .spec import Part, Spec, run_spec

__all__ = [
    "SPECS",
    "CheckFailed",
    "check_count_pairs",
    "check_merge_vocab",
    "check_train_bpe",
]


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


def _count_pairs_part(part: str) -> list[Case]:
    return COUNT_PAIRS_FIXED[part] + _vocab_cases(part, gen.SEED + 20)  # the seed of the moment


COUNT_PAIRS = Spec(
    "count_pairs",
    bpe_ref.count_pairs,
    ("mapping", {"fresh": True}),
    {part: Part(gen.sized_later(functools.partial(_count_pairs_part, part))) for part in ("basic", "weighted")},
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
def _merge_vocab_part(part: str) -> list[Case]:
    return MERGE_VOCAB_FIXED[part] + gen.generated(_merge_vocab_cases(part))


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
    {part: Part(gen.sized_later(functools.partial(_merge_vocab_part, part))) for part in ("basic", "edge")},
)


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
        "basic": Part(gen.sized_later(lambda: TRAIN_BPE_FIXED["basic"] + _untied_corpora(gen.SEED + 30, 120))),
        "edge": Part(gen.sized_later(lambda: TRAIN_BPE_FIXED["edge"] + gen.trainer_cases("edge", gen.SEED + 30, []))),
    },
)


SPECS: dict[str, Spec] = {spec.function: spec for spec in (COUNT_PAIRS, MERGE_VOCAB, TRAIN_BPE)}
"""The checks of assignment 02 as data, by graded function."""

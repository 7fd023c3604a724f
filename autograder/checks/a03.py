"""Hidden checks of 03_tie_breaks, each comparing a learner's function with :mod:`bpe_ref`.

Its graded functions: the best pair under each tie-break, and the trainers without a marker and on pre-split words.

A notebook's hidden test is a one-line call into this module (through :mod:`autograder.checks`), for example
``check_best_pair(fn, ...)``. What a check returns and raises, and what ``part`` means, is said once in
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
    "check_best_pair",
    "check_bpe_train",
    "check_learn_bpe",
]


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
    {
        tie_break: Part(gen.sized_later(functools.partial(_best_pair_cases, tie_break)))
        for tie_break in bpe_ref.TIE_BREAKS
    },
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
            gen.sized_later(
                lambda: LEARN_BPE_FIXED["basic"] + _ordinary_corpora(gen.SEED + 40, "smallest", marker=False)
            )
        ),
        "edge": Part(gen.sized_later(lambda: LEARN_BPE_FIXED["edge"] + gen.trainer_cases("edge", gen.SEED + 40, []))),
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
            gen.sized_later(
                lambda: (
                    BPE_TRAIN_FIXED["basic"]
                    + [_split(c) for c in _ordinary_corpora(gen.SEED + 50, "first", marker=True)]
                )
            )
        ),
        "edge": Part(
            gen.sized_later(
                lambda: BPE_TRAIN_FIXED["edge"] + [_split(c) for c in gen.trainer_cases("edge", gen.SEED + 50, [])]
            )
        ),
    },
)


SPECS: dict[str, Spec] = {spec.function: spec for spec in (BEST_PAIR, LEARN_BPE, BPE_TRAIN)}
"""The checks of assignment 03 as data, by graded function."""

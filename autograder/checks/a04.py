"""Hidden checks of 04_apply_bpe, each comparing a learner's function with :mod:`bpe_ref`.

Its graded functions: a merge table applied by rank, the same table replayed in learned order, and a word on
which the two disagree.

A notebook's hidden test is a one-line call into this module (through :mod:`autograder.checks`), for example
``check_apply_bpe(fn, ...)``. What a check returns and raises, and what ``part`` means, is said once in
:mod:`autograder.checks`. This module holds the specs (:class:`~autograder.checks.spec.Spec`) of the assignment's
graded functions and their case generators; it runs no process, reads no file and knows nothing of nbgrader.
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
    "check_counterexample",
    "check_encode",
]


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
        "basic": Part(gen.sized_later(lambda: APPLY_BPE_FIXED["basic"] + _table_cases(gen.SEED + 60, marker=True))),
        "rank": Part(
            gen.sized_later(
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
        "basic": Part(gen.sized_later(lambda: ENCODE_FIXED["basic"] + _table_cases(gen.SEED + 70, marker=False))),
        "replay": Part(
            gen.sized_later(
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


SPECS: dict[str, Spec] = {spec.function: spec for spec in (APPLY_BPE, ENCODE, COUNTEREXAMPLE)}
"""The checks of assignment 04 as data, by graded function."""

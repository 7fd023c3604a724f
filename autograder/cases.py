"""Deterministic inputs for the hidden checks: the spec's edge cases plus many small generated ones.

Every generator takes no argument and returns the same list on every run (a fixed ``random.Random``
seed), so regrading gives identical scores and messages. Inputs stay inside what the notebooks promise:
counts are positive ints, words are non-empty strings, ``num_merges >= 0``.

The seed is public (this package is), so a learner could compute every generated input and its answer. An
instructor who grades for marks sets a private seed in the environment, ``BPE_COURSE_SEED=<number>``, for
every ``grade`` run of the course: the generated inputs are then unknown to students, and still the same on
every regrade. Student code never sees the variable (the sandbox and the worker clear the environment).
"""

from __future__ import annotations

import functools
import os
import random
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from bpe_ref import END_OF_WORD

from .harness import Case

PUBLIC_SEED = 20161  # Sennrich et al., 2016


def _seed() -> int:
    text = os.environ.get("BPE_COURSE_SEED", "").strip()
    if not text:
        return PUBLIC_SEED
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"BPE_COURSE_SEED must be a whole number, not {text!r}") from None


SEED = _seed()

FIXED_ONLY = False
"""When true, every generator returns nothing and the checks run their fixed cases alone. The mutation tests set
it to prove that every rule the notebooks state is caught whatever the seed: generated inputs only add."""


def memo(build: Callable[..., list[Case]]) -> Callable[..., list[Case]]:
    """Build a list of cases once per seed (and per :data:`FIXED_ONLY`); every call gets its own copy of the list.

    Generating the inputs (training a reference on each corpus to keep the untied ones) costs more than running
    them, and a notebook's checks, a learner's repeated ``check("...")`` and a grading worker's next notebook
    all ask for the same lists.
    """
    made: dict[tuple, list[Case]] = {}

    @functools.wraps(build)
    def cached(*args: Any, **kwargs: Any) -> list[Case]:
        key = (SEED, FIXED_ONLY, repr(args), repr(sorted(kwargs.items())))
        if key not in made:
            made[key] = build(*args, **kwargs)
        return list(made[key])

    return cached


def generated(cases: list[Case]) -> list[Case]:
    """``cases``, or none when :data:`FIXED_ONLY` is set."""
    return [] if FIXED_ONLY else cases


# ---------------------------------------------------------------------------------------------------------------
# the size of an input: words, symbols and merges (the checks report the smallest failing input by it)
# ---------------------------------------------------------------------------------------------------------------


def symbols_of(word: Any) -> int:
    """The symbols of a word: its characters, the items of a tuple, or the space-separated symbols of a key."""
    if isinstance(word, str):
        return len(word.split()) if " " in word.strip() and word.endswith("</w>") else len(word)
    return len(word)


def corpus_size(words: Mapping[Any, int]) -> int:
    """Words plus symbols of a corpus or vocab (the counts do not add to the size)."""
    return len(words) + sum(symbols_of(w) for w in words)


def size(*args: Any) -> int:
    """The size of a check's input: words, symbols and merges, whatever the function.

    An id list counts its ids; a word its characters; a corpus or vocab its words and symbols; a merge table its
    merges; a number of merges itself. A pair, a ``new_id`` or a tie-break adds nothing.

    Example:
        >>> size({"ab": 1}, 1), size({"dea": 1}, 2), size("abc", [("a", "b")])
        (4, 6, 4)
    """
    total = 0
    for index, arg in enumerate(args):
        if isinstance(arg, Mapping):
            total += corpus_size(arg)
        elif isinstance(arg, str) and index == 0:
            total += symbols_of(arg)
        elif isinstance(arg, list):
            total += len(arg)
        elif type(arg) is int and index == 1:  # num_merges (second argument of the trainers)
            total += arg
    return total


def sized(cases: list[Case]) -> list[Case]:
    """The cases with their :func:`size` filled in."""
    return [Case(c.args, c.note, size(*c.args)) for c in cases]


# ---------------------------------------------------------------------------------------------------------------
# 01: lists of ids
# ---------------------------------------------------------------------------------------------------------------


def _id_lists(rng: random.Random, count: int, max_len: int, alphabet: int) -> Iterator[list[int]]:
    for _ in range(count):
        length = rng.randint(0, max_len)
        yield [rng.randint(1, alphabet) for _ in range(length)]


@memo
def pair_count_cases(part: str) -> list[Case]:
    """Inputs of ``get_pair_counts``. ``part``: ``"basic"`` (no two equal neighbours) or ``"overlaps"``."""
    rng = random.Random(SEED)
    if part == "basic":
        fixed = [
            Case(([1, 2, 3, 1, 2],), "the text's example"),
            Case(([3, 1, 3, 2],)),
            Case(([2, 1],)),
            Case(([1, 2],)),
            Case(([7, 8, 7, 8],)),
            Case(([3, 1, 3, 2, 3],)),
            Case(([4, 9, 4, 9, 4, 8],)),
        ]
        pool = [ids for ids in _id_lists(rng, 300, 9, 4) if len(ids) >= 2 and not _has_run(ids, 2)]
    elif part == "overlaps":
        fixed = [
            Case(([],)),
            Case(([5],)),
            Case(([5, 5, 5],)),
            Case(([5, 5],)),
            Case(([5, 5, 5, 5],)),
            Case(([2, 1, 1, 1, 2],)),
            Case(([3, 2, 1, 2, 3],)),
            Case(([9, 8, 9, 8, 9],)),
        ]
        pool = list(_id_lists(rng, 300, 10, 3))
    else:
        raise ValueError(f"unknown part {part!r} of get_pair_counts")
    return sized(fixed + generated([Case((ids,)) for ids in pool]))


def _has_run(ids: list[int], length: int) -> bool:
    return any(len(set(ids[i : i + length])) == 1 for i in range(len(ids) - length + 1))


@memo
def merge_cases(part: str) -> list[Case]:
    """Inputs of ``merge``. ``part``: ``"basic"`` (no overlapping matches) or ``"overlaps"``."""
    rng = random.Random(SEED + 1)
    more: list[tuple[list[int], tuple[int, int], int]] = []
    if part == "basic":
        fixed = [
            Case(([1, 2, 3, 1, 2], (1, 2), 99), "the text's example"),
            Case(([1, 2], (1, 2), 3)),
            Case(([2, 1], (1, 2), 3)),
            Case(([1, 2, 1, 2], (1, 2), 300)),
            Case(([4, 5, 6], (5, 6), 10)),
            Case(([4, 5, 6], (6, 5), 10)),
            Case(([12, 1, 2, 21], (1, 2), 12)),
            # multi-digit ids whose digits straddle a pair: a str.replace on " ".join(ids) merges "21 2" into "29"
            Case(([21, 2], (1, 2), 9)),
            Case(([1, 23], (1, 2), 9)),
            Case(([12, 1, 2, 21], (2, 1), 5)),
        ]
        for ids in _id_lists(rng, 300, 9, 4):
            if len(ids) < 2:
                continue
            a, b = rng.choice(list(zip(ids, ids[1:])))
            if a != b:
                more.append((ids, (a, b), 100 + rng.randint(0, 50)))
    elif part == "overlaps":
        fixed = [
            Case(([], (1, 2), 9)),
            Case(([1], (1, 2), 9)),
            Case(([5], (5, 5), 7)),
            Case(([5, 5], (5, 5), 7)),
            Case(([5, 5, 5], (5, 5), 7)),
            Case(([5, 5, 5, 5], (5, 5), 7)),
            Case(([5, 5, 5, 5, 5], (5, 5), 7)),
            Case(([1, 5, 5, 5, 2], (5, 5), 7)),
            Case(([1, 2, 1, 2, 1], (2, 1), 9)),
            Case(([1, 2], (1, 2), 1)),
            Case(([1, 1, 2], (1, 2), 1)),
        ]
        for ids in _id_lists(rng, 300, 10, 2):
            a, b = rng.randint(1, 2), rng.randint(1, 2)
            more.append((ids, (a, b), rng.choice([3, 1, 2])))
    else:
        raise ValueError(f"unknown part {part!r} of merge")
    return sized(fixed + generated([Case(args) for args in more]))


# ---------------------------------------------------------------------------------------------------------------
# 02-04: words and vocabs
# ---------------------------------------------------------------------------------------------------------------


def random_words(rng: random.Random, alphabet: str, max_words: int, max_len: int, max_count: int) -> dict[str, int]:
    """A small corpus: distinct non-empty words over ``alphabet`` with positive counts, in insertion order."""
    words: dict[str, int] = {}
    for _ in range(rng.randint(1, max_words)):
        word = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, max_len)))
        words.setdefault(word, rng.randint(1, max_count))
    return words


def vocab_of(words: dict[str, int], marker: bool = True) -> dict[tuple[str, ...], int]:
    return {(*w, END_OF_WORD) if marker else tuple(w): c for w, c in words.items()}


@memo
def corpus_cases(seed: int, count: int, *, alphabet: str = "abcd", max_merges: int = 8) -> list[Case]:
    """``(word_freqs, num_merges)`` inputs for the trainers."""
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        words = random_words(rng, alphabet, 5, 6, 6)
        merges = rng.randint(0, max_merges)
        cases.append(Case((words, merges), size=corpus_size(words) + merges))
    return generated(cases)

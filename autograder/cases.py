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

import os
import random
from collections.abc import Iterator

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

# ---------------------------------------------------------------------------------------------------------------
# 01: lists of ids
# ---------------------------------------------------------------------------------------------------------------


def _id_lists(rng: random.Random, count: int, max_len: int, alphabet: int) -> Iterator[list[int]]:
    for _ in range(count):
        length = rng.randint(0, max_len)
        yield [rng.randint(1, alphabet) for _ in range(length)]


def pair_count_cases(part: str) -> list[Case]:
    """Inputs of ``get_pair_counts``. ``part``: ``"basic"`` (no two equal neighbours) or ``"overlaps"``."""
    rng = random.Random(SEED)
    cases: list[Case] = []
    if part == "basic":
        fixed = [[1, 2], [1, 2, 3], [1, 2, 3, 1, 2], [7, 8, 7, 8], [3, 1, 3, 2, 3], [4, 9, 4, 9, 4, 8]]
        pool = fixed + [ids for ids in _id_lists(rng, 300, 9, 4) if len(ids) >= 2 and not _has_run(ids, 2)]
    elif part == "overlaps":
        fixed = [[], [5], [5, 5], [5, 5, 5], [5, 5, 5, 5], [2, 1, 1, 1, 2], [3, 2, 1, 2, 3], [9, 8, 9, 8, 9]]
        pool = fixed + list(_id_lists(rng, 300, 10, 3))
    else:
        raise ValueError(f"unknown part {part!r} of get_pair_counts")
    for ids in pool:
        cases.append(Case((ids,), size=len(ids)))
    return cases


def _has_run(ids: list[int], length: int) -> bool:
    return any(len(set(ids[i : i + length])) == 1 for i in range(len(ids) - length + 1))


def merge_cases(part: str) -> list[Case]:
    """Inputs of ``merge``. ``part``: ``"basic"`` (no overlapping matches) or ``"overlaps"``."""
    rng = random.Random(SEED + 1)
    cases: list[Case] = []
    if part == "basic":
        fixed = [
            ([1, 2, 3, 1, 2], (1, 2), 99),
            ([1, 2], (1, 2), 3),
            ([2, 1], (1, 2), 3),
            ([1, 2, 1, 2], (1, 2), 300),
            ([4, 5, 6], (5, 6), 10),
            ([4, 5, 6], (6, 5), 10),
            ([12, 1, 2, 21], (1, 2), 12),
            # multi-digit ids whose digits straddle a pair: a str.replace on " ".join(ids) merges "21 2" into "29"
            ([21, 2], (1, 2), 9),
            ([1, 23], (1, 2), 9),
            ([12, 1, 2, 21], (2, 1), 5),
        ]
        for ids in _id_lists(rng, 300, 9, 4):
            if len(ids) < 2:
                continue
            a, b = rng.choice(list(zip(ids, ids[1:])))
            if a != b:
                fixed.append((ids, (a, b), 100 + rng.randint(0, 50)))
    elif part == "overlaps":
        fixed = [
            ([], (1, 2), 9),
            ([1], (1, 2), 9),
            ([5], (5, 5), 7),
            ([5, 5], (5, 5), 7),
            ([5, 5, 5], (5, 5), 7),
            ([5, 5, 5, 5], (5, 5), 7),
            ([5, 5, 5, 5, 5], (5, 5), 7),
            ([1, 5, 5, 5, 2], (5, 5), 7),
            ([1, 2, 1, 2, 1], (2, 1), 9),
            ([1, 2], (1, 2), 1),
            ([1, 1, 2], (1, 2), 1),
        ]
        for ids in _id_lists(rng, 300, 10, 2):
            a, b = rng.randint(1, 2), rng.randint(1, 2)
            fixed.append((ids, (a, b), rng.choice([3, 1, 2])))
    else:
        raise ValueError(f"unknown part {part!r} of merge")
    for ids, pair, new_id in fixed:
        cases.append(Case((ids, pair, new_id), size=len(ids)))
    return cases


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


def corpus_size(words: dict[str, int]) -> int:
    return sum(len(w) for w in words) + len(words)


def vocab_of(words: dict[str, int], marker: bool = True) -> dict[tuple[str, ...], int]:
    return {(*w, END_OF_WORD) if marker else tuple(w): c for w, c in words.items()}


def corpus_cases(seed: int, count: int, *, alphabet: str = "abcd", max_merges: int = 8) -> list[Case]:
    """``(word_freqs, num_merges)`` inputs for the trainers."""
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        words = random_words(rng, alphabet, 5, 6, 6)
        merges = rng.randint(0, max_merges)
        cases.append(Case((words, merges), size=corpus_size(words) + merges))
    return cases

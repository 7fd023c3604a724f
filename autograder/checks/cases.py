"""Deterministic inputs for the hidden checks: the spec's edge cases plus many small generated ones.

Every generator takes no argument and returns the same list on every run for the same seed, so regrading gives
identical scores and messages. Inputs stay inside what the notebooks promise: counts are positive ints, words are
non-empty strings, ``num_merges >= 0``.

The seed (:func:`seed`) is public (:data:`PUBLIC_SEED`) outside grading. While the judge grades a submission
(:func:`student_seed`), it is derived from the course's secret and the student's id, ``HMAC-SHA256(secret,
student id)``: the generated inputs are unknown to students, the same on every regrade of that student, and
different for every student, so what one student's code leaks of its inputs helps no one else. The secret
(:func:`course_secret`) is ``$BPE_COURSE_SECRET`` (at least 32 characters), else the file ``.course_secret`` in the
course folder, made with 256 random bits on first use (git-ignored; keep it, or regrades change inputs). Student
code never sees either: the sandbox shows no course folder and clears the environment.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import os
import random
import secrets
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar

from bpe_lab.harness import Case
from bpe_ref import END_OF_WORD

PUBLIC_SEED = 20161  # Sennrich et al., 2016
SECRET_FILE = ".course_secret"
MIN_SECRET_CHARS = 32
SEED = PUBLIC_SEED
"""The seed of the generated inputs now (the checks add offsets to it): :data:`PUBLIC_SEED`, or the student's
inside :func:`student_seed`. The self-check and the mutation tests set it too, and put it back."""


def seed() -> int:
    """The seed of the generated inputs: the current student's (inside :func:`student_seed`), else the public one.

    Example:
        >>> seed() == PUBLIC_SEED
        True
    """
    return SEED


def derive_seed(secret: str, student: str) -> int:
    """``HMAC-SHA256(secret, student)`` as a 64-bit number.

    Example:
        >>> derive_seed("s" * 32, "alice") != derive_seed("s" * 32, "bob")
        True
    """
    return int.from_bytes(hmac.new(secret.encode(), student.encode(), hashlib.sha256).digest()[:8], "big")


@contextlib.contextmanager
def student_seed(secret: str, student: str) -> Iterator[int]:
    """Within the block, :func:`seed` is :func:`derive_seed` of ``secret`` and ``student`` (the judge's use)."""
    global SEED
    previous, SEED = SEED, derive_seed(secret, student)
    try:
        yield SEED
    finally:
        if SEED not in (previous, PUBLIC_SEED):
            forget_seed(SEED)  # a grading process sees one student after another: keep no student's cases
        SEED = previous


def course_secret(path: str | Path) -> str:
    """The course's secret: ``$BPE_COURSE_SECRET``, else the file at ``path`` (the course folder's
    :data:`SECRET_FILE`: the caller names it, this package knows no course folder), created with 256 random bits on
    first use (readable by its owner only).

    Raises:
        ValueError: a secret shorter than :data:`MIN_SECRET_CHARS` characters, naming where it came from.
    """
    text = os.environ.get("BPE_COURSE_SECRET", "").strip()
    where = "BPE_COURSE_SECRET"
    if not text:
        path, where = Path(path), str(path)
        if not path.exists():
            _create_secret(path)
        text = path.read_text(encoding="utf-8").strip()
    if len(text) < MIN_SECRET_CHARS:
        raise ValueError(
            f"the course secret in {where} has {len(text)} characters; it needs {MIN_SECRET_CHARS} or more "
            "(delete the file to have one made)"
        )
    return text


def _create_secret(path: Path) -> None:
    partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(secrets.token_hex(32) + "\n")
    try:
        os.link(partial, path)  # fails if another grader made it first: theirs is kept
    except FileExistsError:
        pass
    finally:
        partial.unlink()


FIXED_ONLY = False
"""When true, every generator returns nothing and the checks run their fixed cases alone. The mutation tests set
it to prove that every rule the notebooks state is caught whatever the seed: generated inputs only add."""


_MEMOS: list[dict[tuple, list[Case]]] = []
"""The cache of every :func:`memo` function (see :func:`forget_seed`)."""


def forget_seed(seed: int) -> int:
    """Drop every list of cases :func:`memo` built under ``seed``; returns how many.

    :func:`student_seed` calls it when a student's block ends, so a grading process that grades a whole class keeps
    the public seed's lists and no student's: its memory does not grow with the class.

    Example:
        >>> forget_seed(-1)
        0
    """
    dropped = 0
    for made in _MEMOS:
        for key in [k for k in made if k[0] == seed]:
            del made[key]
            dropped += 1
    return dropped


def memo(build: Callable[..., list[Case]]) -> Callable[..., list[Case]]:
    """Build a list of cases once per seed (and per :data:`FIXED_ONLY`); every call gets its own copy of the list.

    Generating the inputs (training a reference on each corpus to keep the untied ones) costs more than running
    them, and a notebook's checks, a learner's repeated ``check("...")`` and a grading worker's next notebook
    all ask for the same lists.
    """
    made: dict[tuple, list[Case]] = {}
    _MEMOS.append(made)

    @functools.wraps(build)
    def cached(*args: Any, **kwargs: Any) -> list[Case]:
        key = (SEED, FIXED_ONLY, repr(args), repr(sorted(kwargs.items())))
        if key not in made:
            made[key] = build(*args, **kwargs)
        return list(made[key])

    return cached


T = TypeVar("T")


def generated(cases: list[T]) -> list[T]:
    """``cases`` (inputs or cases), or none when :data:`FIXED_ONLY` is set."""
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


def sized_later(build: Callable[[], list[Case]]) -> Callable[[], list[Case]]:
    """A part's cases with their size filled in (:func:`sized`), built when the part runs, not when its module is
    imported.

    Example:
        >>> sized_later(lambda: [Case(([1, 2],))])()[0].size > 0
        True
    """
    return lambda: sized(build())


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


def trainer_cases(part: str, seed: int, fixed: list[Case]) -> list[Case]:
    """The cases of a trainer's part (02's ``train_bpe``, 03's ``learn_bpe`` and ``bpe_train``): for ``"basic"``,
    ``fixed`` and corpora of five letters; for the other parts, corpora of two letters and the edge cases every
    trainer shares (one word repeated, ``num_merges`` 0, a word of one symbol, more merges than pairs).

    Example:
        >>> trainer_cases("edge", 1, [])[-1].args
        ({'ab': 2, 'cd': 2}, 9)
    """
    if part == "basic":
        return fixed + corpus_cases(seed, 120, alphabet="abcde", max_merges=6)
    return corpus_cases(seed + 1, 150, alphabet="ab", max_merges=10) + [
        Case(({"aaaa": 3}, 5)),
        Case(({"ab": 1, "ba": 1}, 0)),
        Case(({"a": 4}, 3)),
        Case(({"ab": 2, "cd": 2}, 9)),
    ]

"""Hidden checks of assignment 05 (byte-level BPE), each comparing a learner's function with :mod:`bpe_ref.bytelevel`.

As in :mod:`autograder.checks`, a notebook's hidden test is a one-line call such as
``check_train_bytes(train_bytes, "ties")``; a check returns ``None`` when every case passes and raises
:class:`~bpe_lab.harness.CheckFailed` naming the smallest failing input otherwise. Every rule the notebook
states is a fixed case below (the same whatever the seed); the generated inputs (:data:`autograder.checks.cases.SEED`)
only add to them, and :data:`autograder.checks.cases.FIXED_ONLY` leaves them out. ``encode_ranks`` on GPT-4's vocabulary
is compared with tiktoken itself.

GPT-4's table has 100,256 entries; a learner's function gets, for each text, only the entries BPE can look up on
that text (:func:`bpe_ref.bytelevel.ranks_for`), which gives the same ids and keeps each call small.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import Any

from bpe_lab.harness import DEFAULT_TIME_LIMIT, Case, CheckFailed, Named
from bpe_ref import bytelevel as ref
from bpe_ref.bytelevel import GPT2_PATTERN, GPT4_PATTERN, GPT4_SPECIAL_TOKENS

from . import cases as gen
from .spec import ALL, Part, Spec, run_spec

__all__ = [
    "SPECS",
    "CheckFailed",
    "check_decode_bytes",
    "check_encode_bytes",
    "check_encode_ranks",
    "check_pretokenize",
    "check_train_bytes",
]


GPT2_PATTERN = Named(GPT2_PATTERN, "GPT2_PATTERN")
GPT4_PATTERN = Named(GPT4_PATTERN, "GPT4_PATTERN")

# Texts of several scripts, code, numbers, emoji and whitespace runs (written for this course).
MIXED_TEXTS = (
    "Hello world! It's 2024, isn't it?",
    "naïve café, déjà vu; Ångström — “quotes”",
    "Привет, мир! Как дела?",
    "Καλημέρα κόσμε",
    "日本語のテキストを分割します。",
    "你好，世界！今天天气很好。",
    "안녕하세요 세계",
    "مرحبا بالعالم",
    "नमस्ते दुनिया",
    "emoji: 👍🏽 👩\u200d👩\u200d👧 🇫🇷 😀😀😀",
    "def f(x):\n    return x ** 2  # square\n\n\n",
    "for (int i = 0; i < n; ++i) { sum += a[i]; }",
    "   leading and trailing spaces   ",
    "tabs\tand\r\nwindows line ends\r\n",
    "1234567 3.14159 0xFF 1e-10",
    "I'LL, you've, we'd, THEY'RE",
    "e\u0301 combining marks a\u0308o\u0308u\u0308",
    "",
)


_LIST_OF_IDS = ("list_of", {"kind": "int", "what": "int ids"})


# ---------------------------------------------------------------------------------------------------------------
# generated texts
# ---------------------------------------------------------------------------------------------------------------

_PIECES = ("a", "b", "ab", "ba", "aa", " ", "  ", "é", "!", "1", "\n", "'s", "x")


def _texts(seed: int, count: int, pieces: tuple[str, ...] = _PIECES, max_pieces: int = 10) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(0, max_pieces))) for _ in range(count)]


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


# ---------------------------------------------------------------------------------------------------------------
# pretokenize
# ---------------------------------------------------------------------------------------------------------------


def check_pretokenize(fn: Callable[..., Any], time_limit: float = DEFAULT_TIME_LIMIT) -> None:
    """Check ``pretokenize(text, pattern)`` against :func:`bpe_ref.bytelevel.pretokenize` (``regex.findall``).

    Fixed cases: both patterns on prose, contractions, numbers, several scripts, emoji, code and whitespace
    runs, the empty text, and a pattern of the learner's own kind (``\\S+|\\s+``); generated texts add to them.

    Example:
        >>> check_pretokenize(ref.pretokenize)
    """
    __tracebackhide__ = True
    run_spec(PRETOKENIZE, fn, ALL, time_limit)


def _pretokenize_cases() -> list[Case]:
    cases = [Case((t, p), size=_size(t)) for t in MIXED_TEXTS for p in (GPT2_PATTERN, GPT4_PATTERN)]
    cases += [Case(("ab  cd", r"\S+|\s+"), note="a pattern of your own", size=6)]
    # a pattern that leaves gaps between its matches: what it does not match is in no chunk (regex.split keeps it)
    gaps = "what the pattern does not match is in no chunk"
    cases += [Case(("ab, cd!", r"\w+"), note=gaps, size=7), Case((" x  y ", r"[a-z]"), note=gaps, size=6)]
    return cases + gen.generated([Case((t, GPT4_PATTERN), size=_size(t)) for t in _texts(gen.SEED + 500, 100)])


PRETOKENIZE = Spec(
    "pretokenize",
    ref.pretokenize,
    ("list_of", {"kind": "str", "what": "str chunks"}),
    {ALL: Part(_pretokenize_cases)},
    remember=False,
)


# ---------------------------------------------------------------------------------------------------------------
# train_bytes
# ---------------------------------------------------------------------------------------------------------------

TRAIN_FIXED = {
    "basic": [
        # ids from 256, in order; "é" is two bytes, (195, 169), merged like any pair
        Case(("aaab", 257, GPT4_PATTERN), size=5),
        Case(("hug pug hug bug hugs", 259, GPT4_PATTERN), size=23),
        Case(("éé é", 257, GPT4_PATTERN), size=7),
        # merges never cross chunks: whole-text training would merge (256, 32), "ab" and the space after it
        Case(("ab ab", 258, GPT4_PATTERN), size=7),
        Case(("ab, ab, ab", 258, GPT2_PATTERN), size=12),
        # vocab_size 256 means no merge at all
        Case(("hello", 256, GPT4_PATTERN), size=5),
        # a pair is merged left to right, as merge of 01: "aaa" becomes 256 97, so round 2 merges (256, 97)
        Case(("aaa", 258, GPT4_PATTERN), size=5),
    ],
    "ties": [
        # ties go to the pair seen first, not to the largest or smallest ids
        Case(("ba", 257, GPT4_PATTERN), size=3),
        Case(("zyab", 257, GPT4_PATTERN), size=5),
        Case(("bzab", 257, GPT4_PATTERN), size=5),  # the pair seen first is neither the largest nor the smallest
        Case(("cd ab", 257, GPT4_PATTERN), size=6),
        Case(("xy ab ab xy", 258, GPT4_PATTERN), size=13),
        # overlaps count: "aaaa" holds (97, 97) three times, so it beats (98, 99) twice
        Case(("aaaa bc bc", 257, GPT4_PATTERN), size=11),
        # first seen is rebuilt every round: after (98, 98) the first pair is (97, 256), not the old (97, 98)
        Case(("abb cab", 258, GPT4_PATTERN), size=9),
        Case(("a bb bb", 258, GPT4_PATTERN), size=9),
        # no pair left: stop early, the dict is shorter than vocab_size - 256
        Case(("ab", 1000, GPT4_PATTERN), size=4),
        Case(("a b c", 300, GPT4_PATTERN), size=6),
        Case(("a b b", 300, GPT4_PATTERN), size=6),
        Case(("", 260, GPT4_PATTERN), size=1),
    ],
}


def _train_cases(part: str) -> list[Case]:
    return list(TRAIN_FIXED[part]) + gen.generated(_train_generated(part))


@gen.memo
def _train_generated(part: str) -> list[Case]:
    cases: list[Case] = []
    rng = random.Random(gen.SEED + 510 + len(part))
    if part == "basic":  # texts with a single most frequent pair in every round asked: no tie decides anything
        for text in _texts(gen.SEED + 511, 400, ("the", " cat", "ab", "é", "!", " ", "hug", "s"), 10):
            pattern = rng.choice((GPT2_PATTERN, GPT4_PATTERN))
            rounds = ref.train_rounds(text, 256 + 8, pattern, top=0)
            untied = next((i for i, r in enumerate(rounds) if r.tied), len(rounds))
            if untied >= 1:
                vocab_size = 256 + rng.randint(1, untied)
                cases.append(Case((text, vocab_size, pattern), size=_size(text) + vocab_size - 256))
    else:
        for text in _texts(gen.SEED + 512, 150, ("a", "b", "aa", " ", "ab", "\n"), 8):
            pattern = rng.choice((GPT2_PATTERN, GPT4_PATTERN))
            vocab_size = 256 + rng.randint(0, 8)
            cases.append(Case((text, vocab_size, pattern), size=_size(text) + vocab_size - 256))
    return cases


def check_train_bytes(fn: Callable[..., Any], part: str = "basic", time_limit: float = DEFAULT_TIME_LIMIT) -> None:
    """Check ``train_bytes(text, vocab_size, pattern)`` against :func:`bpe_ref.bytelevel.train_bytes`.

    Parts: ``"basic"``, ids from 256 in order, multi-byte characters, chunks never crossed, ``vocab_size == 256``,
    pairs merged left to right, on texts where no round has a tie;
    ``"ties"``, ties to the pair seen first (rebuilt every round), overlapping pairs, and the early stop when no
    pair is left. The dict must list the merges in the order they were made.

    Example:
        >>> check_train_bytes(ref.train_bytes, "ties")
    """
    __tracebackhide__ = True
    run_spec(TRAIN_BYTES, fn, part, time_limit)


TRAIN_BYTES = Spec(
    "train_bytes",
    ref.train_bytes,
    ("mapping", {"order": True, "order_note": "right merges, not in merge order"}),  # in merge order, right ids
    {part: Part(functools.partial(_train_cases, part)) for part in ("basic", "ties")},
    remember=False,
)


# ---------------------------------------------------------------------------------------------------------------
# encode_bytes, decode_bytes
# ---------------------------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _genesis_table() -> dict[tuple[int, int], int]:
    """Merges trained on a few verses of Genesis (the notebook's corpus), for new texts."""
    text = (
        "In the beginning God created the heaven and the earth. And the earth was without form, and void; "
        "and darkness was upon the face of the deep. And the Spirit of God moved upon the face of the waters. "
        "And God said, Let there be light: and there was light."
    )
    return ref.train_bytes(text, 300, GPT4_PATTERN)


ENCODE_FIXED = {
    "basic": [
        Case(("aaa ab", {(97, 97): 256, (256, 97): 257, (97, 98): 258}, GPT4_PATTERN), size=10),
        Case(("", {(97, 98): 256}, GPT4_PATTERN), size=2),
        Case(("éé", {(195, 169): 256, (256, 256): 257}, GPT4_PATTERN), size=6),
        # chunk by chunk: "!" and " " are in two chunks, so (33, 32) never merges
        Case(("hi! there", {(33, 32): 256, (104, 105): 257}, GPT4_PATTERN), size=11),
        Case(("a, b", {(44, 32): 256}, GPT2_PATTERN), size=5),
    ],
    "rank": [
        # the priority is the new id, not the order of the dict: (97, 98) -> 256 goes first
        Case(("abc", {(98, 99): 257, (97, 98): 256}, GPT4_PATTERN), size=5),
        Case(("abcd", {(99, 100): 258, (98, 99): 257, (97, 98): 256, (256, 258): 259}, GPT4_PATTERN), size=8),
        # all occurrences of the best pair, left to right: a a a a -> 256 256
        Case(("aaaa", {(97, 97): 256, (256, 97): 257}, GPT4_PATTERN), size=6),
        Case(("aaaaa", {(97, 97): 256, (256, 256): 257}, GPT4_PATTERN), size=7),
        Case(("aaa", {(97, 97): 256}, GPT4_PATTERN), size=4),
        # a pair missing from the table is never merged, however good its parts
        Case(("abc", {(97, 98): 256, (98, 99): 257, (97, 257): 258}, GPT4_PATTERN), size=7),
        # a merge of a later id listed first in the dict, its parts made by earlier merges (as the notebook says,
        # a merge's parts always have lower ids than its own: no check sends another table)
        Case(("abcab", {(256, 99): 257, (97, 98): 256, (257, 256): 258}, GPT4_PATTERN), size=9),
    ],
}


def _encode_cases(part: str) -> list[Case]:
    return list(ENCODE_FIXED[part]) + gen.generated(_encode_generated(part))


@gen.memo
def _encode_generated(part: str) -> list[Case]:
    cases: list[Case] = []
    table = _genesis_table()
    if part == "basic":
        for text in _texts(gen.SEED + 520, 60, ("the ", "and ", "God ", "light", "earth", ", ", "é", "!\n"), 6):
            cases.append(Case((text, table, GPT4_PATTERN), size=_size(text) + 50))
    else:
        rng = random.Random(gen.SEED + 521)
        for text in _texts(gen.SEED + 522, 150, ("a", "b", "ab", " ", "aa"), 6):
            merges = ref.train_bytes(_texts(rng.randint(0, 10**6), 1, ("a", "b", " a", "ab"), 8)[0], 262, GPT2_PATTERN)
            shuffled = list(merges.items())
            rng.shuffle(shuffled)  # the same table in another order: the ids, not the order, set the priority
            cases.append(Case((text, dict(shuffled), GPT4_PATTERN), size=_size(text) + len(merges)))
    return cases


def check_encode_bytes(fn: Callable[..., Any], part: str = "basic", time_limit: float = DEFAULT_TIME_LIMIT) -> None:
    """Check ``encode_bytes(text, merges, pattern)`` against :func:`bpe_ref.bytelevel.encode_bytes`.

    Parts: ``"basic"``, chunk by chunk with trained tables, new texts, multi-byte characters and the empty text;
    ``"rank"``, tables whose dict order is not the order of their ids (the lowest new id goes first), all
    occurrences merged at once, left to right, and pairs missing from the table.

    Example:
        >>> check_encode_bytes(ref.encode_bytes, "rank")
    """
    __tracebackhide__ = True
    run_spec(ENCODE_BYTES, fn, part, time_limit)


ENCODE_BYTES = Spec(
    "encode_bytes",
    ref.encode_bytes,
    _LIST_OF_IDS,
    {part: Part(functools.partial(_encode_cases, part)) for part in ("basic", "rank")},
    remember=False,
)


_UNKNOWN = "an id that is not a byte or a new id: ValueError naming it"

DECODE_FIXED = {
    "basic": [
        Case(([104, 105], {}), size=2),
        Case(([], {(97, 98): 256}), size=2),
        Case(([256, 32, 256], {(97, 98): 256}), size=4),
        Case(([257], {(97, 98): 256, (256, 99): 257}), size=3),
        # merges listed in any order: the vocabulary is built in order of new id
        Case(([258, 32], {(256, 99): 257, (257, 100): 258, (97, 98): 256}), size=4),
    ],
    "partial": [
        Case(([195, 169], {}), note="é is two bytes", size=2),
        # a token may hold part of a character: decode the joined bytes, not each token
        Case(([256, 169], {(104, 195): 256}), note="h + the first byte of é, then its second byte", size=3),
        Case(([226, 130, 172], {}), note="€ is three bytes", size=3),
        Case(([256, 257], {(240, 159): 256, (152, 128): 257}), note="😀 in two tokens", size=4),
        # stray bytes become U+FFFD (errors="replace")
        Case(([195], {}), size=1),
        Case(([104, 105, 255], {}), size=3),
        Case(([256, 33], {(128, 128): 256}), size=3),
        # an id that is neither a byte nor a new id: ValueError naming it
        Case(([300], {(97, 98): 256}), note=_UNKNOWN, size=2),
        Case(([97, 256, 1000], {(97, 98): 256}), note=_UNKNOWN, size=4),
        # a negative id is no byte either (vocab[-1], ids[-1] or bytes([-1]) must not stand for it)
        Case(([-1], {}), note=_UNKNOWN, size=1),
        Case(([104, -3, 105], {(97, 98): 256}), note=_UNKNOWN, size=4),
        Case(([-256], {(97, 98): 256}), note=_UNKNOWN, size=2),
    ],
}


def check_decode_bytes(fn: Callable[..., Any], part: str = "basic", time_limit: float = DEFAULT_TIME_LIMIT) -> None:
    """Check ``decode_bytes(ids, merges)`` against :func:`bpe_ref.bytelevel.decode_bytes`.

    Parts: ``"basic"``, round trips of trained tables on new ASCII texts, the empty list;
    ``"partial"``, multi-byte characters, tokens holding part of a character (the joined bytes are decoded, not
    each token), stray bytes replaced by U+FFFD, and an unknown id, which must raise ``ValueError`` naming it.

    Example:
        >>> check_decode_bytes(ref.decode_bytes, "partial")
    """
    __tracebackhide__ = True
    run_spec(DECODE_BYTES, fn, part, time_limit)


@gen.memo
def _decode_cases(part: str) -> list[Case]:
    return list(DECODE_FIXED[part]) + gen.generated(_decode_generated(part))


def _decode_generated(part: str) -> list[Case]:
    cases: list[Case] = []
    table = _genesis_table()
    if part == "basic":
        for text in _texts(gen.SEED + 530, 60, ("the ", "and ", "God ", "light", "!\n", "42"), 6):
            cases.append(Case((ref.encode_bytes(text, table, GPT4_PATTERN), table), size=_size(text) + 50))
    else:
        for text in _texts(gen.SEED + 532, 60, ("the ", "é", "日本", "👍", "€"), 5):
            cases.append(Case((ref.encode_bytes(text, table, GPT4_PATTERN), table), size=_size(text) + 50))
        rng = random.Random(gen.SEED + 531)
        for _ in range(100):  # byte strings cut anywhere, including inside characters
            data = "".join(rng.choice("aé€😀") for _ in range(rng.randint(1, 4))).encode("utf-8")
            cut = data[rng.randint(0, len(data) - 1) :]
            cases.append(Case((list(cut), {}), size=len(cut)))
    return cases


DECODE_BYTES = Spec(
    "decode_bytes",
    ref.decode_bytes,
    ("text", {}),
    {part: Part(functools.partial(_decode_cases, part)) for part in ("basic", "partial")},
    adapter="value_error_as_value",  # an unknown id: the ValueError raised is the answer judged
    remember=False,
)


# ---------------------------------------------------------------------------------------------------------------
# encode_ranks
# ---------------------------------------------------------------------------------------------------------------

_BYTES = {bytes([i]): i for i in range(256)}

RANKS_FIXED = {
    "basic": [
        Case(("abc", _BYTES | {b"ab": 256, b"abc": 257}, GPT4_PATTERN, {}), size=5),
        # the lowest rank of the joined bytes wins, whatever the order of the dict
        Case(("abc", _BYTES | {b"bc": 300, b"ab": 400}, GPT4_PATTERN, {}), size=5),
        Case(("abcd", _BYTES | {b"cd": 700, b"bc": 500, b"ab": 600, b"abcd": 800}, GPT4_PATTERN, {}), size=6),
        # ranks are ids as they are: any ints, not 256 + k
        Case(("hi", {bytes([i]): 1000 + i for i in range(256)} | {b"hi": 7}, GPT4_PATTERN, {}), size=4),
        Case(("hi!", {bytes([i]): 1000 + i for i in range(256)} | {b"hi": 7}, GPT4_PATTERN, {}), size=5),
        # equal joined bytes: the leftmost pair joins first
        Case(("aaa", _BYTES | {b"aa": 256}, GPT4_PATTERN, {}), size=4),
        # one join per step, then look again: a b a b -> ab a b -> aba b (299 is lower than the second ab's 300)
        Case(("abab", _BYTES | {b"ab": 300, b"aba": 299}, GPT4_PATTERN, {}), size=5),
        # chunk by chunk: " " and "b" join, "a" and " " are in two chunks
        Case(("a b", _BYTES | {b"a ": 256, b" b": 257}, GPT4_PATTERN, {}), size=5),
        Case(("", _BYTES, GPT4_PATTERN, {}), size=1),
    ],
    "special": [
        Case(("<|endoftext|>", _BYTES, GPT4_PATTERN, {"<|endoftext|>": 100257}), size=14),
        Case(("a<|endoftext|>b", _BYTES, GPT4_PATTERN, {"<|endoftext|>": 100257}), size=16),
        Case(("<|a|><|a|>x", _BYTES | {b"<|": 256}, GPT4_PATTERN, {"<|a|>": 999}), size=12),
        # the longest special token first at a position
        Case(("<|x|><|xy|>", _BYTES, GPT4_PATTERN, {"<|x": 500, "<|x|>": 501, "<|xy|>": 502}), size=12),
        # the text on each side is split and merged as usual, never across the special token
        Case(("hi <|eot|> hi", _BYTES | {b"hi": 300, b" hi": 301, b"i ": 302}, GPT4_PATTERN, {"<|eot|>": 7}), size=15),
        Case(("no special here", _BYTES | {b"he": 256}, GPT4_PATTERN, {"<|endoftext|>": 100257}), size=16),
    ],
}


@functools.lru_cache(maxsize=1)
def _tiktoken() -> Any:
    import tiktoken  # only here: the other checks need no tiktoken

    return tiktoken.Encoding(
        name="cl100k_base",
        pat_str=GPT4_PATTERN,
        mergeable_ranks=ref.load_cl100k_base(),
        special_tokens=GPT4_SPECIAL_TOKENS,
    )


def _tiktoken_ids(text: str, mergeable_ranks: Any, pattern: str, special_tokens: Any) -> list[int]:
    """What tiktoken's ``cl100k_base`` gives (the learner gets the part of its table that the text can use)."""
    return _tiktoken().encode(text, allowed_special="all")


GPT4_TEXTS = (  # no special token in the text: that rule is the "special" part's
    *MIXED_TEXTS,
    "Supercalifragilisticexpialidocious antidisestablishmentarianism",
    "    \n\n\n    \t\t  ",
    "😀😀😀😀😀😀",
    "ÆØÅ æøå ß ẞ ÿ",
)


@gen.memo  # each ranks_for checks all of GPT-4's table: built once per seed, not at every check
def _gpt4_cases(seed: int) -> list[Case]:
    ranks = ref.load_cl100k_base()
    texts = list(GPT4_TEXTS)
    pieces = ("the", " cat", "'s", " 123", "4567", "é", "日本", "語", "👍", "🏽", "\u200d", " ", "\n", "!!", "ing", "Ω")
    texts += gen.generated(_texts(seed, 40, pieces, 8))
    return [
        Case((t, ref.ranks_for(t, ranks), GPT4_PATTERN, GPT4_SPECIAL_TOKENS), note="GPT-4's cl100k_base", size=_size(t))
        for t in texts
    ]


def check_encode_ranks(fn: Callable[..., Any], part: str = "basic", time_limit: float = DEFAULT_TIME_LIMIT) -> None:
    """Check ``encode_ranks(text, mergeable_ranks, pattern, special_tokens)``.

    Parts: ``"basic"``, small tables against :func:`bpe_ref.bytelevel.encode_ranks` (lowest rank of the joined
    bytes first, one join per step, any ints as ranks, the leftmost of equal pairs, chunk by chunk); ``"special"``,
    special tokens split out first, at every occurrence, the longest first, never tokenized as text; ``"gpt4"``,
    GPT-4's ``cl100k_base`` on text of many scripts, code and emoji (no special token in it), compared with tiktoken
    itself (each call gets the part of the table that its text can use).

    Example:
        >>> check_encode_ranks(ref.encode_ranks, "special")
    """
    __tracebackhide__ = True
    run_spec(ENCODE_RANKS, fn, part, time_limit)


@gen.memo
def _ranks_cases(part: str) -> list[Case]:
    return list(RANKS_FIXED[part]) + gen.generated(_ranks_generated(part))


def _ranks_generated(part: str) -> list[Case]:
    cases: list[Case] = []
    if part in ("basic", "special"):
        rng = random.Random(gen.SEED + 541 + len(part))
        for text in _texts(gen.SEED + 542 + len(part), 120, ("a", "b", "ab", " ", "<|s|>", "\n"), 8):
            table = dict(_BYTES)
            tokens = sorted({"".join(rng.choice("ab ") for _ in range(rng.randint(2, 4))) for _ in range(6)})
            for token, rank in zip(tokens, rng.sample(range(256, 400), len(tokens))):  # distinct ranks, as real ones
                table[token.encode()] = rank
            specials = {"<|s|>": 9000} if part == "special" else {}
            cases.append(Case((text, table, GPT4_PATTERN, specials), size=_size(text) + 6))
    return cases


ENCODE_RANKS = Spec(
    "encode_ranks",
    ref.encode_ranks,
    _LIST_OF_IDS,
    {
        **{part: Part(functools.partial(_ranks_cases, part)) for part in ("basic", "special")},
        "gpt4": Part(lambda: _gpt4_cases(gen.SEED + 540), reference=_tiktoken_ids),
    },
    remember=False,
)

SPECS: dict[str, Spec] = {
    spec.function: spec for spec in (PRETOKENIZE, TRAIN_BYTES, ENCODE_BYTES, DECODE_BYTES, ENCODE_RANKS)
}
"""The checks of assignment 05 as data, by graded function."""

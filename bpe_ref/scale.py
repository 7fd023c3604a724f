"""Reference solutions of assignment 06: byte-level BPE at scale, and a tokenizer that other libraries load.

* ``chunk_counts`` counts the byte-level chunks of a text, special tokens split out first and never counted;
  ``chunk_counts_file`` gives the same dict for a file, counted by several processes over pieces of the file cut at
  special tokens (CS336's assignment 1).
* ``train_fast`` trains on those counts incrementally (:mod:`bpe_ref.fast`'s trainer: pair counts kept up to date,
  a heap with lazy deletion), ties to the lexicographically largest pair of byte strings; ``train_plain`` is the
  plain loop it must equal, and the baseline the speed check measures it against.
* ``encode_text`` encodes by merge rank (GPT-2's ``encoder.py``); ``encode_iterable`` does the same lazily over
  any iterable of strings (a file object), holding back only what later text can still change.
* ``bytes_to_unicode`` is GPT-2's printable mapping of the 256 bytes; ``gpt2_files`` writes a vocabulary as GPT-2's
  ``vocab.json`` and ``merges.txt``, which Hugging Face ``tokenizers`` loads; ``mergeable_ranks`` gives tiktoken's
  table.

Tokens are byte strings: the bytes ``0..255`` are the ids ``0..255`` and the k-th merge makes the id ``256 + k``.
Two merges that make the same bytes make one token (it keeps the first one's id), as in CS336, Hugging Face
``tokenizers`` and tiktoken, whose vocabularies map each token's bytes (or text) to one id.

Every function returns a new object and never changes its arguments; bad input raises ``TypeError`` or
``ValueError`` naming the offending value.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import regex

from . import fast, validate
from .bytelevel import GPT2_PATTERN, GPT4_PATTERN, split_specials
from .primitives import apply_by_rank, merge_pair, rank_table
from .validate import short

__all__ = [
    "GPT2_PATTERN",
    "GPT4_PATTERN",
    "bytes_to_unicode",
    "chunk_counts",
    "chunk_counts_file",
    "encode_iterable",
    "encode_text",
    "gpt2_files",
    "mergeable_ranks",
    "special_tokens_checked",
    "token_ids",
    "train_fast",
    "train_plain",
]

ByteMerges = list[tuple[bytes, bytes]]
GPT2_VERSION_LINE = "#version: 0.2"
"""The first line of GPT-2's ``merges.txt`` (Hugging Face ``tokenizers`` skips it when it reads the file)."""

# ---------------------------------------------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------------------------------------------


def special_tokens_checked(special_tokens: object) -> Mapping[str, int]:
    """``special_tokens`` if it is a dict of non-empty str -> int id in which no token can start inside another.

    Two tokens overlap when an occurrence of one can begin strictly inside an occurrence of the other (``"ab"`` and
    ``"bc"`` in ``"abc"``, or ``"<|a|>"`` and ``"a"``; a token can overlap itself, ``"aa"`` in ``"aaa"``). Then
    where one ends and the next begins depends on where a scan starts, and a file cut at special tokens could be
    cut inside one. One token may be the beginning of another (``"<|x"`` and ``"<|x|>"``): the longest wins.

    Raises:
        TypeError: not a dict of str -> int. ValueError: two overlapping tokens, naming both.

    Example:
        >>> special_tokens_checked({"<|endoftext|>": 300})
        {'<|endoftext|>': 300}
        >>> special_tokens_checked({"ab": 1, "bc": 2})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: special tokens 'ab' and 'bc' overlap: 'bc' can start inside 'ab' (at index 1), so text ...
    """
    tokens = validate.special_tokens(special_tokens)
    for first in tokens:
        for second in tokens:
            for k in range(1, len(first)):
                rest = first[k:]
                if rest.startswith(second) or second.startswith(rest):
                    example = first[:k] + second if len(second) > len(rest) else first
                    raise ValueError(
                        f"special tokens {first!r} and {second!r} overlap: {second!r} can start inside {first!r} "
                        f"(at index {k}), so text such as {example!r} has no single way to be split"
                    )
    return tokens


def _vocab_size(value: object) -> int:
    if validate.integer("vocab_size", value) < 256:
        raise ValueError(f"vocab_size must be >= 256 (the 256 byte values come first), got {value!r}")
    return value  # type: ignore[return-value]


def _chunk_counts(value: object) -> Mapping[bytes, int]:
    if not isinstance(value, Mapping):
        raise TypeError(f"chunk_counts must be a dict of bytes -> count, got {type(value).__name__} {short(value)}")
    for chunk, count in value.items():
        if not isinstance(chunk, bytes) or not chunk:
            raise TypeError(f"a key of chunk_counts must be non-empty bytes, got {short(chunk)}")
        validate.count("chunk_counts", chunk, count)
    return value


def _byte_merges(value: object) -> ByteMerges:
    """A list of ``(bytes, bytes)`` merges, each part a byte or the bytes of an earlier merge."""
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"merges must be a list of (bytes, bytes) pairs, got {type(value).__name__} {short(value)}")
    known = {bytes([i]) for i in range(256)}
    out: ByteMerges = []
    for index, pair in enumerate(value):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2 or not all(isinstance(p, bytes) for p in pair):
            raise TypeError(f"merges[{index}] must be a pair of bytes (a, b), got {short(pair)}")
        for part in pair:
            if part not in known:
                raise ValueError(
                    f"merges[{index}] = {short(tuple(pair))} uses {part!r}, which no byte or earlier merge makes"
                )
        known.add(pair[0] + pair[1])
        out.append((pair[0], pair[1]))
    return out


# ---------------------------------------------------------------------------------------------------------------
# chunk counts
# ---------------------------------------------------------------------------------------------------------------


def chunk_counts(text: str, pattern: str, special_tokens: Mapping[str, int]) -> dict[bytes, int]:
    """The byte-level chunks of ``text`` and how often each occurs, special tokens split out first.

    1. Special tokens are cut out of the text (the longest first at a position, left to right, as 05's
       ``encode_ranks``); they are never counted and no chunk spans one.
    2. Each piece between them is split with ``pattern`` (``regex.findall``); each chunk is counted as its UTF-8
       bytes.

    Args:
        text: a ``str`` without lone surrogates.
        pattern: the split pattern, such as :data:`GPT2_PATTERN`.
        special_tokens: special token text -> id (``{}`` for none); only the texts matter here.

    Returns:
        A new dict ``{chunk_bytes: count}`` in order of first appearance.

    Raises:
        TypeError / ValueError: an argument of the wrong type, a bad pattern, a lone surrogate, overlapping special
        tokens; the message names the value.

    Source: CS336 (Stanford, 2025), assignment 1, "pre-tokenization"; GPT-2's ``encoder.py`` for the pattern.

    Example:
        >>> chunk_counts("the cat<|endoftext|>the dog", GPT2_PATTERN, {"<|endoftext|>": 300})
        {b'the': 2, b' cat': 1, b' dog': 1}
    """
    compiled = validate.split_pattern(pattern)
    counts: dict[bytes, int] = {}
    for piece, special in split_specials(text, special_tokens_checked(special_tokens)):
        if special:
            continue
        for chunk in compiled.findall(piece):
            key = chunk.encode("utf-8")
            counts[key] = counts.get(key, 0) + 1
    return counts


def _special_bytes(special_tokens: Mapping[str, int]) -> regex.Pattern | None:
    if not special_tokens:
        return None
    alternatives = sorted(special_tokens, key=lambda s: (-len(s), s))
    return regex.compile(b"|".join(regex.escape(s.encode("utf-8")) for s in alternatives))


def cut_points(
    path: str | os.PathLike, special_tokens: Mapping[str, int], pieces: int, block: int = 1 << 16
) -> list[int]:
    """Byte offsets that cut the file into up to ``pieces`` parts, each cut at the start of a special token.

    The i-th cut is the first special token at or after ``i * size / pieces``; without special tokens (or none
    after a wanted cut) the file stays whole from there on. Because no two special tokens overlap
    (:func:`special_tokens_checked`), the first occurrence after any offset is one that a scan of the whole text
    finds too, so counting each piece alone gives the counts of the whole.

    Returns:
        ``[0, c1, ..., size]``, increasing (``[0]`` for an empty file: no piece).

    Example:
        >>> import tempfile
        >>> with tempfile.NamedTemporaryFile("wb", suffix=".txt", delete=False) as f:
        ...     _ = f.write(b"aaaa<s>bb<s>cc")
        >>> cut_points(f.name, {"<s>": 9}, 2)
        [0, 9, 14]
    """
    size = os.path.getsize(path)
    finder = _special_bytes(special_tokens)
    points = [0]
    if finder is not None and pieces > 1:
        longest = max(len(s.encode("utf-8")) for s in special_tokens)
        with open(path, "rb") as handle:
            for i in range(1, pieces):
                start = max(i * size // pieces, points[-1])
                while start < size:
                    handle.seek(start)
                    data = handle.read(block + longest - 1)
                    match = next((m for m in finder.finditer(data) if m.start() < block), None)
                    if match is not None:
                        start += match.start()
                        break
                    start += block
                if start >= size:
                    break
                if start > points[-1]:
                    points.append(start)
    if size > points[-1]:
        points.append(size)
    return points


def _count_piece(
    path: str, start: int, end: int, pattern: str, special_tokens: Mapping[str, int]
) -> tuple[dict[bytes, int], tuple[int, str] | None]:
    """The chunk counts of the bytes ``[start, end)`` of the file, or the offset and reason of its first bad byte."""
    with open(path, "rb") as handle:
        handle.seek(start)
        data = handle.read(end - start)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return {}, (start + exc.start, f"{data[exc.start : exc.start + 1]!r}: {exc.reason}")
    return chunk_counts(text, pattern, special_tokens), None


def chunk_counts_file(
    path: str | os.PathLike, pattern: str, special_tokens: Mapping[str, int], workers: int
) -> dict[bytes, int]:
    """:func:`chunk_counts` of a file's text, counted by ``workers`` processes over pieces cut at special tokens.

    The text is the file's bytes decoded as UTF-8 (``data.decode("utf-8")``: line ends stay as they are). The
    file is cut into up to ``workers`` pieces, each starting at a special token (:func:`cut_points`); each process
    reads and counts its own piece, and the counts are added up in file order. A file without special tokens is
    one piece. The result is exactly ``chunk_counts(text, pattern, special_tokens)``, keys in the same order.

    Args:
        path: the file (a ``str`` or ``pathlib.Path``).
        pattern: the split pattern.
        special_tokens: special token text -> id (``{}`` for none).
        workers: the number of processes, an int ``>= 1`` (1 counts in this process).

    Returns:
        A new dict ``{chunk_bytes: count}``.

    Raises:
        TypeError / ValueError: a bad argument, naming it; ``ValueError`` for a file that is not UTF-8, naming the
        offset of its first bad byte. OSError: the file cannot be read.

    Source: CS336 (Stanford, 2025), assignment 1 (``find_chunk_boundaries``: cut the file at special tokens, count
    the pieces in parallel).

    Example:
        >>> import tempfile
        >>> with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8") as f:
        ...     _ = f.write("the cat<|endoftext|>the dog")
        >>> chunk_counts_file(f.name, GPT2_PATTERN, {"<|endoftext|>": 300}, 2)
        {b'the': 2, b' cat': 1, b' dog': 1}
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or a pathlib.Path, got {type(path).__name__} {short(path)}")
    validate.split_pattern(pattern)
    special_tokens_checked(special_tokens)
    if validate.integer("workers", workers) < 1:
        raise ValueError(f"workers must be >= 1, got {workers!r}")
    path = os.fspath(path)
    points = cut_points(path, special_tokens, workers)
    jobs = [(path, a, b, pattern, dict(special_tokens)) for a, b in zip(points, points[1:])]
    if workers == 1 or len(jobs) <= 1:
        results = [_count_piece(*job) for job in jobs]
    else:
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        with concurrent.futures.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(method)) as pool:
            results = list(pool.map(_count_piece, *zip(*jobs)))
    errors = [error for _, error in results if error is not None]
    if errors:
        offset, reason = min(errors)
        raise ValueError(f"{path} is not UTF-8 text: the byte at offset {offset} is not part of a character ({reason})")
    total: dict[bytes, int] = {}
    for counts, _ in results:
        for chunk, count in counts.items():
            total[chunk] = total.get(chunk, 0) + count
    return total


# ---------------------------------------------------------------------------------------------------------------
# training
# ---------------------------------------------------------------------------------------------------------------


def train_fast(chunk_counts: Mapping[bytes, int], vocab_size: int) -> ByteMerges:
    """Train byte-level BPE on chunk counts, incrementally: exactly the merges of :func:`train_plain`, much faster.

    Each chunk starts as its single bytes. Every round merges the most frequent adjacent pair (every occurrence
    counts, overlaps included, weighted by the chunk's count; never across chunks); a tie goes to the
    **lexicographically largest pair of byte strings**, ``max(counts, key=lambda p: (counts[p], p))``, a rule that
    does not depend on any order, so a heap's key can hold it. Rounds stop when the vocabulary holds
    ``vocab_size`` ids (the 256 bytes first, then one per merge) or no pair is left.

    This is :func:`bpe_ref.fast.train_vocab_fast`'s trainer ("largest") on the chunks' bytes read as Latin-1
    characters, whose order is the bytes' order: pair counts kept up to date by each merge (only the chunks that
    hold the merged pair are visited) and a heap of candidate pairs with lazy deletion.

    Args:
        chunk_counts: a dict of non-empty ``bytes`` -> positive int count (as :func:`chunk_counts` returns).
        vocab_size: an int ``>= 256``; ``vocab_size - 256`` merges at most.

    Returns:
        A new list ``[(bytes_a, bytes_b), ...]`` in merge order; the k-th merge's id is ``256 + k``.

    Raises:
        TypeError / ValueError: a key that is not non-empty bytes, a count that is not a positive int,
        ``vocab_size < 256``; the message names the value.

    Source: CS336 (Stanford, 2025), assignment 1 (``train_bpe``: the tie rule, bytes as tokens); the incremental
    statistics of ``subword-nmt``'s ``learn_bpe.py`` (Sennrich et al. 2016).

    Example:
        >>> train_fast({b"hug": 10, b"pug": 5, b"hugs": 1}, 258)
        [(b'u', b'g'), (b'h', b'ug')]
        >>> train_fast({b"ab": 1, b"cd": 1}, 257)  # a tie: (b"c", b"d") is the larger pair
        [(b'c', b'd')]
    """
    _chunk_counts(chunk_counts)
    num_merges = _vocab_size(vocab_size) - 256
    words = [(chunk.decode("latin-1"), count) for chunk, count in chunk_counts.items() if len(chunk) > 1]
    if not num_merges or not words:
        return []
    merges = fast.train_incremental([tuple(w) for w, _ in words], [c for _, c in words], num_merges, True, 1)
    return [(a.encode("latin-1"), b.encode("latin-1")) for a, b in merges]


def train_plain(chunk_counts: Mapping[bytes, int], vocab_size: int) -> ByteMerges:
    """The plain loop that :func:`train_fast` must equal: every round recounts every pair of every chunk.

    O(size of the chunks) per merge. It uses nothing but built-ins and :func:`bpe_ref.primitives.merge_pair`, so
    that the speed check can run these two functions, as they are written here, in the process that runs a learner's
    code (the baseline of the ratio).

    Example:
        >>> train_plain({b"hug": 10, b"pug": 5, b"hugs": 1}, 258)
        [(b'u', b'g'), (b'h', b'ug')]
    """
    words: list[list[Any]] = [[[chunk[i : i + 1] for i in range(len(chunk))], n] for chunk, n in chunk_counts.items()]
    merges: list[tuple[bytes, bytes]] = []
    while 256 + len(merges) < vocab_size:
        counts: dict[tuple[bytes, bytes], int] = {}
        for symbols, count in words:
            for pair in zip(symbols, symbols[1:]):
                counts[pair] = counts.get(pair, 0) + count
        if not counts:
            break
        best = max(counts, key=lambda pair: (counts[pair], pair))
        joined = best[0] + best[1]
        for word in words:
            if len(word[0]) > 1:
                word[0] = merge_pair(word[0], best, joined)
        merges.append(best)
    return merges


# ---------------------------------------------------------------------------------------------------------------
# encoding
# ---------------------------------------------------------------------------------------------------------------


def token_ids(merges: Sequence[tuple[bytes, bytes]]) -> dict[bytes, int]:
    """Each token's bytes and id: ``bytes([i]) -> i``, then the k-th merge's bytes -> ``256 + k`` (a merge whose
    bytes an earlier one made keeps that one's id). This is also tiktoken's ``mergeable_ranks`` of the merges.

    Example:
        >>> token_ids([(b"a", b"b"), (b"ab", b"c")])[b"abc"]
        257
    """
    ids = {bytes([i]): i for i in range(256)}
    for k, (a, b) in enumerate(_byte_merges(merges)):
        ids.setdefault(a + b, 256 + k)
    return ids


mergeable_ranks = token_ids


class _Encoder:
    """Encoding by merge rank, chunk by chunk, with a cache of chunks already encoded (bounded: it starts afresh
    when full)."""

    def __init__(self, merges: Sequence[tuple[bytes, bytes]], special_tokens: Mapping[str, int], cache_size: int):
        self.ids = token_ids(merges)
        self.ranks = rank_table(_byte_merges(merges))
        self.specials = special_tokens_checked(special_tokens)
        self.cache: dict[str, list[int]] = {}
        self.cache_size = cache_size

    def chunk(self, chunk: str) -> list[int]:
        found = self.cache.get(chunk)
        if found is None:
            data = chunk.encode("utf-8")
            symbols = apply_by_rank([data[i : i + 1] for i in range(len(data))], self.ranks)
            found = [self.ids[s] for s in symbols]
            if len(self.cache) >= self.cache_size:
                self.cache.clear()
            self.cache[chunk] = found
        return found


def encode_text(
    text: str, merges: Sequence[tuple[bytes, bytes]], pattern: str, special_tokens: Mapping[str, int]
) -> list[int]:
    """Encode ``text`` by merge rank: special tokens split out first, then chunk by chunk.

    Each chunk starts as its single bytes; repeatedly the adjacent pair that comes earliest in ``merges`` is merged
    (all its occurrences, left to right) until no adjacent pair is a merge. Each final token's id is its bytes' id
    (:func:`token_ids`); a special token is its id in ``special_tokens``.

    Source: GPT-2's ``encoder.py`` (``bpe``: ``bpe_ranks`` of pairs, the lowest first); as assignment 05's
    ``encode_bytes``, with tokens as bytes.

    Example:
        >>> encode_text("abab<|endoftext|>", [(b"a", b"b"), (b"ab", b"ab")], GPT2_PATTERN, {"<|endoftext|>": 999})
        [257, 999]
    """
    compiled = validate.split_pattern(pattern)
    encoder = _Encoder(merges, special_tokens, 1 << 16)
    out: list[int] = []
    for piece, special in split_specials(validate.utf8_text("text", text), encoder.specials):
        if special:
            out.append(encoder.specials[piece])
        else:
            for chunk in compiled.findall(piece):
                out.extend(encoder.chunk(chunk))
    return out


def _held_back(text: str, specials: Mapping[str, int]) -> int:
    """The length of the longest end of ``text`` that is a proper beginning of a special token (it may become one)."""
    longest = 0
    for token in specials:
        for n in range(min(len(token) - 1, len(text)), longest, -1):
            if text.endswith(token[:n]):
                longest = n
                break
    return longest


def encode_iterable(
    lines: Iterable[str],
    merges: Sequence[tuple[bytes, bytes]],
    pattern: str,
    special_tokens: Mapping[str, int],
    *,
    cache_size: int = 1 << 16,
) -> Iterator[int]:
    """Encode an iterable of strings (a file opened in text mode, a generator) lazily: the ids of the joined text.

    The text read so far is kept only while later text can still change how it is encoded: after each string, what
    can no longer change is encoded and its ids are yielded. That is everything but

    * an end of the text that could still become a special token (a proper beginning of one), and
    * the last two chunks of the text after the last special token: with GPT-2's and GPT-4's patterns more text can
      change only these (``"'l"`` is two chunks, ``'`` and ``l``, until an ``l`` makes it ``'ll``).

    So memory is bounded by the longest string (or chunk) and the cache of chunks already encoded, not by the
    whole input; the ids are exactly ``encode_text("".join(lines), merges, pattern, special_tokens)``.

    Args:
        lines: an iterable of ``str`` (not a ``str`` or ``bytes`` itself).
        merges: ``[(bytes_a, bytes_b), ...]`` as :func:`train_fast` returns.
        pattern: the split pattern.
        special_tokens: special token text -> id (``{}`` for none).
        cache_size: chunks the cache holds before it starts afresh.

    Returns:
        An iterator of int ids; arguments are checked when it is made, each string when it is read.

    Raises:
        TypeError: ``lines`` is a str, bytes or not iterable, or it yields something that is not a str (naming
        it: open files in text mode). ValueError: a bad pattern, merges or special tokens.

    Source: CS336 (Stanford, 2025), assignment 1 (``encode_iterable``); GPT-2's ``encoder.py`` for each chunk.

    Example:
        >>> merges = [(b"a", b"b"), (b"ab", b"ab")]
        >>> list(encode_iterable(["ab", "ab<|endof", "text|>ab"], merges, GPT2_PATTERN, {"<|endoftext|>": 999}))
        [257, 999, 256]
    """
    if isinstance(lines, (str, bytes, bytearray)):
        raise TypeError(
            f"lines must be an iterable of str (such as a file opened in text mode), not a {type(lines).__name__} "
            f"{short(lines)}"
        )
    try:
        items = iter(lines)
    except TypeError:
        raise TypeError(f"lines must be an iterable of str, got {type(lines).__name__} {short(lines)}") from None
    compiled = validate.split_pattern(pattern)
    encoder = _Encoder(merges, special_tokens, validate.integer("cache_size", cache_size))
    return _stream(items, compiled, encoder)


def _stream(items: Iterator[str], compiled: regex.Pattern, encoder: _Encoder) -> Iterator[int]:
    specials = encoder.specials
    buffer = ""
    for index, item in enumerate(items):
        if not isinstance(item, str):
            raise TypeError(
                f"lines[{index}] is a {type(item).__name__}, not a str: {short(item)} (open the file in text mode)"
            )
        buffer += validate.utf8_text(f"lines[{index}]", item)
        hold = _held_back(buffer, specials)
        ready, tail = buffer[: len(buffer) - hold], buffer[len(buffer) - hold :]
        pieces = split_specials(ready, specials) if ready else []
        last = pieces.pop() if pieces and not pieces[-1][1] else None
        for piece, special in pieces:
            if special:
                yield specials[piece]
            else:
                for chunk in compiled.findall(piece):
                    yield from encoder.chunk(chunk)
        if last is None:
            buffer = tail
            continue
        text = last[0]
        spans = [m.span() for m in compiled.finditer(text)]
        keep = spans[-2][0] if len(spans) >= 2 else 0
        for start, end in spans:
            if start >= keep:
                break
            yield from encoder.chunk(text[start:end])
        buffer = text[keep:] + tail
    if buffer:
        for piece, special in split_specials(buffer, specials):
            if special:
                yield specials[piece]
            else:
                for chunk in compiled.findall(piece):
                    yield from encoder.chunk(chunk)


# ---------------------------------------------------------------------------------------------------------------
# files other libraries load
# ---------------------------------------------------------------------------------------------------------------


def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's printable stand-in for each of the 256 bytes: a byte that is a printable character other than the
    space (``!``..``~``, ``¡``..``¬``, ``®``..``ÿ``) stands for itself; the other 68, in increasing order, are
    given the characters ``chr(256)``, ``chr(257)``, ... So the space (32) is ``"Ġ"`` (``chr(288)``) and the line
    feed (10) ``"Ċ"``.

    Returns:
        A new dict ``{byte: one-character str}``, the printable bytes first (in GPT-2's order), then the others.

    Source: GPT-2's ``encoder.py`` (``bytes_to_unicode``), kept by Hugging Face ``tokenizers``' ``ByteLevel``.

    Example:
        >>> table = bytes_to_unicode()
        >>> table[ord("a")], table[32], table[10], len(set(table.values()))
        ('a', 'Ġ', 'Ċ', 256)
    """
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    table = {b: chr(b) for b in printable}
    extra = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + extra)
            extra += 1
    return table


def gpt2_files(
    merges: Sequence[tuple[bytes, bytes]], special_tokens: Mapping[str, int]
) -> tuple[dict[str, int], list[str]]:
    """A vocabulary as GPT-2's two files: the mapping of ``vocab.json`` and the lines of ``merges.txt``.

    Every token is written as text by :func:`bytes_to_unicode`, byte by byte (``b" the"`` is ``"Ġthe"``).

    * ``vocab.json``: ``{token text: id}``: the 256 bytes (ids ``0..255``), each merge's token (``256 + k``; a
      token made twice is listed once, with its first id), then the special tokens with their ids, as they are.
    * ``merges.txt``: the line ``"#version: 0.2"``, then one line per merge, in order: the two parts' texts with one
      space between (``"Ġ t"``). No text of a byte is a space, so the line splits back unambiguously.

    Hugging Face ``tokenizers`` loads them as a byte-level BPE (``models.BPE(vocab, merges)``), whose ids equal
    :func:`encode_text`'s.

    Returns:
        ``(vocab, lines)``: a new dict and a new list of str (no line ends).

    Raises:
        TypeError / ValueError: bad merges or special tokens, naming the value; a special token whose text is also a
        token's text with another id.

    Source: GPT-2's ``encoder.py`` and its released ``encoder.json`` / ``vocab.bpe``; Hugging Face ``tokenizers``
    (``BPE.from_file``).

    Example:
        >>> vocab, lines = gpt2_files([(b" ", b"t"), (b" t", b"he")], {"<|endoftext|>": 258})
        Traceback (most recent call last):
        ...
        ValueError: merges[1] = (b' t', b'he') uses b'he', which no byte or earlier merge makes
        >>> vocab, lines = gpt2_files([(b" ", b"t"), (b"h", b"e"), (b" t", b"he")], {"<|endoftext|>": 259})
        >>> lines
        ['#version: 0.2', 'Ġ t', 'h e', 'Ġt he']
        >>> vocab["Ġthe"], vocab["<|endoftext|>"], vocab["a"]
        (258, 259, 97)
    """
    table = bytes_to_unicode()
    checked = _byte_merges(merges)
    specials = special_tokens_checked(special_tokens)

    def text(token: bytes) -> str:
        return "".join(table[b] for b in token)

    vocab = {text(token): token_id for token, token_id in token_ids(checked).items()}
    for token, token_id in specials.items():
        if vocab.get(token, token_id) != token_id:
            raise ValueError(
                f"special token {token!r} has id {token_id}, but a token with the same text has {vocab[token]}"
            )
        vocab[token] = token_id
    return vocab, [GPT2_VERSION_LINE, *(f"{text(a)} {text(b)}" for a, b in checked)]

"""Corpus word counts, the ``subword-nmt`` codes file, and applying codes to text, as ``subword-nmt`` does.

Everything here follows ``subword-nmt`` 0.3.8 (Rico Sennrich, https://github.com/rsennrich/subword-nmt) byte for byte:

* **Words** (``learn_bpe.get_vocabulary``): the text is cut into lines the way Python's ``codecs`` reader cuts them,
  which is ``str.splitlines(keepends=True)`` (so ``\\x0c``, ``\\x85``, ``\\u2028`` ... also end a line); each line is
  stripped of ``"\\r"``, ``"\\n"`` and ``" "`` at both ends and split on single spaces ``" "``; empty strings are
  skipped. Tabs and other whitespace stay inside words.
* **Codes file**: a header line ``#version: 0.2`` (the last character of a word carries ``</w>``, the
  ``"attached"`` marker), then one merge ``"a b"`` per line, separated by one space. ``subword-nmt`` reads a file
  without a header, or with ``#version: 0.1``, as the older style with ``</w>`` a separate symbol (``"separate"``).
  Codes learned without a marker are written with the header ``#version: none``, which ``subword-nmt`` rejects.
* **Applying codes** (``apply_bpe.BPE``): each word is segmented by merge rank, as :func:`bpe_ref.apply_ranked`
  (repeatedly merge every occurrence of the lowest-ranked pair; a duplicated merge keeps its first rank); the
  ``</w>`` is then removed, and every subword but the last is followed by the separator ``"@@"``; the words are joined
  by single spaces. Whitespace (``"\\r"``, ``"\\n"``, ``" "``) at the start and end of a line is kept as it was.

Not supported: ``subword-nmt``'s ``--vocabulary``, ``--glossaries``, ``--dropout`` and ``--total-symbols``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import chain

from . import primitives as bpe
from . import validate as check
from .fast import check_marker
from .primitives import Pair

_ODD_WHITESPACE = re.compile(r"[^\S \r\n]")  # whitespace other than " ", "\r", "\n" (every line end is one)
HEADERS = {"attached": "#version: 0.2", "separate": "#version: 0.1", "none": "#version: none"}
SEPARATOR = "@@"


# ---------------------------------------------------------------------------------------------------------------
# words of a corpus
# ---------------------------------------------------------------------------------------------------------------


def count_words(text: str) -> dict[str, int]:
    """Count the words of ``text`` as ``subword-nmt learn-bpe`` does (see the module docstring).

    Args:
        text: the whole corpus as a str.

    Returns:
        A new dict mapping each word to how often it occurs, in order of first occurrence.

    Raises:
        TypeError: ``text`` is not a str.

    Example:
        >>> count_words("the cat\\n  the\\tdog the \\n")
        {'the': 2, 'cat': 1, 'the\\tdog': 1}
    """
    check.text("text", text)
    if _ODD_WHITESPACE.search(text) is None:
        # only " ", "\r" and "\n": the words are exactly the runs that str.split() finds (a shortcut in C, one line
        # at a time so that the words of the whole text are never all in memory at once)
        return dict(Counter(chain.from_iterable(map(str.split, text.splitlines()))))
    counts: dict[str, int] = {}
    get = counts.get
    for line in text.splitlines(True):
        for word in line.strip("\r\n ").split(" "):
            counts[word] = get(word, 0) + 1
    counts.pop("", None)
    return counts


# ---------------------------------------------------------------------------------------------------------------
# the codes file
# ---------------------------------------------------------------------------------------------------------------


def format_codes(merges: Iterable[Pair], marker: str = "attached") -> str:
    """The text of a codes file: the header for ``marker``, then one ``"a b"`` line per merge.

    Args:
        merges: ``(str, str)`` pairs in the order learned.
        marker: the marker style they were learned with, ``"attached"`` (default, ``#version: 0.2``), ``"separate"``
            (``#version: 0.1``) or ``"none"`` (``#version: none``).

    Returns:
        The file's text, ending with a newline.

    Raises:
        TypeError / ValueError: a merge is not two non-empty strs; a symbol holds a space or a line break (the file
        could not be read back); ``marker`` is unknown.

    Example:
        >>> print(format_codes([("e", "s"), ("es", "t</w>")]), end="")
        #version: 0.2
        e s
        es t</w>
    """
    check_marker(marker)
    merges = check.merges("merges", merges)
    lines = [HEADERS[marker]]
    for index, pair in enumerate(merges):
        for symbol in pair:
            if " " in symbol or "\n" in symbol or "\r" in symbol:
                raise ValueError(f"merges[{index}] = {pair!r}: a codes file cannot hold a space or line break")
        lines.append(f"{pair[0]} {pair[1]}")
    return "\n".join(lines) + "\n"


def parse_codes(text: str) -> tuple[list[Pair], str]:
    """Read the text of a codes file: its merges and its marker style (as ``subword-nmt``'s ``BPE`` reads it).

    A first line starting with ``#version:`` is the header (``0.2`` -> ``"attached"``, ``0.1`` -> ``"separate"``,
    ``none`` -> ``"none"``); with no header the file is ``"separate"`` (``subword-nmt``'s version 0.1). Every other
    line, stripped of ``"\\r\\n "``, must be two symbols separated by one space; trailing newlines are ignored.

    Args:
        text: the file's contents.

    Returns:
        ``(merges, marker)``.

    Raises:
        TypeError: ``text`` is not a str. ValueError: an unknown version, or a line that is not two symbols (the
        message gives its line number and text).

    Example:
        >>> parse_codes("#version: 0.2\\ne s\\nes t</w>\\n")
        ([('e', 's'), ('es', 't</w>')], 'attached')
    """
    check.text("text", text)
    first_line = text.splitlines(True)[0] if text else ""
    marker, offset, body = "separate", 1, text
    if first_line.startswith("#version:"):
        version = first_line.split()[-1] if first_line.split()[1:] else ""
        version = re.sub(r"(\.0+)*$", "", version)
        markers = {"0.2": "attached", "0.1": "separate", "none": "none"}
        if version not in markers:
            raise ValueError(f"unknown codes file version {first_line.strip()!r}")
        marker, offset, body = markers[version], 2, text[len(first_line) :]
    merges: list[Pair] = []
    body = body.rstrip("\n")
    for number, line in enumerate(body.split("\n") if body else []):
        item = tuple(line.strip("\r\n ").split(" "))
        if len(item) != 2 or not item[0] or not item[1]:
            raise ValueError(f"line {number + offset} of the codes file is not two symbols: {line!r}")
        merges.append((item[0], item[1]))
    return merges, marker


def write_codes(path: str, merges: Iterable[Pair], marker: str = "attached") -> None:
    """Write :func:`format_codes` to the file ``path`` (UTF-8, ``"\\n"`` line ends)."""
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        out.write(format_codes(merges, marker))


def read_codes(path: str) -> tuple[list[Pair], str]:
    """:func:`parse_codes` of the UTF-8 file ``path``."""
    with open(path, encoding="utf-8", newline="") as source:
        return parse_codes(source.read())


# ---------------------------------------------------------------------------------------------------------------
# applying codes
# ---------------------------------------------------------------------------------------------------------------


class Encoder:
    """Segment words and text with a merge table by rank, with a cache, exactly as ``subword-nmt apply-bpe``.

    Args:
        merges: ``(str, str)`` pairs, most important first; a pair listed twice keeps its first rank.
        marker: the marker style the merges were learned with: ``"attached"`` (default, ``subword-nmt`` >= 0.2),
            ``"separate"`` or ``"none"``.
        separator: the string written after every subword but the last of a word (default ``"@@"``).

    Raises:
        TypeError / ValueError: a merge is not two non-empty strs, ``marker`` is unknown, or ``separator`` is not a
        str.

    Example:
        >>> encoder = Encoder([("l", "o"), ("lo", "w</w>"), ("e", "r</w>")])
        >>> encoder.segment("lower"), encoder.segment("low")
        (('lo', 'w', 'er'), ('low',))
        >>> encoder.segment_line("  low lower\\n")
        '  low lo@@ w@@ er\\n'
    """

    def __init__(self, merges: Sequence[Pair], marker: str = "attached", separator: str = SEPARATOR) -> None:
        merges = check.merges("merges", merges)
        check_marker(marker)
        check.text("separator", separator)
        self.marker = marker
        self.separator = separator
        self.ranks: dict[Pair, int] = bpe.rank_table(merges)
        self._segments: dict[str, tuple[str, ...]] = {}
        self._words: dict[str, str] = {}

    def segment(self, word: str) -> tuple[str, ...]:
        """The subwords of one non-empty ``word``, without the ``</w>`` marker (cached).

        Raises:
            TypeError / ValueError: ``word`` is not a non-empty str.
        """
        cached = self._segments.get(word)
        if cached is None:
            check.word("word", word)
            cached = self._segments[word] = self._segment(word)
        return cached

    def _segment(self, word: str) -> tuple[str, ...]:
        end_of_word, attached = bpe.MARKER_STYLES[self.marker]
        symbols = bpe.apply_by_rank(bpe.word_to_symbols(word, end_of_word, attached), self.ranks)
        if end_of_word is not None:  # subword-nmt: drop a final "</w>" symbol, else strip it from the last one
            if symbols[-1] == end_of_word:
                symbols.pop()
            elif symbols[-1].endswith(end_of_word):
                symbols[-1] = symbols[-1][: -len(end_of_word)]
        return tuple(symbols)

    def encode_word(self, word: str) -> str:
        """The subwords of ``word`` joined by ``separator + " "`` (``"lo@@ w@@ er"``), cached."""
        out = self._words.get(word)
        if out is None:
            out = self._words[word] = (self.separator + " ").join(self.segment(word))
        return out

    def segment_line(self, line: str) -> str:
        """Segment every space-separated word of ``line``; keep its leading and trailing ``"\\r\\n "`` as they are.

        Words are separated by single spaces in the output (runs of spaces inside the line collapse), as
        ``subword-nmt``'s ``BPE.process_line``.
        """
        stripped = line.strip("\r\n ")
        if not stripped:  # a blank line is written as it is
            return line
        words = self._words
        body = " ".join([words.get(word) or self.encode_word(word) for word in stripped.split(" ") if word])
        start = len(line) - len(line.lstrip("\r\n "))
        end = len(line.rstrip("\r\n "))
        return line[:start] + body + line[end:]

    def apply(self, text: str) -> str:
        """Segment all of ``text``, line by line (lines as ``codecs`` cuts them, see :func:`count_words`)."""
        check.text("text", text)
        return "".join([self.segment_line(line) for line in text.splitlines(True)])


def apply_codes(text: str, merges: Sequence[Pair], marker: str = "attached", separator: str = SEPARATOR) -> str:
    """Segment ``text`` with ``merges`` as ``subword-nmt apply-bpe`` (see :class:`Encoder`).

    Example:
        >>> apply_codes("lower low\\n", [("l", "o"), ("lo", "w</w>"), ("e", "r</w>")])
        'lo@@ w@@ er low\\n'
    """
    return Encoder(merges, marker, separator).apply(text)


def train_codes(
    text: str,
    num_merges: int,
    *,
    tie_break: str = "largest",
    marker: str = "attached",
    min_frequency: int = 2,
) -> list[Pair]:
    """Learn merges from corpus text as ``subword-nmt learn-bpe -s num_merges --min-frequency min_frequency``.

    :func:`count_words`, then :func:`bpe_ref.fast.train_fast`. With the defaults (``"largest"``, ``"attached"``,
    2) these are the merges of ``subword-nmt`` 0.3.8 (checked on the whole King James Bible: all 24,639 merges).
    Words holding whitespace other than ``" "`` (a tab, say) are the exception: ``subword-nmt`` joins a word's
    symbols with spaces and merges with a regular expression that treats any whitespace as a boundary.

    Example:
        >>> train_codes("low low lower newest newest widest", 3)
        [('w', 'e'), ('s', 't</w>'), ('l', 'o')]
    """
    from .fast import train_fast

    return train_fast(count_words(text), num_merges, tie_break, marker=marker, min_frequency=min_frequency)

"""Input validation shared by the public functions of :mod:`bpe_ref` (:mod:`bpe_ref.primitives` checks nothing).

Every check raises ``TypeError`` for a value of the wrong type and ``ValueError`` for a value of the
right type that breaks a rule, and names the offending value with ``repr`` so that a learner can see
exactly what was passed.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import regex

from .primitives import TIE_BREAKS


def short(value: Any, limit: int = 80) -> str:
    """``repr(value)``, cut to ``limit`` characters with ``...`` at the end, for error messages."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def sequence(name: str, value: Any) -> Sequence[Hashable]:
    """A list or tuple (not a string: a string's pairs are characters, which 01 does not promise)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise TypeError(f"{name} must be a list or tuple, got {type(value).__name__} {short(value)}")
    for item in value:
        if not isinstance(item, Hashable):
            raise TypeError(f"{name} holds an unhashable element {short(item)}")
    return value


def pair(name: str, value: Any, *, of_str: bool = False) -> tuple[Any, Any]:
    if not isinstance(value, tuple) or len(value) != 2:
        raise TypeError(f"{name} must be a tuple of two symbols, got {short(value)}")
    if of_str:
        for symbol in value:
            if not isinstance(symbol, str) or not symbol:
                raise ValueError(f"{name} must hold two non-empty strings, got {short(value)}")
    return value


def count(name: str, key: Any, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name}[{key!r}] must be an int count, got {type(value).__name__} {short(value)}")
    if value <= 0:
        raise ValueError(f"{name}[{key!r}] must be a positive count, got {value!r}")
    return value


def text(name: str, value: Any) -> str:
    """A str, possibly empty."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__} {short(value)}")
    return value


def word(name: str, value: Any) -> str:
    text(name, value)
    if not value:
        raise ValueError(f"{name} must be a non-empty string, got {value!r}")
    return value


def word_counts(name: str, value: Any) -> Mapping[str, int]:
    """A mapping of non-empty words to positive int counts."""
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a dict of word -> count, got {type(value).__name__} {short(value)}")
    for key, freq in value.items():
        word(f"a key of {name}", key)
        count(name, key, freq)
    return value


def split_word_counts(name: str, value: Any) -> Mapping[str, int]:
    """A mapping of space-separated symbol strings (``bpe_train``'s format, ``"h u g </w>"``) to positive int counts."""
    word_counts(name, value)
    for key in value:
        if not key.split():
            raise ValueError(f"{name} has a key with no symbols: {key!r}")
    return value


def vocab(name: str, value: Any) -> Mapping[tuple[str, ...], int]:
    """A mapping of non-empty tuples of non-empty str symbols to positive int counts."""
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a dict of symbol tuple -> count, got {type(value).__name__} {short(value)}")
    for key, freq in value.items():
        if not isinstance(key, tuple) or not key:
            raise TypeError(f"a key of {name} must be a non-empty tuple of symbols, got {short(key)}")
        for symbol in key:
            if not isinstance(symbol, str) or not symbol:
                raise ValueError(f"a key of {name} holds a symbol that is not a non-empty str: {short(key)}")
        count(name, key, freq)
    return value


def num_merges(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {short(value)}")
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return value


def merges(name: str, value: Any) -> list[tuple[str, str]]:
    # An ordered sequence only: a set's order (so the merges' ranks) changes from run to run.
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{name} must be a list of (str, str) pairs, got {type(value).__name__} {short(value)}")
    value = list(value)
    for index, item in enumerate(value):
        pair(f"{name}[{index}]", item, of_str=True)
    return value


def tie_break(value: Any) -> str:
    if value not in TIE_BREAKS:
        raise ValueError(f"tie_break must be one of {', '.join(map(repr, TIE_BREAKS))}; got {short(value)}")
    return value


def pair_counts(name: str, value: Any) -> Mapping[Any, int]:
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a dict of pair -> count, got {type(value).__name__} {short(value)}")
    if not value:
        raise ValueError(f"{name} is empty: there is no pair to choose")
    for key, freq in value.items():
        pair(f"a key of {name}", key)
        count(name, key, freq)
    return value


def symbols(name: str, value: Any) -> tuple[str, ...]:
    """A list or tuple of non-empty str symbols, returned as a tuple."""
    sequence(name, value)
    for symbol in value:
        if not isinstance(symbol, str) or not symbol:
            raise ValueError(f"{name} must hold non-empty strings, got {short(symbol)}")
    return tuple(value)


def utf8_text(name: str, value: Any) -> str:
    """A str that has UTF-8 bytes (no lone surrogate), possibly empty."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__} {short(value)}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"{name} holds a lone surrogate {value[exc.start]!r} at index {exc.start}, which has no UTF-8 bytes"
        ) from None
    return value


@functools.lru_cache(maxsize=64)
def _compiled(pattern: str) -> regex.Pattern:
    return regex.compile(pattern)


def split_pattern(value: Any) -> regex.Pattern:
    """A split pattern (a regular expression for ``regex``), compiled (the last 64 are kept compiled)."""
    if not isinstance(value, str):
        raise TypeError(f"pattern must be a str (a regular expression), got {type(value).__name__} {short(value)}")
    try:
        return _compiled(value)
    except regex.error as exc:
        raise ValueError(f"pattern {short(value)} is not a valid regular expression: {exc}") from None


def integer(name: str, value: Any) -> int:
    """An int, not a bool."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {short(value)}")
    return value


def special_tokens(value: Any) -> Mapping[str, int]:
    """A dict of non-empty str -> int id."""
    if not isinstance(value, Mapping):
        raise TypeError(f"special_tokens must be a dict of str -> id, got {type(value).__name__} {short(value)}")
    for token, token_id in value.items():
        if not isinstance(token, str) or not token:
            raise TypeError(f"a key of special_tokens must be a non-empty str, got {short(token)}")
        integer(f"special_tokens[{token!r}]", token_id)
    return value

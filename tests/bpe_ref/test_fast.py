"""Differential tests: the incremental trainer (:mod:`bpe_ref.fast`) against the plain loop (:mod:`bpe_ref.core`).

Hypothesis draws small corpora over tiny alphabets (so that ties, overlaps and runs such as ``aaaa`` and ``ababab``
are everywhere), every tie-break, every marker style and several ``min_frequency`` values; the merges must be
identical, not merely equally good.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bpe_ref import core, primitives
from bpe_ref.codes import count_words
from bpe_ref.fast import (
    MARKERS,
    _reverse,
    train_fast,
    train_plain,
    train_vocab_fast,
    word_symbols,
)

TIE_BREAKS = core.TIE_BREAKS
GENESIS = Path(__file__).resolve().parents[2] / "data" / "kjv_genesis.txt"

SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# words over one to three letters, plus runs of a short unit ("aaaa", "ababab", "aabaab", ...)
runs = st.builds(lambda unit, n: unit * n, st.sampled_from(["a", "ab", "ba", "aab", "abc"]), st.integers(1, 6))
words = st.one_of(
    st.text(alphabet="a", min_size=1, max_size=7),
    st.text(alphabet="ab", min_size=1, max_size=8),
    st.text(alphabet="abc", min_size=1, max_size=8),
    runs,
)
word_freqs = st.dictionaries(words, st.integers(1, 5), min_size=1, max_size=7)
num_merges = st.integers(0, 16)
tie_breaks = st.sampled_from(TIE_BREAKS)
markers = st.sampled_from(MARKERS)

# vocabs whose initial symbols are already multi-character, so that a merge can make a symbol that exists, and two
# words can become equal (they collapse into the earlier slot in the plain loop)
symbols = st.sampled_from(["a", "b", "ab", "ba", "aa", "</w>", "b</w>"])
vocabs = st.dictionaries(st.lists(symbols, min_size=1, max_size=6).map(tuple), st.integers(1, 4), max_size=7)


@SETTINGS
@given(word_freqs, num_merges, tie_breaks, markers, st.integers(1, 3))
@example({"aaaa": 1}, 5, "first", "none", 1)
@example({"ababab": 2, "abab": 1}, 8, "first", "separate", 1)
@example({"aaaa": 3, "aaa": 2, "aa": 1}, 10, "largest", "attached", 1)
@example({"ba": 1, "ab": 1}, 4, "first", "none", 1)
def test_fast_equals_plain(word_freqs, num_merges, tie_break, marker, min_frequency):
    expected = train_plain(word_freqs, num_merges, tie_break, marker=marker, min_frequency=min_frequency)
    got = train_fast(word_freqs, num_merges, tie_break, marker=marker, min_frequency=min_frequency)
    assert got == expected


@SETTINGS
@given(word_freqs, num_merges, tie_breaks)
def test_fast_equals_core_train_vocab(word_freqs, num_merges, tie_break):
    """Straight against the public core functions: the separate marker and no marker."""
    with_marker = {core.get_word_symbols(word): freq for word, freq in word_freqs.items()}
    without = {tuple(word): freq for word, freq in word_freqs.items()}
    assert train_fast(word_freqs, num_merges, tie_break) == core.train_vocab(with_marker, num_merges, tie_break)
    assert train_fast(word_freqs, num_merges, tie_break, marker="none") == core.train_vocab(
        without, num_merges, tie_break
    )


@SETTINGS
@given(word_freqs, num_merges)
def test_fast_equals_graded_trainers(word_freqs, num_merges):
    assert train_fast(word_freqs, num_merges) == core.train_bpe(word_freqs, num_merges)
    assert train_fast(word_freqs, num_merges, "smallest", marker="none") == core.learn_bpe(word_freqs, num_merges)
    spaced = {" ".join(core.get_word_symbols(word)): freq for word, freq in word_freqs.items()}
    assert train_fast(word_freqs, num_merges, "first") == core.bpe_train(spaced, num_merges)


@settings(SETTINGS, max_examples=600)
@given(vocabs, num_merges, tie_breaks, st.integers(1, 2))
@example({("a", "b", "a"): 1, ("ab", "a"): 1, ("a", "ba"): 1}, 6, "first", 1)
# a merge that makes an existing symbol ("ab"): its pairs must be counted as one with the old ones
@example({("ba",): 4, ("ab", "b", "a", "b", "ab", "ab"): 3}, 16, "smallest", 1)
@example(
    {("a", "b", "ab", "a", "b"): 1, ("b</w>", "b"): 3, ("</w>", "</w>", "ab", "ab", "aa", "b</w>"): 3},
    13,
    "smallest",
    1,
)
def test_vocab_fast_equals_train_vocab(vocab, num_merges, tie_break, min_frequency):
    expected = core.train_vocab(vocab, num_merges, tie_break)
    cut = []
    for step in primitives.train_rounds(dict(vocab), num_merges, tie_break):
        if step.count < min_frequency:
            break
        cut.append(step.pair)
    assert train_vocab_fast(vocab, num_merges, tie_break) == expected
    assert train_vocab_fast(vocab, num_merges, tie_break, min_frequency=min_frequency) == cut


@pytest.mark.parametrize("tie_break", TIE_BREAKS)
@pytest.mark.parametrize("marker", MARKERS)
def test_real_text_excerpt(tie_break, marker):
    """The first 100 verses of Genesis, 120 merges: deep enough for many ties at small counts."""
    lines = GENESIS.read_text(encoding="utf-8").splitlines(True)[:100]
    counts = count_words("".join(lines))
    expected = train_plain(counts, 120, tie_break, marker=marker)
    assert len(expected) == 120
    assert train_fast(counts, 120, tie_break, marker=marker) == expected


def test_course_examples():
    assert train_fast({"aa": 5, "ab": 1}, 1) == [("a", "a")]
    assert train_fast({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 4, "smallest", marker="none") == [
        ("e", "s"),
        ("es", "t"),
        ("l", "o"),
        ("lo", "w"),
    ]
    assert train_vocab_fast(
        {("h", "u", "g", "</w>"): 10, ("p", "u", "g", "</w>"): 5, ("b", "u", "g", "</w>"): 2}, 3, "first"
    ) == [
        ("u", "g"),
        ("ug", "</w>"),
        ("h", "ug</w>"),
    ]
    assert train_fast({"ab": 1, "cd": 1}, 5, "first") == [("a", "b"), ("ab", "</w>"), ("c", "d"), ("cd", "</w>")]


def test_runs_and_stopping():
    assert train_fast({"aaaa": 1}, 5, marker="none") == [("a", "a"), ("aa", "aa")]
    assert train_fast({"aaa": 1}, 5, marker="none") == [("a", "a"), ("aa", "a")]
    assert train_fast({"ababab": 1}, 9, "first", marker="none") == [("a", "b"), ("ab", "ab"), ("abab", "ab")]
    assert train_fast({"a": 3}, 4, marker="none") == []
    assert train_fast({"abc": 1}, 0) == []
    assert train_fast({"abab": 1, "cd": 1}, 10, min_frequency=2, marker="none") == [("a", "b")]


def test_word_symbols_and_reverse_order():
    assert word_symbols("low") == core.get_word_symbols("low")
    assert word_symbols("low", "attached") == ("l", "o", "w</w>")
    assert word_symbols("x", "attached") == ("x</w>",)
    assert word_symbols("low", "none") == ("l", "o", "w")
    texts = ["", "a", "ab", "b", "</w>", "a</w>", "\x00", "\U0010ffff", "é"]
    pairs = [(a, b) for a in texts[1:] for b in texts[1:]]
    by_reverse = sorted(pairs, key=lambda p: (_reverse(p[0]), _reverse(p[1])))
    assert by_reverse == sorted(pairs, reverse=True)


def test_inputs_are_not_changed():
    freqs = {"abab": 2, "ba": 1}
    vocab = {("a", "b", "a", "b"): 2}
    train_fast(freqs, 5, "first")
    train_vocab_fast(vocab, 5, "first")
    assert freqs == {"abab": 2, "ba": 1}
    assert vocab == {("a", "b", "a", "b"): 2}


@pytest.mark.parametrize(
    ("call", "error", "named"),
    [
        (lambda: train_fast({"ab": 1}, 2, "biggest"), ValueError, "'biggest'"),
        (lambda: train_fast({"ab": 1}, 2, marker="end"), ValueError, "'end'"),
        (lambda: train_fast({"ab": 1}, 2, min_frequency=0), ValueError, "0"),
        (lambda: train_fast({"ab": 1}, 2, min_frequency=1.5), TypeError, "1.5"),
        (lambda: train_fast({"ab": 1}, 2, min_frequency=True), TypeError, "True"),
        (lambda: train_fast({"ab": 1}, -1), ValueError, "-1"),
        (lambda: train_fast({"ab": 1}, "3"), TypeError, "'3'"),
        (lambda: train_fast({"": 1}, 2), ValueError, "''"),
        (lambda: train_fast({"ab": 0}, 2), ValueError, "0"),
        (lambda: train_fast({"ab": 2.0}, 2), TypeError, "2.0"),
        (lambda: train_fast({b"ab": 1}, 2), TypeError, "b'ab'"),
        (lambda: train_fast([("ab", 1)], 2), TypeError, "list"),
        (lambda: train_vocab_fast({("a", ""): 1}, 2), ValueError, "('a', '')"),
        (lambda: train_vocab_fast({"ab": 1}, 2), TypeError, "'ab'"),
        (lambda: word_symbols("", "none"), ValueError, "''"),
        (lambda: word_symbols("ab", "after"), ValueError, "'after'"),
    ],
)
def test_bad_input_is_named(call, error, named):
    with pytest.raises(error) as caught:
        call()
    assert named in str(caught.value)


@pytest.mark.parametrize("name", ["bpe_ref.fast", "bpe_ref.codes"])
def test_docstring_examples(name):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0

"""bpe_ref.primitives: each primitive against a slow spelled-out version, and the package's one-home rules.

The spelled-out versions below restate each rule in the plainest way (a rescan per position, ``str.replace`` on
a spaced string ...), so that a primitive and its restatement can only agree by both being right.
"""

from __future__ import annotations

import ast
import doctest
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_ref import primitives as bpe

PACKAGE = Path(bpe.__file__).parent
FAST = settings(max_examples=300, deadline=None)

symbol_st = st.sampled_from(["a", "b", "ab", "</w>"])
symbols_st = st.lists(symbol_st, max_size=9)
pair_st = st.tuples(symbol_st, symbol_st)
table_st = st.lists(pair_st, max_size=8)
word_st = st.text("abé", min_size=1, max_size=6)


def merged_by_rescan(symbols: list[str], pair: tuple[str, str]) -> tuple[list[str], list[int]]:
    """Merge by taking the leftmost match, cutting there and starting again on the rest."""
    out: list[str] = []
    positions: list[int] = []
    rest, offset = list(symbols), 0
    while True:
        starts = [i for i in range(len(rest) - 1) if (rest[i], rest[i + 1]) == pair]
        if not starts:
            return out + rest, positions
        i = starts[0]
        out += [*rest[:i], pair[0] + pair[1]]
        positions.append(offset + i)
        rest, offset = rest[i + 2 :], offset + i + 2


@FAST
@given(symbols_st, pair_st)
def test_merge_pair_is_the_leftmost_match_taken_again_and_again(symbols, pair):
    positions: list[int] = []
    assert (bpe.merge_pair(symbols, pair, pair[0] + pair[1], positions), positions) == merged_by_rescan(symbols, pair)


def test_merge_pair_skips_past_a_match_and_leaves_its_argument():
    ids = (5, 5, 5, 5, 5)
    assert bpe.merge_pair(ids, (5, 5), 9) == [9, 9, 5]
    assert ids == (5, 5, 5, 5, 5)


@FAST
@given(st.lists(st.tuples(symbols_st, st.integers(1, 4)), max_size=5))
def test_weighted_pair_counts_are_the_occurrences_times_the_weight_in_first_seen_order(sequences):
    occurrences = [(pair, weight) for symbols, weight in sequences for pair in zip(symbols, symbols[1:], strict=False)]
    order = list(dict.fromkeys(pair for pair, _ in occurrences))
    counts = bpe.weighted_pair_counts(sequences)
    assert list(counts) == order
    assert counts == {pair: sum(w for p, w in occurrences if p == pair) for pair in order}


def test_overlapping_pairs_all_count():
    assert bpe.sequence_pair_counts("aaa") == {("a", "a"): 2}
    assert bpe.vocab_pair_counts({("a", "a", "a"): 3, ("a",): 7}) == {("a", "a"): 6}


@FAST
@given(word_st)
def test_word_to_symbols_for_every_marker_style(word):
    assert bpe.word_to_symbols(word, None) == tuple(word)
    assert bpe.word_to_symbols(word) == (*word, "</w>")
    attached = bpe.word_to_symbols(word, "</w>", attached=True)
    assert len(attached) == len(word) and "".join(attached) == word + "</w>" and attached[-1].endswith("</w>")
    assert bpe.word_to_symbols(word, "#") == (*word, "#")  # the marker is a string, not a flag


def test_vocab_from_words_sums_words_that_start_alike_and_keeps_order():
    assert bpe.collect_vocab([(("b",), 1), (("a",), 2), (("b",), 4)]) == {("b",): 5, ("a",): 2}
    assert list(bpe.collect_vocab([(("b",), 1), (("a",), 2), (("b",), 4)])) == [("b",), ("a",)]
    assert bpe.vocab_from_words({"ab": 2, "b": 3}, None) == {("a", "b"): 2, ("b",): 3}


def merged_vocab_by_spaced_strings(pair, vocab):
    """Sennrich et al.'s formulation: a word is a spaced string and the merge a bounded string replacement."""
    out: dict[tuple[str, ...], int] = {}
    for symbols, count in vocab.items():
        spaced = f" {' '.join(symbols)} "
        while f" {pair[0]} {pair[1]} " in spaced:
            spaced = spaced.replace(f" {pair[0]} {pair[1]} ", f" {pair[0]}{pair[1]} ", 1)
        key = tuple(spaced.split())
        out[key] = out.get(key, 0) + count
    return out


@FAST
@given(st.dictionaries(st.lists(st.sampled_from("ab"), min_size=1, max_size=6).map(tuple), st.integers(1, 3)))
def test_merge_pair_in_vocab_equals_the_spaced_string_formulation(vocab):
    for pair in [("a", "a"), ("a", "b"), ("b", "a")]:
        assert bpe.merge_pair_in_vocab(pair, vocab) == merged_vocab_by_spaced_strings(pair, vocab)


def test_choose_pair_and_its_tied_rivals():
    counts = {("b", "c"): 4, ("a", "b"): 4, ("c", "d"): 4, ("x", "y"): 1}
    assert [bpe.choose_pair(counts, t) for t in bpe.TIE_BREAKS] == [("c", "d"), ("a", "b"), ("b", "c")]
    assert bpe.tied_rivals(counts, ("a", "b")) == [("b", "c"), ("c", "d")]
    assert bpe.tied_rivals(counts, ("x", "y")) == []


def by_rank_spelled_out(symbols, merges):
    """Each step: rank every adjacent pair by its first listing, merge all of the best; stop when none is listed."""
    symbols = list(symbols)
    while True:
        listed = [merges.index(p) for p in zip(symbols, symbols[1:], strict=False) if p in merges]
        if not listed:
            return symbols
        symbols = merged_by_rescan(symbols, merges[min(listed)])[0]


@FAST
@given(symbols_st, table_st)
def test_apply_by_rank_takes_the_lowest_rank_first(symbols, merges):
    assert bpe.apply_by_rank(symbols, bpe.rank_table(merges)) == by_rank_spelled_out(symbols, merges)


@FAST
@given(symbols_st, table_st)
def test_replay_applies_every_rule_in_order(symbols, rules):
    expected = list(symbols)
    for rule in rules:
        expected = merged_by_rescan(expected, rule)[0]
    assert bpe.replay_rules(symbols, rules) == expected
    steps = list(bpe.replay_merges(symbols, rules))
    assert [step.rank for step in steps] == list(range(len(steps)))
    assert all(step.before != step.after or not step.positions for step in steps)


def test_apply_by_rank_with_ids_and_a_join():
    """Byte-level BPE: pairs of ids, and the merge writes the new id that the table gives."""
    ranks = {(1, 2): 256, (256, 3): 257}
    assert bpe.apply_by_rank([1, 2, 3, 1, 2], ranks, ranks.__getitem__) == [257, 256]


def test_train_rounds_stop_when_no_pair_is_left():
    rounds = list(bpe.train_rounds({("a", "b"): 2, ("c",): 1}, 5, "largest"))
    assert [(r.round, r.pair, r.count, r.num_symbols) for r in rounds] == [(1, ("a", "b"), 2, 3)]


def test_docstring_examples():
    result = doctest.testmod(bpe)
    assert result.attempted > 10 and result.failed == 0


def test_no_private_name_is_imported_across_modules():
    """``from .x import _y``, ``import ._x`` and ``x._y`` on an imported module of the package are all absent."""
    found = []
    modules = {path.stem for path in PACKAGE.glob("*.py")}
    for path in sorted(PACKAGE.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("bpe_ref")):
                names = [(node.module or "").rpartition(".")[2], *(alias.name for alias in node.names)]
                found += [f"{path.name}: {name}" for name in names if name.startswith("_") and name != "__future__"]
                aliases |= {alias.asname or alias.name for alias in node.names if alias.name in modules}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
                if node.attr.startswith("_") and not node.attr.startswith("__"):
                    found.append(f"{path.name}: {node.value.id}.{node.attr}")
    assert found == []


def test_the_merge_scan_is_written_once():
    """The left-to-right scan that skips past a match lives in primitives only."""
    scans = [p.name for p in sorted(PACKAGE.glob("*.py")) if "i += 2" in p.read_text(encoding="utf-8")]
    assert scans == ["primitives.py"]

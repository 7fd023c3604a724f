"""Tests of bpe_lab.charts.data: labels, the bars and words of a traced round, and the learner's functions checked
against a trace. The traces here are built in memory from the reference (bpe_ref.core.train_trace), so any corpus
can be tried; the shipped traces are tested in test_traces.py."""

from __future__ import annotations

import pytest

from bpe_lab.charts import data
from bpe_lab.traces import Round
from bpe_ref import core, steps

SEED_000 = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


def traced(word_freqs, num_merges, tie_break="largest", marker=True):
    """The reference's rounds as bpe_lab.traces.Round records, and the start vocab."""
    rounds = [
        Round(r.round, dict(r.pair_counts), r.pair, r.count, list(r.tied), dict(r.vocab))
        for r in core.train_trace(word_freqs, num_merges, tie_break, marker=marker)
    ]
    return rounds, steps.initial_vocab(word_freqs, marker=marker)


def check(word_freqs, num_merges, tie_break="largest", **functions):
    rounds, start = traced(word_freqs, num_merges, tie_break)
    return data.check_learner(rounds, start, tie_break, num_merges, **functions)


# ---------------------------------------------------------------------------------------------------------------
# Labels, bars, words
# ---------------------------------------------------------------------------------------------------------------


def test_labels_keep_the_marker_and_show_whitespace():
    assert data.symbol_label("</w>") == "</w>"
    assert data.symbol_label("t</w>") == "t</w>"
    assert data.symbol_label("a b\t\n") == "a\u2423b\u21e5\u21b5"
    assert data.symbol_label("$5") == "$5"  # escaping for matplotlib is the drawing's business
    assert data.pair_label(("e", "s")) == "e + s → es"
    assert data.pair_label(("st", "</w>")) == "st + </w> → st</w>"


def test_top_pairs_orders_by_count_then_first_seen_and_marks_roles():
    counts = {("a", "b"): 2, ("b", "c"): 5, ("c", "d"): 7, ("d", "e"): 7, ("e", "f"): 5}
    top = data.top_pairs(counts, ("d", "e"), 10)
    assert [(b.pair, b.count, b.role) for b in top.bars] == [
        (("c", "d"), 7, "tied"),
        (("d", "e"), 7, "chosen"),
        (("b", "c"), 5, "other"),
        (("e", "f"), 5, "other"),
        (("a", "b"), 2, "other"),
    ]
    assert [b.label for b in top.bars][:2] == ["c + d → cd", "d + e → de"]
    assert (top.hidden, top.hidden_tied) == (0, 0)


def test_top_pairs_keeps_the_chosen_pair_and_its_rivals_first_when_cut():
    counts = {("a", "b"): 3, ("x", "y"): 2, ("b", "c"): 3, ("c", "d"): 3, ("d", "e"): 3}
    top = data.top_pairs(counts, ("c", "d"), 3)
    assert [b.pair for b in top.bars] == [("a", "b"), ("b", "c"), ("c", "d")]
    assert [b.role for b in top.bars] == ["tied", "tied", "chosen"]
    assert (top.hidden, top.hidden_tied) == (2, 1)
    one = data.top_pairs(counts, ("d", "e"), 1)
    assert [b.pair for b in one.bars] == [("d", "e")]
    assert (one.hidden, one.hidden_tied) == (4, 3)
    assert [b.pair for b in data.top_pairs(counts, ("x", "y"), 1).bars] == [("x", "y")]


def test_top_pairs_matches_every_trace_round():
    for tie_break in core.TIE_BREAKS:
        for step in core.train_trace(SEED_000, 12, tie_break):
            top = data.top_pairs(step.pair_counts, step.pair, 5)
            assert [b.pair for b in top.bars if b.role == "chosen"] == [step.pair]
            assert {b.pair for b in top.bars if b.role == "tied"} <= set(step.tied)
            assert top.hidden_tied == len(step.tied) - sum(b.role == "tied" for b in top.bars)
            assert [b.count for b in top.bars] == sorted(step.pair_counts.values(), reverse=True)[: len(top.bars)]
            assert top.hidden == len(step.pair_counts) - len(top.bars)


@pytest.mark.parametrize(("k", "error"), [(0, ValueError), (-1, ValueError), (2.0, TypeError), (True, TypeError)])
def test_top_pairs_rejects_bad_k(k, error):
    with pytest.raises(error, match="k must"):
        data.top_pairs({("a", "b"): 1}, ("a", "b"), k)


def test_top_pairs_rejects_a_chosen_pair_that_was_not_counted():
    with pytest.raises(ValueError, match=r"\('x', 'y'\)"):
        data.top_pairs({("a", "b"): 1}, ("x", "y"), 3)


def test_segmentation_sorts_by_count_and_marks_the_new_symbol():
    step = core.train_trace(SEED_000, 3)[2]
    new = step.pair[0] + step.pair[1]
    rows, hidden = data.segmentation(step.vocab, new)
    assert hidden == 0
    assert [row.word for row in rows] == ["newest", "low", "widest", "lower"]
    assert [row.count for row in rows] == [6, 5, 3, 2]
    for row in rows:
        assert "".join(row.symbols) == row.word + "</w>"
        assert step.vocab[row.symbols] == row.count
        assert row.new == tuple(i for i, s in enumerate(row.symbols) if s == new)
    limited, hidden = data.segmentation(step.vocab, None, limit=2)
    assert [row.word for row in limited] == ["newest", "low"] and hidden == 2
    assert all(row.new == () for row in limited)


def test_a_round_counts_its_symbols():
    rounds, start = traced(SEED_000, 10)
    previous = sum(len(symbols) * count for symbols, count in start.items())
    for step in rounds:
        assert previous - step.num_symbols == step.count  # a merge removes one symbol per occurrence
        previous = step.num_symbols


# ---------------------------------------------------------------------------------------------------------------
# The learner's functions against a trace
# ---------------------------------------------------------------------------------------------------------------


def stub(*args):
    raise NotImplementedError


def smallest_best_pair(counts, tie_break):
    return min(counts, key=lambda p: (-counts[p], p))


def unweighted_count_pairs(vocab):
    counts = {}
    for symbols in vocab:
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = counts.get(pair, 0) + 1
    return counts


def right_to_left_merge_vocab(pair, vocab):
    out = {}
    for symbols, count in vocab.items():
        symbols = list(symbols)
        i = len(symbols) - 2
        while i >= 0:
            if (symbols[i], symbols[i + 1]) == pair:
                symbols[i : i + 2] = [pair[0] + pair[1]]
                i -= 2
            else:
                i -= 1
        out[tuple(symbols)] = count
    return out


def test_no_learner_function_is_the_trace_alone():
    run = check(SEED_000, 5)
    assert (run.status, run.departure, run.functions) == ("reference", None, ())


def test_the_reference_functions_match_in_every_round():
    for tie_break in core.TIE_BREAKS:
        run = check(
            SEED_000,
            12,
            tie_break,
            count_pairs=core.count_pairs,
            merge_vocab=core.merge_vocab,
            best_pair=core.best_pair,
        )
        assert run.status == "matches", run.message
        assert "match the course's run in every round" in run.message


@pytest.mark.parametrize("which", ["count_pairs", "merge_vocab", "best_pair"])
def test_a_stub_shows_the_trace_and_says_so(which):
    run = check(SEED_000, 6, **{which: stub})
    assert run.status == "stub" and run.departure is None
    assert which in run.message and "NotImplementedError" in run.message


def test_a_wrong_tie_break_departs_at_the_first_tie_and_names_the_learners_pair():
    run = check(SEED_000, 6, best_pair=smallest_best_pair)
    assert run.status == "departs"
    assert (run.departure.round, run.departure.function, run.departure.pair) == (1, "best_pair", ("e", "s"))
    assert "('t', '</w>')" in run.departure.message and "tie at 9" in run.departure.message
    assert check(SEED_000, 6, "smallest", best_pair=smallest_best_pair).status == "matches"


def test_counts_that_ignore_word_frequency_depart_in_count_pairs():
    run = check(SEED_000, 4, count_pairs=unweighted_count_pairs)
    assert (run.status, run.departure.round, run.departure.function) == ("departs", 1, "count_pairs")
    assert "('l', 'o'): yours 2, the course's run 7" in run.departure.message


def test_a_merge_from_the_right_departs_where_the_pair_overlaps():
    run = check({"ab": 4, "aaa": 3}, 3, merge_vocab=right_to_left_merge_vocab)
    assert (run.status, run.departure.round, run.departure.function) == ("departs", 1, "merge_vocab")
    assert "('a', 'aa', '</w>')" in run.departure.message


def test_a_departure_later_in_the_run_names_its_round():
    # rounds 1 and 2 build ab</w>; round 3 is the first to merge an overlapping pair, (a, a) in a a a </w>
    run = check({"ab": 5, "aaa": 1}, 4, merge_vocab=right_to_left_merge_vocab)
    assert (run.departure.round, run.departure.function) == (3, "merge_vocab")
    assert "round 3" in run.message


def test_changing_the_argument_is_a_departure():
    def mutating_merge_vocab(pair, vocab):
        out = core.merge_vocab(pair, vocab)
        vocab.clear()
        return out

    def mutating_count_pairs(vocab):
        counts = core.count_pairs(vocab)
        vocab[("z",)] = 1
        return counts

    run = check(SEED_000, 3, merge_vocab=mutating_merge_vocab)
    assert (run.departure.round, run.departure.function) == (1, "merge_vocab")
    assert "changed the vocab" in run.departure.message
    run = check(SEED_000, 3, count_pairs=mutating_count_pairs)
    assert (run.departure.round, run.departure.function) == (1, "count_pairs")


def test_order_matters_under_the_first_tie_break_only():
    def sorted_count_pairs(vocab):
        return dict(sorted(core.count_pairs(vocab).items(), reverse=True))

    run = check(SEED_000, 5, "first", count_pairs=sorted_count_pairs)
    assert (run.status, run.departure.function) == ("departs", "count_pairs")
    assert "order" in run.departure.message
    assert check(SEED_000, 5, "largest", count_pairs=sorted_count_pairs).status == "matches"

    def reversed_merge_vocab(pair, vocab):
        return dict(reversed(list(core.merge_vocab(pair, vocab).items())))

    run = check({"ab": 1, "cd": 1}, 4, "first", merge_vocab=reversed_merge_vocab)
    assert (run.status, run.departure.round, run.departure.function) == ("departs", 1, "merge_vocab")


def test_an_error_stops_the_check_and_says_where():
    calls = []

    def breaks_in_round_3(vocab):
        calls.append(1)
        if len(calls) == 3:
            raise KeyError("boom")
        return core.count_pairs(vocab)

    run = check(SEED_000, 6, count_pairs=breaks_in_round_3)
    assert run.status == "error"
    assert (run.departure.round, run.departure.function) == (3, "count_pairs")
    assert "KeyError" in run.message and "round 3" in run.message
    run = check(SEED_000, 6, best_pair=lambda counts, tie_break: 1 / 0)
    assert run.status == "error" and "ZeroDivisionError" in run.message


@pytest.mark.parametrize(
    ("kwargs", "function"),
    [
        ({"count_pairs": lambda vocab: None}, "count_pairs"),
        ({"best_pair": lambda counts, tie_break: ["a", "b"]}, "best_pair"),
        ({"merge_vocab": lambda pair, vocab: [1]}, "merge_vocab"),
    ],
)
def test_a_result_of_the_wrong_shape_is_reported(kwargs, function):
    run = check(SEED_000, 3, **kwargs)
    assert run.status == "error"
    assert (run.departure.function, run.departure.round) == (function, 1)
    assert function in run.message


def test_counts_that_do_not_run_out_when_the_trace_stops_depart():
    rounds, start = traced({"ab": 1}, 5)
    assert len(rounds) == 2  # a b </w> -> ab </w> -> ab</w>: then no pair is left
    run = data.check_learner(rounds, start, "largest", 5, count_pairs=core.count_pairs)
    assert run.status == "matches"

    def never_empty(vocab):
        return core.count_pairs(vocab) or {("x", "y"): 1}

    run = data.check_learner(rounds, start, "largest", 5, count_pairs=never_empty)
    assert (run.status, run.departure.round, run.departure.function) == ("departs", 3, "count_pairs")

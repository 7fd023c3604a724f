"""Tests of bpe_ref.steps: the computation the charts draw, checked against bpe_ref.core."""

from __future__ import annotations

import random

import pytest

from bpe_ref import core, steps

SEED_000 = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


# ---------------------------------------------------------------------------------------------------------------
# Labels
# ---------------------------------------------------------------------------------------------------------------


def test_labels_keep_the_marker_and_show_whitespace():
    assert steps.symbol_label("</w>") == "</w>"
    assert steps.symbol_label("t</w>") == "t</w>"
    assert steps.symbol_label("a b\t\n") == "a\u2423b\u21e5\u21b5"
    assert steps.symbol_label("$5") == "$5"  # escaping for matplotlib is the drawing's business
    assert steps.pair_label(("e", "s")) == "e + s → es"
    assert steps.pair_label(("st", "</w>")) == "st + </w> → st</w>"


# ---------------------------------------------------------------------------------------------------------------
# Bars
# ---------------------------------------------------------------------------------------------------------------


def test_top_pairs_orders_by_count_then_first_seen_and_marks_roles():
    counts = {("a", "b"): 2, ("b", "c"): 5, ("c", "d"): 7, ("d", "e"): 7, ("e", "f"): 5}
    top = steps.top_pairs(counts, ("d", "e"), 10)
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
    top = steps.top_pairs(counts, ("c", "d"), 3)
    assert [b.pair for b in top.bars] == [("a", "b"), ("b", "c"), ("c", "d")]
    assert [b.role for b in top.bars] == ["tied", "tied", "chosen"]
    assert (top.hidden, top.hidden_tied) == (2, 1)
    one = steps.top_pairs(counts, ("d", "e"), 1)
    assert [b.pair for b in one.bars] == [("d", "e")]
    assert (one.hidden, one.hidden_tied) == (4, 3)
    # a chosen pair is drawn even if it were not the most frequent (it always is in a trace)
    assert [b.pair for b in steps.top_pairs(counts, ("x", "y"), 1).bars] == [("x", "y")]


def test_top_pairs_matches_every_trace_round():
    for tie_break in core.TIE_BREAKS:
        for step in core.train_trace(SEED_000, 12, tie_break):
            top = steps.top_pairs(step.pair_counts, step.pair, 5)
            assert [b.pair for b in top.bars if b.role == "chosen"] == [step.pair]
            assert {b.pair for b in top.bars if b.role == "tied"} <= set(step.tied)
            assert top.hidden_tied == len(step.tied) - sum(b.role == "tied" for b in top.bars)
            expected_counts = sorted(step.pair_counts.values(), reverse=True)[: len(top.bars)]
            assert [b.count for b in top.bars] == expected_counts
            assert top.hidden == len(step.pair_counts) - len(top.bars)


@pytest.mark.parametrize(("k", "error"), [(0, ValueError), (-1, ValueError), (2.0, TypeError), (True, TypeError)])
def test_top_pairs_rejects_bad_k(k, error):
    with pytest.raises(error, match="k must"):
        steps.top_pairs({("a", "b"): 1}, ("a", "b"), k)


def test_top_pairs_rejects_a_chosen_pair_that_was_not_counted():
    with pytest.raises(ValueError, match=r"\('x', 'y'\)"):
        steps.top_pairs({("a", "b"): 1}, ("x", "y"), 3)


# ---------------------------------------------------------------------------------------------------------------
# Words and corpus size
# ---------------------------------------------------------------------------------------------------------------


def test_initial_vocab_and_symbol_curve_follow_the_trace():
    start = steps.initial_vocab(SEED_000)
    assert start == {tuple(w) + ("</w>",): c for w, c in SEED_000.items()}
    assert steps.initial_vocab({"ab": 1}, marker=False) == {("a", "b"): 1}
    trace = core.train_trace(SEED_000, 10)
    curve = steps.symbols_per_round(trace, start)
    assert curve[0] == sum((len(w) + 1) * c for w, c in SEED_000.items())
    assert curve[1:] == [step.num_symbols for step in trace]
    for before, after, step in zip(curve, curve[1:], trace):
        assert before - after == step.count  # a merge removes one symbol per occurrence
    assert steps.vocab_before(trace, 1, start) == start
    assert steps.vocab_before(trace, 4, start) == trace[2].vocab
    with pytest.raises(ValueError, match="round"):
        steps.vocab_before(trace, 0, start)
    with pytest.raises(ValueError):
        steps.initial_vocab({"": 1})


def test_segmentation_sorts_by_count_and_marks_the_new_symbol():
    trace = core.train_trace(SEED_000, 3)
    step = trace[2]
    new = step.pair[0] + step.pair[1]
    rows, hidden = steps.segmentation(step.vocab, new)
    assert hidden == 0
    assert [row.word for row in rows] == ["newest", "low", "widest", "lower"]
    assert [row.count for row in rows] == [6, 5, 3, 2]
    for row in rows:
        assert "".join(row.symbols) == row.word + "</w>"
        assert step.vocab[row.symbols] == row.count
        assert row.new == tuple(i for i, s in enumerate(row.symbols) if s == new)
    limited, hidden = steps.segmentation(step.vocab, None, limit=2)
    assert [row.word for row in limited] == ["newest", "low"] and hidden == 2
    assert all(row.new == () for row in limited)


# ---------------------------------------------------------------------------------------------------------------
# The learner's functions
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


def test_no_learner_function_is_the_reference_run():
    run = steps.check_learner(SEED_000, 5)
    assert run.status == "reference" and run.source == "reference"
    assert [s.pair for s in run.shown] == core.train_bpe(SEED_000, 5)
    assert run.departure is None and run.functions == ()


def test_the_reference_functions_match_in_every_round():
    for tie_break in core.TIE_BREAKS:
        run = steps.check_learner(
            SEED_000,
            12,
            tie_break,
            count_pairs=core.count_pairs,
            merge_vocab=core.merge_vocab,
            best_pair=core.best_pair,
        )
        assert run.status == "matches", run.message
        assert run.source == "learner"
        assert [(s.pair, s.count, s.tied, s.vocab) for s in run.learner] == [
            (s.pair, s.count, s.tied, s.vocab) for s in run.reference
        ]
        assert "match the reference in every round" in run.message


@pytest.mark.parametrize("which", ["count_pairs", "merge_vocab", "best_pair"])
def test_a_stub_shows_the_reference_run_and_says_so(which):
    run = steps.check_learner(SEED_000, 6, **{which: stub})
    assert run.status == "stub"
    assert run.source == "reference"
    assert [s.pair for s in run.shown] == core.train_bpe(SEED_000, 6)
    assert which in run.message and "NotImplementedError" in run.message and "reference run" in run.message


def test_a_wrong_tie_break_departs_at_the_first_tie():
    run = steps.check_learner(SEED_000, 6, best_pair=smallest_best_pair)
    assert run.status == "departs" and run.source == "learner"
    assert run.departure.round == 1 and run.departure.function == "best_pair"
    assert "('e', 's')" in run.departure.message and "('t', '</w>')" in run.departure.message
    assert "tie at 9" in run.departure.message
    assert run.learner[0].pair == ("e", "s")  # the learner's run is what is shown
    assert "round 1" in run.message
    # under the tie-break it implements, it matches
    assert steps.check_learner(SEED_000, 6, "smallest", best_pair=smallest_best_pair).status == "matches"


def test_counts_that_ignore_word_frequency_depart_in_count_pairs():
    run = steps.check_learner(SEED_000, 4, count_pairs=unweighted_count_pairs)
    assert (run.status, run.departure.round, run.departure.function) == ("departs", 1, "count_pairs")
    assert "('l', 'o'): yours 2, reference 7" in run.departure.message  # in 2 words, 7 times


def test_a_merge_from_the_right_departs_where_the_pair_overlaps():
    freqs = {"ab": 4, "aaa": 3}
    # round 1: (a, a) 6 beats (a, b) 4 ... the reference merges 'aaa' into ('aa', 'a'), right-to-left gives ('a', 'aa')
    run = steps.check_learner(freqs, 3, merge_vocab=right_to_left_merge_vocab)
    assert (run.status, run.departure.round, run.departure.function) == ("departs", 1, "merge_vocab")
    assert "('a', 'aa', '</w>')" in run.departure.message and "('aa', 'a', '</w>')" in run.departure.message


def test_a_departure_later_in_the_run_names_its_round():
    freqs = {"ab": 5, "aaa": 1}
    # rounds 1 and 2 build ab</w>; round 3 is the first to merge an overlapping pair, (a, a) in a a a </w>
    run = steps.check_learner(freqs, 4, merge_vocab=right_to_left_merge_vocab)
    assert run.departure.round == 3 and run.departure.function == "merge_vocab"
    assert [s.pair for s in run.learner[:3]] == [s.pair for s in run.reference[:3]]
    assert run.learner[2].vocab != run.reference[2].vocab


def test_changing_the_argument_is_a_departure():
    def mutating_merge_vocab(pair, vocab):
        out = core.merge_vocab(pair, vocab)
        vocab.clear()
        return out

    def mutating_count_pairs(vocab):
        counts = core.count_pairs(vocab)
        vocab[("z",)] = 1
        return counts

    run = steps.check_learner(SEED_000, 3, merge_vocab=mutating_merge_vocab)
    assert (run.departure.round, run.departure.function) == (1, "merge_vocab")
    assert "changed the vocab" in run.departure.message
    run = steps.check_learner(SEED_000, 3, count_pairs=mutating_count_pairs)
    assert (run.departure.round, run.departure.function) == (1, "count_pairs")


def test_an_order_that_changes_a_first_tie_break_is_a_departure():
    def sorted_count_pairs(vocab):
        return dict(sorted(core.count_pairs(vocab).items(), reverse=True))

    run = steps.check_learner(SEED_000, 5, "first", count_pairs=sorted_count_pairs)
    assert (run.status, run.departure.function) == ("departs", "count_pairs")
    assert "order" in run.departure.message
    # under "largest" the order of the counts does not matter
    assert steps.check_learner(SEED_000, 5, "largest", count_pairs=sorted_count_pairs).status == "matches"

    def reversed_merge_vocab(pair, vocab):
        return dict(reversed(list(core.merge_vocab(pair, vocab).items())))

    run = steps.check_learner({"ab": 1, "cd": 1}, 4, "first", merge_vocab=reversed_merge_vocab)
    assert (run.status, run.departure.round, run.departure.function) == ("departs", 1, "merge_vocab")


def test_an_error_stops_the_run_and_says_where():
    calls = []

    def breaks_in_round_3(vocab):
        calls.append(1)
        if len(calls) == 3:
            raise KeyError("boom")
        return core.count_pairs(vocab)

    run = steps.check_learner(SEED_000, 6, count_pairs=breaks_in_round_3)
    assert run.status == "error"
    assert (run.departure.round, run.departure.function) == (3, "count_pairs")
    assert "KeyError" in run.message and "round 3" in run.message
    assert run.source == "learner" and len(run.shown) == 2

    run = steps.check_learner(SEED_000, 6, best_pair=lambda counts, tie_break: 1 / 0)
    assert run.status == "error" and run.source == "reference" and run.shown == run.reference
    assert "ZeroDivisionError" in run.message


@pytest.mark.parametrize(
    ("kwargs", "function"),
    [
        ({"count_pairs": lambda vocab: None}, "count_pairs"),
        ({"best_pair": lambda counts, tie_break: ["a", "b"]}, "best_pair"),
        ({"merge_vocab": lambda pair, vocab: {("a", 1): 1}}, "merge_vocab"),
    ],
)
def test_a_result_of_the_wrong_shape_is_reported(kwargs, function):
    run = steps.check_learner(SEED_000, 3, **kwargs)
    assert run.status == "departs"
    assert run.departure.function == function and run.departure.round == 1
    assert run.source == "reference"


def test_counts_that_run_out_early_depart_and_show_the_reference():
    run = steps.check_learner(SEED_000, 3, count_pairs=lambda vocab: {})
    assert (run.status, run.departure.function, run.source) == ("departs", "count_pairs", "reference")
    assert run.shown == run.reference


def test_check_learner_validates_its_own_arguments():
    with pytest.raises(ValueError, match="tie_break"):
        steps.check_learner(SEED_000, 3, "biggest")
    with pytest.raises(ValueError, match="-1"):
        steps.check_learner(SEED_000, -1)
    with pytest.raises(TypeError):
        steps.check_learner(["low"], 3)


# ---------------------------------------------------------------------------------------------------------------
# Tie-breaks side by side
# ---------------------------------------------------------------------------------------------------------------


def test_compare_tie_breaks_lines_up_the_three_traces():
    cmp = steps.compare_tie_breaks(SEED_000, 10)
    assert cmp.policies == core.TIE_BREAKS
    for policy in cmp.policies:
        assert cmp.traces[policy] == cmp.traces[policy]
        assert cmp.merges[policy] == [s.pair for s in core.train_trace(SEED_000, 10, policy)]
    for row in cmp.rows:
        for policy in cmp.policies:
            step = cmp.traces[policy][row.round - 1]
            assert row.pairs[policy] == step.pair
            assert row.counts[policy] == step.count
            assert row.tied[policy] == bool(step.tied)
        assert row.agree == (len(set(row.pairs.values())) == 1)
    assert cmp.first_difference == 1
    assert cmp.rows[0].pairs == {"largest": ("t", "</w>"), "smallest": ("e", "s"), "first": ("e", "s")}
    assert cmp.rows[0].same_start and not cmp.rows[1].same_start


def test_compare_tie_breaks_without_ties_never_parts():
    cmp = steps.compare_tie_breaks({"abc": 3, "ab": 2}, 5, marker=False)
    assert cmp.first_difference is None and cmp.same_merges
    assert all(row.agree and row.same_start for row in cmp.rows)
    empty = steps.compare_tie_breaks({"a": 2}, 0)
    assert empty.rows == () and empty.first_difference is None


def test_compare_tie_breaks_marks_a_run_that_stopped():
    cmp = steps.compare_tie_breaks({"ab": 1}, 5, policies=("largest", "first"))
    assert len(cmp.rows) == 2
    assert cmp.rows[0].pairs == {"largest": ("b", "</w>"), "first": ("a", "b")}
    assert cmp.same_merges is False


def test_compare_tie_breaks_checks_its_policies():
    with pytest.raises(ValueError, match="biggest"):
        steps.compare_tie_breaks(SEED_000, 3, policies=("biggest",))
    with pytest.raises(ValueError, match="repeats"):
        steps.compare_tie_breaks(SEED_000, 3, policies=("first", "first"))
    with pytest.raises(ValueError, match="empty"):
        steps.compare_tie_breaks(SEED_000, 3, policies=())


# ---------------------------------------------------------------------------------------------------------------
# Applying a table
# ---------------------------------------------------------------------------------------------------------------


def _random_case(rng: random.Random):
    alphabet = "ab" if rng.random() < 0.5 else "abc"
    word = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 8)))
    symbols = list(word) + ["</w>"]
    merges = []
    for _ in range(rng.randint(0, 6)):
        if len(symbols) > 1 and rng.random() < 0.8:
            i = rng.randrange(len(symbols) - 1)
            pair = (symbols[i], symbols[i + 1])
            symbols = core.merge(symbols, pair, pair[0] + pair[1])
        else:
            pair = (rng.choice(alphabet), rng.choice(alphabet))
        merges.append(pair)
    rng.shuffle(merges) if rng.random() < 0.5 else None
    return word, merges


def test_merge_positions_is_merge():
    rng = random.Random(7)
    for _ in range(300):
        symbols = tuple(rng.choice("ab") for _ in range(rng.randint(0, 7)))
        pair = (rng.choice("ab"), rng.choice("ab"))
        after, positions = steps.merge_positions(symbols, pair)
        assert list(after) == core.merge(list(symbols), pair, pair[0] + pair[1])
        assert all(symbols[i : i + 2] == pair for i in positions)
        assert len(after) == len(symbols) - len(positions)


def test_rank_and_replay_steps_end_where_core_does():
    rng = random.Random(11)
    for _ in range(300):
        word, merges = _random_case(rng)
        for marker in (True, False):
            cmp = steps.compare_apply(word, merges, marker=marker)
            start = core.get_word_symbols(word) if marker else tuple(word)
            assert cmp.rank.start == start == cmp.replay.start
            assert list(cmp.rank.result) == core.apply_ranked(start, core.merge_ranks(merges))
            assert list(cmp.replay.result) == core.replay(start, merges)
            if marker:
                assert list(cmp.rank.result) == core.apply_bpe(word, merges)
            else:
                assert list(cmp.replay.result) == core.encode(word, merges)
                assert cmp.differ == core.rank_and_replay_disagree(word, merges)
            ranks = core.merge_ranks(merges)
            current = start
            for step in cmp.rank.steps:
                assert step.before == current
                assert step.ranks == tuple(ranks.get(p) for p in zip(current, current[1:]))
                assert step.rank == min(r for r in step.ranks if r is not None) == ranks[step.chosen]
                current = step.after
            assert current == cmp.rank.result
            assert all(r is None for r in cmp.rank.end_ranks)
            assert len(cmp.rank.end_ranks) == len(cmp.rank.result) - 1


def test_the_worked_examples_step_by_step():
    run = steps.rank_steps(core.get_word_symbols("abc"), [("a", "b"), ("ab", "c")])
    assert [(s.before, s.ranks, s.chosen, s.rank, s.positions) for s in run.steps] == [
        (("a", "b", "c", "</w>"), (0, None, None), ("a", "b"), 0, (0,)),
        (("ab", "c", "</w>"), (1, None), ("ab", "c"), 1, (0,)),
    ]
    assert run.result == ("abc", "</w>")
    rules = [("e", "s"), ("es", "t"), ("l", "o"), ("lo", "w")]
    replayed = steps.replay_steps(tuple("lowest"), rules)
    assert [s.after for s in replayed.steps] == [
        ("l", "o", "w", "es", "t"),
        ("l", "o", "w", "est"),
        ("lo", "w", "est"),
        ("low", "est"),
    ]
    assert [s.index for s in replayed.steps] == [0, 1, 2, 3]
    xyz = steps.replay_steps(tuple("xyz"), rules)
    assert all(s.positions == () for s in xyz.steps) and xyz.result == ("x", "y", "z")


def test_a_counterexample_table_differs():
    cmp = steps.compare_apply("abc", [("ab", "c"), ("a", "b")], marker=False)
    assert cmp.differ
    assert cmp.rank.result == ("abc",) and cmp.replay.result == ("ab", "c")
    assert [s.chosen for s in cmp.rank.steps] == [("a", "b"), ("ab", "c")]
    assert [s.positions for s in cmp.replay.steps] == [(), (0,)]


def test_replay_stops_once_one_symbol_is_left_as_core_does():
    run = steps.replay_steps(("a", "b"), [("a", "b"), ("ab", "c"), ("x", "y")])
    assert len(run.steps) == 1 and run.result == ("ab",)


def test_overlaps_merge_from_the_left_and_all_at_once():
    run = steps.rank_steps(("a", "a", "a", "a", "a"), [("a", "a")])
    assert [(s.positions, s.after) for s in run.steps] == [((0, 2), ("aa", "aa", "a"))]


def test_apply_steps_check_their_arguments():
    with pytest.raises(ValueError):
        steps.compare_apply("", [])
    with pytest.raises(ValueError, match=r"merges\[0\]"):
        steps.compare_apply("ab", [("a", "")])
    with pytest.raises(TypeError):
        steps.rank_steps("ab", [])
    with pytest.raises(ValueError):
        steps.rank_steps(("a", ""), [])


def test_made_positions_point_at_the_merged_symbols():
    rng = random.Random(3)
    for _ in range(200):
        before = tuple(rng.choice("ab") for _ in range(rng.randint(0, 8)))
        pair = (rng.choice("ab"), rng.choice("ab"))
        after, positions = steps.merge_positions(before, pair)
        made = steps.made_positions(before, positions)
        assert len(made) == len(positions)
        assert all(after[i] == pair[0] + pair[1] for i in made)
        # every other symbol of after is copied from before, in order
        copied = [s for i, s in enumerate(after) if i not in made]
        skipped = {p for start in positions for p in (start, start + 1)}
        assert copied == [s for i, s in enumerate(before) if i not in skipped]
    run = steps.replay_steps(("a", "b", "a", "b"), [("a", "b")])
    assert run.steps[0].made == (0, 1)


def test_stand_out_names_the_odd_policy():
    cmp = steps.compare_tie_breaks(SEED_000, 10)
    first = cmp.rows[0]  # largest: t </w>; smallest and first: e s
    assert first.stand_out == ("largest",)
    assert first.same_as("smallest") == ["first"] and first.same_as("largest") == []
    for row in cmp.rows:
        distinct = set(row.pairs.values())
        if len(distinct) == 1:
            assert row.stand_out == ()
        elif len(distinct) == len(row.pairs):
            assert row.stand_out == cmp.policies
        else:
            assert len(row.stand_out) == 1 and not row.same_as(row.stand_out[0])

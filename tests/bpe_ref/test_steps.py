"""Tests of bpe_ref.steps: the records the chart traces are written from, checked against bpe_ref.core."""

from __future__ import annotations

import random

import pytest

from bpe_ref import core, steps

SEED_000 = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


# ---------------------------------------------------------------------------------------------------------------
# The vocab a round starts from
# ---------------------------------------------------------------------------------------------------------------


def test_initial_vocab_and_vocab_before_follow_the_trace():
    start = steps.initial_vocab(SEED_000)
    assert start == {tuple(w) + ("</w>",): c for w, c in SEED_000.items()}
    assert steps.initial_vocab({"ab": 1}, marker=False) == {("a", "b"): 1}
    trace = core.train_trace(SEED_000, 10)
    assert steps.vocab_before(trace, 1, start) == start
    assert steps.vocab_before(trace, 4, start) == trace[2].vocab
    with pytest.raises(ValueError, match="round"):
        steps.vocab_before(trace, 0, start)
    with pytest.raises(ValueError):
        steps.initial_vocab({"": 1})


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

"""Headless tests of bpe_lab.charts.stepper: ranks, choices and results by rank and by replay, step by step, and
the stepper drawn from the learner's functions on a table with no trace.

The traces are computed on the fly by bpe_ref.traces.compute (the fixture ``traces_of_any_input``), except where a
test puts the shipped lookup back.
"""

from __future__ import annotations

import ipywidgets
import pytest

from bpe_lab import charts, traces
from bpe_ref import core

from .figures import COUNTEREXAMPLE, axes_by_gid

SHIPPED_LOOKUP = traces.lookup
pytestmark = pytest.mark.usefixtures("not_grading", "traces_of_any_input")


def test_apply_stepper_shows_ranks_choices_and_results(no_display):
    chart = charts.apply_stepper("abc", COUNTEREXAMPLE, marker=False)
    assert isinstance(chart, charts.ApplyStepper)
    cmp = chart.comparison
    assert cmp.differ and chart.slider.max == 3 and chart.slider.value == 1
    chart.slider.value = chart.slider.max
    figure = chart.figure
    rank_ax = axes_by_gid(figure, "rank")
    tokens = [t for t in rank_ax.texts if t.get_gid() in ("rank:new", "rank:plain")]
    expected = [s for step in cmp.rank.steps for s in step.before] + list(cmp.rank.result)
    assert [t.get_text() for t in tokens] == expected
    marked = [t.get_text() for t in tokens if t.get_gid() == "rank:new"]
    assert marked == ["a", "b", "ab", "c"]  # the pair chosen at each step
    # under each gap its rank (– when not in the table): a b c has ranks 1 (a b) and – (b c); ab c has 0; abc none
    numbers = [t.get_text() for t in rank_ax.texts if t.get_gid() in ("rank", "rank:chosen")]
    assert numbers == ["1", "–", "0"]
    assert numbers == ["–" if r is None else str(r) for step in cmp.rank.steps for r in step.ranks]
    chosen = [t.get_text() for t in rank_ax.texts if t.get_gid() == "rank:chosen"]
    assert chosen == [str(step.rank) for step in cmp.rank.steps]
    replay_ax = axes_by_gid(figure, "replay")
    replay_tokens = [t.get_text() for t in replay_ax.texts if t.get_gid() in ("replay:new", "replay:plain")]
    assert replay_tokens == ["a", "b", "c", "ab", "c"]  # start, then the only rule that matched
    assert any("not found" in t.get_text() for t in replay_ax.texts)
    verdict = [t for t in figure.texts if t.get_gid() == "verdict"][0].get_text()
    assert "['abc']" in verdict and "['ab', 'c']" in verdict and "differ" in verdict
    assert "differ" in chart.caption.value


def test_apply_stepper_reveals_one_step_at_a_time():
    merges = [("e", "s"), ("es", "t"), ("l", "o"), ("lo", "w"), ("est", "</w>")]
    chart = charts.apply_stepper("lowest", merges)
    assert list(chart.comparison.rank.result) == core.apply_bpe("lowest", merges)
    counts = []
    for step in range(1, chart.slider.max + 1):
        chart.slider.value = step
        rank_ax = axes_by_gid(chart.figure, "rank")
        counts.append(sum(t.get_gid() == "rank:chosen" for t in rank_ax.texts))
    assert counts == [1, 2, 3, 4, 5, 5]
    assert "agree" in chart.caption.value


def encode(word, rules):
    return core.replay(list(word), rules)


def test_apply_stepper_on_an_untraced_table_draws_the_learners_functions(monkeypatch):
    monkeypatch.setattr(traces, "lookup", SHIPPED_LOOKUP)  # the shipped traces: this table is not among them
    table = [("ban", "a"), ("ba", "n"), ("b", "a")]
    with pytest.raises(traces.TraceMissing, match="banana"):
        charts.apply_stepper("banana", table, marker=False)  # no trace, no functions: a clear error
    chart = charts.apply_stepper("banana", table, marker=False, apply_bpe=core.apply_bpe, encode=encode)
    cmp = chart.comparison
    assert chart.model.source == "learner"
    assert list(cmp.rank.result) == core.apply_bpe("banana", table)[:-1] == ["bana", "n", "a"]
    assert [list(step.after) for step in cmp.replay.steps] == [encode("banana", table[: k + 1]) for k in range(3)]
    assert cmp.differ and chart.slider.max == 4
    chart.slider.value = 4
    figure = chart.figure
    rank_tokens = [t.get_text() for t in axes_by_gid(figure, "rank").texts if t.get_gid() == "rank:plain"]
    assert rank_tokens == ["bana", "n", "a"]
    replay_ax = axes_by_gid(figure, "replay")
    assert [t.get_text() for t in replay_ax.texts if t.get_gid() == "replay:new"] == ["ba"]
    assert "your encode" in chart.caption.value and "differ" in chart.caption.value

    def stub(*args):
        raise NotImplementedError

    note = charts.apply_stepper("banana", table, marker=False, apply_bpe=stub, encode=encode)
    assert type(note) is ipywidgets.HTML and "stub" in note.value
    with pytest.raises(ValueError, match="</w>"):
        charts.apply_stepper("low", [("w", "</w>")], marker=False, apply_bpe=core.apply_bpe, encode=encode)

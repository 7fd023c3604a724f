"""Headless tests of bpe_lab.charts.explorer: set the controls, then check that what is drawn is the trace.

The charts are matplotlib figures on the Agg canvas; each test reads the artists of the figure (bars, labels,
colours, hatches, texts) and compares them with bpe_ref.core / bpe_ref.steps. The traces are computed on the fly
by bpe_ref.traces.compute (the fixture ``traces_of_any_input``), so any corpus can be drawn; the shipped trace
files, and a chart asked for an input with no trace, are tested in test_traces.py.
"""

from __future__ import annotations

import ipywidgets
import matplotlib
import pytest

from bpe_lab import charts
from bpe_lab.charts import data
from bpe_ref import core, steps

from .figures import SEED_000, axes_by_gid, bars_of, check_bars, png_size

pytestmark = pytest.mark.usefixtures("not_grading", "traces_of_any_input")


def test_explorer_draws_each_round_of_the_trace(no_display):
    trace = core.train_trace(SEED_000, 8)
    explorer = charts.pair_explorer(SEED_000, 8, top_k=6)
    assert isinstance(explorer, ipywidgets.VBox) and isinstance(explorer, charts.PairExplorer)
    assert (explorer.slider.min, explorer.slider.max, explorer.slider.value) == (1, 8, 1)
    assert (explorer.play.min, explorer.play.max) == (1, 8)
    start = steps.initial_vocab(SEED_000)
    curve = [sum(len(s) * c for s, c in start.items())] + [step.num_symbols for step in trace]
    images = set()
    for number in (1, 5, 8):
        explorer.slider.value = number
        step = trace[number - 1]
        figure = explorer.figure
        check_bars(axes_by_gid(figure, "bars"), step, 6)
        assert f"Round {number} of 8" in figure._suptitle.get_text()
        assert data.pair_label(step.pair) in figure._suptitle.get_text()
        assert any("tie-break 'largest'" in text.get_text() for text in figure.texts)
        # the words after the merge, the new symbol marked
        words = axes_by_gid(figure, "words")
        tokens = [t for t in words.texts if (t.get_gid() or "").startswith("word:")]
        rows, _ = data.segmentation(step.vocab, step.pair[0] + step.pair[1])
        assert [t.get_text() for t in tokens] == [data.symbol_label(s) for row in rows for s in row.symbols]
        new = [t.get_text() for t in tokens if t.get_gid() == "word:new"]
        assert new and set(new) == {data.symbol_label(step.pair[0] + step.pair[1])}
        assert sum(len(row.new) for row in rows) == len(new)
        # the corpus size per round, the current round marked
        curve_ax = axes_by_gid(figure, "curve")
        (line,) = [line for line in curve_ax.lines if line.get_gid() == "curve"]
        (now,) = [line for line in curve_ax.lines if line.get_gid() == "curve:now"]
        assert list(line.get_ydata()) == curve
        assert (list(now.get_xdata()), list(now.get_ydata())) == ([number], [curve[number]])
        # the widget's own image and caption follow the slider
        assert png_size(explorer.image.value)[0] >= 1200
        images.add(explorer.image.value)
        caption = explorer.caption.value
        assert f"Round {number} merges" in caption
        assert f"{step.pair[0]} + {step.pair[1]}".replace("<", "&lt;").replace(">", "&gt;") in caption
        if step.tied:
            assert "Tie-break <b>largest</b>" in caption
    assert len(images) == 3


def test_explorer_marks_every_tied_rival_and_names_the_tie_break():
    for tie_break in core.TIE_BREAKS:
        explorer = charts.pair_explorer(SEED_000, 3, tie_break=tie_break, top_k=14)
        step = explorer.trace[0]
        figure = explorer.figure
        ax = axes_by_gid(figure, "bars")
        assert [bar.get_gid() for bar in bars_of(ax)].count("bar:tied") == len(step.tied) == 2
        assert any(f"tie-break '{tie_break}'" in text.get_text() for text in figure.texts)
        assert step.pair == core.train_trace(SEED_000, 1, tie_break)[0].pair
        assert f"<code>{tie_break}</code>" in explorer.header.value


def test_explorer_labels_are_legible_symbols():
    freqs = {"a b": 3, "$5": 2, "low": 4}
    explorer = charts.pair_explorer(freqs, 4, top_k=20)
    labels = [label.get_text() for label in axes_by_gid(explorer.figure, "bars").get_yticklabels()]
    assert "w + </w> → w</w>" in labels  # the marker is written as it is
    assert "a + \u2423 → a\u2423" in labels  # a space is visible
    assert r"\$ + 5 → \$5" in labels  # a dollar is not mathtext
    png_size(explorer.png())  # and the whole figure renders


def test_explorer_on_learner_stubs_shows_the_reference_and_says_so():
    def count_pairs(vocab):
        raise NotImplementedError

    explorer = charts.pair_explorer(SEED_000, 5, count_pairs=count_pairs)
    assert explorer.run.status == "stub"
    assert [s.pair for s in explorer.trace] == core.train_bpe(SEED_000, 5)
    assert "stub" in explorer.header.value and "course&#x27;s run alone" in explorer.header.value
    status = [t for t in explorer.figure.texts if t.get_gid() == "status"]
    assert status and "NotImplementedError" in status[0].get_text()
    check_bars(axes_by_gid(explorer.figure, "bars"), core.train_trace(SEED_000, 1)[0], 10)


def test_explorer_on_a_departing_learner_says_where_and_how():
    def best_pair(counts, tie_break):  # breaks ties the "smallest" way whatever it is asked
        return min(counts, key=lambda p: (-counts[p], p))

    explorer = charts.pair_explorer(SEED_000, 6, best_pair=best_pair)
    run = explorer.run
    assert (run.status, run.departure.round, run.departure.function) == ("departs", 1, "best_pair")
    assert "round 1" in explorer.header.value and "best_pair" in explorer.header.value
    figure = explorer.figure
    ax = axes_by_gid(figure, "bars")
    check_bars(ax, core.train_trace(SEED_000, 1)[0], 10)  # the course's run is drawn
    notes = [t for t in ax.texts if t.get_gid() == "learner-choice"]
    assert len(notes) == 1 and "your choice" in notes[0].get_text()
    (bar_label,) = [
        label.get_text()
        for label, bar in zip(ax.get_yticklabels(), bars_of(ax))
        if bar.get_gid() == "bar:tied" and label.get_text() == data.pair_label(run.departure.pair)
    ]
    assert bar_label == "e + s → es"  # the learner's "smallest" choice, a tied rival of t + </w>
    assert any(t.get_gid() == "departs-here" for t in figure.texts)
    explorer.slider.value = 2
    assert not any(t.get_gid() == "departs-here" for t in explorer.figure.texts)


def test_explorer_on_matching_learner_functions():
    explorer = charts.pair_explorer(
        SEED_000, 4, count_pairs=core.count_pairs, merge_vocab=core.merge_vocab, best_pair=core.best_pair
    )
    assert explorer.run.status == "matches"
    assert "✓" in explorer.header.value


def test_explorer_with_nothing_to_merge():
    explorer = charts.pair_explorer({"a": 3}, 5, marker=False)
    assert explorer.slider.disabled and explorer.play.disabled
    assert "No merge" in explorer.caption.value
    png_size(explorer.png())
    assert charts.pair_explorer(SEED_000, 0).trace == []


def test_explorer_checks_its_arguments():
    with pytest.raises(ValueError, match="tie_break"):
        charts.pair_explorer(SEED_000, 3, tie_break="biggest")
    with pytest.raises(ValueError, match="top_k"):
        charts.pair_explorer(SEED_000, 3, top_k=0)
    with pytest.raises(ValueError, match="-2"):
        charts.pair_explorer(SEED_000, -2)


def test_charts_do_not_touch_pyplot_state():
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    backend = matplotlib.get_backend()
    charts.pair_explorer(SEED_000, 3)
    assert plt.get_fignums() == before and matplotlib.get_backend() == backend

"""Headless tests of bpe_lab.widgets: set the controls, then check that what is drawn is the trace.

The charts are matplotlib figures on the Agg canvas; each test reads the artists of the figure (bars, labels,
colours, hatches, texts) and compares them with bpe_ref.core / bpe_ref.steps. The traces are computed on the fly
by bpe_ref.traces.compute (the fixture ``traces_of_any_input``), so any corpus can be drawn; the shipped trace
files, and a chart asked for an input with no trace, are tested in test_traces.py.
"""

from __future__ import annotations

import base64
import struct

import matplotlib

matplotlib.use("Agg")

import ipywidgets  # noqa: E402
import pytest  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402

from bpe_lab import traces  # noqa: E402
from bpe_lab.charts import data as chartdata  # noqa: E402
from bpe_lab.charts import explorer as widgets  # noqa: E402
from bpe_ref import core, steps  # noqa: E402
from bpe_ref import traces as reference_traces  # noqa: E402

SHIPPED_LOOKUP = traces.lookup
SEED_000 = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
COUNTEREXAMPLE = [("ab", "c"), ("a", "b")]


@pytest.fixture(autouse=True)
def not_grading(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)


@pytest.fixture(autouse=True)
def traces_of_any_input(monkeypatch):
    """Every lookup computes its trace with the reference instead of reading the shipped files."""
    monkeypatch.setattr(traces, "lookup", reference_traces.compute)


@pytest.fixture
def no_display(monkeypatch):
    """Fail if a builder calls display() itself."""
    import IPython.core.display_functions
    import IPython.display

    def refuse(*args, **kwargs):
        raise AssertionError("a builder called display()")

    monkeypatch.setattr(IPython.display, "display", refuse)
    monkeypatch.setattr(IPython.core.display_functions, "display", refuse)


def axes_by_gid(figure, gid):
    found = [ax for ax in figure.axes if ax.get_gid() == gid]
    assert len(found) == 1, [ax.get_gid() for ax in figure.axes]
    return found[0]


def bars_of(ax):
    return [patch for patch in ax.patches if (patch.get_gid() or "").startswith("bar:")]


def texts_of(ax, prefix):
    return [text for text in ax.texts if (text.get_gid() or "").startswith(prefix)]


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def expected_bars(step, k):
    """The top-k bars, computed here from the trace round independently of steps.top_pairs."""
    order = list(step.pair_counts)
    ranked = sorted(order, key=lambda p: (p != step.pair, -step.pair_counts[p], p not in step.tied, order.index(p)))
    picked = sorted(ranked[:k], key=lambda p: (-step.pair_counts[p], order.index(p)))
    return [
        (p, step.pair_counts[p], "chosen" if p == step.pair else "tied" if p in step.tied else "other") for p in picked
    ]


def check_bars(ax, step, k):
    expected = expected_bars(step, k)
    bars = bars_of(ax)
    assert [round(bar.get_width()) for bar in bars] == [count for _, count, _ in expected]
    labels = [label.get_text() for label in ax.get_yticklabels()]
    assert labels == [chartdata.pair_label(pair) for pair, _, _ in expected]
    for bar, label, (_, _, role) in zip(bars, ax.get_yticklabels(), expected):
        assert bar.get_gid() == f"bar:{role}"
        colour = {"chosen": widgets.CHOSEN, "tied": widgets.TIED, "other": widgets.OTHER}[role]
        assert to_hex(bar.get_facecolor()) == colour.lower()
        assert bool(bar.get_hatch()) == (role == "tied")  # a second cue besides colour
        assert (label.get_fontweight() == "bold") == (role == "chosen")
    counts = texts_of(ax, "count:")
    assert [text.get_text().split()[0] for text in counts] == [str(count) for _, count, _ in expected]
    assert [text.get_gid() for text in counts] == [f"count:{role}" for _, _, role in expected]
    assert sum(text.get_text().endswith("merged") for text in counts) == 1


# ---------------------------------------------------------------------------------------------------------------
# The pair explorer
# ---------------------------------------------------------------------------------------------------------------


def test_explorer_draws_each_round_of_the_trace(no_display):
    trace = core.train_trace(SEED_000, 8)
    explorer = widgets.pair_explorer(SEED_000, 8, top_k=6)
    assert isinstance(explorer, ipywidgets.VBox) and isinstance(explorer, widgets.PairExplorer)
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
        assert chartdata.pair_label(step.pair) in figure._suptitle.get_text()
        assert any("tie-break 'largest'" in text.get_text() for text in figure.texts)
        # the words after the merge, the new symbol marked
        words = axes_by_gid(figure, "words")
        tokens = [t for t in words.texts if (t.get_gid() or "").startswith("word:")]
        rows, _ = chartdata.segmentation(step.vocab, step.pair[0] + step.pair[1])
        assert [t.get_text() for t in tokens] == [chartdata.symbol_label(s) for row in rows for s in row.symbols]
        new = [t.get_text() for t in tokens if t.get_gid() == "word:new"]
        assert new and set(new) == {chartdata.symbol_label(step.pair[0] + step.pair[1])}
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
        explorer = widgets.pair_explorer(SEED_000, 3, tie_break=tie_break, top_k=14)
        step = explorer.trace[0]
        figure = explorer.figure
        ax = axes_by_gid(figure, "bars")
        assert [bar.get_gid() for bar in bars_of(ax)].count("bar:tied") == len(step.tied) == 2
        assert any(f"tie-break '{tie_break}'" in text.get_text() for text in figure.texts)
        assert step.pair == core.train_trace(SEED_000, 1, tie_break)[0].pair
        assert f"<code>{tie_break}</code>" in explorer.header.value


def test_explorer_labels_are_legible_symbols():
    freqs = {"a b": 3, "$5": 2, "low": 4}
    explorer = widgets.pair_explorer(freqs, 4, top_k=20)
    labels = [label.get_text() for label in axes_by_gid(explorer.figure, "bars").get_yticklabels()]
    assert "w + </w> → w</w>" in labels  # the marker is written as it is
    assert "a + \u2423 → a\u2423" in labels  # a space is visible
    assert r"\$ + 5 → \$5" in labels  # a dollar is not mathtext
    png_size(explorer.png())  # and the whole figure renders


def test_explorer_on_learner_stubs_shows_the_reference_and_says_so():
    def count_pairs(vocab):
        raise NotImplementedError

    explorer = widgets.pair_explorer(SEED_000, 5, count_pairs=count_pairs)
    assert explorer.run.status == "stub"
    assert [s.pair for s in explorer.trace] == core.train_bpe(SEED_000, 5)
    assert "stub" in explorer.header.value and "course&#x27;s run alone" in explorer.header.value
    status = [t for t in explorer.figure.texts if t.get_gid() == "status"]
    assert status and "NotImplementedError" in status[0].get_text()
    check_bars(axes_by_gid(explorer.figure, "bars"), core.train_trace(SEED_000, 1)[0], 10)


def test_explorer_on_a_departing_learner_says_where_and_how():
    def best_pair(counts, tie_break):  # breaks ties the "smallest" way whatever it is asked
        return min(counts, key=lambda p: (-counts[p], p))

    explorer = widgets.pair_explorer(SEED_000, 6, best_pair=best_pair)
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
        if bar.get_gid() == "bar:tied" and label.get_text() == chartdata.pair_label(run.departure.pair)
    ]
    assert bar_label == "e + s → es"  # the learner's "smallest" choice, a tied rival of t + </w>
    assert any(t.get_gid() == "departs-here" for t in figure.texts)
    explorer.slider.value = 2
    assert not any(t.get_gid() == "departs-here" for t in explorer.figure.texts)


def test_explorer_on_matching_learner_functions():
    explorer = widgets.pair_explorer(
        SEED_000, 4, count_pairs=core.count_pairs, merge_vocab=core.merge_vocab, best_pair=core.best_pair
    )
    assert explorer.run.status == "matches"
    assert "✓" in explorer.header.value


def test_explorer_with_nothing_to_merge():
    explorer = widgets.pair_explorer({"a": 3}, 5, marker=False)
    assert explorer.slider.disabled and explorer.play.disabled
    assert "No merge" in explorer.caption.value
    png_size(explorer.png())
    assert widgets.pair_explorer(SEED_000, 0).trace == []


def test_explorer_checks_its_arguments():
    with pytest.raises(ValueError, match="tie_break"):
        widgets.pair_explorer(SEED_000, 3, tie_break="biggest")
    with pytest.raises(ValueError, match="top_k"):
        widgets.pair_explorer(SEED_000, 3, top_k=0)
    with pytest.raises(ValueError, match="-2"):
        widgets.pair_explorer(SEED_000, -2)


# ---------------------------------------------------------------------------------------------------------------
# The tie-break comparison
# ---------------------------------------------------------------------------------------------------------------


def test_tie_break_comparison_draws_each_policy_round_by_round(no_display):
    chart = widgets.tie_break_comparison(SEED_000, 8, top_k=5)
    assert isinstance(chart, widgets.TieBreakChart)
    cmp = chart.comparison
    assert chart.slider.value == cmp.first_difference == 1
    for number in (1, 3, 8):
        chart.slider.value = number
        figure = chart.figure
        row = cmp.rows[number - 1]
        for policy in core.TIE_BREAKS:
            step = core.train_trace(SEED_000, number, policy)[number - 1]
            ax = axes_by_gid(figure, f"panel:{policy}")
            check_bars(ax, step, 5)
            (title,) = [t for t in ax.texts if t.get_gid() == f"title:{policy}"]
            assert f"'{policy}' merges {chartdata.pair_label(step.pair)}" in title.get_text()
            others = [p for p in core.TIE_BREAKS if row.pairs[p] != step.pair]
            # the odd one out is marked in colour and with ≠
            odd = bool(others) and (len(set(row.pairs.values())) == 3 or len(others) == 2)
            assert title.get_text().startswith("≠") == odd
            assert (to_hex(title.get_color()) == widgets.DIFFERENT.lower()) == odd
        table = axes_by_gid(figure, "table")
        shaded = {
            int(p.get_gid().split(":")[1]) for p in table.patches if (p.get_gid() or "").startswith("row-differs")
        }
        assert shaded == {r.round for r in cmp.rows if not r.agree}
        cells = {t.get_gid(): t.get_text() for t in table.texts if (t.get_gid() or "").startswith("cell:")}
        for r in cmp.rows:
            for policy in core.TIE_BREAKS:
                (text,) = [v for k, v in cells.items() if k.startswith(f"cell:{r.round}:{policy}:")]
                assert text.startswith(chartdata.pair_label(r.pairs[policy]))
        assert "first part at round 1" in chart.caption.value or number != 1
    assert "first part at round 1" in chart.caption.value


def test_tie_break_comparison_without_ties():
    chart = widgets.tie_break_comparison({"abc": 3, "ab": 2}, 4, marker=False)
    assert chart.comparison.first_difference is None and chart.slider.value == 1
    assert "never part" in chart.caption.value
    table = axes_by_gid(chart.figure, "table")
    assert not [p for p in table.patches if (p.get_gid() or "").startswith("row-differs")]


def test_tie_break_comparison_shows_a_run_that_stopped():
    freqs = {"bcbac": 3, "aab": 1, "bbaaa": 2}  # 'smallest' needs 12 merges, the others 11
    chart = widgets.tie_break_comparison(freqs, 30)
    assert len(chart.comparison.rows) == 12
    chart.slider.value = 12
    figure = chart.figure
    for policy in ("largest", "first"):
        assert not axes_by_gid(figure, f"panel:{policy}").axison
        assert "stopped" in axes_by_gid(figure, f"panel:{policy}").get_title(loc="left")
    check_bars(axes_by_gid(figure, "panel:smallest"), chart.comparison.traces["smallest"][11], 6)
    cells = [t.get_text() for t in axes_by_gid(figure, "table").texts if (t.get_gid() or "").startswith("cell:12:")]
    assert cells.count("stopped") == 2
    assert "has stopped" in chart.caption.value


# ---------------------------------------------------------------------------------------------------------------
# The apply stepper
# ---------------------------------------------------------------------------------------------------------------


def test_apply_stepper_shows_ranks_choices_and_results(no_display):
    chart = widgets.apply_stepper("abc", COUNTEREXAMPLE, marker=False)
    assert isinstance(chart, widgets.ApplyStepper)
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
    chart = widgets.apply_stepper("lowest", merges)
    assert list(chart.comparison.rank.result) == core.apply_bpe("lowest", merges)
    counts = []
    for step in range(1, chart.slider.max + 1):
        chart.slider.value = step
        rank_ax = axes_by_gid(chart.figure, "rank")
        counts.append(sum(t.get_gid() == "rank:chosen" for t in rank_ax.texts))
    assert counts == [1, 2, 3, 4, 5, 5]
    assert "agree" in chart.caption.value


# ---------------------------------------------------------------------------------------------------------------
# Grading, PNGs, display
# ---------------------------------------------------------------------------------------------------------------


def test_builders_are_placeholders_while_nbgrader_executes(monkeypatch, no_display):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")

    def no_training(*args, **kwargs):
        raise AssertionError("trained while grading")

    monkeypatch.setattr(core, "train_trace", no_training)
    monkeypatch.setattr(chartdata, "check_learner", no_training)
    monkeypatch.setattr(traces, "lookup", no_training)
    monkeypatch.setattr(widgets, "new_figure", no_training)

    def stub(*args):
        raise NotImplementedError

    built = [
        widgets.pair_explorer(SEED_000, 10, count_pairs=stub),
        widgets.pair_explorer({"": -1}, -5),  # not even the arguments are looked at
        widgets.tie_break_comparison(SEED_000, 10),
        widgets.apply_stepper("abc", COUNTEREXAMPLE),
    ]
    for placeholder in built:
        assert type(placeholder) is ipywidgets.HTML
        assert "skipped while nbgrader executes" in placeholder.value
    with pytest.raises(TypeError, match="chart widget"):
        widgets.save_png(built[0], "never.png")
    assert widgets.grading()


def test_render_png_of_each_kind_and_of_a_widget(tmp_path):
    paths = {
        "explorer": widgets.render_png(
            "pair_explorer", tmp_path / "explorer.png", word_freqs=SEED_000, num_merges=6, round=3
        ),
        "tie_breaks": widgets.render_png(
            "tie_break_comparison", tmp_path / "ties.png", word_freqs=SEED_000, num_merges=6
        ),
        "stepper": widgets.render_png("apply_stepper", tmp_path / "step.png", word="abc", merges=COUNTEREXAMPLE),
    }
    for path in paths.values():
        width, height = png_size(path.read_bytes())
        assert width >= 1200 and height >= 300
    chart = widgets.pair_explorer(SEED_000, 6)
    chart.slider.value = 3
    saved = widgets.save_png(chart, tmp_path / "widget.png")
    assert saved.read_bytes() == chart.image.value
    assert saved.read_bytes() == paths["explorer"].read_bytes()  # the same chart, with or without a widget
    big = widgets.render_png(chart, tmp_path / "big.png", dpi=150)
    assert png_size(big.read_bytes())[0] == round(chart.figure.get_figwidth() * 150)
    with pytest.raises(ValueError, match="kind"):
        widgets.render_png("pie_chart", tmp_path / "x.png")
    with pytest.raises(TypeError, match="no builder arguments"):
        widgets.render_png(chart, tmp_path / "x.png", round=2)


def test_render_png_works_while_grading(monkeypatch, tmp_path):
    monkeypatch.setenv("NBGRADER_EXECUTION", "validate")
    path = widgets.render_png("apply_stepper", tmp_path / "s.png", word="lowest", merges=[("l", "o")], step=1)
    png_size(path.read_bytes())


def test_a_chart_carries_a_png_for_viewers_without_widgets():
    chart = widgets.apply_stepper("abc", COUNTEREXAMPLE)
    bundle = chart._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert base64.b64decode(bundle["image/png"]) == chart.image.value
    assert bundle["text/plain"]


def encode(word, rules):
    return core.replay(list(word), rules)


def test_apply_stepper_on_an_untraced_table_draws_the_learners_functions(monkeypatch):
    monkeypatch.setattr(traces, "lookup", SHIPPED_LOOKUP)  # the shipped traces: this table is not among them
    table = [("ban", "a"), ("ba", "n"), ("b", "a")]
    with pytest.raises(traces.TraceMissing, match="banana"):
        widgets.apply_stepper("banana", table, marker=False)  # no trace, no functions: a clear error
    chart = widgets.apply_stepper("banana", table, marker=False, apply_bpe=core.apply_bpe, encode=encode)
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

    note = widgets.apply_stepper("banana", table, marker=False, apply_bpe=stub, encode=encode)
    assert type(note) is ipywidgets.HTML and "stub" in note.value
    with pytest.raises(ValueError, match="</w>"):
        widgets.apply_stepper("low", [("w", "</w>")], marker=False, apply_bpe=core.apply_bpe, encode=encode)


def test_charts_do_not_touch_pyplot_state():
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    backend = matplotlib.get_backend()
    widgets.pair_explorer(SEED_000, 3)
    assert plt.get_fignums() == before and matplotlib.get_backend() == backend

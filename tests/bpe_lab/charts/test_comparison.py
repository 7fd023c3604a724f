"""Headless tests of bpe_lab.charts.comparison: each policy's bars, the odd one out marked, the table of merges.

The traces are computed on the fly by bpe_ref.traces.compute (the fixture ``traces_of_any_input``).
"""

from __future__ import annotations

import pytest
from matplotlib.colors import to_hex

from bpe_lab import charts
from bpe_lab.charts import data
from bpe_lab.charts.drawing import DIFFERENT
from bpe_ref import core

from .figures import SEED_000, axes_by_gid, check_bars

pytestmark = pytest.mark.usefixtures("not_grading", "traces_of_any_input")


def test_tie_break_comparison_draws_each_policy_round_by_round(no_display):
    chart = charts.tie_break_comparison(SEED_000, 8, top_k=5)
    assert isinstance(chart, charts.TieBreakChart)
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
            assert f"'{policy}' merges {data.pair_label(step.pair)}" in title.get_text()
            others = [p for p in core.TIE_BREAKS if row.pairs[p] != step.pair]
            # the odd one out is marked in colour and with ≠
            odd = bool(others) and (len(set(row.pairs.values())) == 3 or len(others) == 2)
            assert title.get_text().startswith("≠") == odd
            assert (to_hex(title.get_color()) == DIFFERENT.lower()) == odd
        table = axes_by_gid(figure, "table")
        shaded = {
            int(p.get_gid().split(":")[1]) for p in table.patches if (p.get_gid() or "").startswith("row-differs")
        }
        assert shaded == {r.round for r in cmp.rows if not r.agree}
        cells = {t.get_gid(): t.get_text() for t in table.texts if (t.get_gid() or "").startswith("cell:")}
        for r in cmp.rows:
            for policy in core.TIE_BREAKS:
                (text,) = [v for k, v in cells.items() if k.startswith(f"cell:{r.round}:{policy}:")]
                assert text.startswith(data.pair_label(r.pairs[policy]))
        assert "first part at round 1" in chart.caption.value or number != 1
    assert "first part at round 1" in chart.caption.value


def test_tie_break_comparison_without_ties():
    chart = charts.tie_break_comparison({"abc": 3, "ab": 2}, 4, marker=False)
    assert chart.comparison.first_difference is None and chart.slider.value == 1
    assert "never part" in chart.caption.value
    table = axes_by_gid(chart.figure, "table")
    assert not [p for p in table.patches if (p.get_gid() or "").startswith("row-differs")]


def test_tie_break_comparison_shows_a_run_that_stopped():
    freqs = {"bcbac": 3, "aab": 1, "bbaaa": 2}  # 'smallest' needs 12 merges, the others 11
    chart = charts.tie_break_comparison(freqs, 30)
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

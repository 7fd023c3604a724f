"""Tests of bpe_lab.charts.widget: every builder is a placeholder while nbgrader executes (nothing trained, read
or drawn), and a chart's display carries its PNG for viewers without widgets."""

from __future__ import annotations

import base64

import pytest

from bpe_lab import charts, traces
from bpe_lab.charts import comparison, data, drawing, explorer, stepper
from bpe_lab.charts.skipped import Skipped
from bpe_ref import core

from .figures import COUNTEREXAMPLE, SEED_000

pytestmark = pytest.mark.usefixtures("not_grading", "traces_of_any_input")


def test_builders_are_placeholders_while_nbgrader_executes(monkeypatch, no_display):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")

    def no_training(*args, **kwargs):
        raise AssertionError("trained while grading")

    monkeypatch.setattr(core, "train_trace", no_training)
    monkeypatch.setattr(data, "check_learner", no_training)
    monkeypatch.setattr(traces, "lookup", no_training)
    for module in (drawing, explorer, comparison, stepper):
        monkeypatch.setattr(module, "new_figure", no_training)

    def stub(*args):
        raise NotImplementedError

    built = [
        charts.pair_explorer(SEED_000, 10, count_pairs=stub),
        charts.pair_explorer({"": -1}, -5),  # not even the arguments are looked at
        charts.tie_break_comparison(SEED_000, 10),
        charts.apply_stepper("abc", COUNTEREXAMPLE),
    ]
    for placeholder in built:
        assert type(placeholder) is Skipped
        assert "skipped while nbgrader executes" in placeholder.value == placeholder._repr_html_()
    with pytest.raises(TypeError, match="chart widget"):
        charts.save_png(built[0], "never.png")
    assert charts.grading()


def test_a_chart_carries_a_png_for_viewers_without_widgets():
    chart = charts.apply_stepper("abc", COUNTEREXAMPLE)
    bundle = chart._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert base64.b64decode(bundle["image/png"]) == chart.image.value
    assert bundle["text/plain"]

"""Tests of bpe_lab.charts.png: each kind rendered from its builder's arguments, a widget saved, the same PNG
either way, and rendering while nbgrader executes."""

from __future__ import annotations

import pytest

from bpe_lab import charts

from .figures import COUNTEREXAMPLE, SEED_000, png_size

pytestmark = pytest.mark.usefixtures("not_grading", "traces_of_any_input")


def test_render_png_of_each_kind_and_of_a_widget(tmp_path):
    paths = {
        "explorer": charts.render_png(
            "pair_explorer", tmp_path / "explorer.png", word_freqs=SEED_000, num_merges=6, round=3
        ),
        "tie_breaks": charts.render_png(
            "tie_break_comparison", tmp_path / "ties.png", word_freqs=SEED_000, num_merges=6
        ),
        "stepper": charts.render_png("apply_stepper", tmp_path / "step.png", word="abc", merges=COUNTEREXAMPLE),
    }
    for path in paths.values():
        width, height = png_size(path.read_bytes())
        assert width >= 1200 and height >= 300
    chart = charts.pair_explorer(SEED_000, 6)
    chart.slider.value = 3
    saved = charts.save_png(chart, tmp_path / "widget.png")
    assert saved.read_bytes() == chart.image.value
    assert saved.read_bytes() == paths["explorer"].read_bytes()  # the same chart, with or without a widget
    big = charts.render_png(chart, tmp_path / "big.png", dpi=150)
    assert png_size(big.read_bytes())[0] == round(chart.figure.get_figwidth() * 150)
    with pytest.raises(ValueError, match="kind"):
        charts.render_png("pie_chart", tmp_path / "x.png")
    with pytest.raises(TypeError, match="no builder arguments"):
        charts.render_png(chart, tmp_path / "x.png", round=2)


def test_render_png_works_while_grading(monkeypatch, tmp_path):
    monkeypatch.setenv("NBGRADER_EXECUTION", "validate")
    path = charts.render_png("apply_stepper", tmp_path / "s.png", word="lowest", merges=[("l", "o")], step=1)
    png_size(path.read_bytes())

"""The charts of 06 (:mod:`bpe_lab.charts.scale`): they run the learner's functions, say in the caption whether the
trainer makes the plain loop's merges and how much faster it is, and write the PNG they show."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bpe_lab.charts import compression, time_per_merge
from bpe_lab.charts.scale import bytes_per_token, measure_trainers
from bpe_ref import scale

GENESIS = (Path(__file__).resolve().parents[3] / "data" / "kjv_genesis.txt").read_text(encoding="utf-8")
COUNTS = scale.chunk_counts(GENESIS[:20_000], scale.GPT2_PATTERN, {})


def test_time_per_merge_compares_the_two_trainers_and_writes_its_png(tmp_path):
    png = tmp_path / "time.png"
    chart = time_per_merge(scale.train_fast, scale.train_plain, COUNTS, (20, 40), plain_up_to=40, png=png)
    caption = chart.children[1].value
    assert "the same merges as the plain loop" in caption and "x</b> faster" in caption
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and chart.children[0].value == png.read_bytes()


def test_a_trainer_with_other_merges_is_named_in_the_caption():
    def wrong(counts, vocab_size):
        return scale.train_fast(counts, vocab_size)[::-1]

    chart = time_per_merge(wrong, scale.train_plain, COUNTS, (20,), plain_up_to=20)
    assert "OTHER MERGES" in chart.children[1].value
    assert measure_trainers(wrong, scale.train_plain, COUNTS, (20,), 20)["same"] is False


def test_compression_grows_with_the_vocabulary(tmp_path):
    merges = scale.train_fast(COUNTS, 256 + 200)
    lines = GENESIS[20_000:30_000].splitlines(keepends=True)
    ratios = bytes_per_token(merges, scale.encode_iterable, lines, scale.GPT2_PATTERN, [256, 300, 456])
    assert ratios[0] == 1.0 and ratios[0] < ratios[1] < ratios[2]
    chart = compression(merges, scale.encode_iterable, lines, scale.GPT2_PATTERN, png=tmp_path / "c.png")
    assert (tmp_path / "c.png").exists() and "bytes held out" in chart.children[1].value


def test_a_trainer_that_never_returns_stops_the_chart_in_seconds_naming_itself_and_the_size(monkeypatch):
    from bpe_lab.charts import scale as charts

    def train_fast(chunk_counts, vocab_size):
        while True:
            pass

    monkeypatch.setattr(charts, "CALL_LIMIT", 0.3)
    start = time.process_time()
    with pytest.raises(TimeoutError, match=r"^train_fast used more than 0.3 s of CPU time for 100 merges"):
        measure_trainers(train_fast, scale.train_plain, {b"hug": 10, b"pug": 5}, [100, 200], plain_up_to=200)
    assert time.process_time() - start < 5

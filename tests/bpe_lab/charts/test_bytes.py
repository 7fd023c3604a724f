"""Tests of bpe_lab.charts.bytes, the charts of assignment 05: what they show, the learner's trainer compared, and
nothing heavy while grading.

The traces are computed on the fly by bpe_ref.traces.compute (any text can be charted here); the shipped ones are
tested in test_traces.py.
"""

import pytest

from bpe_lab import traces
from bpe_lab.charts.bytes import byte_rounds, bytes_per_token, genesis_text, token_boundaries, token_label, tokens_html
from bpe_ref import bytelevel
from bpe_ref import traces as reference_traces
from bpe_ref.bytelevel import GPT4_PATTERN

TEXT = "hug pug hug bug hugs " * 5


@pytest.fixture(autouse=True)
def traces_of_any_input(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    monkeypatch.setattr(traces, "lookup", reference_traces.compute)


def test_a_token_holding_part_of_a_character_shows_its_bytes():
    assert token_label("日".encode()) == ("日", True)
    assert token_label("日".encode()[1:]) == ("<97 a5>", False)
    html = tokens_html({"bytes": [b"a", "é".encode()[:1]], "whole": [" é".encode()]})
    assert html.count("dashed") == 1 and "<97" not in html and "&lt;c3&gt;" in html
    assert "2 tokens" in html and "1 token<" in html


def test_byte_rounds_follow_training_and_name_the_learners_first_difference():
    merges = bytelevel.train_bytes(TEXT, 262, GPT4_PATTERN)
    same = byte_rounds(TEXT, 262, GPT4_PATTERN, merges=merges)
    assert same.slider.max == len(merges) and same.value == 1
    assert "same merges" in same.caption.value
    assert same.png()[:8] == b"\x89PNG\r\n\x1a\n"
    wrong = dict(list(merges.items())[:2]) | {(1, 2): 258}
    chart = byte_rounds(TEXT, 262, GPT4_PATTERN, merges=wrong)
    assert chart.value == 3 and "differs from this round on" in chart.caption.value
    chart.slider.value = 1
    assert "first differs in round 3" in chart.caption.value


def test_byte_rounds_label_each_round_with_the_tokens_bytes():
    rounds = bytelevel.train_rounds(TEXT, 262, GPT4_PATTERN, top=8)
    vocab = bytelevel.vocab_bytes({r.pair: r.new_id for r in rounds})
    chart = byte_rounds(TEXT, 262, GPT4_PATTERN)
    for number, step in enumerate(rounds, start=1):
        chart.slider.value = number
        title = chart.figure.axes[0].get_title()
        assert f"id {step.new_id} = '{vocab[step.new_id].decode().replace(' ', '␣')}'" in title


def test_bytes_per_token_grow_with_the_vocabulary():
    widget = bytes_per_token(TEXT * 4, TEXT, [256, 258, 262], GPT4_PATTERN, gpt4=False)
    image, caption = widget.children
    assert image.value[:4] == b"\x89PNG"
    assert "256: 1.00" in caption.value and "262: " in caption.value


@pytest.mark.parametrize(
    "build",
    [
        lambda: token_boundaries({"x": [b"a"]}),
        lambda: byte_rounds(TEXT, 10**6, GPT4_PATTERN),
        lambda: bytes_per_token(TEXT, TEXT, [256, 10**6], GPT4_PATTERN),
    ],
)
def test_nothing_is_read_or_drawn_while_nbgrader_executes(monkeypatch, build):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")

    def refuse(*args, **kwargs):
        raise AssertionError("a trace was read while grading")

    monkeypatch.setattr(traces, "lookup", refuse)
    assert "skipped while nbgrader executes" in build().value


def test_genesis_ships_with_the_toolkit_and_is_empty_while_grading(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a learner who opened the notebook somewhere else
    text = genesis_text()
    assert text.startswith("In the beginning God created the heaven")
    assert len(text.encode("utf-8")) == 196_818 and text.count("\n") == 1533
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    assert genesis_text() == "" and genesis_text(force=True) == text


def test_bytes_per_token_refuses_empty_held_out_text():
    with pytest.raises(ValueError, match="held-out text"):
        bytes_per_token("some training text", "", [256, 260], r"\S+")


def test_byte_rounds_name_merges_by_their_bytes_in_the_caption_too():
    merges = bytelevel.train_bytes(TEXT, 262, GPT4_PATTERN)
    wrong = dict(list(merges.items())[:2]) | {(104, 117): 258}  # "h" + "u", where the course merges another pair
    chart = byte_rounds(TEXT, 262, GPT4_PATTERN, merges=wrong)
    assert "you made h + u -&gt; id 258" in chart.caption.value
    chart.slider.value = 1
    first = next(iter(merges))
    assert f"(ids {first[0]}, {first[1]})" in chart.caption.value and str(first) not in chart.caption.value


@pytest.mark.parametrize(
    "build",
    [
        lambda: byte_rounds(TEXT, 262, GPT4_PATTERN),
        lambda: bytes_per_token(TEXT * 4, TEXT, [256, 258, 262], GPT4_PATTERN, gpt4=False),
    ],
    ids=["byte_rounds", "bytes_per_token"],
)
def test_a_chart_of_05_leaves_a_png_in_the_saved_notebook(build):
    import base64

    bundle = build()._repr_mimebundle_()
    assert base64.b64decode(bundle["image/png"])[:8] == b"\x89PNG\r\n\x1a\n"

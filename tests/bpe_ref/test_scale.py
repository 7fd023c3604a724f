"""The reference of 06 (:mod:`bpe_ref.scale`): the incremental trainer equals the plain loop, the parallel counts
equal the serial ones, the streaming encoder equals the whole-text one, and Hugging Face ``tokenizers`` and
``tiktoken`` load the saved tokenizer with equal ids; bad input is refused by name."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bpe_ref import scale
from bpe_ref.scale import GPT2_PATTERN, GPT4_PATTERN

ROOT = Path(__file__).resolve().parents[2]
GENESIS = (ROOT / "data" / "kjv_genesis.txt").read_text(encoding="utf-8")
MULTILINGUAL = (ROOT / "data" / "multilingual.txt").read_text(encoding="utf-8")
EOT = {"<|endoftext|>": 5000}

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# chunks over tiny alphabets, so that ties, overlaps and runs ("aaaa", "ababab") are everywhere; é is two bytes
chunks = st.one_of(
    st.text(alphabet="a", min_size=1, max_size=7),
    st.text(alphabet="ab", min_size=1, max_size=8),
    st.text(alphabet="abé", min_size=1, max_size=6),
    st.builds(lambda unit, n: unit * n, st.sampled_from(["a", "ab", "ba", "aab", "abc"]), st.integers(1, 6)),
).map(lambda text: text.encode("utf-8"))
counts = st.dictionaries(chunks, st.integers(1, 5), min_size=0, max_size=8)

# texts made of pieces that exercise both patterns at their edges: contractions cut short, whitespace runs, digits,
# line ends, special tokens and their beginnings
PIECES = [
    "a",
    "l",
    "'",
    "s",
    "re",
    "ve",
    " ",
    "  ",
    "\n",
    "\r\n",
    "\t",
    "12",
    "3",
    "!",
    "é",
    "日",
    "<|",
    "e|>",
    "<|e|>",
]
texts = st.lists(st.sampled_from(PIECES), max_size=14).map("".join)
SPECIALS = {"<|e|>": 900, "<|e": 901}
patterns = st.sampled_from([GPT2_PATTERN, GPT4_PATTERN])


def _merges(pattern: str = GPT2_PATTERN, size: int = 256 + 300) -> list[tuple[bytes, bytes]]:
    return scale.train_fast(scale.chunk_counts(GENESIS[:60_000], pattern, {}), size)


MERGES = {pattern: _merges(pattern) for pattern in (GPT2_PATTERN, GPT4_PATTERN)}


# ---------------------------------------------------------------------------------------------------------------
# training
# ---------------------------------------------------------------------------------------------------------------


@SETTINGS
@given(counts, st.integers(256, 256 + 20))
@example({b"aaaa": 1}, 262)
@example({b"ab": 1, b"ba": 1}, 258)
@example({b"abab": 2, b"ba": 3, b"aab": 1}, 270)
def test_train_fast_equals_the_plain_loop(chunk_counts, vocab_size):
    assert scale.train_fast(chunk_counts, vocab_size) == scale.train_plain(chunk_counts, vocab_size)


def test_train_fast_equals_the_plain_loop_on_genesis():
    counts = scale.chunk_counts(GENESIS[:40_000], GPT2_PATTERN, {})
    assert scale.train_fast(counts, 256 + 400) == scale.train_plain(counts, 256 + 400)


def test_ties_go_to_the_largest_pair_of_byte_strings():
    # (b"c", b"d") > (b"a", b"b"); b"\xc3" (the first byte of é) is larger than every ASCII byte
    assert scale.train_fast({b"ab": 1, b"cd": 1}, 257) == [(b"c", b"d")]
    assert scale.train_fast({"é".encode(): 1, b"zz": 1}, 257) == [(b"\xc3", b"\xa9")]


def test_vocab_size_256_trains_nothing_and_no_pair_stops_early():
    assert scale.train_fast({b"abc": 3}, 256) == []
    assert scale.train_fast({b"ab": 3, b"c": 9}, 1000) == [(b"a", b"b")]
    assert scale.train_fast({}, 300) == []


# ---------------------------------------------------------------------------------------------------------------
# chunk counts, serial and parallel
# ---------------------------------------------------------------------------------------------------------------


def test_chunk_counts_splits_special_tokens_out_first():
    got = scale.chunk_counts("the cat<|endoftext|> the<|endoftext|>", GPT2_PATTERN, EOT)
    assert got == {b"the": 1, b" cat": 1, b" the": 1}
    # without the special token, "<|" and "endoftext" would be chunks
    assert b"endoftext" in scale.chunk_counts("a<|endoftext|>", GPT2_PATTERN, {})


def test_longest_special_token_first():
    assert scale.chunk_counts("<|x|>y", GPT2_PATTERN, {"<|x": 1, "<|x|>": 2}) == {b"y": 1}


@pytest.fixture
def corpus_file(tmp_path: Path) -> Path:
    path = tmp_path / "corpus.txt"
    stories = GENESIS[:30_000].split("\n\n")
    path.write_bytes("<|endoftext|>".join(stories).replace("\n", "\r\n", 5).encode("utf-8"))
    return path


@pytest.mark.parametrize("workers", [1, 2, 3, 4])
def test_chunk_counts_file_equals_chunk_counts(corpus_file, workers):
    text = corpus_file.read_bytes().decode("utf-8")
    expected = scale.chunk_counts(text, GPT2_PATTERN, EOT)
    got = scale.chunk_counts_file(corpus_file, GPT2_PATTERN, EOT, workers)
    assert got == expected
    assert list(got) == list(expected)  # in order of first appearance too


@SETTINGS
@given(st.lists(st.sampled_from(["ab", " c", "<|e|>", "\n", "é", "<|e", "e|>"]), max_size=30).map("".join),
       st.integers(1, 4))  # fmt: skip
def test_cut_points_never_change_the_counts(tmp_path_factory, text, pieces):
    path = tmp_path_factory.mktemp("cut") / "t.txt"
    path.write_bytes(text.encode("utf-8"))
    points = scale.cut_points(path, SPECIALS, pieces, block=4)
    assert points == sorted(set(points)) and points[0] == 0 and points[-1] == len(text.encode("utf-8"))
    assert len(points) - 1 <= pieces
    data = text.encode("utf-8")
    total: dict[bytes, int] = {}
    for a, b in zip(points, points[1:]):
        for chunk, n in scale.chunk_counts(data[a:b].decode("utf-8"), GPT4_PATTERN, SPECIALS).items():
            total[chunk] = total.get(chunk, 0) + n
    assert total == scale.chunk_counts(text, GPT4_PATTERN, SPECIALS)


def test_a_file_that_is_not_utf8_names_the_offset(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"ok<|endoftext|>" * 50 + "café".encode("latin-1"))
    for workers in (1, 3):
        with pytest.raises(ValueError, match=r"offset 753\b"):
            scale.chunk_counts_file(path, GPT2_PATTERN, EOT, workers)


# ---------------------------------------------------------------------------------------------------------------
# encoding, whole and streamed
# ---------------------------------------------------------------------------------------------------------------


@SETTINGS
@given(texts, st.lists(st.integers(0, 60), max_size=5), patterns, st.sampled_from([{}, SPECIALS]))
@example("x'l" + "l", [3], GPT2_PATTERN, {})
@example("a\n\n\nb", [2, 3], GPT2_PATTERN, {})
@example("a<|e|>b", [3], GPT4_PATTERN, SPECIALS)
def test_encode_iterable_equals_encode_of_the_joined_text(text, cuts, pattern, specials):
    cuts = sorted({min(c, len(text)) for c in cuts})
    parts = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
    expected = scale.encode_text(text, MERGES[pattern], pattern, specials)
    assert list(scale.encode_iterable(parts, MERGES[pattern], pattern, specials)) == expected


def test_encode_iterable_on_a_file_object(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text(MULTILINGUAL + "<|endoftext|>" + GENESIS[:5000], encoding="utf-8")
    with open(path, encoding="utf-8", newline="") as handle:
        got = list(scale.encode_iterable(handle, MERGES[GPT4_PATTERN], GPT4_PATTERN, EOT))
    text = path.read_text(encoding="utf-8")
    assert got == scale.encode_text(text, MERGES[GPT4_PATTERN], GPT4_PATTERN, EOT)


def test_encode_iterable_is_lazy():
    read = []

    def lines():
        for i in range(1000):
            read.append(i)
            yield "In the beginning God created the heaven and the earth.\n"

    stream = scale.encode_iterable(lines(), MERGES[GPT2_PATTERN], GPT2_PATTERN, {})
    next(stream)
    assert len(read) <= 2


def test_encode_text_by_rank():
    merges = [(b"a", b"b"), (b"ab", b"ab")]
    assert scale.encode_text("abab ab", merges, GPT2_PATTERN, {}) == [257, 32, 256]
    assert scale.token_ids(merges)[b"abab"] == 257


# ---------------------------------------------------------------------------------------------------------------
# interop: GPT-2's files in Hugging Face tokenizers, tiktoken's ranks
# ---------------------------------------------------------------------------------------------------------------


def test_bytes_to_unicode_is_gpt2s():
    table = scale.bytes_to_unicode()
    assert len(table) == 256 and len(set(table.values())) == 256
    assert table[32] == "Ġ" and table[10] == "Ċ" and table[ord("!")] == "!" and table[0] == "Ā"
    assert all(not ch.isspace() and ch.isprintable() for ch in table.values())
    assert list(table)[:3] == [33, 34, 35]


def _hf_tokenizer(vocab, lines, pattern, specials):
    tokenizers = pytest.importorskip("tokenizers", reason="Hugging Face tokenizers is in the bench extra")
    from tokenizers import Regex, decoders, models, pre_tokenizers

    merges = [tuple(line.split(" ")) for line in lines if not line.startswith("#version")]
    tok = tokenizers.Tokenizer(models.BPE(vocab=vocab, merges=merges))
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(pattern), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens(list(specials))
    return tok


@pytest.mark.parametrize("pattern", [GPT2_PATTERN, GPT4_PATTERN], ids=["gpt2", "gpt4"])
def test_hugging_face_tokenizers_loads_gpt2_files_with_equal_ids(tmp_path, pattern):
    import json

    merges = scale.train_fast(scale.chunk_counts(GENESIS + MULTILINGUAL[:1500], pattern, EOT), 256 + 1500)
    vocab, lines = scale.gpt2_files(merges, EOT)
    (tmp_path / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    (tmp_path / "merges.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    loaded = json.loads((tmp_path / "vocab.json").read_text(encoding="utf-8"))
    read = (tmp_path / "merges.txt").read_text(encoding="utf-8").splitlines()
    tok = _hf_tokenizer(loaded, read, pattern, EOT)
    text = MULTILINGUAL + "<|endoftext|>" + MULTILINGUAL[:200]
    ids = scale.encode_text(text, merges, pattern, EOT)
    assert tok.encode(text).ids == ids
    assert tok.decode(ids, skip_special_tokens=False) == text


@pytest.mark.parametrize("pattern", [GPT2_PATTERN, GPT4_PATTERN], ids=["gpt2", "gpt4"])
def test_tiktoken_encoding_on_the_mergeable_ranks_gives_equal_ids(pattern):
    import tiktoken

    merges = scale.train_fast(scale.chunk_counts(GENESIS + MULTILINGUAL[:1500], pattern, EOT), 256 + 1500)
    encoding = tiktoken.Encoding(
        name="course-06", pat_str=pattern, mergeable_ranks=scale.mergeable_ranks(merges), special_tokens=EOT
    )
    text = MULTILINGUAL + "<|endoftext|>" + MULTILINGUAL[:200]
    assert encoding.encode(text, allowed_special="all") == scale.encode_text(text, merges, pattern, EOT)


def test_gpt2_files_lines_and_ids():
    vocab, lines = scale.gpt2_files([(b" ", b"t"), (b"h", b"e"), (b" t", b"he")], {"<|endoftext|>": 259})
    assert lines == ["#version: 0.2", "Ġ t", "h e", "Ġt he"]
    assert vocab["Ġthe"] == 258 and vocab["<|endoftext|>"] == 259 and vocab["Ġ"] == 32 and len(vocab) == 260


# ---------------------------------------------------------------------------------------------------------------
# bad input: a clear error naming the value
# ---------------------------------------------------------------------------------------------------------------


def test_vocab_size_below_256_is_named():
    with pytest.raises(ValueError, match=r"vocab_size must be >= 256.*got 100"):
        scale.train_fast({b"ab": 1}, 100)


def test_overlapping_special_tokens_are_named():
    with pytest.raises(ValueError, match=r"'<\|a\|>' and 'a'"):
        scale.chunk_counts("x", GPT2_PATTERN, {"<|a|>": 1, "a": 2})
    with pytest.raises(ValueError, match=r"'aa' and 'aa' overlap"):
        scale.special_tokens_checked({"aa": 1})


def test_encode_iterable_given_bytes_is_named():
    with pytest.raises(TypeError, match=r"not a bytes b'abc'"):
        scale.encode_iterable(b"abc", [], GPT2_PATTERN, {})
    with pytest.raises(TypeError, match=r"lines\[1\] is a bytes"):
        list(scale.encode_iterable(["a", b"b"], [], GPT2_PATTERN, {}))


def test_bad_chunk_counts_and_merges_are_named():
    with pytest.raises(TypeError, match=r"non-empty bytes, got 'ab'"):
        scale.train_fast({"ab": 1}, 300)
    with pytest.raises(ValueError, match=r"chunk_counts\[b'ab'\] must be a positive count, got 0"):
        scale.train_fast({b"ab": 0}, 300)
    with pytest.raises(ValueError, match=r"merges\[0\].*b'ab'"):
        scale.gpt2_files([(b"ab", b"c")], {})

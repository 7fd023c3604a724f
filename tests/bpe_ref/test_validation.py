"""bpe_ref's public functions reject bad input with ValueError/TypeError naming the offending value."""

import pytest

from bpe_ref import (
    apply_bpe,
    best_pair,
    bpe_train,
    count_pairs,
    encode,
    get_pair_counts,
    get_word_symbols,
    learn_bpe,
    merge,
    merge_ranks,
    merge_vocab,
    rank_and_replay_disagree,
    replay,
    train_bpe,
    train_trace,
    train_vocab,
)


def _word_trainers(words):
    """Calls of every trainer that takes raw words (bpe_train's keys: the same words, space-split)."""
    split = {(" ".join(w) if isinstance(w, str) else w): c for w, c in words.items()}
    return [
        ("train_bpe", lambda: train_bpe(words, 2)),
        ("learn_bpe", lambda: learn_bpe(words, 2)),
        ("bpe_train", lambda: bpe_train(split, 2)),
        ("train_trace", lambda: train_trace(words, 2)),
    ]


def _count_cases(bad):
    """Every function that takes counts, with one bad count ``bad``."""
    return [
        *_word_trainers({"ab": 1, "cd": bad}),
        ("count_pairs", lambda: count_pairs({("a", "b"): 1, ("c", "d"): bad})),
        ("merge_vocab", lambda: merge_vocab(("a", "b"), {("a", "b"): bad})),
        ("train_vocab", lambda: train_vocab({("a", "b"): bad}, 1, "first")),
        ("best_pair", lambda: best_pair({("a", "b"): 2, ("c", "d"): bad}, "largest")),
    ]


COUNT_CASES = [
    pytest.param(call, bad, error, id=f"{name}-{kind}")
    for kind, bad, error in [
        ("negative", -3, ValueError),
        ("zero", 0, ValueError),
        ("float", 2.5, TypeError),
        ("integral-float", 2.0, TypeError),
        ("bool", True, TypeError),
        ("str", "4", TypeError),
        ("none", None, TypeError),
    ]
    for name, call in _count_cases(bad)
]


@pytest.mark.parametrize(("call", "bad", "error"), COUNT_CASES)
def test_bad_count(call, bad, error):
    with pytest.raises(error) as info:
        call()
    assert repr(bad) in str(info.value)


BAD_WORD_CASES = [
    # (call, offending value, error)
    *[pytest.param(call, "", ValueError, id=f"{name}-empty") for name, call in _word_trainers({"ab": 1, "": 1})],
    *[pytest.param(call, 7, TypeError, id=f"{name}-int-key") for name, call in _word_trainers({"ab": 1, 7: 1})],
    *[pytest.param(call, b"ab", TypeError, id=f"{name}-bytes") for name, call in _word_trainers({b"ab": 1})],
    pytest.param(lambda: bpe_train({"a b": 1, "   ": 1}, 2), "   ", ValueError, id="bpe_train-only-spaces"),
    pytest.param(lambda: get_word_symbols(""), "", ValueError, id="get_word_symbols-empty"),
    pytest.param(lambda: get_word_symbols(b"low"), b"low", TypeError, id="get_word_symbols-bytes"),
    pytest.param(lambda: get_word_symbols(["l", "o"]), ["l", "o"], TypeError, id="get_word_symbols-list"),
    pytest.param(lambda: apply_bpe("", []), "", ValueError, id="apply_bpe-empty"),
    pytest.param(lambda: apply_bpe(None, []), None, TypeError, id="apply_bpe-none"),
    pytest.param(lambda: encode("", []), "", ValueError, id="encode-empty"),
    pytest.param(lambda: encode(("a", "b"), []), ("a", "b"), TypeError, id="encode-tuple"),
    pytest.param(lambda: rank_and_replay_disagree("", []), "", ValueError, id="disagree-empty"),
    pytest.param(lambda: rank_and_replay_disagree(5, []), 5, TypeError, id="disagree-int"),
]


@pytest.mark.parametrize(("call", "bad", "error"), BAD_WORD_CASES)
def test_bad_word(call, bad, error):
    with pytest.raises(error) as info:
        call()
    assert repr(bad) in str(info.value)


def _num_merges_calls(bad):
    return [
        ("train_bpe", lambda: train_bpe({"ab": 1}, bad)),
        ("learn_bpe", lambda: learn_bpe({"ab": 1}, bad)),
        ("bpe_train", lambda: bpe_train({"a b": 1}, bad)),
        ("train_vocab", lambda: train_vocab({("a", "b"): 1}, bad, "first")),
        ("train_trace", lambda: train_trace({"ab": 1}, bad)),
    ]


NUM_MERGES_CASES = [
    pytest.param(call, bad, error, id=f"{name}-{kind}")
    for kind, bad, error in [
        ("negative", -1, ValueError),
        ("float", 1.5, TypeError),
        ("integral-float", 3.0, TypeError),
        ("str", "3", TypeError),
        ("none", None, TypeError),
    ]
    for name, call in _num_merges_calls(bad)
]


@pytest.mark.parametrize(("call", "bad", "error"), NUM_MERGES_CASES)
def test_bad_num_merges(call, bad, error):
    with pytest.raises(error) as info:
        call()
    assert repr(bad) in str(info.value)


TIE_BREAK_CASES = [
    pytest.param(call, bad, id=f"{name}-{bad!r}")
    for bad in ["random", "LARGEST", "", None]
    for name, call in [
        ("best_pair", lambda bad=bad: best_pair({("a", "b"): 1}, bad)),
        ("train_vocab", lambda bad=bad: train_vocab({("a", "b"): 1}, 1, bad)),
        ("train_trace", lambda bad=bad: train_trace({"ab": 1}, 1, bad)),
    ]
]


@pytest.mark.parametrize(("call", "bad"), TIE_BREAK_CASES)
def test_unknown_tie_break(call, bad):
    with pytest.raises(ValueError) as info:
        call()
    assert repr(bad) in str(info.value)


BAD_ENTRIES = [
    (("a", "b", "c"), TypeError),  # three symbols
    (("a",), TypeError),  # one symbol
    (["a", "b"], TypeError),  # a list, not a tuple
    ("ab", TypeError),  # a string, not a pair
    (("a", 1), ValueError),  # a non-str symbol
    (("a", ""), ValueError),  # an empty symbol
    (None, TypeError),
]


def _merge_table_calls(table):
    return [
        ("apply_bpe", lambda: apply_bpe("abc", table)),
        ("encode", lambda: encode("abc", table)),
        ("merge_ranks", lambda: merge_ranks(table)),
        ("replay", lambda: replay(["a", "b", "c"], table)),
        ("rank_and_replay_disagree", lambda: rank_and_replay_disagree("abc", table)),
    ]


MERGE_TABLE_CASES = [
    pytest.param(call, entry, error, id=f"{name}-{entry!r}")
    for entry, error in BAD_ENTRIES
    # The bad entry comes after a good one so that checking only the first entry is not enough.
    for name, call in _merge_table_calls([("a", "b"), entry])
]


@pytest.mark.parametrize(("call", "bad", "error"), MERGE_TABLE_CASES)
def test_bad_merge_table_entry(call, bad, error):
    with pytest.raises(error) as info:
        call()
    assert repr(bad) in str(info.value)


@pytest.mark.parametrize("table", ["ab", 5, None], ids=repr)
@pytest.mark.parametrize("function", [merge_ranks, lambda t: apply_bpe("ab", t), lambda t: encode("ab", t)])
def test_merge_table_that_is_not_a_list(function, table):
    with pytest.raises(TypeError) as info:
        function(table)
    assert repr(table) in str(info.value)


@pytest.mark.parametrize(
    ("call", "bad", "error"),
    [
        pytest.param(lambda: merge_vocab(("a",), {("a", "b"): 1}), ("a",), TypeError, id="one-symbol"),
        pytest.param(lambda: merge_vocab(["a", "b"], {("a", "b"): 1}), ["a", "b"], TypeError, id="list"),
        pytest.param(lambda: merge_vocab(("a", 2), {("a", "b"): 1}), ("a", 2), ValueError, id="int-symbol"),
        pytest.param(lambda: merge([1, 2], [1, 2], 3), [1, 2], TypeError, id="merge-list-pair"),
        pytest.param(lambda: merge([1, 2], (1, 2, 3), 4), (1, 2, 3), TypeError, id="merge-triple"),
    ],
)
def test_bad_pair_argument(call, bad, error):
    with pytest.raises(error) as info:
        call()
    assert repr(bad) in str(info.value)


@pytest.mark.parametrize("ids", ["abc", {1, 2}, frozenset({3}), 12, None, b"ab"], ids=repr)
@pytest.mark.parametrize("function", [get_pair_counts, lambda ids: merge(ids, (1, 2), 3)], ids=["counts", "merge"])
def test_ids_that_are_not_a_list_or_tuple(function, ids):
    with pytest.raises(TypeError) as info:
        function(ids)
    assert repr(ids) in str(info.value)


@pytest.mark.parametrize("function", [get_pair_counts, lambda ids: merge(ids, (1, 2), 3)], ids=["counts", "merge"])
def test_unhashable_ids(function):
    with pytest.raises(TypeError) as info:
        function([1, [2], 3])
    assert "[2]" in str(info.value)


@pytest.mark.parametrize(
    ("vocab", "bad", "error"),
    [
        pytest.param({("a", ""): 1}, ("a", ""), ValueError, id="empty-symbol"),
        pytest.param({("a", 3): 1}, ("a", 3), ValueError, id="int-symbol"),
        pytest.param({(): 1}, (), TypeError, id="empty-tuple"),
        pytest.param({"ab": 1}, "ab", TypeError, id="str-key"),
    ],
)
@pytest.mark.parametrize(
    "function",
    [count_pairs, lambda v: merge_vocab(("a", "b"), v), lambda v: train_vocab(v, 1, "first")],
    ids=["count_pairs", "merge_vocab", "train_vocab"],
)
def test_bad_vocab_key(function, vocab, bad, error):
    with pytest.raises(error) as info:
        function(vocab)
    assert repr(bad) in str(info.value)


@pytest.mark.parametrize(
    "call",
    [
        lambda: train_bpe(["ab"], 1),
        lambda: learn_bpe("ab", 1),
        lambda: bpe_train([("a b", 1)], 1),
        lambda: train_trace(None, 1),
        lambda: best_pair([(("a", "b"), 1)], "first"),
    ],
)
def test_not_a_dict(call):
    with pytest.raises(TypeError) as info:
        call()
    assert "dict" in str(info.value)


@pytest.mark.parametrize("function", [count_pairs, lambda v: merge_vocab(("a", "b"), v)])
def test_vocab_that_is_not_a_dict_names_the_value(function):
    with pytest.raises(TypeError) as info:
        function([("a", "b")])
    assert repr([("a", "b")]) in str(info.value)


def test_best_pair_of_empty_counts():
    with pytest.raises(ValueError, match="empty"):
        best_pair({}, "largest")


@pytest.mark.parametrize("bad_key", [("a",), "ab", ("a", "b", "c")], ids=repr)
def test_best_pair_bad_key(bad_key):
    with pytest.raises(TypeError) as info:
        best_pair({bad_key: 1}, "largest")
    assert repr(bad_key) in str(info.value)


def test_a_merge_table_must_be_ordered():
    # A set has no stable order, so its merges would have no stable ranks.
    with pytest.raises(TypeError, match=r"set \{\('a', 'b'\)\}"):
        apply_bpe("ab", {("a", "b")})

"""Tests of bpe_ref.core: the worked examples of the assignments and each convention on hand-built cases.

Expected values come from the assignments' worked examples or are derived by hand in a comment next to the case.
"""

import copy

import pytest

import bpe_ref
from bpe_ref import (
    END_OF_WORD,
    apply_bpe,
    apply_ranked,
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

NEWEST_WORDS = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
NEWEST_RULES = [("e", "s"), ("es", "t"), ("l", "o"), ("lo", "w")]
HUG_SPLIT_WORDS = {"h u g </w>": 10, "p u g </w>": 5, "b u g </w>": 2}
HUG_MERGES = [("u", "g"), ("ug", "</w>"), ("h", "ug</w>")]


# ---------------------------------------------------------------------------------------------------------------
# Worked examples of the assignments (each also a visible test of its notebook)
# ---------------------------------------------------------------------------------------------------------------


class TestWorkedExamples:
    def test_get_pair_counts_values_and_order(self):
        counts = get_pair_counts([1, 2, 3, 1, 2])
        assert counts == {(1, 2): 2, (2, 3): 1, (3, 1): 1}
        # Dict equality ignores order; assignment 01 fixes first-occurrence order.
        assert list(counts.items()) == [((1, 2), 2), ((2, 3), 1), ((3, 1), 1)]

    def test_merge_example(self):
        assert merge([1, 2, 3, 1, 2], (1, 2), 99) == [99, 3, 99]

    def test_merge_overlap_example(self):
        assert merge([5, 5, 5], (5, 5), 7) == [7, 5]

    def test_train_bpe_example(self):
        assert train_bpe({"aa": 5, "ab": 1}, 1) == [("a", "a")]

    def test_apply_bpe_example(self):
        assert apply_bpe("abc", [("a", "b"), ("ab", "c")]) == ["abc", "</w>"]

    def test_bpe_train_example(self):
        assert bpe_train(HUG_SPLIT_WORDS, 3) == HUG_MERGES

    def test_bpe_train_early_stop_example(self):
        assert bpe_train({"a b </w>": 1, "c d </w>": 1}, 5) == [("a", "b"), ("ab", "</w>"), ("c", "d"), ("cd", "</w>")]

    def test_learn_bpe_example(self):
        assert learn_bpe(NEWEST_WORDS, 4) == NEWEST_RULES

    def test_encode_example(self):
        assert encode("lowest", NEWEST_RULES) == ["low", "est"]
        assert encode("xyz", NEWEST_RULES) == ["x", "y", "z"]

    def test_encode_with_learned_rules_example(self):
        rules = learn_bpe(NEWEST_WORDS, 4)
        assert encode("lowest", rules) == ["low", "est"]
        assert encode("xyz", rules) == ["x", "y", "z"]


def test_public_api_is_reexported():
    for name in bpe_ref.__all__:
        assert hasattr(bpe_ref, name), name
    assert END_OF_WORD == "</w>"
    assert tuple(bpe_ref.TIE_BREAKS) == ("largest", "smallest", "first")


# ---------------------------------------------------------------------------------------------------------------
# 01: get_pair_counts and merge
# ---------------------------------------------------------------------------------------------------------------


class TestPairCountsAndMerge:
    def test_overlaps_are_counted(self):
        # [5, 5, 5] has (5, 5) at positions 0-1 and 1-2.
        assert get_pair_counts([5, 5, 5]) == {(5, 5): 2}
        # [5, 5, 5, 5]: three adjacent positions.
        assert get_pair_counts([5, 5, 5, 5]) == {(5, 5): 3}

    def test_first_occurrence_order(self):
        # Pairs met in the order (3, 1), (1, 2), (2, 3), (3, 1) again: the repeat does not move (3, 1).
        assert list(get_pair_counts([3, 1, 2, 3, 1]).items()) == [((3, 1), 2), ((1, 2), 1), ((2, 3), 1)]

    def test_works_on_tuples_and_strings_as_ids(self):
        assert get_pair_counts(("x", "y", "x", "y")) == {("x", "y"): 2, ("y", "x"): 1}
        assert merge(("x", "y", "x", "y"), ("x", "y"), "xy") == ["xy", "xy"]

    @pytest.mark.parametrize("ids", [[], [4], (), (4,)])
    def test_length_0_or_1(self, ids):
        assert get_pair_counts(ids) == {}
        out = merge(ids, (4, 4), 9)
        assert out == list(ids)
        assert isinstance(out, list)
        assert out is not ids

    def test_merge_returns_new_list_even_without_match(self):
        ids = [1, 2, 3]
        out = merge(ids, (7, 8), 9)
        assert out == [1, 2, 3]
        assert out is not ids
        out.append(4)  # the result is independent of the input
        assert ids == [1, 2, 3]

    def test_merge_overlaps_four(self):
        # [5, 5, 5, 5]: match at 0-1, skip to 2, match at 2-3.
        assert merge([5, 5, 5, 5], (5, 5), 7) == [7, 7]

    def test_merge_order_of_pair_matters(self):
        # (2, 1) occurs once (positions 1-2), (1, 2) twice.
        assert merge([1, 2, 1, 2], (2, 1), 9) == [1, 9, 2]

    def test_merge_left_to_right_not_rightmost(self):
        # [1, 1, 1, 2]: left-to-right merging of (1, 1) takes positions 0-1, leaving 1, 2.
        assert merge([1, 1, 1, 2], (1, 1), 0) == [0, 1, 2]


# ---------------------------------------------------------------------------------------------------------------
# 02: get_word_symbols, count_pairs, merge_vocab, train_bpe
# ---------------------------------------------------------------------------------------------------------------


class TestEndOfWordMarker:
    def test_get_word_symbols(self):
        assert get_word_symbols("low") == ("l", "o", "w", "</w>")
        assert get_word_symbols("a") == ("a", "</w>")

    def test_symbols_are_code_points(self):
        # "é" written as e + combining accent is two code points; "ß" is one; no byte splitting.
        assert get_word_symbols("e\u0301") == ("e", "\u0301", "</w>")
        assert get_word_symbols("ß") == ("ß", "</w>")

    def test_marker_is_one_symbol_in_pair_counts(self):
        assert count_pairs({get_word_symbols("ab"): 2}) == {("a", "b"): 2, ("b", "</w>"): 2}

    def test_marker_can_be_merged_in_training(self):
        # "ab": pairs (a, b), (b, </w>) tie at 1; largest tuple is (b, </w>) since "b" > "a".
        # Then ("a", "b</w>") is the only pair; then one symbol is left and training stops.
        assert train_bpe({"ab": 1}, 10) == [("b", "</w>"), ("a", "b</w>")]

    def test_marker_can_be_merged_in_apply_bpe(self):
        assert apply_bpe("ab", [("b", "</w>")]) == ["a", "b</w>"]
        assert apply_bpe("ab", [("b", "</w>"), ("a", "b</w>")]) == ["ab</w>"]

    def test_marker_is_given_in_the_keys(self):
        # bpe_train adds no marker of its own: without "</w>" in the keys none is learned.
        assert bpe_train({"a b": 1}, 5) == [("a", "b")]

    def test_learn_and_encode_use_no_marker(self):
        # "ab" alone: only (a, b); with a marker there would be a second merge.
        assert learn_bpe({"ab": 1}, 5) == [("a", "b")]
        assert encode("ab", [("b", "</w>")]) == ["a", "b"]


class TestCountPairsAndMergeVocab:
    def test_count_pairs_weighted_never_across_words(self):
        vocab = {("a", "b"): 3, ("b", "a"): 2}
        # No (b, b) pair although word 1 ends with b and word 2 starts with b.
        assert list(count_pairs(vocab).items()) == [(("a", "b"), 3), (("b", "a"), 2)]

    def test_count_pairs_overlaps(self):
        # a a a </w> with count 4: (a, a) twice per word -> 8; (a, </w>) once -> 4.
        assert count_pairs({("a", "a", "a", "</w>"): 4}) == {("a", "a"): 8, ("a", "</w>"): 4}

    def test_count_pairs_order_across_words(self):
        vocab = {("c", "d"): 1, ("a", "b", "c", "d"): 1}
        assert list(count_pairs(vocab)) == [("c", "d"), ("a", "b"), ("b", "c")]

    def test_merge_vocab_overlap(self):
        assert merge_vocab(("a", "a"), {("a", "a", "a", "</w>"): 2}) == {("aa", "a", "</w>"): 2}

    def test_merge_vocab_adds_counts_of_words_that_become_equal(self):
        vocab = {("x",): 1, ("a", "b", "c"): 3, ("ab", "c"): 2}
        out = merge_vocab(("a", "b"), vocab)
        # (a, b, c) becomes (ab, c), the same key as the third word: 3 + 2 = 5, at the first one's position.
        assert list(out.items()) == [(("x",), 1), (("ab", "c"), 5)]

    def test_merge_vocab_returns_new_dict(self):
        vocab = {("a", "b"): 1}
        out = merge_vocab(("x", "y"), vocab)
        assert out == vocab
        assert out is not vocab

    def test_merge_vocab_single_symbol_words_unchanged(self):
        assert merge_vocab(("a", "b"), {("ab",): 2, ("a", "b"): 1}) == {("ab",): 3}


# ---------------------------------------------------------------------------------------------------------------
# Tie-breaks
# ---------------------------------------------------------------------------------------------------------------


class TestTieBreaks:
    # Three pairs tied at 2, listed in first-seen order (b, c), (c, d), (a, b):
    # largest tuple (c, d), smallest tuple (a, b), first listed (b, c).
    THREE_WAY = {("b", "c"): 2, ("c", "d"): 2, ("a", "b"): 2, ("z", "z"): 1}

    @pytest.mark.parametrize(
        ("tie_break", "expected"), [("largest", ("c", "d")), ("smallest", ("a", "b")), ("first", ("b", "c"))]
    )
    def test_best_pair_three_way_tie(self, tie_break, expected):
        assert best_pair(self.THREE_WAY, tie_break) == expected

    @pytest.mark.parametrize("tie_break", ["largest", "smallest", "first"])
    def test_best_pair_most_frequent_wins_over_tie_break(self, tie_break):
        # ("m", "m") is strictly most frequent; it is neither smallest, largest nor first.
        counts = {("a", "a"): 1, ("m", "m"): 5, ("z", "z"): 1}
        assert best_pair(counts, tie_break) == ("m", "m")

    def test_end_of_word_sorts_before_letters(self):
        # "<" is U+003C, before "A" (U+0041) and "a" (U+0061).
        counts = {("a", "b"): 3, ("a", "</w>"): 3}
        assert best_pair(counts, "smallest") == ("a", "</w>")
        assert best_pair(counts, "largest") == ("a", "b")
        assert best_pair({("x", "A"): 1, ("x", "</w>"): 1}, "smallest") == ("x", "</w>")

    def test_tie_goes_to_larger_tuple_over_marker(self):
        # (a, a) and (a, </w>) both 5: ("a", "a") > ("a", "</w>").
        trace = train_trace({"aa": 5, "ab": 1}, 1)
        assert [(r.pair, r.count, r.tied) for r in trace] == [(("a", "a"), 5, [("a", "</w>")])]

    @pytest.mark.parametrize(
        ("tie_break", "expected"), [("largest", ("c", "d")), ("smallest", ("a", "b")), ("first", ("b", "c"))]
    )
    def test_train_vocab_three_way_tie(self, tie_break, expected):
        vocab = {("b", "c"): 1, ("c", "d"): 1, ("a", "b"): 1}
        assert train_vocab(vocab, 1, tie_break) == [expected]

    def test_each_trainer_uses_its_tie_break(self):
        # Words bc, cd, ab, each once: without marker the pairs (b, c), (c, d), (a, b) tie at 1.
        assert learn_bpe({"bc": 1, "cd": 1, "ab": 1}, 1) == [("a", "b")]  # smallest
        assert bpe_train({"b c": 1, "c d": 1, "a b": 1}, 1) == [("b", "c")]  # first seen
        # With marker: (b,c) (c,</w>) (c,d) (d,</w>) (a,b) (b,</w>) tie at 1; largest first symbol is "d".
        assert train_bpe({"bc": 1, "cd": 1, "ab": 1}, 1) == [("d", "</w>")]

    @pytest.mark.parametrize(
        ("tie_break", "expected"),
        # Pairs (b, c), (c, </w>), (b, </w>), all 1. largest: first symbol "c" wins -> (c, </w>);
        # smallest: ("b", "</w>") < ("b", "c") because "<" < "c"; first: (b, c) is seen first.
        [("largest", ("c", "</w>")), ("smallest", ("b", "</w>")), ("first", ("b", "c"))],
    )
    def test_train_trace_tie_breaks_with_marker(self, tie_break, expected):
        trace = train_trace({"bc": 1, "b": 1}, 1, tie_break)
        assert trace[0].pair == expected

    def test_first_depends_on_dict_order(self):
        assert bpe_train({"a b": 1, "b c": 1}, 1) == [("a", "b")]
        assert bpe_train({"b c": 1, "a b": 1}, 1) == [("b", "c")]

    def test_first_counts_rebuilt_each_round(self):
        # Round 1: (a,b)=2 wins. Vocab: (ab,c), (c,d), (ab,). Rebuilt counts list (ab,c) before (c,d),
        # both 1 -> (ab,c). (A counter kept across rounds would have (c,d) before the new (ab,c).)
        # Round 3: only (c,d) is left; then no pairs, so training stops after 3 merges.
        assert bpe_train({"a b c": 1, "c d": 1, "a b": 1}, 5) == [("a", "b"), ("ab", "c"), ("c", "d")]

    def test_tie_goes_to_smallest(self):
        # learn_bpe's example: (e, s) and (s, t) both 9, (e, s) wins alphabetically.
        trace = train_trace(NEWEST_WORDS, 1, "smallest", marker=False)
        assert trace[0].pair == ("e", "s")
        assert trace[0].count == 9
        assert ("s", "t") in trace[0].tied


# ---------------------------------------------------------------------------------------------------------------
# Stopping
# ---------------------------------------------------------------------------------------------------------------


class TestStopping:
    @pytest.mark.parametrize(
        "call",
        [
            lambda: train_bpe({"abc": 3}, 0),
            lambda: learn_bpe({"abc": 3}, 0),
            lambda: bpe_train({"a b c": 3}, 0),
            lambda: train_vocab({("a", "b"): 3}, 0, "first"),
            lambda: train_trace({"abc": 3}, 0),
        ],
    )
    def test_zero_merges(self, call):
        assert call() == []

    def test_early_stop(self):
        # "ab" + marker has 3 symbols, so at most 2 merges.
        assert len(train_bpe({"ab": 1}, 10)) == 2
        # Without marker, single-character words have no pair at all.
        assert learn_bpe({"a": 3, "b": 1}, 4) == []
        assert learn_bpe({"ab": 1}, 4) == [("a", "b")]
        assert bpe_train({"ab </w>": 1}, 4) == [("ab", "</w>")]

    def test_overlapping_training(self):
        # aaaa: (a,a)=3 -> aa aa; (aa,aa)=1 -> aaaa; then one symbol, stop.
        assert learn_bpe({"aaaa": 1}, 5) == [("a", "a"), ("aa", "aa")]
        # aaa + marker: (a,a)=2 beats (a,</w>)=1.
        assert train_bpe({"aaa": 1}, 1) == [("a", "a")]


# ---------------------------------------------------------------------------------------------------------------
# 04: apply_bpe by rank, encode by replay
# ---------------------------------------------------------------------------------------------------------------


class TestApplyAndEncode:
    # Rank: a b c </w>; only (a, b) (rank 1) is present -> ab c </w>; now (ab, c) (rank 0) -> abc </w>.
    # Replay: rule (ab, c) first finds no "ab"; then (a, b) -> ab c </w>; done.
    RANK_VS_REPLAY = [("ab", "c"), ("a", "b")]

    def test_apply_bpe_by_rank_where_replay_disagrees(self):
        assert apply_bpe("abc", self.RANK_VS_REPLAY) == ["abc", "</w>"]
        assert replay(get_word_symbols("abc"), self.RANK_VS_REPLAY) == ["ab", "c", "</w>"]

    def test_encode_by_replay_where_rank_disagrees(self):
        assert encode("abc", self.RANK_VS_REPLAY) == ["ab", "c"]
        assert rank_and_replay_disagree("abc", self.RANK_VS_REPLAY) is True
        assert rank_and_replay_disagree("abc", [("a", "b"), ("ab", "c")]) is False

    def test_apply_bpe_lowest_rank_first(self):
        # a b c </w>: (b, c) rank 0 and (a, b) rank 1 both present; rank 0 wins -> a bc </w>;
        # (a, bc) is not in the table, so it stops there although (a, b) looked mergeable.
        assert apply_bpe("abc", [("b", "c"), ("a", "b")]) == ["a", "bc", "</w>"]

    def test_duplicated_merge_keeps_first_rank(self):
        # (b, c) listed at 0 and 2. First rank: (b, c)=0 < (a, b)=1 -> a bc </w>, then nothing applies.
        # Were the last duplicate to win: (a, b)=1 < (b, c)=2 -> ab c </w>, a different answer.
        table = [("b", "c"), ("a", "b"), ("b", "c")]
        assert merge_ranks(table) == {("b", "c"): 0, ("a", "b"): 1}
        assert apply_bpe("abc", table) == ["a", "bc", "</w>"]

    def test_apply_bpe_merges_all_occurrences(self):
        assert apply_bpe("abab", [("a", "b")]) == ["ab", "ab", "</w>"]
        # Overlap inside apply: a a a </w> -> aa a </w>.
        assert apply_bpe("aaa", [("a", "a")]) == ["aa", "a", "</w>"]

    def test_apply_bpe_unknown_pairs(self):
        assert apply_bpe("xyz", NEWEST_RULES) == ["x", "y", "z", "</w>"]
        assert apply_bpe("x", []) == ["x", "</w>"]

    def test_apply_ranked_with_precomputed_ranks(self):
        assert apply_ranked(["a", "b", "c"], {("ab", "c"): 0, ("a", "b"): 1}) == ["abc"]
        assert apply_ranked(["a"], {("a", "b"): 0}) == ["a"]

    def test_encode_replays_in_order(self):
        # aaaa: (a,a) -> aa aa; (aa,aa) -> aaaa.
        assert encode("aaaa", [("a", "a"), ("aa", "aa")]) == ["aaaa"]
        # Reversed: (aa, aa) finds nothing yet; (a, a) -> aa aa and stops.
        assert encode("aaaa", [("aa", "aa"), ("a", "a")]) == ["aa", "aa"]

    def test_apply_bpe_on_words_of_the_trained_example(self):
        # train_bpe on its example learns (a, a) only; apply to "aab": a a b </w> -> aa b </w>.
        assert apply_bpe("aab", train_bpe({"aa": 5, "ab": 1}, 1)) == ["aa", "b", "</w>"]

    def test_marker_text_inside_a_word_makes_rank_and_replay_differ(self):
        # Found by hypothesis while checking "rank == replay on training words"; kept as a documented case.
        # Training words </w>a, a, a</w> (their characters include <, /, w, >), largest tie-break:
        #   round 1: (<,/) (/,w) (w,>) tie at 2 -> largest is ("w", ">");
        #   round 2: (<,/) (/,w>) (a,</w>) tie at 2 -> ("a", "</w>");
        #   round 3: (<,/) (/,w>) tie at 2 -> ("<", "/") since "<" > "/";
        #   round 4: ("</", "w>") at 2, whose joined symbol is the string "</w>", equal to the marker.
        words = {"</w>a": 1, "a": 1, "a</w>": 1}
        table = [("w", ">"), ("a", "</w>"), ("<", "/"), ("</", "w>")]
        assert train_bpe(words, 4) == table
        # Replay of "a</w>" (= training): a < / w > </w> -> a < / w> </w> -> a </ w> </w> -> a </w> </w>.
        assert replay(get_word_symbols("a</w>"), table) == ["a", "</w>", "</w>"]
        # Rank: after the same three merges, ("a", "</w>") (rank 1) now exists and is merged too.
        assert apply_bpe("a</w>", table) == ["a</w>", "</w>"]


# ---------------------------------------------------------------------------------------------------------------
# train_trace
# ---------------------------------------------------------------------------------------------------------------


class TestTrainTrace:
    HUG = {"hug": 10, "pug": 5, "bug": 2}  # bpe_train's example as raw words

    def test_pairs_equal_the_trainers(self):
        assert [r.pair for r in train_trace({"aa": 5, "ab": 1}, 1)] == train_bpe({"aa": 5, "ab": 1}, 1)
        assert [r.pair for r in train_trace(NEWEST_WORDS, 4, "smallest", marker=False)] == NEWEST_RULES
        assert [r.pair for r in train_trace(self.HUG, 3, "first")] == HUG_MERGES

    def test_hug_round_1_tie(self):
        # bpe_train's example: (u, g) and (g, </w>) tie at 10 + 5 + 2 = 17, (u, g) is seen first.
        first = train_trace(self.HUG, 1, "first")[0]
        assert (first.round, first.pair, first.count, first.tied) == (1, ("u", "g"), 17, [("g", "</w>")])
        assert list(first.pair_counts.items())[:3] == [(("h", "u"), 10), (("u", "g"), 17), (("g", "</w>"), 17)]

    def test_tied_rivals_in_first_seen_order(self):
        # bc, b with marker: (b,c) (c,</w>) (b,</w>) all 1; "first" takes (b,c), the two others are rivals.
        trace = train_trace({"bc": 1, "b": 1}, 1, "first")
        assert trace[0].tied == [("c", "</w>"), ("b", "</w>")]
        # No tie: (a,a)=2 (with "aaa") beats (a,</w>)=1.
        assert train_trace({"aaa": 1}, 1)[0].tied == []

    def test_rounds_vocab_and_num_symbols(self):
        trace = train_trace(self.HUG, 3, "first")
        assert [r.round for r in trace] == [1, 2, 3]
        # 17 words of 4 symbols = 68; each merge removes one symbol per word it touches:
        # ug: -17 -> 51; ug</w>: -17 -> 34; h+ug</w>: -10 -> 24.
        assert [r.num_symbols for r in trace] == [51, 34, 24]
        assert trace[-1].vocab == {("hug</w>",): 10, ("p", "ug</w>"): 5, ("b", "ug</w>"): 2}

    def test_stops_early(self):
        assert [r.pair for r in train_trace({"ab": 1}, 10)] == [("b", "</w>"), ("a", "b</w>")]


# ---------------------------------------------------------------------------------------------------------------
# No function changes its arguments
# ---------------------------------------------------------------------------------------------------------------


def _snapshot(value):
    """A deep copy plus, for dicts, the item order (dict equality ignores order)."""
    order = list(value.items()) if isinstance(value, dict) else None
    return copy.deepcopy(value), order


NON_MUTATION_CASES = {
    "get_pair_counts": (get_pair_counts, lambda: ([5, 5, 5, 1],)),
    "merge": (merge, lambda: ([5, 5, 5, 1], (5, 5), 7)),
    "merge_len1": (merge, lambda: ([5], (5, 5), 7)),
    "get_word_symbols": (get_word_symbols, lambda: ("low",)),
    "count_pairs": (count_pairs, lambda: ({("b", "a", "a"): 2, ("a", "a"): 1},)),
    "merge_vocab": (merge_vocab, lambda: (("a", "a"), {("b", "a", "a"): 2, ("a", "a"): 1, ("aa",): 4})),
    "best_pair": (best_pair, lambda: ({("b", "c"): 2, ("a", "b"): 2}, "first")),
    "train_vocab": (train_vocab, lambda: ({("b", "a", "a"): 2, ("a", "a"): 1}, 5, "largest")),
    "train_bpe": (train_bpe, lambda: ({"low": 5, "lower": 2}, 5)),
    "learn_bpe": (learn_bpe, lambda: ({"low": 5, "lower": 2}, 5)),
    "bpe_train": (bpe_train, lambda: ({"l o w </w>": 5, "l o w e r </w>": 2}, 5)),
    "merge_ranks": (merge_ranks, lambda: ([("a", "b"), ("b", "c"), ("a", "b")],)),
    "apply_ranked": (apply_ranked, lambda: (["a", "b", "c"], {("a", "b"): 0, ("ab", "c"): 1})),
    "apply_bpe": (apply_bpe, lambda: ("abc", [("a", "b"), ("ab", "c")])),
    "replay": (replay, lambda: (["a", "b", "c"], [("a", "b"), ("ab", "c")])),
    "encode": (encode, lambda: ("abc", [("a", "b"), ("ab", "c")])),
    "rank_and_replay_disagree": (rank_and_replay_disagree, lambda: ("abc", [("ab", "c"), ("a", "b")])),
    "train_trace": (train_trace, lambda: ({"low": 5, "lower": 2}, 5, "first")),
}


@pytest.mark.parametrize("name", list(NON_MUTATION_CASES))
def test_arguments_are_not_changed(name):
    function, make_args = NON_MUTATION_CASES[name]
    args = make_args()
    before = [_snapshot(arg) for arg in args]
    function(*args)
    assert [_snapshot(arg) for arg in args] == before


def test_outputs_do_not_alias_inputs():
    ids = [1, 2]
    assert merge(ids, (3, 4), 5) is not ids
    vocab = {("a",): 1}
    assert merge_vocab(("a", "b"), vocab) is not vocab
    symbols = ["a", "b"]
    assert apply_ranked(symbols, {}) is not symbols
    assert replay(symbols, []) is not symbols
    # The trace's vocab of round 1 is not the caller's dict and later rounds do not rewrite earlier ones.
    trace = train_trace({"abc": 1}, 3)
    assert [len(next(iter(r.vocab))) for r in trace] == [3, 2, 1]

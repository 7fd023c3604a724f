"""Hidden checks of 04_apply_bpe: correct code in any style passes, each typical mistake fails the right part."""

import itertools
from functools import reduce

import pytest

import bpe_ref
from autograder.checks import CheckFailed
from autograder.checks import a04 as checks


def get_word_symbols(word):
    return (*word, "</w>")


def merge_pair(symbols, pair):
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == tuple(pair):
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def first_ranks(merges):
    ranks = {}
    for rank, pair in enumerate(merges):
        ranks.setdefault(tuple(pair), rank)
    return ranks


def by_rank(symbols, ranks):
    symbols = list(symbols)
    while True:
        known = [p for p in zip(symbols, symbols[1:]) if p in ranks]
        if not known:
            return symbols
        symbols = merge_pair(symbols, min(known, key=ranks.get))


def _message(check, fn, *part):
    with pytest.raises(CheckFailed) as info:
        check(fn, *part)
    lines = str(info.value).splitlines()
    assert len(lines) == 3
    return lines


# ---------------------------------------------------------------------------------------------------------------
# apply_bpe
# ---------------------------------------------------------------------------------------------------------------


def apply_dict_loop(word, merges):
    return by_rank(get_word_symbols(word), first_ranks(merges))


def apply_gpt2_style(word, merges):
    """min over the bigrams with float("inf"), jumping to the next first symbol with index(); a tuple back."""
    ranks = first_ranks(merges)
    word = get_word_symbols(word)
    while len(word) > 1:
        bigram = min(zip(word, word[1:]), key=lambda p: ranks.get(p, float("inf")))
        if bigram not in ranks:
            break
        first, second = bigram
        new, i = [], 0
        while i < len(word):
            if first not in word[i:]:
                new.extend(word[i:])
                break
            j = word.index(first, i)
            new.extend(word[i:j])
            i = j
            if i < len(word) - 1 and word[i + 1] == second:
                new.append(first + second)
                i += 2
            else:
                new.append(word[i])
                i += 1
        word = tuple(new)
    print("done:", word)  # printing is allowed and swallowed
    return word


@pytest.mark.parametrize("fn", [apply_dict_loop, apply_gpt2_style])
@pytest.mark.parametrize("part", ["basic", "rank"])
def test_apply_bpe_in_other_styles_passes(fn, part):
    checks.check_apply_bpe(fn, part)


def apply_by_replay(word, merges):
    return reduce(merge_pair, merges, list(get_word_symbols(word)))


def apply_leftmost_only(word, merges):
    ranks = first_ranks(merges)
    symbols = list(get_word_symbols(word))
    while True:
        pairs = list(zip(symbols, symbols[1:]))
        known = [p for p in pairs if p in ranks]
        if not known:
            return symbols
        best = min(known, key=ranks.get)
        i = pairs.index(best)
        symbols = symbols[:i] + [best[0] + best[1]] + symbols[i + 2 :]


def apply_last_duplicate_wins(word, merges):
    return by_rank(get_word_symbols(word), {p: i for i, p in enumerate(merges)})


@pytest.mark.parametrize(
    "fn, smallest",
    [
        (apply_by_replay, "apply_bpe('aaa', [('aa', 'a'), ('a', 'a')])"),
        (apply_leftmost_only, "apply_bpe('aaaa', [('aa', 'a'), ('a', 'a')])"),
        (apply_last_duplicate_wins, "apply_bpe('bab', [('a', 'b'), ('b', 'a'), ('a', 'b')])"),
    ],
    ids=lambda v: getattr(v, "__name__", "smallest"),
)
def test_rank_mistakes_pass_basic_and_fail_rank_on_a_small_table(fn, smallest):
    checks.check_apply_bpe(fn, "basic")  # trained tables, no duplicates: the mistake does not show
    lines = _message(checks.check_apply_bpe, fn, "rank")
    assert lines[0] == smallest
    assert lines[1] == f"  expected: {bpe_ref.apply_bpe(*eval(lines[0][len('apply_bpe') :]))!r}"


def test_apply_without_the_marker_fails_both_parts():
    def no_marker(word, merges):
        return by_rank(word, first_ranks(merges))

    for part in ("basic", "rank"):
        lines = _message(checks.check_apply_bpe, no_marker, part)
        assert "'</w>'" in lines[1] and "'</w>'" not in lines[2]


def test_apply_that_changes_the_table_fails():
    def pops(word, merges):
        result = apply_dict_loop(word, merges)
        if merges:
            merges.pop()
        return result

    with pytest.raises(CheckFailed, match="changed argument 2"):
        checks.check_apply_bpe(pops, "basic")


# ---------------------------------------------------------------------------------------------------------------
# encode
# ---------------------------------------------------------------------------------------------------------------


def encode_loop(word, rules):
    symbols = list(word)
    for rule in rules:
        symbols = merge_pair(symbols, rule)
    return symbols


def encode_recursive_tuple(word, rules):
    if not rules:
        return tuple(word)
    return tuple(merge_pair(list(encode_recursive_tuple(word, rules[:-1])), rules[-1]))


@pytest.mark.parametrize("fn", [encode_loop, encode_recursive_tuple])
@pytest.mark.parametrize("part", ["basic", "replay"])
def test_encode_in_other_styles_passes(fn, part):
    checks.check_encode(fn, part)


def test_encode_by_rank_passes_basic_and_fails_replay():
    def encode_by_rank(word, rules):
        return apply_dict_loop(word, rules)[:-1]  # "apply_bpe without the marker"

    checks.check_encode(encode_by_rank, "basic")  # learned rules: rank and replay agree
    lines = _message(checks.check_encode, encode_by_rank, "replay")
    assert lines == [
        "encode('aaa', [('aa', 'a'), ('a', 'a')])",
        "  expected: ['aa', 'a']",
        "  returned: ['aaa']",
    ]


def test_encode_by_greedy_sweep_fails_basic_on_a_learned_table():
    def sweep(word, rules):
        rule_set, symbols, changed = set(rules), list(word), True
        while changed:
            changed, i = False, 0
            while i < len(symbols) - 1:
                if (symbols[i], symbols[i + 1]) in rule_set:
                    symbols[i : i + 2] = [symbols[i] + symbols[i + 1]]
                    changed = True
                else:
                    i += 1
        return symbols

    rules = bpe_ref.learn_bpe({"bc": 2, "ab": 1}, 2)
    assert rules == [("b", "c"), ("a", "b")]
    lines = _message(checks.check_encode, sweep, "basic")
    assert lines[0] == f"encode('abc', {rules!r})"
    assert lines[1:] == ["  expected: ['a', 'bc']", "  returned: ['ab', 'c']"]
    with pytest.raises(CheckFailed):
        checks.check_encode(sweep, "replay")


def test_encode_with_the_marker_fails():
    with pytest.raises(CheckFailed, match="encode"):
        checks.check_encode(lambda word, rules: encode_loop(word, rules) + ["</w>"], "basic")


# ---------------------------------------------------------------------------------------------------------------
# disagreeing_merges
# ---------------------------------------------------------------------------------------------------------------


def counterexample(word):
    """The notebook's construction: merge the first two characters, then join the result with its neighbour."""
    after = merge_pair(list(word), (word[0], word[1]))
    return [(after[0], after[1]), (word[0], word[1])]


def test_the_notebook_construction_disagrees_on_every_word_of_three_or_more_characters():
    checks.check_counterexample(counterexample)
    for n in range(3, 7):
        for letters in itertools.product("ab", repeat=n):
            word = "".join(letters)
            assert bpe_ref.rank_and_replay_disagree(word, counterexample(word)), word


def test_a_counterexample_of_lists_or_a_tuple_passes():
    checks.check_counterexample(lambda word: tuple(list(p) for p in counterexample(word)))


def test_a_counterexample_with_extra_merges_and_the_marker_passes():
    checks.check_counterexample(lambda word: [*counterexample(word), ("x", "</w>"), (word[-1], "</w>")])


def test_a_hard_coded_counterexample_fails_on_the_first_other_word():
    lines = _message(checks.check_counterexample, lambda word: [("ab", "c"), ("a", "b")])
    assert lines[0] == "disagreeing_merges('aaa')"
    assert lines[2] == "  returned: [('ab', 'c'), ('a', 'b')], on which both give ['a', 'a', 'a']"


def test_a_table_in_learned_order_is_no_counterexample():
    with pytest.raises(CheckFailed, match="on which both give"):
        checks.check_counterexample(lambda word: [(word[0], word[1]), (word[0] + word[1], word[2])])


@pytest.mark.parametrize("returned", [None, "ab", [("a",)], [("a", "")], [("a", 1)]])
def test_something_that_is_not_a_merge_table_fails_cleanly(returned):
    with pytest.raises(CheckFailed, match="not a merge table"):
        checks.check_counterexample(lambda word: returned)


def test_a_counterexample_that_splits_on_spaces_fails_on_a_word_with_a_space():
    def by_words(word):
        parts = word.split()
        word = parts[0]
        if len(word) < 3:
            return [("x", "y")]
        return counterexample(word)

    lines = _message(checks.check_counterexample, by_words)
    assert lines[0] == "disagreeing_merges('xy z')"


def test_apply_by_replay_fails_the_rank_part():
    def by_replay(word, merges):
        return bpe_ref.replay(bpe_ref.get_word_symbols(word), merges)

    checks.check_apply_bpe(by_replay, "basic")  # trained tables: both agree
    with pytest.raises(CheckFailed, match="apply_bpe"):
        checks.check_apply_bpe(by_replay, "rank")


def test_counterexample_check_accepts_a_real_one_and_rejects_a_table_that_agrees():
    def counterexample(word):
        # Merge the first two characters everywhere; then list the merge of the first two resulting symbols
        # ahead of it. Replay tries that merge first, before its left symbol exists; rank does it last.
        symbols = bpe_ref.replay(list(word), [(word[0], word[1])])
        return [(symbols[0], symbols[1]), (word[0], word[1])]

    checks.check_counterexample(counterexample)
    with pytest.raises(CheckFailed, match="on which both give"):
        checks.check_counterexample(lambda w: [(w[0], w[1])])

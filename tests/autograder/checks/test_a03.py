"""The hidden checks of 03_tie_breaks: right code in any style passes, each typical mistake fails the part it should."""

from collections import Counter, defaultdict

import pytest

import bpe_ref
from autograder.checks import CheckFailed
from autograder.checks import a03 as checks

TIE_BREAKS = ["largest", "smallest", "first"]


def passes(check, fn, part):
    try:
        check(fn, part)
    except CheckFailed:
        return False
    return True


def parts_passed(check, fn, parts):
    return [part for part in parts if passes(check, fn, part)]


# ---------------------------------------------------------------------------------------------------------------
# best_pair
# ---------------------------------------------------------------------------------------------------------------


def best_pair_sorted(pair_counts, tie_break):
    """Sorting instead of max/min; a stable sort keeps dict order among equal counts."""
    if tie_break == "first":
        return sorted(pair_counts, key=lambda p: -pair_counts[p])[0]
    if tie_break == "largest":
        return sorted(pair_counts, key=lambda p: (pair_counts[p], p), reverse=True)[0]
    return sorted(pair_counts, key=lambda p: (-pair_counts[p], p))[0]


def best_pair_loop(pair_counts, tie_break):
    """A hand-written loop that prints while it works; returns a list instead of a tuple."""
    best = None
    for pair, count in pair_counts.items():
        print("looking at", pair, count)
        if best is None or count > pair_counts[best]:
            best = pair
        elif count == pair_counts[best] and tie_break != "first":
            if (pair > best) == (tie_break == "largest"):
                best = pair
    return list(best)


def best_pair_top_then_tuple(pair_counts, tie_break):
    """Filter the top count first, then compare the tuples."""
    top = max(pair_counts.values())
    tied = [p for p, c in pair_counts.items() if c == top]
    return {"largest": max(tied), "smallest": min(tied), "first": tied[0]}[tie_break]


@pytest.mark.parametrize("fn", [best_pair_sorted, best_pair_loop, best_pair_top_then_tuple])
@pytest.mark.parametrize("tie_break", TIE_BREAKS)
def test_best_pair_in_other_styles_passes(fn, tie_break):
    checks.check_best_pair(fn, tie_break)


def best_pair_swapped(pair_counts, tie_break):
    if tie_break == "largest":
        return min(pair_counts, key=lambda p: (-pair_counts[p], p))
    if tie_break == "smallest":
        return max(pair_counts, key=lambda p: (pair_counts[p], p))
    return max(pair_counts, key=pair_counts.get)


def best_pair_joined_max_min(pair_counts, tie_break):
    if tie_break == "largest":
        return max(pair_counts, key=lambda p: (pair_counts[p], p[0] + p[1]))
    if tie_break == "smallest":
        return min(pair_counts, key=lambda p: (-pair_counts[p], p[0] + p[1]))
    return max(pair_counts, key=pair_counts.get)


def best_pair_joined_sorted(pair_counts, tie_break):
    top = max(pair_counts.values())
    tied = sorted((p for p in pair_counts if pair_counts[p] == top), key=lambda p: p[0] + p[1])
    return {"largest": tied[-1], "smallest": tied[0], "first": max(pair_counts, key=pair_counts.get)}[tie_break]


def best_pair_last_of_ties(pair_counts, tie_break):
    """A loop with >=: among equal counts the last pair wins, so "first" is wrong."""
    if tie_break != "first":
        return bpe_ref.best_pair(pair_counts, tie_break)
    best = None
    for pair, count in pair_counts.items():
        if best is None or count >= pair_counts[best]:
            best = pair
    return best


def best_pair_first_key(pair_counts, tie_break):
    """ "first" read as the first key of the dict, whatever its count."""
    if tie_break != "first":
        return bpe_ref.best_pair(pair_counts, tie_break)
    return next(iter(pair_counts))


def best_pair_pops(pair_counts, tie_break):
    """Right answer, but it empties the caller's dict."""
    answer = bpe_ref.best_pair(pair_counts, tie_break)
    pair_counts.clear()
    return answer


@pytest.mark.parametrize(
    "fn, passed",
    [
        (best_pair_swapped, ["first"]),
        (best_pair_joined_max_min, ["first"]),
        (best_pair_joined_sorted, ["first"]),
        (best_pair_last_of_ties, ["largest", "smallest"]),
        (best_pair_first_key, ["largest", "smallest"]),
        (best_pair_pops, []),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_best_pair_mistakes_fail_their_tie_break_only(fn, passed):
    assert parts_passed(checks.check_best_pair, fn, TIE_BREAKS) == passed


def test_joined_strings_fail_on_the_pairs_that_join_alike():
    for tie_break in ("largest", "smallest"):
        with pytest.raises(CheckFailed) as info:
            checks.check_best_pair(best_pair_joined_max_min, tie_break)
        first_line = str(info.value).splitlines()[0]
        assert "('ab', '</w>')" in first_line or "('ab', 'a')" in first_line


# ---------------------------------------------------------------------------------------------------------------
# trainers: a shared loop with switches for the typical mistakes
# ---------------------------------------------------------------------------------------------------------------


def _merge_word(symbols, pair):
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


def _loop(vocab, num_merges, choose, *, weighted=True, early_stop=True):
    merges = []
    for _ in range(num_merges):
        counts = {}
        for symbols, count in vocab.items():
            for pair in zip(symbols, symbols[1:]):
                counts[pair] = counts.get(pair, 0) + (count if weighted else 1)
        if early_stop and not counts:
            break
        pair = choose(counts)
        merges.append(pair)
        merged = {}
        for symbols, count in vocab.items():
            key = _merge_word(symbols, pair)
            merged[key] = merged.get(key, 0) + count
        vocab = merged
    return merges


def learner(choose=lambda c: bpe_ref.best_pair(c, "smallest"), **switches):
    return lambda word_counts, merges: _loop({tuple(w): c for w, c in word_counts.items()}, merges, choose, **switches)


def trainer(choose=lambda c: bpe_ref.best_pair(c, "first"), split=str.split, **switches):
    return lambda word_freqs, n: _loop({tuple(split(k)): c for k, c in word_freqs.items()}, n, choose, **switches)


def learn_bpe_recursive(word_counts, merges):
    """Recursion over the rounds, a Counter, and lists of lists as the result."""

    def go(vocab, left):
        if left == 0:
            return []
        counts = Counter()
        for symbols, count in vocab.items():
            for pair in zip(symbols, symbols[1:]):
                counts[pair] += count
        if not counts:
            return []
        pair = min(counts, key=lambda p: (-counts[p], p))
        merged = defaultdict(int)
        for symbols, count in vocab.items():
            merged[_merge_word(symbols, pair)] += count
        return [list(pair)] + go(merged, left - 1)

    return go({tuple(w): c for w, c in word_counts.items()}, merges)


def bpe_train_chatty(word_freqs, num_merges):
    """Word lists updated in place (copies of the input), progress prints, a Counter filled in scan order."""
    words = [[key.split(), count] for key, count in word_freqs.items()]
    merges = []
    for round_number in range(1, num_merges + 1):
        counts = Counter()
        for symbols, count in words:
            for pair in zip(symbols, symbols[1:]):
                counts[pair] += count
        if not counts:
            print("nothing left to merge")
            break
        pair = max(counts, key=counts.get)
        print(f"round {round_number}: {pair}")
        merges.append(pair)
        for entry in words:
            entry[0] = list(_merge_word(entry[0], pair))
    return merges


@pytest.mark.parametrize("part", ["basic", "edge"])
def test_trainers_in_other_styles_pass(part):
    checks.check_learn_bpe(learner(), part)
    checks.check_learn_bpe(learn_bpe_recursive, part)
    checks.check_bpe_train(trainer(), part)
    checks.check_bpe_train(bpe_train_chatty, part)


def _joined_smallest(counts):
    return min(counts, key=lambda p: (-counts[p], p[0] + p[1]))


@pytest.mark.parametrize(
    "fn, passed",
    [
        (learner(early_stop=False), ["basic"]),
        (learner(choose=_joined_smallest), ["basic"]),  # joined strings differ from tuples only in later ties
        (learner(choose=lambda c: bpe_ref.best_pair(c, "largest")), []),  # the seed example has a tie in round 1
        (learner(choose=lambda c: bpe_ref.best_pair(c, "first")), []),
        (learner(weighted=False), []),
    ],
    ids=["no-early-stop", "joined-strings", "ties-largest", "ties-first", "unweighted"],
)
def test_learn_bpe_mistakes_fail_the_right_part(fn, passed):
    assert parts_passed(checks.check_learn_bpe, fn, ["basic", "edge"]) == passed


def bpe_train_stale_seen(word_freqs, num_merges):
    """First-seen positions remembered from round one on: a pair seen earlier keeps its old place."""
    vocab = {tuple(k.split()): c for k, c in word_freqs.items()}
    seen = {}
    merges = []
    for _ in range(num_merges):
        counts = {}
        for symbols, count in vocab.items():
            for pair in zip(symbols, symbols[1:]):
                counts[pair] = counts.get(pair, 0) + count
                seen.setdefault(pair, len(seen))
        if not counts:
            break
        top = max(counts.values())
        pair = min((p for p in counts if counts[p] == top), key=seen.__getitem__)
        merges.append(pair)
        vocab = {_merge_word(s, pair): c for s, c in vocab.items()}
    return merges


def bpe_train_stale_counter(word_freqs, num_merges):
    """One Counter for all rounds, updated by subtracting and adding: new pairs go to the end of its order."""
    vocab = {tuple(k.split()): c for k, c in word_freqs.items()}
    counts = Counter()
    for symbols, count in vocab.items():
        for pair in zip(symbols, symbols[1:]):
            counts[pair] += count
    merges = []
    for _ in range(num_merges):
        counts = +counts  # drop pairs whose count went to 0
        if not counts:
            break
        pair = max(counts, key=counts.get)
        merges.append(pair)
        merged = {}
        for symbols, count in vocab.items():
            new = _merge_word(symbols, pair)
            if new != symbols:
                for p in zip(symbols, symbols[1:]):
                    counts[p] -= count
                for p in zip(new, new[1:]):
                    counts[p] += count
            merged[new] = merged.get(new, 0) + count
        vocab = merged
    return merges


@pytest.mark.parametrize(
    "fn, passed",
    [
        (bpe_train_stale_seen, ["basic"]),
        (bpe_train_stale_counter, ["basic"]),
        (trainer(early_stop=False), ["basic"]),
        (trainer(split=lambda key: [ch for ch in key if ch != " "]), []),  # "</w>" falls apart
        (trainer(split=list), []),  # spaces become symbols too
        (trainer(choose=lambda c: bpe_ref.best_pair(c, "largest")), []),  # the tie-break of assignment 02
        (trainer(weighted=False), []),
    ],
    ids=[
        "stale-seen-dict",
        "stale-counter",
        "no-early-stop",
        "marker-split",
        "iterate-key",
        "ties-largest",
        "unweighted",
    ],
)
def test_bpe_train_mistakes_fail_the_right_part(fn, passed):
    assert parts_passed(checks.check_bpe_train, fn, ["basic", "edge"]) == passed


def test_stale_first_seen_fails_with_a_small_input_of_later_ties():
    with pytest.raises(CheckFailed) as info:
        checks.check_bpe_train(bpe_train_stale_seen, "edge")
    lines = str(info.value).splitlines()
    assert len(lines) == 3 and lines[0].startswith("bpe_train({")
    assert bpe_train_stale_seen({"a b b </w>": 4}, 2) != bpe_ref.bpe_train({"a b b </w>": 4}, 2)


def test_ordinary_corpora_have_no_late_ties_and_enough_pairs():
    for tie_break, marker in [("smallest", False), ("first", True)]:
        cases = checks._ordinary_corpora(1, tie_break, marker=marker, count=40)
        assert len(cases) == 40 and len({repr(c.args) for c in cases}) > 30
        assert max(c.args[1] for c in cases) >= 3
        for case in cases:
            words, merges = case.args
            rounds = bpe_ref.train_trace(words, merges, tie_break, marker=marker)
            assert len(rounds) == merges and not any(r.tied for r in rounds[1:])


@pytest.mark.parametrize("fixed, tie_break, marker", [("LEARN_BPE_FIXED", "smallest", False)])
def test_basic_fixed_cases_never_run_out_of_pairs(fixed, tie_break, marker):
    for case in getattr(checks, fixed)["basic"]:
        words, merges = case.args
        assert len(bpe_ref.train_trace(words, merges, tie_break, marker=marker)) == merges, case.args


def test_wrong_tie_direction_fails_best_pair():
    def smallest_instead(pair_counts, tie_break):
        return min(pair_counts, key=lambda p: (-pair_counts[p], p))

    checks.check_best_pair(smallest_instead, "smallest")
    with pytest.raises(CheckFailed, match="best_pair"):
        checks.check_best_pair(smallest_instead, "largest")


def test_joined_string_comparison_fails_best_pair():
    def joined(pair_counts, tie_break):
        return max(pair_counts, key=lambda p: (pair_counts[p], p[0] + p[1]))

    with pytest.raises(CheckFailed):
        checks.check_best_pair(joined, "largest")

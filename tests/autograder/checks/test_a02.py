"""The checks of 02_training_loop: correct code in any style passes; each typical mistake fails the part it should."""

import re
from collections import Counter, defaultdict

import pytest

import bpe_ref
from autograder.checks import CheckFailed
from autograder.checks import a02 as checks

END = "</w>"

# ---------------------------------------------------------------------------------------------------------------
# correct code in other styles
# ---------------------------------------------------------------------------------------------------------------


def count_pairs_counter(vocab):
    counts = Counter()
    for word, freq in vocab.items():
        for pair in zip(word, word[1:]):
            counts[pair] += freq
    return counts


def count_pairs_defaultdict(vocab):
    counts = defaultdict(int)
    for word in vocab:
        for i in range(len(word) - 1):
            counts[word[i], word[i + 1]] += vocab[word]
    return counts


def merge_word_recursive(word, pair):
    if len(word) < 2:
        return tuple(word)
    if (word[0], word[1]) == tuple(pair):
        return (word[0] + word[1], *merge_word_recursive(word[2:], pair))
    return (word[0], *merge_word_recursive(word[1:], pair))


def merge_vocab_recursive(pair, vocab):
    out = defaultdict(int)
    for word, freq in vocab.items():
        out[merge_word_recursive(word, pair)] += freq
    return dict(out)


def merge_vocab_regex(pair, vocab):
    """Sennrich et al.'s regex, guarded so that the bigram matches whole symbols only, and adding counts."""
    bigram = re.compile(r"(?<!\S)" + re.escape(" ".join(pair)) + r"(?!\S)")
    out = {}
    for word, freq in vocab.items():
        merged = tuple(bigram.sub("".join(pair), " ".join(word)).split(" "))
        out[merged] = out.get(merged, 0) + freq
    return out


def train_bpe_chatty(word_freqs, num_merges):
    """A while loop with a Counter, progress prints, and merges returned as lists: still right."""
    vocab = {bpe_ref.get_word_symbols(w): c for w, c in word_freqs.items()}
    merges = []
    while len(merges) < num_merges:
        counts = count_pairs_counter(vocab)
        if not counts:
            print("no pair left after", len(merges), "merges")
            break
        best = max(counts, key=lambda p: (counts[p], p))
        print("round", len(merges) + 1, "merges", best, counts[best])
        merges.append(list(best))
        vocab = merge_vocab_recursive(best, vocab)
    return merges


def train_bpe_sorted(word_freqs, num_merges):
    """Picks the best pair by sorting (count, pair) descending: the same as max with the largest tie-break."""
    vocab = {tuple(w) + (END,): c for w, c in word_freqs.items()}
    merges = []
    for _ in range(num_merges):
        counts = count_pairs_defaultdict(vocab)
        if len(counts) == 0:
            return merges
        best = sorted(counts, key=lambda p: (counts[p], p), reverse=True)[0]
        merges.append(best)
        vocab = merge_vocab_regex(best, vocab)
    return merges


@pytest.mark.parametrize("fn", [count_pairs_counter, count_pairs_defaultdict])
@pytest.mark.parametrize("part", ["basic", "weighted"])
def test_count_pairs_in_other_styles_pass(fn, part):
    checks.check_count_pairs(fn, part)


@pytest.mark.parametrize("fn", [merge_vocab_recursive, merge_vocab_regex])
@pytest.mark.parametrize("part", ["basic", "edge"])
def test_merge_vocab_in_other_styles_pass(fn, part):
    checks.check_merge_vocab(fn, part)


@pytest.mark.parametrize("fn", [train_bpe_chatty, train_bpe_sorted])
@pytest.mark.parametrize("part", ["basic", "edge"])
def test_train_bpe_in_other_styles_pass(fn, part, capfd):
    checks.check_train_bpe(fn, part)
    out, err = capfd.readouterr()
    assert out == err == ""  # the learner's prints are swallowed


# ---------------------------------------------------------------------------------------------------------------
# typical mistakes: each fails the part it should, and only that part
# ---------------------------------------------------------------------------------------------------------------


def count_pairs_unweighted(vocab):
    counts = {}
    for word in vocab:
        for pair in zip(word, word[1:]):
            counts[pair] = counts.get(pair, 0) + 1
    return counts


def count_pairs_set(vocab):
    """Counts each distinct pair once per word (a set): overlaps and repeats are lost."""
    counts = {}
    for word, freq in vocab.items():
        for pair in set(zip(word, word[1:])):
            counts[pair] = counts.get(pair, 0) + freq
    return counts


def merge_vocab_str_replace(pair, vocab):
    out = {}
    for word, freq in vocab.items():
        merged = tuple(" ".join(word).replace(" ".join(pair), "".join(pair)).split(" "))
        out[merged] = out.get(merged, 0) + freq
    return out


def merge_vocab_overwrites(pair, vocab):
    out = {}
    for word, freq in vocab.items():
        out[tuple(bpe_ref.merge(word, pair, pair[0] + pair[1]))] = freq
    return out


def merge_vocab_in_place(pair, vocab):
    for word in list(vocab):
        merged = tuple(bpe_ref.merge(word, pair, pair[0] + pair[1]))
        if merged != word:
            vocab[merged] = vocab.get(merged, 0) + vocab.pop(word)
    return vocab


def trainer(count=bpe_ref.count_pairs, merge=bpe_ref.merge_vocab, pick="largest", stop=True, symbols=None):
    """A train_bpe built from parts, one of which may be a typical mistake."""
    symbols = symbols or bpe_ref.get_word_symbols

    def train_bpe(word_freqs, num_merges):
        vocab = {symbols(w): c for w, c in word_freqs.items()}
        merges = []
        for _ in range(num_merges):
            counts = count(vocab)
            if stop and not counts:
                break
            if pick == "largest":
                best = max(counts, key=lambda p: (counts[p], p))
            elif pick == "smallest":
                best = min(counts, key=lambda p: (-counts[p], p))
            else:  # "first": the pair seen first, as in assignment 01's demo
                best = max(counts, key=counts.get)
            merges.append(best)
            vocab = merge(best, vocab)
        return merges

    return train_bpe


def _fails(check, fn, part):
    with pytest.raises(CheckFailed) as info:
        check(fn, part)
    lines = str(info.value).splitlines()
    assert len(lines) == 3, lines
    return lines


def test_unweighted_counts_pass_basic_and_fail_weighted():
    checks.check_count_pairs(count_pairs_unweighted, "basic")
    lines = _fails(checks.check_count_pairs, count_pairs_unweighted, "weighted")
    assert lines[0].startswith("count_pairs({")


def test_counting_each_pair_once_per_word_fails_weighted_only():
    checks.check_count_pairs(count_pairs_set, "basic")
    _fails(checks.check_count_pairs, count_pairs_set, "weighted")


def test_str_replace_on_the_joined_word_passes_basic_and_fails_edge_on_multi_letter_symbols():
    checks.check_merge_vocab(merge_vocab_str_replace, "basic")  # single letters: the replace happens to work
    lines = _fails(checks.check_merge_vocab, merge_vocab_str_replace, "edge")
    assert lines[0] == "merge_vocab(('a', 'b'), {('ca', 'b', '</w>'): 1})", lines[0]  # a symbol ending in "a"


def test_overwriting_counts_of_words_that_become_equal_fails_edge_only():
    checks.check_merge_vocab(merge_vocab_overwrites, "basic")
    lines = _fails(checks.check_merge_vocab, merge_vocab_overwrites, "edge")
    assert lines[0] == "merge_vocab(('a', 'b'), {('a', 'b', '</w>'): 2, ('ab', '</w>'): 3})"
    assert lines[1] == "  expected: {('ab', '</w>'): 5}"


@pytest.mark.parametrize("part", ["basic", "edge"])
def test_merge_vocab_that_changes_its_input_fails_every_part(part):
    with pytest.raises(CheckFailed, match="changed argument 2"):
        checks.check_merge_vocab(merge_vocab_in_place, part)


@pytest.mark.parametrize("pick", ["smallest", "first"])
def test_wrong_tie_break_passes_basic_and_fails_edge(pick):
    checks.check_train_bpe(trainer(pick=pick), "basic")  # no tie at the top in any round there
    lines = _fails(checks.check_train_bpe, trainer(pick=pick), "edge")
    assert lines[0].startswith("train_bpe({")


def test_no_early_stop_passes_basic_and_fails_edge():
    checks.check_train_bpe(trainer(stop=False), "basic")  # the pairs never run out there
    lines = _fails(checks.check_train_bpe, trainer(stop=False), "edge")
    assert lines[2].startswith("  raised: ValueError")


def test_appending_none_when_no_pair_is_left_fails_edge():
    def train_bpe(word_freqs, num_merges):
        vocab = {bpe_ref.get_word_symbols(w): c for w, c in word_freqs.items()}
        merges = []
        for _ in range(num_merges):
            counts = bpe_ref.count_pairs(vocab)
            best = max(counts, key=lambda p: (counts[p], p), default=None)
            merges.append(best)
            if best is not None:
                vocab = bpe_ref.merge_vocab(best, vocab)
        return merges

    checks.check_train_bpe(train_bpe, "basic")
    lines = _fails(checks.check_train_bpe, train_bpe, "edge")
    assert "None" in lines[2]


@pytest.mark.parametrize("part", ["basic", "edge"])
def test_marker_split_into_characters_fails_every_part(part):
    lines = _fails(checks.check_train_bpe, trainer(symbols=lambda w: tuple(w + END)), part)
    assert "'>'" in lines[2] or "'<'" in lines[2] or "'/'" in lines[2], lines[2]


@pytest.mark.parametrize("part", ["basic", "edge"])
def test_trainer_with_unweighted_counts_fails_every_part(part):
    _fails(checks.check_train_bpe, trainer(count=count_pairs_unweighted), part)


def test_trainer_with_a_str_replace_merge_passes_basic_and_fails_edge():
    checks.check_train_bpe(trainer(merge=merge_vocab_str_replace), "basic")
    _fails(checks.check_train_bpe, trainer(merge=merge_vocab_str_replace), "edge")


def test_trainer_with_an_overwriting_merge_passes_both_parts():
    # Training starts from distinct words, and a merge keeps a word's letters: two words never become equal.
    checks.check_train_bpe(trainer(merge=merge_vocab_overwrites), "basic")
    checks.check_train_bpe(trainer(merge=merge_vocab_overwrites), "edge")


def test_a_smallest_pair_trainer_fails_edge_on_its_smallest_tie():
    lines = _fails(checks.check_train_bpe, trainer(pick="smallest"), "edge")
    assert lines[0] == "train_bpe({'ab': 1}, 2)"
    assert lines[1] == "  expected: [('b', '</w>'), ('a', 'b</w>')]"


def test_basic_trainer_cases_have_no_tie_and_never_run_out_of_pairs():
    cases = checks._untied_corpora(checks.gen.SEED + 30, 120)
    assert len(cases) == 120 and max(c.args[1] for c in cases) >= 4
    for case in [*cases, *checks.TRAIN_BPE_FIXED["basic"]]:  # the fixed cases too
        words, merges = case.args
        rounds = bpe_ref.train_trace(words, merges)
        assert len(rounds) == merges and not any(r.tied for r in rounds)


def train_bpe_lists(word_freqs, num_merges):
    """Returns lists instead of tuples and uses a Counter: still correct."""
    vocab = {tuple(w) + ("</w>",): c for w, c in word_freqs.items()}
    merges = []
    for _ in range(num_merges):
        counts = Counter()
        for word, c in vocab.items():
            for p in zip(word, word[1:]):
                counts[p] += c
        if not counts:
            break
        best = max(counts, key=lambda p: (counts[p], p))
        merges.append(list(best))
        vocab = bpe_ref.merge_vocab(best, vocab)
    return merges


def test_trainer_returning_lists_of_lists_passes():
    checks.check_train_bpe(train_bpe_lists, "basic")
    checks.check_train_bpe(train_bpe_lists, "edge")

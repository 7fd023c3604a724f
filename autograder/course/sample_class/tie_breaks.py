"""Sample submissions of assignment 03 (``best_pair``, ``learn_bpe``, ``bpe_train``), one per typical student."""

ASSIGNMENT = "03_tie_breaks"

_BEST_PAIR = """
def best_pair(pair_counts, tie_break):
    if tie_break == "largest":
        return max(pair_counts, key=lambda p: (pair_counts[p], p))
    if tie_break == "smallest":
        return min(pair_counts, key=lambda p: (-pair_counts[p], p))
    if tie_break == "first":
        return max(pair_counts, key=pair_counts.get)
    raise ValueError(tie_break)
"""

# One loop for both trainers, written once in the learn_bpe cell and reused by bpe_train.
_LEARN_BPE = """
from collections import Counter


def train_loop(vocab, num_merges, tie_break):
    merges = []
    for _ in range(num_merges):
        counts = Counter()
        for word, freq in vocab.items():
            for pair in zip(word, word[1:]):
                counts[pair] += freq
        if not counts:
            break
        pair = best_pair(counts, tie_break)
        merges.append(pair)
        new_vocab = Counter()
        for word, freq in vocab.items():
            out = []
            i = 0
            while i < len(word):
                if word[i:i + 2] == pair:
                    out.append(pair[0] + pair[1])
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            new_vocab[tuple(out)] += freq
        vocab = new_vocab
    return merges


def learn_bpe(word_counts, merges):
    return train_loop({tuple(w): c for w, c in word_counts.items()}, merges, "smallest")
"""

_BPE_TRAIN = """
def bpe_train(word_freqs, num_merges):
    return train_loop({tuple(k.split()): c for k, c in word_freqs.items()}, num_merges, "first")
"""

# A trainer written out in full, for students whose learn_bpe cell has no reusable loop.
_BPE_TRAIN_FULL = """
from collections import Counter


def bpe_train(word_freqs, num_merges):
    vocab = {tuple(key.split()): freq for key, freq in word_freqs.items()}
    merges = []
    for _ in range(num_merges):
        pairs = Counter()
        for symbols, freq in vocab.items():
            for a, b in zip(symbols, symbols[1:]):
                pairs[a, b] += freq
        if not pairs:
            break
        best = max(pairs, key=pairs.get)
        merges.append(best)
        merged = {}
        for symbols, freq in vocab.items():
            out, i = [], 0
            while i < len(symbols):
                if i < len(symbols) - 1 and (symbols[i], symbols[i + 1]) == best:
                    out.append(symbols[i] + symbols[i + 1])
                    i += 2
                else:
                    out.append(symbols[i])
                    i += 1
            merged[tuple(out)] = merged.get(tuple(out), 0) + freq
        vocab = merged
    return merges
"""

STUDENTS: dict[str, dict[str, str]] = {
    # max/min with tuple keys; one Counter-based loop shared by both trainers.
    "correct-builtins": {"best_pair": _BEST_PAIR, "learn_bpe": _LEARN_BPE, "bpe_train": _BPE_TRAIN},
    # Explicit loops everywhere, lists instead of tuples, sorting in learn_bpe, progress prints.
    "correct-loops": {
        "best_pair": """
def best_pair(pair_counts, tie_break):
    best = None
    for pair, count in pair_counts.items():
        if best is None:
            best = pair
        elif count > pair_counts[best]:
            best = pair
        elif count == pair_counts[best]:
            if tie_break == "largest" and pair > best:
                best = pair
            elif tie_break == "smallest" and pair < best:
                best = pair
            # "first": keep the one we already have
    return best
""",
        "learn_bpe": """
def learn_bpe(word_counts, merges):
    words = [[list(word), count] for word, count in word_counts.items()]
    rules = []
    while len(rules) < merges:
        counts = {}
        for symbols, count in words:
            for i in range(len(symbols) - 1):
                pair = (symbols[i], symbols[i + 1])
                counts[pair] = counts.get(pair, 0) + count
        if len(counts) == 0:
            print("no pairs left after", len(rules), "merges")
            break
        ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        a, b = ranked[0][0]
        rules.append([a, b])
        print("round", len(rules), "merge", a, b, "count", ranked[0][1])
        for entry in words:
            symbols = entry[0]
            new = []
            i = 0
            while i < len(symbols):
                if i + 1 < len(symbols) and symbols[i] == a and symbols[i + 1] == b:
                    new.append(a + b)
                    i += 2
                else:
                    new.append(symbols[i])
                    i += 1
            entry[0] = new
    return rules
""",
        "bpe_train": """
def bpe_train(word_freqs, num_merges):
    words = [[key.split(), freq] for key, freq in word_freqs.items()]
    merges = []
    for round_number in range(num_merges):
        counts = {}
        for symbols, freq in words:
            for i in range(len(symbols) - 1):
                pair = (symbols[i], symbols[i + 1])
                counts[pair] = counts.get(pair, 0) + freq
        if not counts:
            break
        pair = best_pair(counts, "first")
        merges.append(pair)
        print("round", round_number + 1, pair, counts[pair])
        for entry in words:
            symbols, new, i = entry[0], [], 0
            while i < len(symbols):
                if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
                    new.append(symbols[i] + symbols[i + 1])
                    i += 2
                else:
                    new.append(symbols[i])
                    i += 1
            entry[0] = new
    return merges
""",
    },
    # Opened the notebook and handed it in untouched.
    "blank": {},
    # Did the first exercise only.
    "half-done": {"best_pair": _BEST_PAIR},
    # Thought "largest" meant min of (-count, pair) and "smallest" max of (count, pair); learn_bpe inherits it.
    "tie-direction-swapped": {
        "best_pair": """
def best_pair(pair_counts, tie_break):
    if tie_break == "largest":
        return min(pair_counts, key=lambda p: (-pair_counts[p], p))
    elif tie_break == "smallest":
        return max(pair_counts, key=lambda p: (pair_counts[p], p))
    else:
        return max(pair_counts, key=pair_counts.get)
""",
        "learn_bpe": _LEARN_BPE,
        "bpe_train": _BPE_TRAIN,
    },
    # Compares the joined strings a + b instead of the tuples; learn_bpe inherits it (it shows only in later ties).
    "joined-strings": {
        "best_pair": """
def best_pair(pair_counts, tie_break):
    if tie_break == "first":
        return max(pair_counts, key=pair_counts.get)
    top = max(pair_counts.values())
    tied = [p for p in pair_counts if pair_counts[p] == top]
    if tie_break == "largest":
        return max(tied, key=lambda p: p[0] + p[1])
    return min(tied, key=lambda p: p[0] + p[1])
""",
        "learn_bpe": _LEARN_BPE,
        "bpe_train": _BPE_TRAIN,
    },
    # Remembers the order in which pairs were first seen from round one on, instead of this round's scan.
    "stale-first-seen": {
        "best_pair": _BEST_PAIR,
        "learn_bpe": _LEARN_BPE,
        "bpe_train": """
def bpe_train(word_freqs, num_merges):
    vocab = {tuple(key.split()): freq for key, freq in word_freqs.items()}
    first_seen = {}  # pair -> when we saw it first
    merges = []
    for _ in range(num_merges):
        counts = {}
        for symbols, freq in vocab.items():
            for pair in zip(symbols, symbols[1:]):
                counts[pair] = counts.get(pair, 0) + freq
                if pair not in first_seen:
                    first_seen[pair] = len(first_seen)
        if not counts:
            break
        top = max(counts.values())
        best = min([p for p in counts if counts[p] == top], key=lambda p: first_seen[p])
        merges.append(best)
        new_vocab = {}
        for symbols, freq in vocab.items():
            out, i = [], 0
            while i < len(symbols):
                if tuple(symbols[i:i + 2]) == best:
                    out.append(best[0] + best[1])
                    i += 2
                else:
                    out.append(symbols[i])
                    i += 1
            new_vocab[tuple(out)] = new_vocab.get(tuple(out), 0) + freq
        vocab = new_vocab
    return merges
""",
    },
    # Counts each pair once per distinct word: the word counts are never used.
    "forgot-word-counts": {
        "best_pair": _BEST_PAIR,
        "learn_bpe": """
def learn_bpe(word_counts, merges):
    words = [tuple(w) for w in word_counts]
    rules = []
    for _ in range(merges):
        counts = {}
        for symbols in words:
            for pair in zip(symbols, symbols[1:]):
                counts[pair] = counts.get(pair, 0) + 1
        if not counts:
            break
        pair = best_pair(counts, "smallest")
        rules.append(pair)
        new_words = []
        for symbols in words:
            out, i = [], 0
            while i < len(symbols):
                if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
                    out.append(symbols[i] + symbols[i + 1])
                    i += 2
                else:
                    out.append(symbols[i])
                    i += 1
            new_words.append(tuple(out))
        words = new_words
    return rules
""",
        "bpe_train": _BPE_TRAIN_FULL,
    },
    # Always runs all the rounds: best_pair (max/min) fails on the empty counts once the corpus runs out of pairs.
    "no-early-stop": {
        "best_pair": _BEST_PAIR,
        "learn_bpe": """
def merge_word(symbols, pair):
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


def count_all(vocab):
    counts = {}
    for symbols, freq in vocab.items():
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = counts.get(pair, 0) + freq
    return counts


def learn_bpe(word_counts, merges):
    vocab = {tuple(word): freq for word, freq in word_counts.items()}
    rules = []
    for _ in range(merges):
        pair = best_pair(count_all(vocab), "smallest")
        rules.append(pair)
        vocab = {merge_word(symbols, pair): freq for symbols, freq in vocab.items()}
    return rules
""",
        "bpe_train": """
def bpe_train(word_freqs, num_merges):
    vocab = {tuple(key.split()): freq for key, freq in word_freqs.items()}
    merges = []
    for _ in range(num_merges):
        pair = best_pair(count_all(vocab), "first")
        merges.append(pair)
        vocab = {merge_word(symbols, pair): freq for symbols, freq in vocab.items()}
    return merges
""",
    },
    # Walks over the key string character by character: "</w>" falls apart into "<", "/", "w", ">".
    "marker-split-to-chars": {
        "best_pair": _BEST_PAIR,
        "learn_bpe": _LEARN_BPE,
        "bpe_train": """
def bpe_train(word_freqs, num_merges):
    vocab = {}
    for key, freq in word_freqs.items():
        symbols = tuple(ch for ch in key if ch != " ")
        vocab[symbols] = freq
    return train_loop(vocab, num_merges, "first")
""",
    },
}

EXPECTED: dict[str, dict[str, int]] = {
    "blank": {"best_pair": 0, "learn_bpe": 0, "bpe_train": 0},
    "correct-builtins": {"best_pair": 6, "learn_bpe": 4, "bpe_train": 4},
    "correct-loops": {"best_pair": 6, "learn_bpe": 4, "bpe_train": 4},
    "forgot-word-counts": {"best_pair": 6, "learn_bpe": 0, "bpe_train": 4},
    "half-done": {"best_pair": 6, "learn_bpe": 0, "bpe_train": 0},
    "joined-strings": {"best_pair": 2, "learn_bpe": 2, "bpe_train": 4},
    "marker-split-to-chars": {"best_pair": 6, "learn_bpe": 4, "bpe_train": 0},
    "no-early-stop": {"best_pair": 6, "learn_bpe": 2, "bpe_train": 2},
    "stale-first-seen": {"best_pair": 6, "learn_bpe": 4, "bpe_train": 2},
    "tie-direction-swapped": {"best_pair": 2, "learn_bpe": 0, "bpe_train": 4},
}

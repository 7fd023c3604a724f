"""Sample submissions of assignment 02 (``count_pairs``, ``merge_vocab``, ``train_bpe``), one per typical student."""

ASSIGNMENT = "02_training_loop"

_COUNT_LOOP = """
def count_pairs(vocab):
    counts = {}
    for symbols, count in vocab.items():
        for i in range(len(symbols) - 1):
            pair = (symbols[i], symbols[i + 1])
            if pair in counts:
                counts[pair] += count
            else:
                counts[pair] = count
    return counts
"""

_MERGE_LOOP = """
def merge_vocab(pair, vocab):
    new_vocab = {}
    for symbols, count in vocab.items():
        new_symbols = []
        i = 0
        while i < len(symbols):
            if i < len(symbols) - 1 and (symbols[i], symbols[i + 1]) == pair:
                new_symbols.append(symbols[i] + symbols[i + 1])
                i += 2
            else:
                new_symbols.append(symbols[i])
                i += 1
        new_symbols = tuple(new_symbols)
        new_vocab[new_symbols] = new_vocab.get(new_symbols, 0) + count
    return new_vocab
"""

_TRAIN_LOOP = """
def train_bpe(word_freqs, num_merges):
    vocab = {get_word_symbols(word): count for word, count in word_freqs.items()}
    merges = []
    for step in range(num_merges):
        counts = count_pairs(vocab)
        if not counts:
            print(f"no pairs left after {step} merges")
            break
        best = max(counts, key=lambda p: (counts[p], p))
        print(f"merge {step + 1}: {best} ({counts[best]} times)")  # progress output is allowed
        merges.append(best)
        vocab = merge_vocab(best, vocab)
    return merges
"""

STUDENTS: dict[str, dict[str, str]] = {
    # Index loops and a while loop, as the hints go; prints each merge while training.
    "correct-loops": {"count_pairs": _COUNT_LOOP, "merge_vocab": _MERGE_LOOP, "train_bpe": _TRAIN_LOOP},
    # Library style: a Counter, a defaultdict, a recursive helper for one word, a while loop that returns early.
    "correct-counter": {
        "count_pairs": """
from collections import Counter

def count_pairs(vocab):
    counts = Counter()
    for word, freq in vocab.items():
        for pair in zip(word, word[1:]):
            counts[pair] += freq
    return counts
""",
        "merge_vocab": """
from collections import defaultdict

def merge_word(word, pair):
    if len(word) < 2:
        return word
    if word[:2] == pair:
        return (word[0] + word[1],) + merge_word(word[2:], pair)
    return word[:1] + merge_word(word[1:], pair)

def merge_vocab(pair, vocab):
    merged = defaultdict(int)
    for word, freq in vocab.items():
        merged[merge_word(word, tuple(pair))] += freq
    return dict(merged)
""",
        "train_bpe": """
def train_bpe(word_freqs, num_merges):
    vocab = {}
    for word, freq in word_freqs.items():
        vocab[get_word_symbols(word)] = freq
    merges = []
    while len(merges) < num_merges:
        counts = count_pairs(vocab)
        if len(counts) == 0:
            return merges
        best, _ = max(counts.items(), key=lambda item: (item[1], item[0]))
        merges.append(best)
        vocab = merge_vocab(best, vocab)
    return merges
""",
    },
    # Opened the notebook and handed it in untouched.
    "blank": {},
    # Did the first two exercises only.
    "half-done": {"count_pairs": _COUNT_LOOP, "merge_vocab": _MERGE_LOOP},
    # Adds 1 per pair instead of the word's count; the trainer built on it picks the wrong pairs.
    "counts-unweighted": {
        "count_pairs": """
def count_pairs(vocab):
    counts = {}
    for word in vocab:
        for pair in zip(word, word[1:]):
            counts[pair] = counts.get(pair, 0) + 1
    return counts
""",
        "merge_vocab": _MERGE_LOOP,
        "train_bpe": _TRAIN_LOOP,
    },
    # Joins the word with spaces and calls str.replace: "ca b" contains "a b", so symbols that end or start with a
    # symbol of the pair are merged too. Right on single letters, wrong once training has made longer symbols.
    "merge-with-str-replace": {
        "count_pairs": _COUNT_LOOP,
        "merge_vocab": """
def merge_vocab(pair, vocab):
    new_vocab = {}
    bigram = " ".join(pair)
    for word, count in vocab.items():
        new_word = " ".join(word).replace(bigram, pair[0] + pair[1])
        key = tuple(new_word.split(" "))
        new_vocab[key] = new_vocab.get(key, 0) + count
    return new_vocab
""",
        "train_bpe": _TRAIN_LOOP,
    },
    # Merges right, but writes each word's count instead of adding it: two words that become one keep one count.
    "merge-overwrites-counts": {
        "count_pairs": _COUNT_LOOP,
        "merge_vocab": """
def merge_vocab(pair, vocab):
    a, b = pair
    new_vocab = {}
    for word, count in vocab.items():
        out = []
        i = 0
        while i < len(word):
            if i + 1 < len(word) and word[i] == a and word[i + 1] == b:
                out.append(a + b)
                i += 2
            else:
                out.append(word[i])
                i += 1
        new_vocab[tuple(out)] = count
    return new_vocab
""",
        "train_bpe": _TRAIN_LOOP,
    },
    # Sorts by count, highest first, then by pair in increasing order: ties go to the smallest pair.
    "ties-smallest": {
        "count_pairs": _COUNT_LOOP,
        "merge_vocab": _MERGE_LOOP,
        "train_bpe": """
def train_bpe(word_freqs, num_merges):
    vocab = {get_word_symbols(w): c for w, c in word_freqs.items()}
    merges = []
    for _ in range(num_merges):
        counts = count_pairs(vocab)
        if not counts:
            break
        ranking = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        best = ranking[0][0]
        merges.append(best)
        vocab = merge_vocab(best, vocab)
    return merges
""",
    },
    # Builds the words itself with tuple(word + "</w>"): the marker becomes four symbols "<", "/", "w", ">".
    "marker-as-characters": {
        "count_pairs": _COUNT_LOOP,
        "merge_vocab": _MERGE_LOOP,
        "train_bpe": """
def train_bpe(word_freqs, num_merges):
    vocab = {}
    for word, count in word_freqs.items():
        vocab[tuple(word + "</w>")] = count
    merges = []
    for _ in range(num_merges):
        counts = count_pairs(vocab)
        if not counts:
            break
        best = max(counts, key=lambda p: (counts[p], p))
        merges.append(best)
        vocab = merge_vocab(best, vocab)
    return merges
""",
    },
    # Never checks for an empty count: max() of nothing raises once every word is one symbol.
    "no-early-stop": {
        "count_pairs": _COUNT_LOOP,
        "merge_vocab": _MERGE_LOOP,
        "train_bpe": """
def train_bpe(word_freqs, num_merges):
    vocab = {get_word_symbols(word): freq for word, freq in word_freqs.items()}
    merges = []
    for _ in range(num_merges):
        pair_counts = count_pairs(vocab)
        best = max(pair_counts, key=lambda p: (pair_counts[p], p))
        merges.append(best)
        vocab = merge_vocab(best, vocab)
    return merges
""",
    },
}

EXPECTED: dict[str, dict[str, int]] = {
    "blank": {"count_pairs": 0, "merge_vocab": 0, "train_bpe": 0},
    "correct-counter": {"count_pairs": 4, "merge_vocab": 4, "train_bpe": 4},
    "correct-loops": {"count_pairs": 4, "merge_vocab": 4, "train_bpe": 4},
    "counts-unweighted": {"count_pairs": 2, "merge_vocab": 4, "train_bpe": 0},
    "half-done": {"count_pairs": 4, "merge_vocab": 4, "train_bpe": 0},
    "marker-as-characters": {"count_pairs": 4, "merge_vocab": 4, "train_bpe": 0},
    "merge-overwrites-counts": {"count_pairs": 4, "merge_vocab": 2, "train_bpe": 4},
    "merge-with-str-replace": {"count_pairs": 4, "merge_vocab": 2, "train_bpe": 2},
    "no-early-stop": {"count_pairs": 4, "merge_vocab": 4, "train_bpe": 2},
    "ties-smallest": {"count_pairs": 4, "merge_vocab": 4, "train_bpe": 2},
}

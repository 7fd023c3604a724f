"""Mutants and correct alternatives of 02_training_loop: ``count_pairs``, ``merge_vocab``, ``train_bpe``.

The source notebook's ``train_bpe`` calls the learner's ``count_pairs`` and ``merge_vocab``; its filler here is
self-contained, so that a mutant of those two loses points on its own cells only. Mutants of ``train_bpe``
may call ``count_pairs`` and ``merge_vocab``, as the notebook suggests: the cells above hold correct ones.
"""

from autograder.course import sample_class

ASSIGNMENT = "02_training_loop"
_SAMPLE = sample_class.students()[ASSIGNMENT]  # student code shared with the sample class

FILLERS: dict[str, str] = {
    "train_bpe": """
def train_bpe(word_freqs, num_merges):
    vocab = {get_word_symbols(word): count for word, count in word_freqs.items()}
    merges = []
    for _ in range(num_merges):
        counts = {}
        for symbols, count in vocab.items():
            for pair in zip(symbols, symbols[1:]):
                counts[pair] = counts.get(pair, 0) + count
        if not counts:
            break
        best = max(counts, key=lambda p: (counts[p], p))
        merges.append(best)
        merged = {}
        for symbols, count in vocab.items():
            out, i = [], 0
            while i < len(symbols):
                if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == best:
                    out.append(symbols[i] + symbols[i + 1])
                    i += 2
                else:
                    out.append(symbols[i])
                    i += 1
            merged[tuple(out)] = merged.get(tuple(out), 0) + count
        vocab = merged
    return merges
""",
}

_LOOP = """
def train_bpe(word_freqs, num_merges):
    vocab = {WORD: count for word, count in word_freqs.items()}
    merges = []
    for _ in range(num_merges):
        counts = count_pairs(vocab)
        if not counts:
            break
        best = BEST
        merges.append(best)
        vocab = merge_vocab(best, vocab)
    return merges
"""


def _trainer(word: str = "get_word_symbols(word)", best: str = "max(counts, key=lambda p: (counts[p], p))") -> str:
    return _LOOP.replace("WORD", word).replace("BEST", best)


MUTANTS: dict[str, dict[str, str]] = {
    "count_pairs": {
        # Adds 1 per pair instead of the word's count.
        "unweighted": _SAMPLE["counts-unweighted"]["count_pairs"],
        # Keeps the previous symbol from one word to the next: ("</w>", "n") is counted across words.
        "across-words": """
def count_pairs(vocab):
    counts = {}
    previous = None
    for symbols, count in vocab.items():
        for symbol in symbols:
            if previous is not None:
                pair = (previous, symbol)
                counts[pair] = counts.get(pair, 0) + count
            previous = symbol
    return counts
""",
        # Writes the count instead of adding it: a pair in two words keeps the last word's count.
        "overwrites": """
def count_pairs(vocab):
    counts = {}
    for symbols, count in vocab.items():
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = count
    return counts
""",
        # Skips past a pair of equal symbols: a a a counts ("a", "a") once.
        "no-overlap": """
def count_pairs(vocab):
    counts = {}
    for symbols, count in vocab.items():
        i = 0
        while i < len(symbols) - 1:
            pair = (symbols[i], symbols[i + 1])
            counts[pair] = counts.get(pair, 0) + count
            i += 2 if symbols[i] == symbols[i + 1] else 1
    return counts
""",
    },
    "merge_vocab": {
        # Two words that become equal keep one count instead of their sum.
        "overwrites": _SAMPLE["merge-overwrites-counts"]["merge_vocab"],
        # str.replace on the space-joined word: "ca b" holds "a b".
        "str-replace": _SAMPLE["merge-with-str-replace"]["merge_vocab"],
        # Does not skip past a match: a a a becomes aa aa.
        "no-skip": """
def merge_vocab(pair, vocab):
    new_vocab = {}
    for word, count in vocab.items():
        out = []
        for i in range(len(word)):
            if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
                out.append(word[i] + word[i + 1])
            elif i > 0 and (word[i - 1], word[i]) == pair:
                continue
            else:
                out.append(word[i])
        new_vocab[tuple(out)] = new_vocab.get(tuple(out), 0) + count
    return new_vocab
""",
        # Rewrites the words of the dict it was given.
        "mutates-input": """
def merge_vocab(pair, vocab):
    for word in list(vocab):
        out, i = [], 0
        while i < len(word):
            if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
                out.append(word[i] + word[i + 1])
                i += 2
            else:
                out.append(word[i])
                i += 1
        if tuple(out) != word:
            count = vocab.pop(word)
            vocab[tuple(out)] = vocab.get(tuple(out), 0) + count
    return vocab
""",
    },
    "train_bpe": {
        # Ties to the smallest pair.
        "ties-smallest": _trainer(best="min(counts, key=lambda p: (-counts[p], p))"),
        # Ties to the pair seen first (max keeps the first of equal keys).
        "ties-first": _trainer(best="max(counts, key=counts.get)"),
        # Ties compared as joined strings: ("a", "b</w>") and ("ab", "</w>") are the same string.
        "ties-joined-strings": _trainer(best="max(counts, key=lambda p: (counts[p], p[0] + p[1]))"),
        # tuple(word + "</w>"): the marker falls apart into "<", "/", "w", ">".
        "marker-as-characters": _trainer(word='tuple(word + "</w>")'),
        # The marker glued to the last letter: ("l", "o", "w</w>").
        "marker-glued": _trainer(word='tuple(word[:-1]) + (word[-1] + "</w>",)'),
        # Never checks for an empty count: max() of nothing raises once every word is one symbol.
        "no-early-stop": _SAMPLE["no-early-stop"]["train_bpe"],
        # while len(merges) < num_merges - 1: one merge too few.
        "one-too-few": """
def train_bpe(word_freqs, num_merges):
    vocab = {get_word_symbols(word): freq for word, freq in word_freqs.items()}
    merges = []
    while len(merges) < num_merges - 1:
        counts = count_pairs(vocab)
        if not counts:
            break
        best = max(counts, key=lambda p: (counts[p], p))
        merges.append(best)
        vocab = merge_vocab(best, vocab)
    return merges
""",
    },
}

CORRECT: dict[str, dict[str, str]] = {
    "count_pairs": {
        "counter": _SAMPLE["correct-counter"]["count_pairs"],
        "defaultdict-prints": """
from collections import defaultdict

def count_pairs(vocab):
    counts = defaultdict(int)
    for symbols, count in vocab.items():
        for i in range(len(symbols) - 1):
            counts[symbols[i], symbols[i + 1]] += count
    print(len(counts), "distinct pairs")
    return counts
""",
        "counter-arithmetic": """
from collections import Counter

def count_pairs(vocab):
    total = Counter()
    for word, freq in vocab.items():
        total.update({pair: n * freq for pair, n in Counter(zip(word, word[1:])).items()})
    return total
""",
    },
    "merge_vocab": {
        "recursive-defaultdict": """
from collections import defaultdict

def merge_word_recursive(word, pair):
    if len(word) < 2:
        return word
    if word[:2] == pair:
        return (word[0] + word[1],) + merge_word_recursive(word[2:], pair)
    return word[:1] + merge_word_recursive(word[1:], pair)

def merge_vocab(pair, vocab):
    merged = defaultdict(int)
    for word, freq in vocab.items():
        merged[merge_word_recursive(word, tuple(pair))] += freq
    return dict(merged)
""",
        # Sennrich et al.'s regex on the space-joined word (whole symbols only), with the counts added up.
        "sennrich-regex": """
import re

def merge_vocab(pair, vocab):
    bigram = re.escape(" ".join(pair))
    pattern = re.compile(r"(?<!\\S)" + bigram + r"(?!\\S)")
    out = {}
    for word, count in vocab.items():
        key = tuple(pattern.sub("".join(pair), " ".join(word)).split(" "))
        out[key] = out.get(key, 0) + count
    return out
""",
        "counter-prints": """
from collections import Counter

def merge_vocab(pair, vocab):
    new_vocab = Counter()
    for symbols, count in vocab.items():
        symbols = list(symbols)
        i = 0
        while i < len(symbols) - 1:
            if symbols[i] == pair[0] and symbols[i + 1] == pair[1]:
                symbols[i:i + 2] = [pair[0] + pair[1]]
            i += 1
        new_vocab[tuple(symbols)] += count
    print("merged", pair, "into", len(new_vocab), "words")
    return new_vocab
""",
    },
    "train_bpe": {
        # Incremental pair counts and a max-heap with lazy deletion, as fast trainers do.
        "heap-incremental": """
import heapq
from collections import defaultdict


class LargestFirst:
    # heapq pops the smallest item: this order makes it pop the largest pair first.
    __slots__ = ("pair",)

    def __init__(self, pair):
        self.pair = pair

    def __lt__(self, other):
        return self.pair > other.pair


def train_bpe(word_freqs, num_merges):
    words = [list(get_word_symbols(w)) for w in word_freqs]
    freqs = list(word_freqs.values())
    counts = defaultdict(int)
    where = defaultdict(set)
    for index, symbols in enumerate(words):
        for pair in zip(symbols, symbols[1:]):
            counts[pair] += freqs[index]
            where[pair].add(index)
    heap = [(-c, LargestFirst(p)) for p, c in counts.items()]
    heapq.heapify(heap)
    merges = []
    while len(merges) < num_merges:
        best = None
        while heap:
            negative, key = heapq.heappop(heap)
            if counts.get(key.pair, 0) == -negative > 0:
                best = key.pair
                break
        if best is None:
            break
        merges.append(best)
        changed = set()
        for index in sorted(where.pop(best, ())):
            old = words[index]
            new, i = [], 0
            while i < len(old):
                if i + 1 < len(old) and (old[i], old[i + 1]) == best:
                    new.append(old[i] + old[i + 1])
                    i += 2
                else:
                    new.append(old[i])
                    i += 1
            if new == old:
                continue
            for pair in zip(old, old[1:]):
                counts[pair] -= freqs[index]
                changed.add(pair)
            for pair in zip(new, new[1:]):
                counts[pair] += freqs[index]
                where[pair].add(index)
                changed.add(pair)
            words[index] = new
        for pair in changed:
            if counts[pair] > 0:
                heapq.heappush(heap, (-counts[pair], LargestFirst(pair)))
            else:
                del counts[pair]
    return merges
""",
        "counter-while-prints": """
from collections import Counter


def train_bpe(word_freqs, num_merges):
    vocab = {get_word_symbols(word): freq for word, freq in word_freqs.items()}
    merges = []
    while len(merges) < num_merges:
        counts = Counter()
        for word, freq in vocab.items():
            for pair in zip(word, word[1:]):
                counts[pair] += freq
        if len(counts) == 0:
            print("no pairs left")
            return merges
        best, seen = max(counts.items(), key=lambda item: (item[1], item[0]))
        print(f"merge {len(merges) + 1}: {best} seen {seen} times")
        merges.append(best)
        merged = Counter()
        for word, freq in vocab.items():
            out, i = [], 0
            while i < len(word):
                if word[i:i + 2] == best:
                    out.append(best[0] + best[1])
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            merged[tuple(out)] += freq
        vocab = merged
    return merges
""",
        # Recursion over the rounds; the pairs come back as lists.
        "recursive-lists": """
def train_bpe(word_freqs, num_merges):
    def rounds(vocab, left):
        counts = {}
        for symbols, count in vocab.items():
            for pair in zip(symbols, symbols[1:]):
                counts[pair] = counts.get(pair, 0) + count
        if left == 0 or not counts:
            return []
        a, b = max(counts, key=lambda p: (counts[p], p))
        merged = {}
        for symbols, count in vocab.items():
            out, i = [], 0
            while i < len(symbols):
                if symbols[i:i + 2] == (a, b):
                    out.append(a + b)
                    i += 2
                else:
                    out.append(symbols[i])
                    i += 1
            merged[tuple(out)] = merged.get(tuple(out), 0) + count
        return [[a, b]] + rounds(merged, left - 1)

    return rounds({get_word_symbols(w): c for w, c in word_freqs.items()}, num_merges)
""",
    },
}

# ---------------------------------------------------------------------------------------------------------------
# One mutant per rule the notebook's text states (each sentence of a contract or a convention), so that the fixed
# cases of the checks, which catch every one of them whatever the seed, are seen to cover the whole text.
# ---------------------------------------------------------------------------------------------------------------

MUTANTS["count_pairs"].update(
    {
        # "vocab ... Do not change it." Empties the vocab while counting.
        "mutates-input": """
def count_pairs(vocab):
    counts = {}
    while vocab:
        symbols, count = vocab.popitem()
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = counts.get(pair, 0) + count
    return counts
""",
        # "Returns a new dict that maps every pair (a, b) of neighbouring symbols": joined strings as keys.
        "joined-keys": """
def count_pairs(vocab):
    counts = {}
    for symbols, count in vocab.items():
        for a, b in zip(symbols, symbols[1:]):
            counts[a + b] = counts.get(a + b, 0) + count
    return counts
""",
    }
)

MUTANTS["merge_vocab"].update(
    {
        # "Returns a new dict": the vocab itself when no word holds the pair.
        "no-match-returns-input": """
def merge_vocab(pair, vocab):
    if not any(tuple(pair) in zip(w, w[1:]) for w in vocab):
        return vocab
    out = {}
    for symbols, count in vocab.items():
        merged, i = [], 0
        while i < len(symbols):
            if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == tuple(pair):
                merged.append(symbols[i] + symbols[i + 1])
                i += 2
            else:
                merged.append(symbols[i])
                i += 1
        out[tuple(merged)] = out.get(tuple(merged), 0) + count
    return out
""",
        # "The marker is one symbol ... It takes part in pairs like any other symbol": never merges "</w>".
        "marker-never-merged": """
def merge_vocab(pair, vocab):
    out = {}
    for symbols, count in vocab.items():
        merged, i = [], 0
        while i < len(symbols):
            if (i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == tuple(pair)
                    and "</w>" not in pair):
                merged.append(symbols[i] + symbols[i + 1])
                i += 2
            else:
                merged.append(symbols[i])
                i += 1
        out[tuple(merged)] = out.get(tuple(merged), 0) + count
    return out
""",
        # "Words without the pair are copied as they are": they are left out.
        "drops-untouched-words": """
def merge_vocab(pair, vocab):
    out = {}
    for symbols, count in vocab.items():
        if tuple(pair) not in zip(symbols, symbols[1:]):
            continue
        merged, i = [], 0
        while i < len(symbols):
            if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == tuple(pair):
                merged.append(symbols[i] + symbols[i + 1])
                i += 2
            else:
                merged.append(symbols[i])
                i += 1
        out[tuple(merged)] = out.get(tuple(merged), 0) + count
    return out
""",
    }
)

MUTANTS["train_bpe"].update(
    {
        # "count the pairs of the current vocab (afresh every round)": counts once, before the loop.
        "counts-once": """
def train_bpe(word_freqs, num_merges):
    vocab = {get_word_symbols(word): count for word, count in word_freqs.items()}
    counts = count_pairs(vocab)
    merges = []
    for _ in range(num_merges):
        if not counts:
            break
        best = max(counts, key=lambda p: (counts[p], p))
        merges.append(best)
        del counts[best]
        vocab = merge_vocab(best, vocab)
    return merges
""",
        # "Return the list of merges, in the order they were learned": sorted.
        "sorted-result": _trainer().replace("    return merges\n", "    return sorted(merges)\n"),
        # "word_freqs ... do not change it": removes the words that became one symbol.
        "mutates-input": """
def train_bpe(word_freqs, num_merges):
    for word in list(word_freqs):  # reuses the caller's dict as the vocab
        word_freqs[get_word_symbols(word)] = word_freqs.pop(word)
    vocab = word_freqs
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
        # "Longer is not larger": at equal counts the pair with the longer joined symbol wins.
        "longer-wins": _trainer(best="max(counts, key=lambda p: (counts[p], len(p[0] + p[1]), p))"),
        # "the most frequent pair": the least frequent one.
        "least-frequent": _trainer(best="min(counts, key=lambda p: (counts[p], p))"),
    }
)

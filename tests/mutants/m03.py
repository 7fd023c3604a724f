"""Mutants and correct alternatives of 03_tie_breaks: ``best_pair``, ``learn_bpe``, ``bpe_train``.

The source notebook's trainers call the learner's ``best_pair``; their fillers here are self-contained, so that
a mutant of ``best_pair`` loses points on its own cells only. Mutants of the trainers may call ``best_pair``:
the cell above holds a correct one.
"""

from autograder.course import sample_class

ASSIGNMENT = "03_tie_breaks"
_SAMPLE = sample_class.students()[ASSIGNMENT]  # student code shared with the sample class

_MERGE_ALL = """
def {name}(corpus, pair):
    merged = {{}}
    for symbols, count in corpus.items():
        out, i = [], 0
        while i < len(symbols):
            if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
                out.append(symbols[i] + symbols[i + 1])
                i += 2
            else:
                out.append(symbols[i])
                i += 1
        merged[tuple(out)] = merged.get(tuple(out), 0) + count
    return merged
"""

_TRAINER = """
def {name}({args}):
    corpus = {{}}
    for key, count in {words}.items():
        symbols = {symbols}
        corpus[symbols] = corpus.get(symbols, 0) + count
    rules = []
    for _ in range({rounds}):
        counts = {{}}
        for symbols, count in {scan}:
            for pair in zip(symbols, symbols[1:]):
                counts[pair] = counts.get(pair, 0) + {weight}
        if not counts:
            break
        pair = {best}
        rules.append(pair)
        corpus = {helper}(corpus, pair)
    return rules
"""

_SMALLEST = "min(counts, key=lambda p: (-counts[p], p))"
_FIRST = "max(counts, key=counts.get)"


def _learn(**changes: str) -> str:
    """A ``learn_bpe`` cell (no marker, smallest tie-break) with some of its parts changed."""
    parts = {
        "name": "learn_bpe",
        "args": "word_counts, merges",
        "words": "word_counts",
        "symbols": "tuple(key)",
        "rounds": "merges",
        "scan": "corpus.items()",
        "weight": "count",
        "best": _SMALLEST,
        "helper": "merge_learned",
    }
    parts.update(changes)
    return _MERGE_ALL.format(name=parts["helper"]) + _TRAINER.format(**parts)


def _train(**changes: str) -> str:
    """A ``bpe_train`` cell (pre-split words, first-seen tie-break) with some of its parts changed."""
    parts = {
        "name": "bpe_train",
        "args": "word_freqs, num_merges",
        "words": "word_freqs",
        "symbols": "tuple(key.split())",
        "rounds": "num_merges",
        "scan": "corpus.items()",
        "weight": "count",
        "best": _FIRST,
        "helper": "merge_split",
    }
    parts.update(changes)
    return _MERGE_ALL.format(name=parts["helper"]) + _TRAINER.format(**parts)


FILLERS: dict[str, str] = {"learn_bpe": _learn(), "bpe_train": _train()}

_NO_EARLY_STOP = """
def {name}({args}):
    corpus = {{{symbols}: count for key, count in {words}.items()}}
    rules = []
    for _ in range({rounds}):
        counts = {{}}
        for symbols, count in corpus.items():
            for pair in zip(symbols, symbols[1:]):
                counts[pair] = counts.get(pair, 0) + count
        pair = best_pair(counts, {tie!r})
        rules.append(pair)
        corpus = {helper}(corpus, pair)
    return rules
"""

MUTANTS: dict[str, dict[str, str]] = {
    "best_pair": {
        # "largest" as min of (-count, pair) and "smallest" as max of (count, pair): both directions swapped.
        "directions-swapped": _SAMPLE["tie-direction-swapped"]["best_pair"],
        # Compares the joined strings a + b instead of the tuples.
        "joined-strings": _SAMPLE["joined-strings"]["best_pair"],
        # ">=" in the loop: on a tie the pair seen last wins, for every tie-break.
        "last-seen-wins": """
def best_pair(pair_counts, tie_break):
    best, best_count = None, 0
    for pair, count in pair_counts.items():
        if count > best_count:
            best, best_count = pair, count
        elif count == best_count:
            if tie_break == "largest" and pair > best:
                best = pair
            elif tie_break == "smallest" and pair < best:
                best = pair
            elif tie_break == "first":
                best = pair
    return best
""",
    },
    "learn_bpe": {
        # Asks best_pair for the wrong tie-break.
        "ties-largest": _learn(best='best_pair(counts, "largest")'),
        "ties-first": _learn(best='best_pair(counts, "first")'),
        # Counts each pair once per distinct word: the word counts are never used.
        "unweighted": _learn(weight="1"),
    },
    "bpe_train": {
        # Remembers the order in which pairs were first seen in round one, instead of this round's scan.
        "stale-first-seen": _SAMPLE["stale-first-seen"]["bpe_train"],
        # Walks over the key character by character: "</w>" falls apart into "<", "/", "w", ">".
        "marker-split-to-chars": _train(symbols='tuple(ch for ch in key if ch != " ")'),
        # Glues the marker to the last letter: "h u g </w>" becomes ("h", "u", "g</w>").
        "marker-glued": _train(symbols='tuple(key.replace(" </w>", "</w>").split())'),
        # Asks best_pair for the wrong tie-break: the largest or the smallest pair instead of the first seen.
        "ties-largest": _train(best='best_pair(counts, "largest")'),
        "ties-smallest": _train(best='best_pair(counts, "smallest")'),
        # Runs every round: max() fails on the empty counts once the corpus runs out of pairs.
        "no-early-stop": _MERGE_ALL.format(name="merge_split")
        + _NO_EARLY_STOP.format(
            name="bpe_train",
            args="word_freqs, num_merges",
            symbols="tuple(key.split())",
            words="word_freqs",
            rounds="num_merges",
            tie="first",
            helper="merge_split",
        ),
    },
}

CORRECT: dict[str, dict[str, str]] = {
    "best_pair": {
        # Explicit loop, no max/min.
        "loop": """
def best_pair(pair_counts, tie_break):
    best = None
    for pair, count in pair_counts.items():
        if best is None or count > pair_counts[best]:
            best = pair
        elif count == pair_counts[best]:
            if tie_break == "largest" and pair > best:
                best = pair
            elif tie_break == "smallest" and pair < best:
                best = pair
    return best
""",
        # sorted() is stable, so equal counts keep the dict's order for "first".
        "sorted": """
def best_pair(pair_counts, tie_break):
    items = list(pair_counts.items())
    if tie_break == "largest":
        return sorted(items, key=lambda kv: (kv[1], kv[0]))[-1][0]
    if tie_break == "smallest":
        return sorted(items, key=lambda kv: (-kv[1], kv[0]))[0][0]
    return sorted(items, key=lambda kv: kv[1], reverse=True)[0][0]
""",
        # Counter.most_common and heapq, printing the choice.
        "most-common-heapq": """
import heapq
from collections import Counter


def best_pair(pair_counts, tie_break):
    if tie_break == "first":
        pair = Counter(pair_counts).most_common(1)[0][0]
    elif tie_break == "smallest":
        pair = heapq.nsmallest(1, pair_counts, key=lambda p: (-pair_counts[p], p))[0]
    else:
        pair = heapq.nlargest(1, pair_counts, key=lambda p: (pair_counts[p], p))[0]
    print(tie_break, "->", pair)
    return pair
""",
    },
    "learn_bpe": {
        # Incremental counts and a heap of (-count, pair): the smallest pair of the highest count pops first.
        "heap-incremental": """
import heapq
from collections import defaultdict


def learn_bpe(word_counts, merges):
    words = [list(w) for w in word_counts]
    freqs = list(word_counts.values())
    counts = defaultdict(int)
    for symbols, freq in zip(words, freqs):
        for pair in zip(symbols, symbols[1:]):
            counts[pair] += freq
    heap = [(-c, p) for p, c in counts.items()]
    heapq.heapify(heap)
    rules = []
    while len(rules) < merges:
        while heap and counts.get(heap[0][1], 0) != -heap[0][0]:
            heapq.heappop(heap)  # a stale entry
        if not heap:
            break
        _, best = heapq.heappop(heap)
        rules.append(best)
        changed = set()
        for index, old in enumerate(words):
            new, i = [], 0
            while i < len(old):
                if i + 1 < len(old) and (old[i], old[i + 1]) == best:
                    new.append(old[i] + old[i + 1])
                    i += 2
                else:
                    new.append(old[i])
                    i += 1
            if new != old:
                for pair in zip(old, old[1:]):
                    counts[pair] -= freqs[index]
                    changed.add(pair)
                for pair in zip(new, new[1:]):
                    counts[pair] += freqs[index]
                    changed.add(pair)
                words[index] = new
        for pair in changed:
            if counts[pair] > 0:
                heapq.heappush(heap, (-counts[pair], pair))
            else:
                del counts[pair]
    return rules
""",
        # Lists of symbols changed in place, sorting to rank, lists as rules, progress prints.
        "lists-sorted-prints": _SAMPLE["correct-loops"]["learn_bpe"],
        # Uses the learner's best_pair, a Counter and a recursive merge of one word.
        "counter-best-pair": """
from collections import Counter


def join_pair(symbols, pair):
    if len(symbols) < 2:
        return symbols
    if symbols[:2] == pair:
        return (symbols[0] + symbols[1],) + join_pair(symbols[2:], pair)
    return symbols[:1] + join_pair(symbols[1:], pair)


def learn_bpe(word_counts, merges):
    corpus = Counter({tuple(word): count for word, count in word_counts.items()})
    rules = []
    for _ in range(merges):
        counts = Counter()
        for symbols, count in corpus.items():
            for pair in zip(symbols, symbols[1:]):
                counts[pair] += count
        if not counts:
            break
        pair = tuple(best_pair(counts, "smallest"))
        rules.append(pair)
        merged = Counter()
        for symbols, count in corpus.items():
            merged[join_pair(symbols, pair)] += count
        corpus = merged
    return rules
""",
    },
    "bpe_train": {
        # Seed 002's shape: string keys "h u g </w>", a regex merge on whole symbols, max(pairs, key=pairs.get).
        "sennrich-strings": """
import re
from collections import defaultdict


def get_stats(vocab):
    pairs = defaultdict(int)
    for word, freq in vocab.items():
        symbols = word.split()
        for i in range(len(symbols) - 1):
            pairs[symbols[i], symbols[i + 1]] += freq
    return pairs


def merge_strings(pair, vocab):
    pattern = re.compile(r"(?<!\\S)" + re.escape(" ".join(pair)) + r"(?!\\S)")
    out = {}
    for word, freq in vocab.items():
        new = pattern.sub("".join(pair), word)
        out[new] = out.get(new, 0) + freq
    return out


def bpe_train(word_freqs, num_merges):
    vocab = {}
    for word, freq in word_freqs.items():
        key = " ".join(word.split())
        vocab[key] = vocab.get(key, 0) + freq
    merges = []
    for i in range(num_merges):
        pairs = get_stats(vocab)
        if not pairs:
            break
        best = max(pairs, key=pairs.get)
        print(f"round {i + 1}: {best}")
        merges.append(best)
        vocab = merge_strings(best, vocab)
    return merges
""",
        # Counter.most_common(1): among equal counts, the pair inserted first.
        "most-common": """
from collections import Counter


def bpe_train(word_freqs, num_merges):
    vocab = Counter()
    for key, freq in word_freqs.items():
        vocab[tuple(key.split())] += freq
    merges = []
    while len(merges) < num_merges:
        pairs = Counter()
        for symbols, freq in vocab.items():
            for pair in zip(symbols, symbols[1:]):
                pairs[pair] += freq
        if not pairs:
            break
        (best, _), = pairs.most_common(1)
        merges.append(list(best))
        merged = Counter()
        for symbols, freq in vocab.items():
            out, i = [], 0
            while i < len(symbols):
                if symbols[i:i + 2] == best:
                    out.append(best[0] + best[1])
                    i += 2
                else:
                    out.append(symbols[i])
                    i += 1
            merged[tuple(out)] += freq
        vocab = merged
    return merges
""",
        # Lists of symbols changed in place; uses the learner's best_pair.
        "lists-best-pair": """
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
        pair = tuple(best_pair(counts, "first"))
        merges.append(pair)
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
}

# ---------------------------------------------------------------------------------------------------------------
# One mutant per rule the notebook's text states (each sentence of a contract or a convention), so that the fixed
# cases of the checks, which catch every one of them whatever the seed, are seen to cover the whole text.
# ---------------------------------------------------------------------------------------------------------------

_BEST = """
def best_pair(pair_counts, tie_break):
    if tie_break == "largest":
        return max(pair_counts, key=lambda p: (pair_counts[p], LARGEST))
    if tie_break == "smallest":
        return min(pair_counts, key=lambda p: (-pair_counts[p], SMALLEST))
    return FIRST
"""


def _best(largest: str = "p", smallest: str = "p", first: str = "max(pair_counts, key=pair_counts.get)") -> str:
    return _BEST.replace("LARGEST", largest).replace("SMALLEST", smallest).replace("FIRST", first)


_MARKER_LAST = 'tuple("~" if s == "</w>" else s for s in p)'

MUTANTS["best_pair"].update(
    {
        # "pair_counts ... Do not change it": removes the pair it returns.
        "mutates-input": """
def best_pair(pair_counts, tie_break):
    if tie_break == "largest":
        best = max(pair_counts, key=lambda p: (pair_counts[p], p))
    elif tie_break == "smallest":
        best = min(pair_counts, key=lambda p: (-pair_counts[p], p))
    else:
        best = max(pair_counts, key=pair_counts.get)
    del pair_counts[best]  # "used up"
    return best
""",
        # "the first key among those with the highest count, which is not always the first key of the dict".
        "first-key-of-dict": _best(first="next(iter(pair_counts))"),
        # "Code-point order ... capitals before small letters": compares case-insensitively.
        "ignores-case": _best(largest="(p[0].lower(), p[1].lower()), p", smallest="(p[0].lower(), p[1].lower()), p"),
        # '"</w>" sorts before letters': treats the marker as sorting after every letter.
        "marker-sorts-last": _best(largest=_MARKER_LAST, smallest=_MARKER_LAST),
        # "a pair with the highest count": the count is not looked at for "largest" and "smallest".
        "pair-before-count": """
def best_pair(pair_counts, tie_break):
    if tie_break == "largest":
        return max(pair_counts, key=lambda p: (p, pair_counts[p]))
    if tie_break == "smallest":
        return min(pair_counts, key=lambda p: (p, -pair_counts[p]))
    return max(pair_counts, key=pair_counts.get)
""",
    }
)

MUTANTS["learn_bpe"].update(
    {
        # "No end-of-word marker": starts from the characters and "</w>".
        "with-marker": _learn(symbols='tuple(key) + ("</w>",)'),
        # "Every adjacent pair of every word counts, overlaps included": skips past a pair of equal symbols.
        "no-overlap-counts": _learn().replace(
            "            for pair in zip(symbols, symbols[1:]):\n"
            "                counts[pair] = counts.get(pair, 0) + count",
            "            i = 0\n            while i < len(symbols) - 1:\n"
            "                pair = (symbols[i], symbols[i + 1])\n"
            "                counts[pair] = counts.get(pair, 0) + count\n"
            "                i += 2 if symbols[i] == symbols[i + 1] else 1",
        ),
        # "Pairs never cross from one word into the next": the last symbol of a word pairs with the next word.
        "across-words": _learn().replace(
            "        for symbols, count in corpus.items():\n            for pair in zip(symbols, symbols[1:]):",
            "        previous = ()\n        for symbols, count in corpus.items():\n"
            "            symbols, previous = previous[-1:] + symbols, symbols\n"
            "            for pair in zip(symbols, symbols[1:]):",
        ),
        # "Merge ... skip both positions (so a a a with (a, a) becomes aa a)": does not skip.
        "merge-no-skip": _learn().replace("                i += 2\n", "                i += 1\n"),
        # "Then count again from the merged words": counts once, before the loop.
        "counts-once": """
def learn_bpe(word_counts, merges):
    corpus = {tuple(word): count for word, count in word_counts.items()}
    counts = {}
    for symbols, count in corpus.items():
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = counts.get(pair, 0) + count
    rules = []
    for _ in range(merges):
        if not counts:
            break
        pair = min(counts, key=lambda p: (-counts[p], p))
        rules.append(pair)
        del counts[pair]
    return rules
""",
        # "Stop early when no word has two symbols left": never stops early.
        "no-early-stop": _MERGE_ALL.format(name="merge_learned")
        + _NO_EARLY_STOP.format(
            name="learn_bpe",
            args="word_counts, merges",
            symbols="tuple(key)",
            words="word_counts",
            rounds="merges",
            tie="smallest",
            helper="merge_learned",
        ),
        # "word_counts ... Do not change it": deletes the words that became one symbol.
        "mutates-input": _learn().replace(
            "        corpus = merge_learned(corpus, pair)\n",
            "        corpus = merge_learned(corpus, pair)\n"
            "        for word in list(word_counts):\n"
            "            if (word,) in corpus:\n"
            "                del word_counts[word]\n",
        ),
    }
)

MUTANTS["bpe_train"].update(
    {
        # "Counts ... as in learn_bpe" (weighted by the word's count): every word counts once.
        "unweighted": _train(weight="1"),
        # "Merge ... skip both positions" (as in learn_bpe): does not skip.
        "merge-no-skip": _train().replace("                i += 2\n", "                i += 1\n"),
        # "word_freqs ... Do not change it": deletes the words that became one symbol.
        "mutates-input": _train().replace(
            "        corpus = merge_split(corpus, pair)\n",
            "        corpus = merge_split(corpus, pair)\n"
            "        for key in list(word_freqs):\n"
            "            if (key.replace(' ', ''),) in corpus:\n"
            "                del word_freqs[key]\n",
        ),
        # Two keys that become the same symbols after a merge add their counts: the last one's count wins.
        "overwrites-equal-words": _train().replace(
            "merged[tuple(out)] = merged.get(tuple(out), 0) + count", "merged[tuple(out)] = count"
        ),
    }
)

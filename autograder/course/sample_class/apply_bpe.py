"""Sample submissions of assignment 04 (``apply_bpe``, ``encode``, ``disagreeing_merges``), one per typical student."""

ASSIGNMENT = "04_apply_bpe"

# A helper above apply_bpe, reused by the later cells of the same student.
_APPLY_SETDEFAULT = """
def merge_pair(symbols, pair):
    out = []
    i = 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == pair[0] and symbols[i + 1] == pair[1]:
            out.append(pair[0] + pair[1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def apply_bpe(word, merges):
    ranks = {}
    for i, pair in enumerate(merges):
        ranks.setdefault(tuple(pair), i)
    symbols = list(get_word_symbols(word))
    while len(symbols) > 1:
        pairs = [p for p in zip(symbols, symbols[1:]) if p in ranks]
        if not pairs:
            break
        best = min(pairs, key=lambda p: ranks[p])
        symbols = merge_pair(symbols, best)
    return symbols
"""

_ENCODE_LOOP = """
def encode(word, rules):
    symbols = list(word)
    for a, b in rules:
        new = []
        i = 0
        while i < len(symbols):
            if i < len(symbols) - 1 and symbols[i] == a and symbols[i + 1] == b:
                new.append(a + b)
                i += 2
            else:
                new.append(symbols[i])
                i += 1
        symbols = new
    return symbols
"""

# Merges the first two characters, then lists "join the result with its neighbour" in front of it.
_COUNTEREXAMPLE_LOOP = """
def disagreeing_merges(word):
    first = (word[0], word[1])
    after = []
    i = 0
    while i < len(word):
        if word[i:i + 2] == word[0] + word[1] and i + 1 < len(word):
            after.append(word[i:i + 2])
            i += 2
        else:
            after.append(word[i])
            i += 1
    return [(after[0], after[1]), first]
"""

STUDENTS: dict[str, dict[str, str]] = {
    # A rank dict built with setdefault, a merge helper shared by the three cells.
    "correct-helper": {
        "apply_bpe": _APPLY_SETDEFAULT,
        "encode": """
def encode(word, rules):
    symbols = list(word)
    for rule in rules:
        symbols = merge_pair(symbols, rule)
    return symbols
""",
        "disagreeing_merges": """
def disagreeing_merges(word):
    after = merge_pair(list(word), (word[0], word[1]))
    return [(after[0], after[1]), (word[0], word[1])]
""",
    },
    # GPT-2's shape: min with float("inf"), jump to the next first symbol with index(); encode with reduce and a
    # recursive merge, printing as it goes; the counterexample reuses encode.
    "correct-gpt2-style": {
        "apply_bpe": """
def apply_bpe(word, merges):
    bpe_ranks = {}
    for rank, (a, b) in enumerate(merges):
        if (a, b) not in bpe_ranks:
            bpe_ranks[(a, b)] = rank
    word = get_word_symbols(word)
    while len(word) > 1:
        bigram = min(zip(word, word[1:]), key=lambda p: bpe_ranks.get(p, float("inf")))
        if bigram not in bpe_ranks:
            break
        first, second = bigram
        new_word = []
        i = 0
        while i < len(word):
            if first not in word[i:]:
                new_word.extend(word[i:])
                break
            j = word.index(first, i)
            new_word.extend(word[i:j])
            i = j
            if i < len(word) - 1 and word[i + 1] == second:
                new_word.append(first + second)
                i += 2
            else:
                new_word.append(word[i])
                i += 1
        word = tuple(new_word)
    return list(word)
""",
        "encode": """
from functools import reduce


def join_all(symbols, a, b):
    if len(symbols) < 2:
        return list(symbols)
    if symbols[0] == a and symbols[1] == b:
        return [a + b] + join_all(symbols[2:], a, b)
    return [symbols[0]] + join_all(symbols[1:], a, b)


def encode(word, rules):
    print("encoding", word, "with", len(rules), "rules")
    return reduce(lambda symbols, rule: join_all(symbols, rule[0], rule[1]), rules, list(word))
""",
        "disagreeing_merges": """
def disagreeing_merges(word):
    after = encode(word, [(word[0], word[1])])
    return [(after[0], after[1]), (word[0], word[1])]
""",
    },
    # Opened the notebook and handed it in untouched.
    "blank": {},
    # Did the first exercise only.
    "half-done": {"apply_bpe": _APPLY_SETDEFAULT},
    # Replays the table in order where rank is asked: right on trained tables, wrong on hand-made ones.
    "apply-by-replay": {
        "apply_bpe": """
def apply_bpe(word, merges):
    symbols = list(get_word_symbols(word))
    for a, b in merges:
        merged = []
        i = 0
        while i < len(symbols):
            if i + 1 < len(symbols) and symbols[i] == a and symbols[i + 1] == b:
                merged.append(a + b)
                i += 2
            else:
                merged.append(symbols[i])
                i += 1
        symbols = merged
    return symbols
""",
        "encode": _ENCODE_LOOP,
        "disagreeing_merges": _COUNTEREXAMPLE_LOOP,
    },
    # Merges only the leftmost occurrence of the best pair, then chooses again.
    "merge-leftmost-only": {
        "apply_bpe": """
def apply_bpe(word, merges):
    ranks = {}
    for i, pair in enumerate(merges):
        if pair not in ranks:
            ranks[pair] = i
    symbols = list(get_word_symbols(word))
    while True:
        pairs = list(zip(symbols, symbols[1:]))
        known = [p for p in pairs if p in ranks]
        if not known:
            return symbols
        best = min(known, key=lambda p: ranks[p])
        i = pairs.index(best)
        symbols = symbols[:i] + [best[0] + best[1]] + symbols[i + 2:]
""",
        "encode": _ENCODE_LOOP,
        "disagreeing_merges": _COUNTEREXAMPLE_LOOP,
    },
    # Ranks from a dict comprehension: a pair listed twice gets its last rank.
    "last-duplicate-wins": {
        "apply_bpe": """
def apply_bpe(word, merges):
    ranks = {pair: i for i, pair in enumerate(merges)}
    symbols = list(get_word_symbols(word))
    while len(symbols) > 1:
        best = min(zip(symbols, symbols[1:]), key=lambda p: ranks.get(p, len(merges)))
        if best not in ranks:
            break
        out, i = [], 0
        while i < len(symbols):
            if tuple(symbols[i:i + 2]) == best:
                out.append(symbols[i] + symbols[i + 1])
                i += 2
            else:
                out.append(symbols[i])
                i += 1
        symbols = out
    return symbols
""",
        "encode": _ENCODE_LOOP,
        "disagreeing_merges": _COUNTEREXAMPLE_LOOP,
    },
    # "encode is apply_bpe without the marker": applies by rank where replay is asked.
    "encode-by-rank": {
        "apply_bpe": _APPLY_SETDEFAULT,
        "encode": """
def encode(word, rules):
    return apply_bpe(word, rules)[:-1]
""",
        "disagreeing_merges": """
def disagreeing_merges(word):
    after = encode(word, [(word[0], word[1])])
    return [(after[0], after[1]), (word[0], word[1])]
""",
    },
    # Sweeps the word left to right merging any pair that is a rule, until nothing changes: the order is lost.
    "encode-greedy-sweep": {
        "apply_bpe": _APPLY_SETDEFAULT,
        "encode": """
def encode(word, rules):
    rule_set = set(rules)
    symbols = list(word)
    changed = True
    while changed:
        changed = False
        i = 0
        while i < len(symbols) - 1:
            if (symbols[i], symbols[i + 1]) in rule_set:
                symbols[i:i + 2] = [symbols[i] + symbols[i + 1]]
                changed = True
            else:
                i += 1
    return symbols
""",
        "disagreeing_merges": _COUNTEREXAMPLE_LOOP,
    },
    # Starts apply_bpe from the characters only: the end-of-word marker is missing.
    "apply-no-marker": {
        "apply_bpe": """
def apply_bpe(word, merges):
    ranks = {}
    for i, pair in enumerate(merges):
        ranks.setdefault(pair, i)
    symbols = list(word)
    while len(symbols) > 1:
        candidates = [p for p in zip(symbols, symbols[1:]) if p in ranks]
        if not candidates:
            break
        a, b = min(candidates, key=ranks.get)
        out, i = [], 0
        while i < len(symbols):
            if i + 1 < len(symbols) and symbols[i] == a and symbols[i + 1] == b:
                out.append(a + b)
                i += 2
            else:
                out.append(symbols[i])
                i += 1
        symbols = out
    return symbols
""",
        "encode": _ENCODE_LOOP,
        "disagreeing_merges": _COUNTEREXAMPLE_LOOP,
    },
    # The table of the "abc" example, returned for every word.
    "counterexample-one-word": {
        "apply_bpe": _APPLY_SETDEFAULT,
        "encode": _ENCODE_LOOP,
        "disagreeing_merges": """
def disagreeing_merges(word):
    # ab c is listed before a b: rank builds abc, replay stops at ab c
    return [("ab", "c"), ("a", "b")]
""",
    },
}

EXPECTED: dict[str, dict[str, int]] = {
    "apply-by-replay": {"apply_bpe": 2, "encode": 4, "disagreeing_merges": 2},
    "apply-no-marker": {"apply_bpe": 0, "encode": 4, "disagreeing_merges": 2},
    "blank": {"apply_bpe": 0, "encode": 0, "disagreeing_merges": 0},
    "correct-gpt2-style": {"apply_bpe": 4, "encode": 4, "disagreeing_merges": 2},
    "correct-helper": {"apply_bpe": 4, "encode": 4, "disagreeing_merges": 2},
    "counterexample-one-word": {"apply_bpe": 4, "encode": 4, "disagreeing_merges": 0},
    "encode-by-rank": {"apply_bpe": 4, "encode": 2, "disagreeing_merges": 2},
    "encode-greedy-sweep": {"apply_bpe": 4, "encode": 0, "disagreeing_merges": 2},
    "half-done": {"apply_bpe": 4, "encode": 0, "disagreeing_merges": 0},
    "last-duplicate-wins": {"apply_bpe": 2, "encode": 4, "disagreeing_merges": 2},
    "merge-leftmost-only": {"apply_bpe": 2, "encode": 4, "disagreeing_merges": 2},
}

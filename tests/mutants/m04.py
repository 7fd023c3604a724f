"""Mutants and correct alternatives of 04_apply_bpe: ``apply_bpe``, ``encode``, ``disagreeing_merges``.

The source notebook's solutions are self-contained (``apply_bpe`` uses the given ``get_word_symbols``), so they
fill the other cells as they are.
"""

from autograder import sample_class

ASSIGNMENT = "04_apply_bpe"
_SAMPLE = sample_class.students()[ASSIGNMENT]  # student code shared with the sample class

FILLERS: dict[str, str] = {}

_MERGE_EVERYWHERE = """
def merge_everywhere(symbols, pair):
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == pair[0] and symbols[i + 1] == pair[1]:
            out.append(pair[0] + pair[1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out
"""

_BY_RANK = (
    _MERGE_EVERYWHERE
    + """

def apply_bpe(word, merges):
    ranks = {}
    for i, pair in enumerate(merges):
        ranks.setdefault(tuple(pair), i)
    symbols = START
    while len(symbols) > 1:
        pairs = [p for p in zip(symbols, symbols[1:]) if p in ranks]
        if not pairs:
            break
        symbols = merge_everywhere(symbols, min(pairs, key=lambda p: ranks[p]))
    return symbols
"""
)

MUTANTS: dict[str, dict[str, str]] = {
    "apply_bpe": {
        # Replays the table in order where rank is asked: right on trained tables, wrong on hand-made ones.
        "by-replay": _SAMPLE["apply-by-replay"]["apply_bpe"],
        # Sweeps left to right merging any pair of the table until nothing changes: the ranks are ignored.
        "greedy-sweep": """
def apply_bpe(word, merges):
    table = set(map(tuple, merges))
    symbols = list(get_word_symbols(word))
    changed = True
    while changed:
        changed = False
        i = 0
        while i < len(symbols) - 1:
            if (symbols[i], symbols[i + 1]) in table:
                symbols[i:i + 2] = [symbols[i] + symbols[i + 1]]
                changed = True
            else:
                i += 1
    return symbols
""",
        # Merges only the leftmost occurrence of the best pair, then chooses again.
        "leftmost-only": _SAMPLE["merge-leftmost-only"]["apply_bpe"],
        # Ranks from a dict comprehension: a pair listed twice gets its last rank.
        "last-duplicate-wins": _SAMPLE["last-duplicate-wins"]["apply_bpe"],
    },
    "encode": {
        # "encode is apply_bpe without the marker": by rank where replay is asked.
        "by-rank": _BY_RANK.replace("def apply_bpe(word, merges)", "def encode(word, merges)").replace(
            "START", "list(word)"
        ),
        # Sweeps left to right merging any pair that is a rule, until nothing changes: the order is lost.
        "greedy-sweep": _SAMPLE["encode-greedy-sweep"]["encode"],
        # Starts from get_word_symbols, the marker of apply_bpe.
        "with-marker": _MERGE_EVERYWHERE
        + """

def encode(word, rules):
    symbols = list(get_word_symbols(word))
    for rule in rules:
        symbols = merge_everywhere(symbols, rule)
    return symbols
""",
    },
    "disagreeing_merges": {
        # The table of the "abc" example, returned for every word.
        "one-table-for-all": _SAMPLE["counterexample-one-word"]["disagreeing_merges"],
        # The rules in learned order: rank and replay agree on them.
        "learned-order": """
def disagreeing_merges(word):
    return [(word[0], word[1]), (word[0] + word[1], word[2])]
""",
        # Takes the third character as the next symbol, without merging the first pair everywhere first:
        # on "abab" the first merge gives ab ab, and ("ab", "a") never applies.
        "third-character": """
def disagreeing_merges(word):
    return [(word[0] + word[1], word[2]), (word[0], word[1])]
""",
    },
}

CORRECT: dict[str, dict[str, str]] = {
    "apply_bpe": {
        # GPT-2's loop: min with float("inf"), jump to the next first symbol with index().
        "gpt2-style": _SAMPLE["correct-gpt2-style"]["apply_bpe"],
        # A helper, setdefault for the first rank, progress prints.
        "helper-prints": _BY_RANK.replace("START", "list(get_word_symbols(word))").replace(
            "    return symbols\n", '    print(word, "->", symbols)\n    return symbols\n'
        ),
        # Recursion: merge the best pair everywhere, then apply again to the result.
        "recursive": """
def apply_ranked(symbols, ranks):
    known = [p for p in zip(symbols, symbols[1:]) if p in ranks]
    if not known:
        return list(symbols)
    a, b = min(known, key=ranks.__getitem__)
    out, i = [], 0
    while i < len(symbols):
        if symbols[i:i + 2] == (a, b):
            out.append(a + b)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return apply_ranked(tuple(out), ranks)


def apply_bpe(word, merges):
    ranks = {}
    for rank in range(len(merges) - 1, -1, -1):  # backwards, so the first rank of a pair is written last
        ranks[tuple(merges[rank])] = rank
    return apply_ranked(get_word_symbols(word), ranks)
""",
    },
    "encode": {
        # functools.reduce over the rules, a recursive merge, a progress print.
        "reduce-recursive-prints": _SAMPLE["correct-gpt2-style"]["encode"],
        # Slice assignment on its own list: after a merge at i, the next look is at the symbol after it.
        "slice-assignment": """
def encode(word, rules):
    symbols = list(word)
    for a, b in rules:
        i = 0
        while i < len(symbols) - 1:
            if symbols[i] == a and symbols[i + 1] == b:
                symbols[i:i + 2] = [a + b]
            i += 1
    return symbols
""",
    },
    "disagreeing_merges": {
        # Searches small tables with its own rank and replay until the two differ.
        "search": """
def by_rank_no_marker(word, table):
    ranks = {}
    for i, pair in enumerate(table):
        ranks.setdefault(pair, i)
    symbols = list(word)
    while True:
        known = [p for p in zip(symbols, symbols[1:]) if p in ranks]
        if not known:
            return symbols
        a, b = min(known, key=ranks.get)
        out, i = [], 0
        while i < len(symbols):
            if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == (a, b):
                out.append(a + b)
                i += 2
            else:
                out.append(symbols[i])
                i += 1
        symbols = out


def by_replay(word, table):
    symbols = list(word)
    for a, b in table:
        out, i = [], 0
        while i < len(symbols):
            if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == (a, b):
                out.append(a + b)
                i += 2
            else:
                out.append(symbols[i])
                i += 1
        symbols = out
    return symbols


def disagreeing_merges(word):
    pieces = sorted({word[i:i + n] for n in (1, 2) for i in range(len(word) - n + 1)})
    for first in zip(word, word[1:]):
        for a in pieces:
            for b in pieces:
                table = [(a, b), first]
                if by_rank_no_marker(word, table) != by_replay(word, table):
                    return table
    return []
""",
        # From the end of the word: merge the last two characters everywhere, then list the join of the last
        # two symbols of the result before that merge.
        "from-the-end": """
def disagreeing_merges(word):
    last = (word[-2], word[-1])
    after, i = [], 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == last:
            after.append(word[i] + word[i + 1])
            i += 2
        else:
            after.append(word[i])
            i += 1
    return [(after[-2], after[-1]), last]
""",
    },
}

"""Mutants and correct alternatives of 04_apply_bpe: ``apply_bpe``, ``encode``, ``disagreeing_merges``.

The source notebook's solutions are self-contained (``apply_bpe`` uses the given ``get_word_symbols``), so they
fill the other cells as they are.
"""

from autograder.course import sample_class

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

# ---------------------------------------------------------------------------------------------------------------
# One mutant per rule the notebook's text states (each sentence of a contract or a convention), so that the fixed
# cases of the checks, which catch every one of them whatever the seed, are seen to cover the whole text.
# ---------------------------------------------------------------------------------------------------------------

_BY_RANK_APPLY = _BY_RANK.replace("START", "list(get_word_symbols(word))")
_REPLAY = (
    _MERGE_EVERYWHERE
    + """

def encode(word, rules):
    symbols = START
    for rule in RULES:
        symbols = merge_everywhere(symbols, tuple(rule))
    return symbols
"""
)


def _replay(start: str = "list(word)", rules: str = "rules") -> str:
    return _REPLAY.replace("START", start).replace("RULES", rules)


MUTANTS["apply_bpe"].update(
    {
        # "Symbols are characters (Python code points): "é" is one symbol": splits accents off (NFD).
        "decomposes-accents": "import unicodedata\n"
        + _BY_RANK_APPLY.replace(
            "list(get_word_symbols(word))", 'list(get_word_symbols(unicodedata.normalize("NFD", word)))'
        ),
        # "... and so is a space": drops spaces.
        "drops-spaces": _BY_RANK_APPLY.replace(
            "list(get_word_symbols(word))", 'list(get_word_symbols(word.replace(" ", "")))'
        ),
        # "apply_bpe starts from get_word_symbols(word)": no marker.
        "no-marker": _BY_RANK.replace("START", "list(word)"),
        # "Merging a pair everywhere works as merge in assignment 01 ... skip both positions": no skip.
        "merge-no-skip": _BY_RANK_APPLY.replace("            i += 2\n", "            i += 1\n"),
        # "Do not change merges": removes the duplicates of the caller's table, in place.
        "mutates-table": _BY_RANK_APPLY.replace(
            "    ranks = {}\n", "    merges[:] = list(dict.fromkeys(map(tuple, merges)))\n    ranks = {}\n"
        ),
        # "A pair that is not in the table is never merged, even if its joined symbol would be a good token":
        # looks merges up by their joined string.
        "joined-lookup": """
def apply_bpe(word, merges):
    ranks = {}
    for i, (a, b) in enumerate(merges):
        ranks.setdefault(a + b, i)
    symbols = list(get_word_symbols(word))
    while True:
        joined = [(ranks[a + b], a, b) for a, b in zip(symbols, symbols[1:]) if a + b in ranks]
        if not joined:
            return symbols
        _, a, b = min(joined)
        symbols = merge_everywhere(symbols, (a, b))
""".replace("def apply_bpe", _MERGE_EVERYWHERE + "\n\ndef apply_bpe"),
        # "The tables may be empty": an empty table gives the word as one piece.
        "empty-table-whole-word": _BY_RANK_APPLY.replace(
            "    ranks = {}\n", '    if not merges:\n        return [word, "</w>"]\n    ranks = {}\n'
        ),
    }
)

MUTANTS["encode"].update(
    {
        # "a rule listed twice simply gets two turns": dict.fromkeys keeps one turn per rule.
        "skips-repeats": _replay(rules="dict.fromkeys(map(tuple, rules))"),
        # "(left to right, skipping both symbols at a match)": no skip.
        "merge-no-skip": _replay().replace("            i += 2\n", "            i += 1\n"),
        # "Do not change rules": pops the rules as it replays them.
        "mutates-rules": _MERGE_EVERYWHERE
        + """

def encode(word, rules):
    symbols = list(word)
    while rules:
        symbols = merge_everywhere(symbols, tuple(rules.pop(0)))
    return symbols
""",
        # "Symbols are characters ... and so is a space": drops spaces.
        "drops-spaces": _replay(start='list(word.replace(" ", ""))'),
        # "Symbols are characters (Python code points)": splits accents off (NFD).
        "decomposes-accents": "import unicodedata\n" + _replay(start='list(unicodedata.normalize("NFD", word))'),
        # "a rule that finds nothing to merge is passed over and never comes back": replays the table until
        # nothing changes.
        "replays-until-stable": _MERGE_EVERYWHERE
        + """

def encode(word, rules):
    symbols = list(word)
    while True:
        before = symbols
        for rule in rules:
            symbols = merge_everywhere(symbols, tuple(rule))
        if symbols == before:
            return symbols
""",
    }
)

MUTANTS["disagreeing_merges"].update(
    {
        # "Returns a merge table: a list of (str, str) pairs of non-empty strings": an empty symbol in the table.
        "empty-symbol": """
def disagreeing_merges(word):
    first = (word[0], word[1])
    after, i = [], 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == first:
            after.append(word[i] + word[i + 1])
            i += 2
        else:
            after.append(word[i])
            i += 1
    return [(after[0], after[1]), first, ("", word[-1])]
""",
    }
)

"""Mutants and correct alternatives of 01_pair_counts_and_merge: ``get_pair_counts(ids)``, ``merge(ids, pair, new_id)``.

``MUTANTS[function][name]`` is the code of a solution cell with one realistic fault; ``CORRECT[function][name]``
is correct code in another style. ``FILLERS`` overrides the source notebook's solution where that solution is
not self-contained (none here).
"""

from autograder import sample_class

ASSIGNMENT = "01_pair_counts_and_merge"
_SAMPLE = sample_class.students()[ASSIGNMENT]  # student code shared with the sample class

FILLERS: dict[str, str] = {}

MUTANTS: dict[str, dict[str, str]] = {
    "get_pair_counts": {
        # Skips past a pair of equal ids as merge does: [5, 5, 5] has (5, 5) once.
        "no-overlap": _SAMPLE["counts-no-overlap"]["get_pair_counts"],
        # Right counts, sorted: the order of first occurrence is lost.
        "sorted-order": _SAMPLE["counts-sorted"]["get_pair_counts"],
        # Scans from the right: the keys come in order of last occurrence, from the end.
        "right-to-left": """
def get_pair_counts(ids):
    counts = {}
    for i in range(len(ids) - 1, 0, -1):
        pair = (ids[i - 1], ids[i])
        counts[pair] = counts.get(pair, 0) + 1
    return counts
""",
    },
    "merge": {
        # Advances by one after a match: the second id of the pair starts another match ([5, 5, 5] -> [7, 7]).
        "no-skip": _SAMPLE["merge-no-skip"]["merge"],
        # Scans right to left: [5, 5, 5] -> [5, 7].
        "right-to-left": """
def merge(ids, pair, new_id):
    out = []
    i = len(ids) - 1
    while i >= 0:
        if i > 0 and ids[i - 1] == pair[0] and ids[i] == pair[1]:
            out.insert(0, new_id)
            i -= 2
        else:
            out.insert(0, ids[i])
            i -= 1
    return out
""",
        # Treats a run of the pair's second id as one token: [5, 5, 5] -> [7].
        "collapses-runs": """
def merge(ids, pair, new_id):
    out = []
    i = 0
    while i < len(ids):
        if i + 1 < len(ids) and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            out.append(new_id)
            i += 2
            while i < len(ids) and ids[i] == pair[1]:  # the rest of the run goes into the same token
                i += 1
        else:
            out.append(ids[i])
            i += 1
    return out
""",
        # Stops one short: an unmatched last id is dropped.
        "drops-last": """
def merge(ids, pair, new_id):
    out = []
    i = 0
    while i < len(ids) - 1:
        if ids[i] == pair[0] and ids[i + 1] == pair[1]:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out
""",
        # Merges in place: the caller's list changes.
        "mutates-input": _SAMPLE["merge-mutates-input"]["merge"],
        # str.replace on the joined ids: "21 2" holds "1 2", so multi-digit ids are split wrong.
        "str-replace": """
def merge(ids, pair, new_id):
    text = " ".join(str(i) for i in ids)
    text = text.replace(f"{pair[0]} {pair[1]}", str(new_id))
    return [int(t) for t in text.split()]
""",
    },
}

CORRECT: dict[str, dict[str, str]] = {
    "get_pair_counts": {
        "counter": _SAMPLE["correct-counter"]["get_pair_counts"],
        "defaultdict-prints": """
from collections import defaultdict

def get_pair_counts(ids):
    counts = defaultdict(int)
    for i in range(len(ids) - 1):
        counts[ids[i], ids[i + 1]] += 1
    print("pairs:", dict(counts))
    return counts
""",
        "recursive": """
def get_pair_counts(ids, counts=None):
    if counts is None:
        counts = {}
    if len(ids) < 2:
        return counts
    pair = (ids[0], ids[1])
    counts[pair] = counts.get(pair, 0) + 1
    return get_pair_counts(ids[1:], counts)
""",
    },
    "merge": {
        "recursive": _SAMPLE["correct-counter"]["merge"],
        "slices-prints": """
def merge(ids, pair, new_id):
    result = []
    i = 0
    while i < len(ids):
        if ids[i:i + 2] == list(pair):
            result.append(new_id)
            i += 2
        else:
            result.append(ids[i])
            i += 1
    print("merged", pair, "->", new_id, ":", result)
    return result
""",
        "skip-flag": """
def merge(ids, pair, new_id):
    out, skip = [], False
    for i, x in enumerate(ids):
        if skip:
            skip = False
        elif tuple(ids[i:i + 2]) == tuple(pair):
            out.append(new_id)
            skip = True
        else:
            out.append(x)
    return out
""",
    },
}

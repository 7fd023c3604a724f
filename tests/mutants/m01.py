"""Mutants and correct alternatives of 01_pair_counts_and_merge: ``get_pair_counts(ids)``, ``merge(ids, pair, new_id)``.

``MUTANTS[function][name]`` is the code of a solution cell with one realistic fault; ``CORRECT[function][name]``
is correct code in another style. ``FILLERS`` overrides the source notebook's solution where that solution is
not self-contained (none here).
"""

from autograder.course import sample_class

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

# ---------------------------------------------------------------------------------------------------------------
# One mutant per rule the notebook's text states (each sentence of a contract or a convention), so that the fixed
# cases of the checks, which catch every one of them whatever the seed, are seen to cover the whole text.
# ---------------------------------------------------------------------------------------------------------------

MUTANTS["get_pair_counts"].update(
    {
        # "ids: a list of integer ids. Do not change it." Consumes the list while counting.
        "mutates-input": """
def get_pair_counts(ids):
    counts = {}
    while len(ids) > 1:
        pair = (ids[0], ids[1])
        counts[pair] = counts.get(pair, 0) + 1
        ids.pop(0)
    return counts
""",
        # "Returns a dict": returns the (pair, count) items as a list.
        "returns-list": """
def get_pair_counts(ids):
    counts = {}
    for pair in zip(ids, ids[1:]):
        counts[pair] = counts.get(pair, 0) + 1
    return list(counts.items())
""",
        # "A list of length 0 or 1 has no pairs: return {}": returns None for a short list.
        "short-none": """
def get_pair_counts(ids):
    if len(ids) < 2:
        return None
    counts = {}
    for pair in zip(ids, ids[1:]):
        counts[pair] = counts.get(pair, 0) + 1
    return counts
""",
    }
)

MUTANTS["merge"].update(
    {
        # "A list of length 0 or 1 comes back as a copy": returns the list itself.
        "short-returns-input": """
def merge(ids, pair, new_id):
    if len(ids) < 2:
        return ids
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out
""",
        # "Returns a new list": returns the list itself when the pair does not occur.
        "no-match-returns-input": """
def merge(ids, pair, new_id):
    if tuple(pair) not in zip(ids, ids[1:]):
        return ids
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out
""",
    }
)

"""Sample submissions of assignment 01 (``get_pair_counts``, ``merge``), one per typical student."""

ASSIGNMENT = "01_pair_counts_and_merge"

_COUNTS_LOOP = """
def get_pair_counts(ids):
    counts = {}
    for i in range(len(ids) - 1):
        pair = (ids[i], ids[i + 1])
        if pair in counts:
            counts[pair] += 1
        else:
            counts[pair] = 1
    return counts
"""

_MERGE_LOOP = """
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
    print("merged", pair, "->", new_id)  # progress output is allowed
    return result
"""

STUDENTS: dict[str, dict[str, str]] = {
    # Index loops and slices; prints while it works.
    "correct-loops": {"get_pair_counts": _COUNTS_LOOP, "merge": _MERGE_LOOP},
    # Library style: a Counter and a recursive merge.
    "correct-counter": {
        "get_pair_counts": """
from collections import Counter

def get_pair_counts(ids):
    return Counter(zip(ids, ids[1:]))
""",
        "merge": """
def merge(ids, pair, new_id):
    if len(ids) < 2:
        return list(ids)
    if (ids[0], ids[1]) == tuple(pair):
        return [new_id] + merge(ids[2:], pair, new_id)
    return [ids[0]] + merge(ids[1:], pair, new_id)
""",
    },
    # Opened the notebook and handed it in untouched.
    "blank": {},
    # Did the first exercise only.
    "half-done": {"get_pair_counts": _COUNTS_LOOP},
    # Advances by one after a match, so the second id of the pair is copied too.
    "merge-no-skip": {
        "get_pair_counts": _COUNTS_LOOP,
        "merge": """
def merge(ids, pair, new_id):
    out = []
    for i in range(len(ids)):
        if i + 1 < len(ids) and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            out.append(new_id)
        elif i > 0 and ids[i - 1] == pair[0] and ids[i] == pair[1]:
            continue
        else:
            out.append(ids[i])
    return out
""",
    },
    # Merges correctly, but in place: the caller's list changes.
    "merge-mutates-input": {
        "get_pair_counts": _COUNTS_LOOP,
        "merge": """
def merge(ids, pair, new_id):
    i = 0
    while i < len(ids) - 1:
        if ids[i] == pair[0] and ids[i + 1] == pair[1]:
            ids[i] = new_id
            del ids[i + 1]
        i += 1
    return ids
""",
    },
    # Skips past a pair of equal ids as merge does, so overlapping pairs are counted once.
    "counts-no-overlap": {
        "get_pair_counts": """
def get_pair_counts(ids):
    counts = {}
    i = 0
    while i < len(ids) - 1:
        pair = (ids[i], ids[i + 1])
        counts[pair] = counts.get(pair, 0) + 1
        i += 2 if ids[i] == ids[i + 1] else 1
    return counts
""",
        "merge": _MERGE_LOOP,
    },
    # Right counts, but sorted: the order of first occurrence is lost.
    "counts-sorted": {
        "get_pair_counts": """
def get_pair_counts(ids):
    counts = {}
    for pair in zip(ids, ids[1:]):
        counts[pair] = counts.get(pair, 0) + 1
    return dict(sorted(counts.items()))
""",
        "merge": _MERGE_LOOP,
    },
}

EXPECTED: dict[str, dict[str, int]] = {
    "blank": {"get_pair_counts": 0, "merge": 0},
    "correct-counter": {"get_pair_counts": 4, "merge": 4},
    "correct-loops": {"get_pair_counts": 4, "merge": 4},
    "counts-no-overlap": {"get_pair_counts": 2, "merge": 4},
    "counts-sorted": {"get_pair_counts": 2, "merge": 4},
    "half-done": {"get_pair_counts": 4, "merge": 0},
    "merge-mutates-input": {"get_pair_counts": 4, "merge": 0},
    "merge-no-skip": {"get_pair_counts": 4, "merge": 2},
}

"""Sample submissions of assignment 06 (training at scale), one per typical student.

The cells are ``chunk_counts``, ``chunk_counts_file``, ``train_fast``, ``encode_iterable``, ``bytes_to_unicode`` and
``gpt2_files``; each student with one typical mistake writes the other five as the course's solution does. The
slow and greedy ones are the mistakes the speed and memory checks exist for: right answers, wrong algorithm.
"""

import re
from pathlib import Path

import nbformat

ASSIGNMENT = "06_training_at_scale"

_MARKERS = re.compile(r"^[ \t]*### (BEGIN|END) SOLUTION[ \t]*\n", re.M)


def _solution() -> dict[str, str]:
    path = Path(__file__).resolve().parents[3] / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    if not path.exists():  # an installed grader without the course's folders: no sample class for 06
        return {}
    nb = nbformat.read(path, 4)
    return {
        c.metadata["nbgrader"]["grade_id"]: _MARKERS.sub("", c.source)
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("solution")
    }


_CORRECT = _solution()

# The plain loop under another name: the right merges, recounted every round (the notebook's train_plain).
_TRAIN_PLAIN = """
def train_fast(chunk_counts, vocab_size):
    return train_plain(chunk_counts, vocab_size)
"""

# Pair counts kept up to date, but the best pair found by a max() over all of them every round: no heap.
_TRAIN_MAX_SCAN = """
def train_fast(chunk_counts, vocab_size):
    words = [[bytes([b]) for b in chunk] for chunk in chunk_counts]
    freqs = list(chunk_counts.values())
    counts, where = {}, {}
    for i, symbols in enumerate(words):
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = counts.get(pair, 0) + freqs[i]
            where.setdefault(pair, set()).add(i)
    merges = []
    while counts and 256 + len(merges) < vocab_size:
        best = max(counts, key=lambda p: (counts[p], p))
        merges.append(best)
        a, b = best
        for i in where.pop(best):
            old, new, j = words[i], [], 0
            while j < len(old):
                if j + 1 < len(old) and old[j] == a and old[j + 1] == b:
                    new.append(a + b)
                    j += 2
                else:
                    new.append(old[j])
                    j += 1
            if len(new) == len(old):
                continue
            for p in zip(old, old[1:]):
                counts[p] -= freqs[i]
                if not counts[p]:
                    del counts[p]
            for p in zip(new, new[1:]):
                counts[p] = counts.get(p, 0) + freqs[i]
                where.setdefault(p, set()).add(i)
            words[i] = new
    return merges
"""

# A heap, but ties to the pair seen first (05's rule): heapq compares the pairs themselves, the smallest first.
_TRAIN_SMALLEST = _CORRECT.get("train_fast", "").replace("Largest(pair)", "pair").replace("Largest(p)", "p")
_TRAIN_SMALLEST = _TRAIN_SMALLEST.replace("        pair = entry.pair\n", "        pair = entry\n")

# Joins every line first: the right ids, with the whole text (and all its ids) in memory.
_ENCODE_JOINED = """
def encode_iterable(lines, merges, pattern, special_tokens):
    text = "".join(lines)
    ranks = {}
    for rank, pair in enumerate(merges):
        ranks.setdefault(pair, rank)
    ids = {bytes([i]): i for i in range(256)}
    for k, (a, b) in enumerate(merges):
        ids.setdefault(a + b, 256 + k)
    out, cache = [], {}
    for index, piece in enumerate(split_specials(text, special_tokens)):
        if index % 2:
            out.append(special_tokens[piece])
            continue
        for chunk in regex.findall(pattern, piece):
            if chunk not in cache:
                data = chunk.encode("utf-8")
                symbols = [data[i : i + 1] for i in range(len(data))]
                while len(symbols) >= 2:
                    present = [p for p in zip(symbols, symbols[1:]) if p in ranks]
                    if not present:
                        break
                    a, b = min(present, key=ranks.get)
                    merged, i = [], 0
                    while i < len(symbols):
                        if i + 1 < len(symbols) and symbols[i] == a and symbols[i + 1] == b:
                            merged.append(a + b)
                            i += 2
                        else:
                            merged.append(symbols[i])
                            i += 1
                    symbols = merged
                cache[chunk] = [ids[s] for s in symbols]
            out.extend(cache[chunk])
    return iter(out)
"""

# Encodes each line on its own: a chunk or a special token split across two lines comes out wrong.
_ENCODE_PER_LINE = (
    _ENCODE_JOINED.replace('    text = "".join(lines)\n', "")
    .replace(
        "    out, cache = [], {}\n    for index, piece in enumerate(split_specials(text, special_tokens)):",
        "    cache = {}\n    for line in lines:\n      out = []\n"
        "      for index, piece in enumerate(split_specials(line, special_tokens)):",
    )
    .replace("    return iter(out)\n", "      yield from out\n")
)

STUDENTS: dict[str, dict[str, str]] = {
    "blank": {},
    "correct": dict(_CORRECT),
    # Reads the file in text mode: "\r\n" becomes "\n", and a bad byte is a UnicodeDecodeError with no offset check.
    "text-mode": {
        **_CORRECT,
        "chunk_counts_file": """
def chunk_counts_file(path, pattern, special_tokens, workers):
    with open(path, encoding="utf-8") as f:
        return chunk_counts(f.read(), pattern, special_tokens)
""",
    },
    # Special tokens counted as text: "<|endoftext|>" becomes the chunks "<|", "endoftext", "|>".
    "specials-counted": {
        **_CORRECT,
        "chunk_counts": _CORRECT.get("chunk_counts", "").replace("[::2]:", ":"),
    },
    "plain-loop": {**_CORRECT, "train_fast": _TRAIN_PLAIN},
    "max-scan": {**_CORRECT, "train_fast": _TRAIN_MAX_SCAN},
    "ties-smallest": {**_CORRECT, "train_fast": _TRAIN_SMALLEST},
    "joins-the-lines": {**_CORRECT, "encode_iterable": _ENCODE_JOINED},
    "line-by-line": {**_CORRECT, "encode_iterable": _ENCODE_PER_LINE},
    # The space written as itself: GPT-2's table keeps only the printable bytes other than the space.
    "space-as-itself": {
        **_CORRECT,
        "bytes_to_unicode": _CORRECT.get("bytes_to_unicode", "").replace('ord("!")', 'ord(" ")'),
    },
}

# every exercise at full marks but the ones listed: the one the mistake is in, and what calls it
EXPECTED: dict[str, dict[str, int]] = {
    "blank": {
        "chunk_counts": 0,
        "chunk_counts_file": 0,
        "train_fast": 0,
        "encode_iterable": 0,
        "bytes_to_unicode": 0,
        "gpt2_files": 0,
    },
    "correct": {},
    "joins-the-lines": {"encode_iterable": 2},  # the right ids, neither lazy nor in bounded memory
    "line-by-line": {"encode_iterable": 3},  # lazy and bounded, wrong where a chunk spans two lines
    "max-scan": {"train_fast": 4},  # the right merges, about 7x the plain loop's speed, not 12x
    "plain-loop": {"train_fast": 4},  # the right merges at the plain loop's speed
    "space-as-itself": {"bytes_to_unicode": 0, "gpt2_files": 0},  # gpt2_files uses the table
    "specials-counted": {"chunk_counts": 1, "chunk_counts_file": 0},  # the file's counts use it
    "text-mode": {"chunk_counts_file": 0},  # "\r\n" read as "\n", in every example file
    "ties-smallest": {"train_fast": 2},  # untied inputs pass; ties and the speed input (real ties) fail
}

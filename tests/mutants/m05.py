"""Mutants and correct alternatives of 05_byte_level_bpe: ``pretokenize``, ``train_bytes``, ``encode_bytes``,
``decode_bytes``, ``encode_ranks``.

Every snippet is self-contained (its helpers in its own cell), so that it can stand next to any other. The source
notebook's ``train_bytes``, ``encode_bytes`` and ``encode_ranks`` call ``pretokenize``; their fillers (below) call
``regex.findall`` instead, so that a mutant of ``pretokenize`` loses only its own points.
"""

from autograder.course import sample_class

ASSIGNMENT = "05_byte_level_bpe"
_SAMPLE = sample_class.students()[ASSIGNMENT]  # student code shared with the sample class

_MERGE = """
def merge_ids(ids, pair, new_id):
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out

"""

# merge_ids scanning from the right: "aaa" with (97, 97) becomes 97 256, not 256 97.
_MERGE_FROM_RIGHT = """
def merge_ids(ids, pair, new_id):
    out, i = [], len(ids) - 1
    while i >= 0:
        if i > 0 and (ids[i - 1], ids[i]) == pair:
            out.append(new_id)
            i -= 2
        else:
            out.append(ids[i])
            i -= 1
    return out[::-1]

"""

_TRAIN = (
    _MERGE
    + """
def train_bytes(text, vocab_size, pattern):
    chunks = [list(c.encode("utf-8")) for c in regex.findall(pattern, text)]
    merges = {}
    for new_id in range(256, vocab_size):
        counts = {}
        for ids in chunks:
            for pair in zip(ids, ids[1:]):
                counts[pair] = counts.get(pair, 0) + 1
        if not counts:
            break
        best = max(counts, key=counts.get)
        chunks = [merge_ids(ids, best, new_id) for ids in chunks]
        merges[best] = new_id
    return merges
"""
)

# encode_bytes's own helper, named apart from train_bytes's: in one namespace a mutant of one never changes the other
_MERGE_CHUNK = _MERGE.replace("merge_ids", "merge_chunk")
_ENCODE = (
    _MERGE_CHUNK
    + """
def encode_bytes(text, merges, pattern):
    out = []
    for chunk in regex.findall(pattern, text):
        ids = list(chunk.encode("utf-8"))
        while True:
            present = [p for p in zip(ids, ids[1:]) if p in merges]
            if not present:
                break
            best = min(present, key=merges.get)
            ids = merge_chunk(ids, best, merges[best])
        out.extend(ids)
    return out
"""
)

_DECODE = """
def decode_bytes(ids, merges):
    vocab = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in sorted(merges.items(), key=lambda kv: kv[1]):
        vocab[new_id] = vocab[a] + vocab[b]
    for i in ids:
        if i not in vocab:
            raise ValueError(f"unknown id {i}")
    return b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")
"""

_RANKS = _SAMPLE["correct-loops"]["encode_ranks"].replace(
    "pretokenize(piece, pattern)", "regex.findall(pattern, piece)"
)

FILLERS: dict[str, str] = {"train_bytes": _TRAIN, "encode_bytes": _ENCODE, "encode_ranks": _RANKS}

MUTANTS: dict[str, dict[str, str]] = {
    "pretokenize": {
        # Splits on whitespace: the spaces vanish and punctuation stays glued to words.
        "str-split": """
def pretokenize(text, pattern):
    return text.split()
""",
        # regex.split returns what lies between the matches, not the matches.
        "regex-split": """
def pretokenize(text, pattern):
    return regex.split(pattern, text)
""",
        # regex.split with the pattern as a group: the matches and every gap between them (the finding:
        # right on GPT-2's and GPT-4's patterns, which leave no gaps).
        "split-keeps-gaps": """
def pretokenize(text, pattern):
    return [piece for piece in regex.split("(" + pattern + ")", text) if piece]
""",
        # Always GPT-4's pattern, whatever pattern is given.
        "ignores-pattern": """
def pretokenize(text, pattern):
    return regex.findall(GPT4_PATTERN, text)
""",
        # The standard re module does not know \\p{L}: it raises on both patterns.
        "re-module": """
import re

def pretokenize(text, pattern):
    return re.findall(pattern, text)
""",
    },
    "train_bytes": {
        # The whole text as one byte sequence: merges cross chunks.
        "across-chunks": _MERGE
        + """
def train_bytes(text, vocab_size, pattern):
    ids = list(text.encode("utf-8"))
    merges = {}
    for new_id in range(256, vocab_size):
        counts = {}
        for pair in zip(ids, ids[1:]):
            counts[pair] = counts.get(pair, 0) + 1
        if not counts:
            break
        best = max(counts, key=counts.get)
        ids = merge_ids(ids, best, new_id)
        merges[best] = new_id
    return merges
""",
        # Ties to the largest pair of ids.
        "ties-by-value": _TRAIN.replace(
            "best = max(counts, key=counts.get)", "best = max(counts, key=lambda p: (counts[p], p))"
        ),
        # New ids after the largest id of the text, not from 256.
        "ids-after-largest": _TRAIN.replace(
            "    for new_id in range(256, vocab_size):",
            "    first = max([max(ids) for ids in chunks if ids], default=255) + 1\n"
            "    for new_id in range(first, first + vocab_size - 256):",
        ),
        # No early stop: max() of an empty dict raises once every chunk is one id.
        "no-early-stop": _TRAIN.replace("        if not counts:\n            break\n", ""),
        # One merge too many: vocab_size is taken as the number of merges after 255.
        "one-too-many": _TRAIN.replace("range(256, vocab_size)", "range(256, vocab_size + 1)"),
        # Each pair counted once per chunk: overlaps and repeats lost.
        "count-once-per-chunk": _TRAIN.replace(
            "for pair in zip(ids, ids[1:]):", "for pair in dict.fromkeys(zip(ids, ids[1:])):"
        ),
        # The first-seen order of round one kept for later rounds (new pairs go to the end).
        "stale-first-seen": _MERGE
        + """
def train_bytes(text, vocab_size, pattern):
    chunks = [list(c.encode("utf-8")) for c in regex.findall(pattern, text)]
    merges, order = {}, {}
    for new_id in range(256, vocab_size):
        counts = {}
        for ids in chunks:
            for pair in zip(ids, ids[1:]):
                counts[pair] = counts.get(pair, 0) + 1
                order.setdefault(pair, len(order))
        if not counts:
            break
        best = min(counts, key=lambda p: (-counts[p], order[p]))
        chunks = [merge_ids(ids, best, new_id) for ids in chunks]
        merges[best] = new_id
    return merges
""",
        # Each pair merged from the right end of a chunk (the text: left to right, as merge of 01).
        "merge-from-right": _TRAIN.replace(_MERGE, _MERGE_FROM_RIGHT),
        # The merges sorted by pair, not listed in the order they were made.
        "merges-sorted": _TRAIN.replace("    return merges\n", "    return dict(sorted(merges.items()))\n"),
        # The chunks scanned from the last one: a tie goes to a pair of a later chunk.
        "chunks-reversed": _TRAIN.replace(
            "        for ids in chunks:\n            for pair", "        for ids in chunks[::-1]:\n            for pair"
        ),
    },
    "encode_bytes": {
        # Replays the dict in its order.
        "by-replay": _MERGE
        + """
def encode_bytes(text, merges, pattern):
    out = []
    for chunk in regex.findall(pattern, text):
        ids = list(chunk.encode("utf-8"))
        for pair, new_id in merges.items():
            ids = merge_ids(ids, pair, new_id)
        out.extend(ids)
    return out
""",
        # The whole text at once: merges cross chunks.
        "across-chunks": _ENCODE.replace("    for chunk in regex.findall(pattern, text):", "    for chunk in [text]:"),
        # The highest new id first.
        "highest-id-first": _ENCODE.replace("min(present, key=merges.get)", "max(present, key=merges.get)"),
        # The pair listed first in the dict among those present (position, not new id).
        "dict-position": _ENCODE.replace(
            "best = min(present, key=merges.get)", "best = next(p for p in merges if p in present)"
        ),
        # All occurrences merged from the right end of a chunk.
        "merge-from-right": _ENCODE.replace(_MERGE_CHUNK, _MERGE_FROM_RIGHT.replace("merge_ids", "merge_chunk")),
        # Sorts the table it is given by new id, in place: right ids, but the caller's dict changed.
        "sorts-table-in-place": _ENCODE.replace(
            "    out = []\n",
            "    ordered = sorted(merges.items(), key=lambda kv: kv[1])\n    merges.clear()\n"
            "    merges.update(ordered)\n    out = []\n",
            1,
        ),
    },
    "decode_bytes": {
        # Each token decoded alone.
        "each-token": _SAMPLE["decode-each-token"]["decode_bytes"],
        # errors="strict".
        "strict": _DECODE.replace('errors="replace"', 'errors="strict"'),
        # The vocabulary built in the dict's order: a merge listed before the merge that makes its part fails.
        "dict-order": _DECODE.replace("sorted(merges.items(), key=lambda kv: kv[1])", "merges.items()"),
        # No check of unknown ids: a KeyError instead of a ValueError.
        "keyerror": _DECODE.replace('            raise ValueError(f"unknown id {i}")', "            pass"),
        # Only ids above 255 are checked: a negative id indexes the byte table from its end (vocab as a list).
        "negative-from-end": """
def decode_bytes(ids, merges):
    vocab = [bytes([i]) for i in range(256)]
    for (a, b), new_id in sorted(merges.items(), key=lambda kv: kv[1]):
        vocab.append(vocab[a] + vocab[b])
    for i in ids:
        if i >= len(vocab):
            raise ValueError(f"unknown id {i}")
    return b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")
""",
        # Only ids above 255 are checked: a negative id reaches bytes(), whose ValueError does not name it.
        "negative-to-bytes": _DECODE.replace(
            "        if i not in vocab:", "        if i > 255 and i not in vocab:"
        ).replace('b"".join(vocab[i] for i in ids)', 'b"".join(vocab.get(i) or bytes([i]) for i in ids)'),
        # Unknown ids above 255 raise; a negative one is skipped.
        "negative-skipped": _DECODE.replace(
            "        if i not in vocab:", "        if i > 255 and i not in vocab:"
        ).replace('b"".join(vocab[i] for i in ids)', 'b"".join(vocab[i] for i in ids if i in vocab)'),
        # A ValueError that does not say which id is unknown.
        "unnamed-id": _DECODE.replace('raise ValueError(f"unknown id {i}")', 'raise ValueError("unknown id")'),
    },
    "encode_ranks": {
        # Special tokens tokenized as text.
        "specials-as-text": _RANKS.replace("    if special_tokens:\n", "    if False:\n"),
        # The shortest special token first.
        "shortest-special-first": _RANKS.replace("key=len, reverse=True", "key=len"),
        # The rightmost of two pairs with the same joined bytes.
        "rightmost-tie": _RANKS.replace("r < best_rank", "r <= best_rank"),
        # BPE over the whole piece between special tokens: no chunks.
        "no-chunks": _RANKS.replace("regex.findall(pattern, piece)", "[piece]"),
        # Only the first special token of the text is cut out; later ones are tokenized as text.
        "first-special-only": _RANKS.replace(
            'regex.split("(" + specials + ")", text)', 'regex.split("(" + specials + ")", text, maxsplit=1)'
        ),
        # The leftmost pair that has a rank, not the lowest rank.
        "leftmost-known-pair": _RANKS.replace(
            "if r is not None and (best_rank is None or r < best_rank):", "if r is not None and best_rank is None:"
        ),
        # One join per chunk, then stop: no "repeat while any pair joins".
        "one-join-only": _RANKS.replace(
            "            parts = parts[:best_i] + [parts[best_i] + parts[best_i + 1]] + parts[best_i + 2:]\n",
            "            parts = parts[:best_i] + [parts[best_i] + parts[best_i + 1]] + parts[best_i + 2:]\n"
            "            return [mergeable_ranks[p] for p in parts]\n",
        ),
        # A single byte left alone becomes its byte value, not its rank in the table.
        "byte-value-ids": _RANKS.replace(
            "return [mergeable_ranks[p] for p in parts]",
            "return [mergeable_ranks[p] if len(p) > 1 else p[0] for p in parts]",
        ),
        # Every occurrence of the best joined bytes at once (exercise 3's loop), not one join per step.
        "all-occurrences": _RANKS.replace(
            "            parts = parts[:best_i] + [parts[best_i] + parts[best_i + 1]] + parts[best_i + 2:]\n",
            """            joined, out, i = parts[best_i] + parts[best_i + 1], [], 0
            while i < len(parts):
                if i + 1 < len(parts) and parts[i] + parts[i + 1] == joined:
                    out.append(joined)
                    i += 2
                else:
                    out.append(parts[i])
                    i += 1
            parts = out
""",
        ),
    },
}

CORRECT: dict[str, dict[str, str]] = {
    "pretokenize": {
        "finditer": _SAMPLE["correct-minbpe-style"]["pretokenize"],
        "compiled": """
def pretokenize(text, pattern):
    compiled = regex.compile(pattern)
    chunks = compiled.findall(text)
    print(len(chunks), "chunks")
    return chunks
""",
    },
    "train_bytes": {
        # collections.Counter: most_common keeps insertion order among equal counts.
        "counter": """
from collections import Counter

def train_bytes(text, vocab_size, pattern):
    chunks = [list(c.encode("utf-8")) for c in regex.findall(pattern, text)]
    merges = {}
    while 256 + len(merges) < vocab_size:
        stats = Counter()
        for ids in chunks:
            stats.update(zip(ids, ids[1:]))
        if not stats:
            break
        (best, _), = stats.most_common(1)
        new_id = 256 + len(merges)
        merged = []
        for ids in chunks:
            out, i = [], 0
            while i < len(ids):
                if ids[i:i + 2] == list(best):
                    out.append(new_id)
                    i += 2
                else:
                    out.append(ids[i])
                    i += 1
            merged.append(out)
        chunks = merged
        merges[best] = new_id
    return merges
""",
        # Distinct chunks with their counts, as fast trainers do: the same merges and ties.
        "weighted-chunks": _MERGE
        + """
def train_bytes(text, vocab_size, pattern):
    freq = {}
    for chunk in regex.findall(pattern, text):
        freq[chunk] = freq.get(chunk, 0) + 1
    chunks = [(list(c.encode("utf-8")), n) for c, n in freq.items()]
    merges = {}
    for new_id in range(256, vocab_size):
        counts = {}
        for ids, n in chunks:
            for pair in zip(ids, ids[1:]):
                counts[pair] = counts.get(pair, 0) + n
        if not counts:
            break
        top = max(counts.values())
        best = next(p for p, c in counts.items() if c == top)
        chunks = [(merge_ids(ids, best, new_id), n) for ids, n in chunks]
        merges[best] = new_id
    return merges
""",
    },
    "encode_bytes": {
        # minbpe's encode: min over all pairs with float("inf") for the unknown ones.
        "minbpe-inf": _MERGE
        + """
def encode_bytes(text, merges, pattern):
    out = []
    for chunk in regex.findall(pattern, text):
        ids = list(chunk.encode("utf-8"))
        while len(ids) >= 2:
            pair = min(zip(ids, ids[1:]), key=lambda p: merges.get(p, float("inf")))
            if pair not in merges:
                break
            ids = merge_ids(ids, pair, merges[pair])
        out += ids
    return out
""",
        # Merges only the leftmost occurrence, then chooses again: the same ids on any valid table.
        "leftmost-then-again": """
def encode_bytes(text, merges, pattern):
    out = []
    for chunk in regex.findall(pattern, text):
        ids = list(chunk.encode("utf-8"))
        while True:
            ranked = [(merges[p], i) for i, p in enumerate(zip(ids, ids[1:])) if p in merges]
            if not ranked:
                break
            new_id, i = min(ranked)
            ids[i:i + 2] = [new_id]
        out.extend(ids)
    return out
""",
    },
    "decode_bytes": {
        "minbpe-style": _SAMPLE["correct-minbpe-style"]["decode_bytes"],
        # A bytearray, ids checked as they come.
        "bytearray": """
def decode_bytes(ids, merges):
    vocab = {i: bytes([i]) for i in range(256)}
    for pair in sorted(merges, key=merges.get):
        vocab[merges[pair]] = vocab[pair[0]] + vocab[pair[1]]
    data = bytearray()
    for i in ids:
        if i not in vocab:
            raise ValueError("unknown id: " + str(i))
        data += vocab[i]
    return bytes(data).decode(errors="replace")
""",
    },
    "encode_ranks": {
        "split-with-group": _RANKS,
        # finditer over the special tokens; a cache of chunks.
        "finditer-cache": """
def encode_ranks(text, mergeable_ranks, pattern, special_tokens):
    cache = {}

    def bpe(chunk):
        if chunk in cache:
            return cache[chunk]
        parts = [bytes([b]) for b in chunk.encode("utf-8")]
        while len(parts) > 1:
            ranks = [mergeable_ranks.get(a + b) for a, b in zip(parts, parts[1:])]
            known = [(r, i) for i, r in enumerate(ranks) if r is not None]
            if not known:
                break
            _, i = min(known)
            parts[i:i + 2] = [parts[i] + parts[i + 1]]
        cache[chunk] = [mergeable_ranks[p] for p in parts]
        return cache[chunk]

    def ordinary(piece):
        return [i for chunk in regex.findall(pattern, piece) for i in bpe(chunk)]

    if not special_tokens:
        return ordinary(text)
    alternation = "|".join(map(regex.escape, sorted(special_tokens, key=lambda s: -len(s))))
    ids, start = [], 0
    for m in regex.finditer(alternation, text):
        ids += ordinary(text[start:m.start()])
        ids.append(special_tokens[m.group()])
        start = m.end()
    return ids + ordinary(text[start:])
""",
    },
}

# Every encode_bytes names its helper merge_chunk, never train_bytes's merge_ids: graded in one namespace (the
# learner's check of a whole notebook), a mutant's helper must not change the other function.
for _table in (MUTANTS, CORRECT):
    _table["encode_bytes"] = {k: v.replace("merge_ids", "merge_chunk") for k, v in _table["encode_bytes"].items()}

"""Sample submissions of assignment 05 (byte-level BPE), one per typical student.

The cells are ``pretokenize``, ``train_bytes``, ``encode_bytes``, ``decode_bytes`` and ``encode_ranks``; each
student with one typical mistake writes the other four correctly (in one of the two correct styles below).
"""

ASSIGNMENT = "05_byte_level_bpe"

_PRETOKENIZE = """
def pretokenize(text, pattern):
    return regex.findall(pattern, text)
"""

_PRETOKENIZE_FINDITER = """
def pretokenize(text, pattern):
    return [m.group(0) for m in regex.finditer(pattern, text)]
"""

# minbpe's style: helpers get_stats and merge above the trainer, reused by encode_bytes.
_TRAIN_MINBPE = """
def get_stats(ids, counts=None):
    counts = {} if counts is None else counts
    for pair in zip(ids, ids[1:]):
        counts[pair] = counts.get(pair, 0) + 1
    return counts


def merge(ids, pair, idx):
    newids = []
    i = 0
    while i < len(ids):
        if i < len(ids) - 1 and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            newids.append(idx)
            i += 2
        else:
            newids.append(ids[i])
            i += 1
    return newids


def train_bytes(text, vocab_size, pattern):
    ids = [list(ch.encode("utf-8")) for ch in pretokenize(text, pattern)]
    merges = {}
    for i in range(vocab_size - 256):
        stats = {}
        for chunk_ids in ids:
            get_stats(chunk_ids, stats)
        if not stats:
            break
        pair = max(stats, key=stats.get)
        idx = 256 + i
        ids = [merge(chunk_ids, pair, idx) for chunk_ids in ids]
        merges[pair] = idx
    return merges
"""

_ENCODE_MINBPE = """
def encode_bytes(text, merges, pattern):
    out = []
    for chunk in pretokenize(text, pattern):
        ids = list(chunk.encode("utf-8"))
        while len(ids) >= 2:
            stats = get_stats(ids)
            pair = min(stats, key=lambda p: merges.get(p, float("inf")))
            if pair not in merges:
                break
            ids = merge(ids, pair, merges[pair])
        out.extend(ids)
    return out
"""

_MERGE_LOOP = """
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

_TRAIN_LOOPS = (
    _MERGE_LOOP
    + """

def train_bytes(text, vocab_size, pattern):
    chunks = [list(c.encode("utf-8")) for c in pretokenize(text, pattern)]
    merges = {}
    new_id = 256
    while new_id < vocab_size:
        counts = {}
        for ids in chunks:
            for i in range(len(ids) - 1):
                pair = (ids[i], ids[i + 1])
                counts[pair] = counts.get(pair, 0) + 1
        if len(counts) == 0:
            break
        best = None
        for pair in counts:
            if best is None or counts[pair] > counts[best]:
                best = pair
        chunks = [merge_ids(ids, best, new_id) for ids in chunks]
        merges[best] = new_id
        new_id += 1
    return merges
"""
)

_ENCODE_LOOPS = """
def encode_bytes(text, merges, pattern):
    result = []
    for chunk in pretokenize(text, pattern):
        ids = list(chunk.encode("utf-8"))
        while True:
            best = None
            for i in range(len(ids) - 1):
                pair = (ids[i], ids[i + 1])
                if pair in merges and (best is None or merges[pair] < merges[best]):
                    best = pair
            if best is None:
                break
            ids = merge_ids(ids, best, merges[best])
        result += ids
    return result
"""

_DECODE = """
def decode_bytes(ids, merges):
    vocab = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in sorted(merges.items(), key=lambda kv: kv[1]):
        vocab[new_id] = vocab[a] + vocab[b]
    out = b""
    for i in ids:
        if i not in vocab:
            raise ValueError(f"unknown id {i}")
        out += vocab[i]
    return out.decode("utf-8", errors="replace")
"""

_ENCODE_RANKS = """
def encode_ranks(text, mergeable_ranks, pattern, special_tokens):
    def bpe(piece):
        parts = [bytes([b]) for b in piece]
        while True:
            best_i, best_rank = None, None
            for i in range(len(parts) - 1):
                r = mergeable_ranks.get(parts[i] + parts[i + 1])
                if r is not None and (best_rank is None or r < best_rank):
                    best_i, best_rank = i, r
            if best_i is None:
                return [mergeable_ranks[p] for p in parts]
            parts = parts[:best_i] + [parts[best_i] + parts[best_i + 1]] + parts[best_i + 2:]

    ids = []
    if special_tokens:
        specials = "|".join(regex.escape(s) for s in sorted(special_tokens, key=len, reverse=True))
        pieces = regex.split("(" + specials + ")", text)
    else:
        pieces = [text]
    for piece in pieces:
        if piece in special_tokens:
            ids.append(special_tokens[piece])
        else:
            for chunk in pretokenize(piece, pattern):
                ids.extend(bpe(chunk.encode("utf-8")))
    return ids
"""

_CORRECT = {
    "pretokenize": _PRETOKENIZE,
    "train_bytes": _TRAIN_LOOPS,
    "encode_bytes": _ENCODE_LOOPS,
    "decode_bytes": _DECODE,
    "encode_ranks": _ENCODE_RANKS,
}

STUDENTS: dict[str, dict[str, str]] = {
    "blank": {},
    "correct-loops": dict(_CORRECT),
    # minbpe's helpers, finditer, and a decoder that joins with a list.
    "correct-minbpe-style": {
        "pretokenize": _PRETOKENIZE_FINDITER,
        "train_bytes": _TRAIN_MINBPE,
        "encode_bytes": _ENCODE_MINBPE,
        "decode_bytes": """
def decode_bytes(ids, merges):
    vocab = {idx: bytes([idx]) for idx in range(256)}
    for (p0, p1), idx in sorted(merges.items(), key=lambda item: item[1]):
        vocab[idx] = vocab[p0] + vocab[p1]
    try:
        data = b"".join(vocab[idx] for idx in ids)
    except KeyError as exc:
        raise ValueError(f"invalid token id: {exc}") from None
    return data.decode("utf-8", errors="replace")
""",
        "encode_ranks": _ENCODE_RANKS,
    },
    # Trains and encodes the whole text as one byte sequence: merges cross chunks (a word and the space after it).
    "merge-across-chunks": {
        **_CORRECT,
        "train_bytes": _MERGE_LOOP
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
        "encode_bytes": """
def encode_bytes(text, merges, pattern):
    ids = list(text.encode("utf-8"))
    while True:
        present = [p for p in zip(ids, ids[1:]) if p in merges]
        if not present:
            return ids
        ids = merge_ids(ids, min(present, key=merges.get), merges[min(present, key=merges.get)])
""",
    },
    # Replays the merges in the dict's order: right on a table straight from training, wrong on any other order.
    "encode-by-replay": {
        **_CORRECT,
        "encode_bytes": """
def encode_bytes(text, merges, pattern):
    out = []
    for chunk in pretokenize(text, pattern):
        ids = list(chunk.encode("utf-8"))
        for pair, new_id in merges.items():
            ids = merge_ids(ids, pair, new_id)
        out.extend(ids)
    return out
""",
    },
    # Decodes token by token: a character split across two tokens becomes two U+FFFD.
    "decode-each-token": {
        **_CORRECT,
        "decode_bytes": """
def decode_bytes(ids, merges):
    vocab = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in sorted(merges.items(), key=lambda kv: kv[1]):
        vocab[new_id] = vocab[a] + vocab[b]
    for i in ids:
        if i not in vocab:
            raise ValueError(f"unknown id {i}")
    return "".join(vocab[i].decode("utf-8", errors="replace") for i in ids)
""",
    },
    # errors="strict": half a character raises UnicodeDecodeError instead of giving U+FFFD.
    "decode-strict": {**_CORRECT, "decode_bytes": _DECODE.replace('errors="replace"', 'errors="strict"')},
    # New ids continue after the largest id seen in the text (as in 01's examples), not from 256.
    "ids-after-largest": {
        **_CORRECT,
        "train_bytes": _TRAIN_LOOPS.replace(
            "    new_id = 256\n    while new_id < vocab_size:",
            "    new_id = max([max(ids) for ids in chunks if ids], default=255) + 1\n"
            "    while len(merges) < vocab_size - 256:",
        ),
    },
    # Ties to the largest pair (subword-nmt's rule in 02), not to the pair seen first.
    "ties-by-value": {
        **_CORRECT,
        "train_bytes": _TRAIN_LOOPS.replace(
            "if best is None or counts[pair] > counts[best]:",
            "if best is None or (counts[pair], pair) > (counts[best], best):",
        ),
    },
    # No special tokens: "<|endoftext|>" is split into chunks and bytes like any text.
    "specials-as-text": {
        **_CORRECT,
        "encode_ranks": _ENCODE_RANKS.replace("    if special_tokens:\n", "    if False:\n"),
    },
    "half-done": {"pretokenize": _PRETOKENIZE, "train_bytes": _TRAIN_LOOPS},
}

# every exercise at full marks but the ones listed: the one the mistake is in, and what calls it
EXPECTED: dict[str, dict[str, int]] = {
    "blank": {"pretokenize": 0, "train_bytes": 0, "encode_bytes": 0, "decode_bytes": 0, "encode_ranks": 0},
    "correct-loops": {},
    "correct-minbpe-style": {},
    "decode-each-token": {"decode_bytes": 1},
    "decode-strict": {"decode_bytes": 1},
    "encode-by-replay": {"encode_bytes": 2},
    "half-done": {"encode_bytes": 0, "decode_bytes": 0, "encode_ranks": 0},
    "ids-after-largest": {"train_bytes": 0},
    "merge-across-chunks": {"train_bytes": 0, "encode_bytes": 2},
    "specials-as-text": {"encode_ranks": 4},
    "ties-by-value": {"train_bytes": 3},
}

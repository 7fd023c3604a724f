"""Mutants and correct alternatives of 06_training_at_scale: ``chunk_counts``, ``chunk_counts_file``, ``train_fast``,
``encode_iterable``, ``bytes_to_unicode``, ``gpt2_files``.

Most snippets are the source notebook's solution with one change (a mutant) or written another way (an
alternative). The source notebook's ``chunk_counts_file`` calls ``chunk_counts`` and ``encode_iterable`` and
``chunk_counts`` call ``split_specials`` (defined in ``chunk_counts``'s cell), and ``gpt2_files`` calls
``bytes_to_unicode``; their fillers (below) are self-contained, so that a mutant loses only its own points.
"""

from autograder.course import sample_class

ASSIGNMENT = "06_training_at_scale"
_SAMPLE = sample_class.students()[ASSIGNMENT]
_SOLUTION = _SAMPLE["correct"]

_SPLIT = """
def _split_here(text, special_tokens):
    if not special_tokens:
        return [text]
    alternatives = sorted(special_tokens, key=len, reverse=True)
    return regex.split("(" + "|".join(regex.escape(s) for s in alternatives) + ")", text)

"""

_COUNTS_HERE = """
def _counts_of(text, pattern, special_tokens):
    if special_tokens:
        alternatives = sorted(special_tokens, key=len, reverse=True)
        pieces = regex.split("|".join(regex.escape(s) for s in alternatives), text)
    else:
        pieces = [text]
    counts = {}
    for piece in pieces:
        for chunk in regex.findall(pattern, piece):
            counts[chunk.encode("utf-8")] = counts.get(chunk.encode("utf-8"), 0) + 1
    return counts

"""

_TABLE_HERE = """
def _gpt2_table():
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1))
    printable += list(range(ord("®"), ord("ÿ") + 1))
    table = {b: chr(b) for b in printable}
    n = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + n)
            n += 1
    return table

"""

FILLERS = {
    "chunk_counts_file": _COUNTS_HERE
    + _SOLUTION["chunk_counts_file"].replace(
        "chunk_counts(text, pattern, special_tokens)", "_counts_of(text, pattern, special_tokens)"
    ),
    "encode_iterable": _SPLIT + _SOLUTION["encode_iterable"].replace("split_specials(", "_split_here("),
    "gpt2_files": _TABLE_HERE + _SOLUTION["gpt2_files"].replace("bytes_to_unicode()", "_gpt2_table()"),
}

_CHUNKS = _SOLUTION["chunk_counts"]
_FILE = FILLERS["chunk_counts_file"]
_TRAIN = _SOLUTION["train_fast"]
_ENCODE = FILLERS["encode_iterable"]
_B2U = _SOLUTION["bytes_to_unicode"]
_FILES = FILLERS["gpt2_files"]

MUTANTS: dict[str, dict[str, str]] = {
    "chunk_counts": {
        # special tokens counted as text: "<|", "endoftext", "|>" become chunks
        "specials-counted": _CHUNKS.replace("[::2]:", ":"),
        # the shortest special token first: "<|x" wins over "<|x|>"
        "shortest-first": _CHUNKS.replace("key=len, reverse=True", "key=len"),
        # str keys, not the chunks' bytes
        "str-keys": _CHUNKS.replace('key = chunk.encode("utf-8")', "key = chunk"),
        # chunks by whitespace, not by the pattern
        "split-on-spaces": _CHUNKS.replace("regex.findall(pattern, piece)", "piece.split()"),
    },
    "chunk_counts_file": {
        # text mode: "\r\n" read as "\n"
        "text-mode": _FILE.replace(
            "        data = f.read(end - start)\n", '        data = f.read(end - start).replace(b"\\r\\n", b"\\n")\n'
        ),
        # the offset of the bad byte within its piece, not within the file
        "offset-in-piece": _FILE.replace("return None, start + error.start", "return None, error.start"),
        # cut the file anywhere: a chunk (or a character) cut in two
        "cut-anywhere": _FILE.replace(
            "                found = finder.search(data, max(i * size // workers, cuts[-1]))\n"
            "                if found is None:\n                    break\n"
            "                if found.start() > cuts[-1]:\n                    cuts.append(found.start())",
            "                if i * size // workers > cuts[-1]:\n                    cuts.append(i * size // workers)",
        ),
        # bad bytes replaced: no ValueError
        "no-error": _FILE.replace('text = data.decode("utf-8")', 'text = data.decode("utf-8", errors="replace")'),
    },
    "train_fast": {
        # ties to the smallest pair (heapq on the pairs themselves)
        "ties-smallest": _SAMPLE["ties-smallest"]["train_fast"],
        # the plain loop: right, and slow
        "plain-loop": _SAMPLE["plain-loop"]["train_fast"],
        # pair counts kept up to date, the best pair by a max() over all of them: right, and slow
        "max-scan": _SAMPLE["max-scan"]["train_fast"],
        # pairs not weighted by the chunk's count
        "unweighted": _TRAIN.replace(
            "counts[pair] = counts.get(pair, 0) + freqs[i]", "counts[pair] = counts.get(pair, 0) + 1"
        )
        .replace("counts[p] -= freqs[i]", "counts[p] -= 1")
        .replace("counts[p] = counts.get(p, 0) + freqs[i]", "counts[p] = counts.get(p, 0) + 1"),
        # no lazy deletion: an entry whose count is out of date is used as it is
        "stale-entries": _TRAIN.replace(
            "        if counts.get(pair) != -negative:\n", "        if pair not in counts:\n"
        ),
    },
    "encode_iterable": {
        # joins every line first: the right ids, the whole input in memory
        "joins-the-lines": _SPLIT + _SAMPLE["joins-the-lines"]["encode_iterable"],
        # each line on its own: chunks and special tokens across lines come out wrong
        "line-by-line": _SPLIT + _SAMPLE["line-by-line"]["encode_iterable"],
        # keeps back one chunk, not two: "it'l" + "l" loses 'll
        "hold-one-chunk": _ENCODE.replace(
            "keep = found[-2].start() if len(found) >= 2 else 0", "keep = found[-1].start() if found else 0"
        ).replace("for match in found[:-2]:", "for match in found[:-1]:"),
        # the text before the last two chunks split again on its own: "word\n\n" ends in the one chunk "\n\n"
        "resplit-the-prefix": _ENCODE.replace(
            "        for match in found[:-2]:\n            yield from encode_chunk(match.group())\n",
            "        for chunk in regex.findall(pattern, last[:keep]):\n            yield from encode_chunk(chunk)\n",
        ),
        # no special token across two strings
        "no-special-holdback": _ENCODE.replace("        hold = held_back(buffer)\n", "        hold = 0\n"),
        # a list, not an iterator
        "returns-a-list": "def encode_iterable(lines, merges, pattern, special_tokens):\n"
        "    return list(_encode_lazily(lines, merges, pattern, special_tokens))\n\n"
        + _ENCODE.replace("def encode_iterable(", "def _encode_lazily("),
    },
    "bytes_to_unicode": {
        # the space stands for itself
        "space-as-itself": _SAMPLE["space-as-itself"]["bytes_to_unicode"],
        # a byte that is no printable character gets chr(256 + byte), not the next of a counter
        "offset-by-value": _B2U.replace(
            "            table[b] = chr(256 + n)\n", "            table[b] = chr(256 + b)\n"
        ),
        # the soft hyphen (0xAD) kept as itself: it is not printable, GPT-2 moves it to 256 + n
        "soft-hyphen-kept": _B2U.replace('list(range(ord("®"), ord("ÿ") + 1))', 'list(range(0xAD, ord("ÿ") + 1))'),
    },
    "gpt2_files": {
        # no "#version: 0.2" line
        "no-version-line": _FILES.replace('lines = ["#version: 0.2"] + ', "lines = "),
        # the bytes as Latin-1 text, not GPT-2's characters: the space stays a space
        "latin1-text": _FILES.replace('return "".join(table[b] for b in token)', 'return token.decode("latin-1")'),
        # a token made twice keeps the last id
        "last-id-wins": _FILES.replace("vocab.setdefault(text(a + b), 256 + k)", "vocab[text(a + b)] = 256 + k"),
        # special tokens left out of the vocabulary
        "no-specials": _FILES.replace("    vocab.update(special_tokens)\n", ""),
    },
}

CORRECT: dict[str, dict[str, str]] = {
    "chunk_counts": {
        # the split keeps the special tokens (a capturing group); the even places are text; a defaultdict counts
        "capture-defaultdict": """
from collections import defaultdict


def chunk_counts(text, pattern, special_tokens):
    pieces = [text]
    if special_tokens:
        cut = "(" + "|".join(regex.escape(s) for s in sorted(special_tokens, key=len, reverse=True)) + ")"
        pieces = regex.split(cut, text)[::2]
    counts = defaultdict(int)
    for piece in pieces:
        for chunk in regex.findall(pattern, piece):
            counts[chunk.encode("utf-8")] += 1
    return dict(counts)
""",
        "finditer-counter": """
from collections import Counter


def chunk_counts(text, pattern, special_tokens):
    pieces = [text]
    if special_tokens:
        alternatives = "|".join(regex.escape(s) for s in sorted(special_tokens, key=len, reverse=True))
        pieces = regex.split(alternatives, text)
    return dict(Counter(m.group().encode("utf-8") for piece in pieces for m in regex.finditer(pattern, piece)))
""",
    },
    "chunk_counts_file": {
        # checks the whole file is UTF-8 first, splits its bytes at the special tokens' bytes (UTF-8 never matches
        # inside a character), and counts the pieces with multiprocessing.Pool.starmap
        "split-bytes-pool": """
import multiprocessing


def _piece_counts(data, pattern):
    counts = {}
    for chunk in regex.findall(pattern, data.decode("utf-8")):
        key = chunk.encode("utf-8")
        counts[key] = counts.get(key, 0) + 1
    return counts


def chunk_counts_file(path, pattern, special_tokens, workers):
    with open(path, "rb") as f:
        data = f.read()
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: the byte at offset {error.start} is not UTF-8") from None
    pieces = [data]
    if special_tokens:
        tokens = sorted((s.encode("utf-8") for s in special_tokens), key=len, reverse=True)
        pieces = regex.split(b"|".join(regex.escape(t) for t in tokens), data)
    if workers > 1 and len(pieces) > 1:
        with multiprocessing.Pool(workers) as pool:
            parts = pool.starmap(_piece_counts, [(piece, pattern) for piece in pieces])
    else:
        parts = [_piece_counts(piece, pattern) for piece in pieces]
    total = {}
    for counts in parts:
        for chunk, n in counts.items():
            total[chunk] = total.get(chunk, 0) + n
    return total
""",
        # reads the whole file, splits its text at special tokens, counts the pieces in a pool
        "split-text": _COUNTS_HERE
        + """
from concurrent.futures import ProcessPoolExecutor


def chunk_counts_file(path, pattern, special_tokens, workers):
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"not UTF-8 at offset {error.start}") from None
    if workers == 1 or not special_tokens:
        return _counts_of(text, pattern, special_tokens)
    token = sorted(special_tokens, key=len, reverse=True)
    pieces = regex.split("|".join(regex.escape(s) for s in token), text)
    with ProcessPoolExecutor(workers) as pool:
        parts = list(pool.map(_counts_of, pieces, [pattern] * len(pieces), [{}] * len(pieces)))
    total = {}
    for counts in parts:
        for chunk, n in counts.items():
            total[chunk] = total.get(chunk, 0) + n
    return total
""",
    },
    "train_fast": {
        # the changes of a merge summed first (one delta per pair), then one heap push per pair whose count changed
        "summed-deltas": """
import heapq
from collections import defaultdict


class _Descending:
    __slots__ = ("pair",)

    def __init__(self, pair):
        self.pair = pair

    def __lt__(self, other):
        return self.pair > other.pair


def _joined(symbols, a, b):
    out, i, n = [], 0, len(symbols)
    while i < n:
        if i + 1 < n and symbols[i] == a and symbols[i + 1] == b:
            out.append(a + b)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def train_fast(chunk_counts, vocab_size):
    words = [[bytes([c]) for c in chunk] for chunk in chunk_counts]
    freqs = list(chunk_counts.values())
    counts, where = defaultdict(int), defaultdict(set)
    for i, word in enumerate(words):
        for pair in zip(word, word[1:]):
            counts[pair] += freqs[i]
            where[pair].add(i)
    heap = [(-n, _Descending(pair)) for pair, n in counts.items()]
    heapq.heapify(heap)
    merges = []
    while heap and len(merges) < vocab_size - 256:
        negative, entry = heapq.heappop(heap)
        pair = entry.pair
        if counts.get(pair, 0) != -negative:
            continue
        merges.append(pair)
        delta = defaultdict(int)
        for i in where.pop(pair):
            old = words[i]
            new = _joined(old, *pair)
            if len(new) == len(old):
                continue
            for p in zip(old, old[1:]):
                delta[p] -= freqs[i]
            for p in zip(new, new[1:]):
                delta[p] += freqs[i]
                where[p].add(i)
            words[i] = new
        for p, change in delta.items():
            if change:
                counts[p] += change
                if counts[p] > 0:
                    heapq.heappush(heap, (-counts[p], _Descending(p)))
                else:
                    del counts[p]
    return merges
""",
        # a heap keyed by the bytes flipped (255 - b), ints, with 256 after every byte: sorts pairs backwards
        "flipped-keys": _TRAIN.replace("(-count, Largest(pair))", "(-count, _backwards(pair), pair)")
        .replace("(-counts[p], Largest(p))", "(-counts[p], _backwards(p), p)")
        .replace(
            "        negative, entry = heapq.heappop(heap)\n        pair = entry.pair\n",
            "        negative, _, pair = heapq.heappop(heap)\n",
        )
        + """

def _backwards(pair):
    return tuple((*(255 - x for x in part), 256) for part in pair)
""",
    },
    "encode_iterable": {
        # each chunk encoded as tiktoken does: the lowest-ranked pair, leftmost, merged one place at a time
        "one-place-at-a-time": _ENCODE.replace(
            "            while len(symbols) >= 2:\n"
            "                present = [p for p in zip(symbols, symbols[1:]) if p in ranks]\n"
            "                if not present:\n"
            "                    break\n"
            "                a, b = min(present, key=ranks.get)\n"
            "                symbols = merged(symbols, a, b)\n",
            "            while len(symbols) >= 2:\n"
            "                best, at = None, -1\n"
            "                for i in range(len(symbols) - 1):\n"
            "                    rank = ranks.get((symbols[i], symbols[i + 1]))\n"
            "                    if rank is not None and (best is None or rank < best):\n"
            "                        best, at = rank, i\n"
            "                if best is None:\n"
            "                    break\n"
            "                symbols[at : at + 2] = [symbols[at] + symbols[at + 1]]\n",
        ),
        # the same rule, the kept text found from the ends of the chunks (findall and their lengths)
        "by-lengths": _ENCODE.replace(
            "        keep = found[-2].start() if len(found) >= 2 else 0  # the last two chunks may still change\n",
            "        keep = len(last) - len(''.join(m.group() for m in found[-2:])) if len(found) >= 2 else 0\n",
        ),
    },
    "bytes_to_unicode": {
        # one pass over the bytes, the printable ranges written as comparisons
        "ranges-in-one-pass": """
def bytes_to_unicode():
    table, moved = {}, 0
    for b in range(256):
        if 33 <= b <= 126 or 161 <= b <= 172 or 174 <= b <= 255:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + moved)
            moved += 1
    return table
""",
        "gpt2-encoder-py": """
def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(2**8):
        if b not in bs:
            bs.append(b)
            cs.append(2**8 + n)
            n += 1
    return dict(zip(bs, [chr(c) for c in cs]))
""",
    },
    "gpt2_files": {
        # the tokens already made kept in a set of bytes; special tokens added one by one
        "seen-bytes": _TABLE_HERE
        + """
def gpt2_files(merges, special_tokens):
    table = _gpt2_table()
    vocab = {table[i]: i for i in range(256)}
    seen = {bytes([i]) for i in range(256)}
    lines = ["#version: 0.2"]
    for k, (a, b) in enumerate(merges):
        lines.append(" ".join("".join(table[x] for x in token) for token in (a, b)))
        if a + b not in seen:
            seen.add(a + b)
            vocab["".join(table[x] for x in a + b)] = 256 + k
    for token, token_id in special_tokens.items():
        vocab[token] = token_id
    return vocab, lines
""",
        "byte-encoder": _TABLE_HERE
        + """
def gpt2_files(merges, special_tokens):
    encoder = _gpt2_table()
    vocab = {encoder[i]: i for i in range(256)}
    lines = ["#version: 0.2"]
    for k, (a, b) in enumerate(merges):
        left, right = "".join(map(encoder.get, a)), "".join(map(encoder.get, b))
        if left + right not in vocab:
            vocab[left + right] = 256 + k
        lines.append(left + " " + right)
    return {**vocab, **special_tokens}, lines
""",
    },
}

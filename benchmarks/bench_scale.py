#!/usr/bin/env python3
"""Benchmark assignment 06 on the King James Bible: the reference's byte-level trainer and streaming encoder against
Hugging Face tokenizers, subword-nmt, tiktoken and the plain loop.

Run from the repository root, after ``python scripts/get_corpus.py`` (writes ``data/kjv.txt``) and
``pip install subword-nmt tokenizers``::

    python benchmarks/bench_scale.py                       # 10,000 merges; the plain loop on 300 (a few minutes)
    python benchmarks/bench_scale.py --corpus /tmp/kjv.txt --merges 10000 --plain-merges 300 --json out.json

Every run is a fresh subprocess (no shared caches), whose wall time, CPU time (user + sys, all threads) and peak
resident memory (``VmHWM``, interpreter included) are reported. Training is byte-level with GPT-2's split pattern:

* ``bpe_ref train_fast``: :func:`bpe_ref.scale.chunk_counts_file` (one worker) + :func:`bpe_ref.scale.train_fast`;
* ``bpe_ref train_plain``: the same counts through the plain loop, for ``--plain-merges`` merges only; its time is
  given with the fast trainer's on the same counts and merges (a ratio), and extrapolated to ``--merges`` from its
  time per merge (which is flat: it recounts every pair every round);
* ``tokenizers`` (1 and 2 threads, ``RAYON_NUM_THREADS``): ``BpeTrainer`` on the same split (``Split`` with GPT-2's
  pattern, then ``ByteLevel``), ``min_frequency`` 0; its tie-break differs, so the share of equal merges is given;
* ``subword-nmt``: ``learn_bpe`` on the corpus's whitespace-separated words (its own, character-level input; the
  classic baseline, not the same task).

Encoding: the whole corpus with the reference's 10,000 merges, by :func:`bpe_ref.scale.encode_iterable` over the
file's lines and by ``tiktoken.Encoding`` on the same merges as mergeable ranks; the ids must be equal.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DEFAULT_CORPUS = ROOT / "data" / "kjv.txt"


def _peak_kb() -> int:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def _cpu() -> float:
    times = os.times()
    return times.user + times.system


def worker(name: str, corpus: str, merges: int, out: str) -> dict:
    from bpe_ref import scale

    result: dict = {}
    start, cpu = time.perf_counter(), _cpu()
    if name == "fast":
        counts = scale.chunk_counts_file(corpus, scale.GPT2_PATTERN, {}, 1)
        learned = scale.train_fast(counts, 256 + merges)
        Path(out).write_text(json.dumps([[a.hex(), b.hex()] for a, b in learned]))
        result["chunks"] = len(counts)
    elif name in ("plain", "fast-small"):
        counts = scale.chunk_counts_file(corpus, scale.GPT2_PATTERN, {}, 1)
        start, cpu = time.perf_counter(), _cpu()  # the trainer alone: both get the same counts
        trainer = scale.train_plain if name == "plain" else scale.train_fast
        learned = trainer(counts, 256 + merges)
        Path(out).write_text(json.dumps([[a.hex(), b.hex()] for a, b in learned]))
    elif name == "tokenizers":
        from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Split(Regex(scale.GPT2_PATTERN), behavior="isolated"),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        )
        trainer = trainers.BpeTrainer(
            vocab_size=256 + merges, min_frequency=0, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            show_progress=False,
        )  # fmt: skip
        tok.train([corpus], trainer)
        back = {c: b for b, c in scale.bytes_to_unicode().items()}
        model = json.loads(tok.to_str())["model"]
        pairs = [m.split(" ") if isinstance(m, str) else m for m in model["merges"]]
        Path(out).write_text(
            json.dumps([[bytes(back[c] for c in a).hex(), bytes(back[c] for c in b).hex()] for a, b in pairs])
        )
    elif name == "subword-nmt":
        from subword_nmt.learn_bpe import learn_bpe

        with open(corpus, encoding="utf-8") as infile, open(out, "w", encoding="utf-8") as outfile:
            learn_bpe(infile, outfile, merges, min_frequency=2)
    elif name in ("encode", "tiktoken"):
        learned = [(bytes.fromhex(a), bytes.fromhex(b)) for a, b in json.loads(Path(out).read_text())]
        start, cpu = time.perf_counter(), _cpu()
        if name == "encode":
            with open(corpus, encoding="utf-8", newline="") as handle:
                ids = list(scale.encode_iterable(handle, learned, scale.GPT2_PATTERN, {}))
        else:
            import tiktoken

            encoding = tiktoken.Encoding(
                name="kjv",
                pat_str=scale.GPT2_PATTERN,
                mergeable_ranks=scale.mergeable_ranks(learned),
                special_tokens={},
            )
            ids = encoding.encode_ordinary(Path(corpus).read_bytes().decode("utf-8"))
        import zlib

        result["ids"] = len(ids)
        result["crc"] = zlib.crc32(json.dumps(ids).encode())
    result.update(wall=time.perf_counter() - start, cpu=_cpu() - cpu, peak_mb=_peak_kb() / 1024)
    return result


def run(name: str, corpus: Path, merges: int, out: Path, threads: int | None = None) -> dict:
    env = dict(os.environ)
    if threads is not None:
        env["RAYON_NUM_THREADS"] = str(threads)
    command = [
        sys.executable,
        __file__,
        "--worker",
        name,
        "--corpus",
        str(corpus),
        "--merges",
        str(merges),
        "--out",
        str(out),
    ]
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode:
        raise SystemExit(f"{name} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _same_share(first: Path, second: Path) -> float:
    a, b = json.loads(first.read_text()), json.loads(second.read_text())
    same = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return same / max(len(a), 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--merges", type=int, default=10_000)
    parser.add_argument("--plain-merges", type=int, default=300)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--out", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker, str(args.corpus), args.merges, args.out)))
        return 0
    if not args.corpus.exists():
        raise SystemExit(f"no corpus at {args.corpus}: run python scripts/get_corpus.py first")
    folder = Path(os.environ.get("TMPDIR", "/tmp")) / f"bench-scale-{os.getpid()}"
    folder.mkdir(parents=True, exist_ok=True)
    m, p = args.merges, args.plain_merges
    rows = {
        "bpe_ref train_fast": run("fast", args.corpus, m, folder / "fast.json"),
        "tokenizers, 1 thread": run("tokenizers", args.corpus, m, folder / "hf1.json", threads=1),
        "tokenizers, 2 threads": run("tokenizers", args.corpus, m, folder / "hf2.json", threads=2),
        "subword-nmt (words, chars)": run("subword-nmt", args.corpus, m, folder / "snmt.txt"),
        f"bpe_ref train_fast, {p} merges": run("fast-small", args.corpus, p, folder / "fast-small.json"),
        f"bpe_ref train_plain, {p} merges": run("plain", args.corpus, p, folder / "plain.json"),
    }
    plain, small = rows[f"bpe_ref train_plain, {p} merges"], rows[f"bpe_ref train_fast, {p} merges"]
    equal_plain = (folder / "plain.json").read_text() == (folder / "fast-small.json").read_text()
    encode = run("encode", args.corpus, m, folder / "fast.json")
    tik = run("tiktoken", args.corpus, m, folder / "fast.json")
    size = args.corpus.stat().st_size
    chunks = rows["bpe_ref train_fast"]["chunks"]
    print(f"corpus: {args.corpus} ({size:,} bytes), {chunks:,} distinct chunks, GPT-2's pattern")
    print(f"\ntraining, {m:,} merges            wall s    CPU s  peak MB")
    for name, row in rows.items():
        print(f"  {name:34s} {row['wall']:8.2f} {row['cpu']:8.2f} {row['peak_mb']:8.0f}")
    ours, hf2 = rows["bpe_ref train_fast"], rows["tokenizers, 2 threads"]
    print(f"  bpe_ref / tokenizers (2 threads): {ours['wall'] / hf2['wall']:.2f}x its wall time, "
          f"{ours['cpu'] / hf2['cpu']:.2f}x its CPU time")  # fmt: skip
    share = _same_share(folder / "fast.json", folder / "hf1.json")
    print(f"  merges equal to tokenizers' (1 thread) up to the first {share:.0%} (it breaks ties otherwise)")
    per_merge = plain["cpu"] / p
    ratio = plain["cpu"] / max(small["cpu"], 1e-3)
    equal = "equal" if equal_plain else "DIFFERENT"
    print(f"  plain loop: {per_merge * 1000:.0f} ms CPU per merge, {ratio:.0f}x the fast trainer's CPU at {p} merges "
          f"(merges {equal}); about {per_merge * m / 60:.0f} min of CPU for {m:,} merges")  # fmt: skip
    same_ids = "equal" if encode["crc"] == tik["crc"] and encode["ids"] == tik["ids"] else "DIFFERENT"
    print(f"\nencoding the corpus with the {m:,} merges ({encode['ids']:,} ids, {same_ids}):  wall s    CPU s  peak MB")
    for name, row in (("bpe_ref encode_iterable (stream)", encode), ("tiktoken", tik)):
        print(f"  {name:34s} {row['wall']:8.2f} {row['cpu']:8.2f} {row['peak_mb']:8.0f}")
    print(f"  tiktoken: {encode['cpu'] / max(tik['cpu'], 1e-3):.1f}x less CPU than bpe_ref's stream")
    if args.json:
        report = {"rows": rows, "encode": encode, "tiktoken": tik, "equal_plain": equal_plain}
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""Benchmark BPE training and encoding on the King James Bible: bpe_ref vs subword-nmt vs Hugging Face tokenizers.

Run from the repository root, after ``python scripts/get_corpus.py`` (writes ``data/kjv.txt``) and
``pip install subword-nmt tokenizers``::

    python benchmarks/bench_train.py                    # 1,000 and 10,000 merges, 5 runs each (10-25 min)
    python benchmarks/bench_train.py --skip-plain       # without the plain loop (~2 min)
    python benchmarks/bench_train.py --merges 10000 --repeats 5 --json out/bench.json

What is measured (every run in a fresh subprocess, so that runs do not share caches or memory):

* **Training**, from the corpus file to a written codes file, with ``subword-nmt``'s settings: the end-of-word
  marker attached to the last character, ties to the largest pair, ``--min-frequency 2``.

  - ``bpe_ref fast``: :func:`bpe_ref.codes.count_words` + :func:`bpe_ref.fast.train_fast` (pure Python, incremental);
  - ``bpe_ref plain``: the same words through the plain loop :func:`bpe_ref.fast.train_plain` (1,000 merges only,
    or as given by ``--plain-merges``, each run capped by ``--plain-timeout``);
  - ``subword-nmt``: ``subword_nmt.learn_bpe.learn_bpe``, exactly what ``subword-nmt learn-bpe`` runs;
  - ``tokenizers``: ``BpeTrainer(vocab_size=alphabet + merges, min_frequency=2, end_of_word_suffix="</w>")`` with a
    ``WhitespaceSplit`` pre-tokenizer, on all cores (Rust, multi-threaded), and again with ``RAYON_NUM_THREADS=1``.
    Its merges are not compared: it breaks ties between equal counts in no fixed order.

  The time is wall-clock, from reading the corpus to writing the codes (imports excluded); the table gives the
  median and the fastest of ``--repeats`` runs, the CPU time (user + sys, all threads) of the median run, and the
  process's peak resident memory (``VmHWM``: interpreter and libraries included; "+work" is the growth over the
  resident size just before the work started). Runs go round robin (run 1 of every tool, then run 2, ...), so that
  a change of load on the machine falls on every tool alike. The merges of bpe_ref fast, bpe_ref plain and
  subword-nmt are compared line by line.
* **Encoding** the whole corpus (789,634 words) with the 10,000 merges learned by subword-nmt (the largest
  ``--merges`` given), each word segmented by merge rank with a per-word cache: ``bpe_ref.codes.Encoder.apply``,
  ``subword_nmt.apply_bpe.BPE.process_line`` (``subword-nmt apply-bpe``), and ``Tokenizer.encode_batch`` of
  tokenizers on a BPE model built from the same merges. The time covers the segmentation of text already in memory;
  throughput is words per second. bpe_ref's output must equal subword-nmt's byte for byte; tokenizers' subwords are
  compared word by word.

Ratios are computed within one run of this script, so the three tools see the same machine and the same load.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = ROOT / "data" / "kjv.txt"
MIN_FREQUENCY = 2


# ---------------------------------------------------------------------------------------------------------------
# workers: each runs in its own interpreter and prints one JSON line
# ---------------------------------------------------------------------------------------------------------------


def _memory_kb(field: str) -> int:
    """``VmRSS`` (resident now) or ``VmHWM`` (peak resident) of this process, in KB, from ``/proc/self/status``.

    Not ``ru_maxrss``: Linux keeps that across ``execve``, so a child would report its parent's peak.
    """
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def _rss_now_kb() -> int:
    return _memory_kb("VmRSS")


def _finish(start_wall: float, start_cpu: float, rss_before: int, **extra) -> None:
    wall = time.perf_counter() - start_wall
    cpu = time.process_time() - start_cpu
    peak = _memory_kb("VmHWM")
    print(json.dumps({"seconds": wall, "cpu": cpu, "peak_kb": peak, "before_kb": rss_before, **extra}))


def _worker_train(tool: str, corpus: str, merges: int, codes: str, vocab_size: int) -> None:
    if tool in ("fast", "plain"):
        from bpe_ref.codes import count_words, format_codes
        from bpe_ref.fast import train_fast, train_plain

        trainer = train_fast if tool == "fast" else train_plain
        rss, cpu, wall = _rss_now_kb(), time.process_time(), time.perf_counter()
        with open(corpus, "rb") as source:
            words = count_words(source.read().decode("utf-8"))
        learned = trainer(words, merges, "largest", marker="attached", min_frequency=MIN_FREQUENCY)
        with open(codes, "w", encoding="utf-8", newline="\n") as out:
            out.write(format_codes(learned, "attached"))
        _finish(wall, cpu, rss, merges=len(learned))
    elif tool == "subword-nmt":
        import codecs
        import contextlib
        import io

        from subword_nmt.learn_bpe import learn_bpe

        rss, cpu, wall = _rss_now_kb(), time.process_time(), time.perf_counter()
        with codecs.open(corpus, encoding="utf-8") as source, codecs.open(codes, "w", encoding="utf-8") as out:
            with contextlib.redirect_stderr(io.StringIO()):  # its progress bar
                learn_bpe(source, out, merges, MIN_FREQUENCY)
        _finish(wall, cpu, rss, merges=sum(1 for _ in open(codes, encoding="utf-8")) - 1)
    elif tool == "tokenizers":
        from tokenizers import Tokenizer, models, pre_tokenizers, trainers

        rss, cpu, wall = _rss_now_kb(), time.process_time(), time.perf_counter()
        tokenizer = Tokenizer(models.BPE(end_of_word_suffix="</w>"))
        tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
        trainer = trainers.BpeTrainer(
            vocab_size=vocab_size, min_frequency=MIN_FREQUENCY, end_of_word_suffix="</w>", show_progress=False
        )
        tokenizer.train([corpus], trainer)
        learned = json.loads(tokenizer.to_str())["model"]["merges"]
        with open(codes, "w", encoding="utf-8", newline="\n") as out:
            out.write("#version: 0.2\n" + "".join((m if isinstance(m, str) else " ".join(m)) + "\n" for m in learned))
        _finish(wall, cpu, rss, merges=len(learned), threads=os.environ.get("RAYON_NUM_THREADS", "all"))
    else:
        raise SystemExit(f"unknown tool {tool!r}")


def _worker_encode(tool: str, corpus: str, codes: str, output: str) -> None:
    with open(corpus, "rb") as source:
        text = source.read().decode("utf-8")
    lines = text.splitlines(True)
    words = sum(1 for line in lines for word in line.strip("\r\n ").split(" ") if word)
    if tool == "fast":
        from bpe_ref.codes import Encoder, read_codes

        merges, marker = read_codes(codes)
        encoder = Encoder(merges, marker)
        rss, cpu, wall = _rss_now_kb(), time.process_time(), time.perf_counter()
        result = encoder.apply(text)
        _finish(wall, cpu, rss, words=words)
    elif tool == "subword-nmt":
        import codecs

        from subword_nmt.apply_bpe import BPE

        with codecs.open(codes, encoding="utf-8") as source:
            bpe = BPE(source)
        rss, cpu, wall = _rss_now_kb(), time.process_time(), time.perf_counter()
        result = "".join([bpe.process_line(line) for line in lines])
        _finish(wall, cpu, rss, words=words)
    elif tool == "tokenizers":
        from tokenizers import Tokenizer, models, pre_tokenizers

        from bpe_ref.codes import read_codes
        from bpe_ref.fast import word_symbols

        merges, _ = read_codes(codes)
        vocab: dict[str, int] = {}
        for word in {w for line in lines for w in line.split()}:
            for symbol in word_symbols(word, "attached"):
                vocab.setdefault(symbol, len(vocab))
        for a, b in merges:
            vocab.setdefault(a + b, len(vocab))
        tokenizer = Tokenizer(models.BPE(vocab=vocab, merges=merges, end_of_word_suffix="</w>"))
        tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
        rss, cpu, wall = _rss_now_kb(), time.process_time(), time.perf_counter()
        encodings = tokenizer.encode_batch(lines, add_special_tokens=False)
        _finish(wall, cpu, rss, words=words, threads=os.environ.get("RAYON_NUM_THREADS", "all"))
        # the same format as subword-nmt's, for the word-by-word comparison (not timed)
        out_lines = []
        for encoding in encodings:
            segmented = []
            for _, group in itertools.groupby(zip(encoding.word_ids, encoding.tokens), key=lambda item: item[0]):
                piece = [token for _, token in group]
                piece[-1] = piece[-1].removesuffix("</w>")
                segmented.append("@@ ".join(piece))
            out_lines.append(" ".join(segmented))
        result = "\n".join(out_lines) + "\n"
    else:
        raise SystemExit(f"unknown tool {tool!r}")
    with open(output, "w", encoding="utf-8", newline="") as out:
        out.write(result)


# ---------------------------------------------------------------------------------------------------------------
# the driver
# ---------------------------------------------------------------------------------------------------------------


def _run(args: list[str], env_extra: dict[str, str] | None = None, timeout: float | None = None) -> dict | None:
    env = dict(os.environ, **(env_extra or {}))
    try:
        done = subprocess.run(
            [sys.executable, __file__, *args], capture_output=True, text=True, env=env, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return None
    if done.returncode != 0:
        raise RuntimeError(f"worker {args} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _median_run(runs: list[dict]) -> dict:
    ordered = sorted(runs, key=lambda r: r["seconds"])
    return ordered[(len(ordered) - 1) // 2]  # the lower median, a real run


def _normalize(codes: Path) -> list[str]:
    return codes.read_text(encoding="utf-8").splitlines()[1:]


def _fmt_ratio(value: float | None, digits: int = 2) -> str:
    if value is None:
        return "-"
    return f"{value:.{digits}f}x" if value >= 0.1 else f"{value:.2g}x"


def _table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(x)) for x in column) for column in zip(headers, *rows)]
    line = "| " + " | ".join(h.ljust(w) for h, w in zip(headers, widths)) + " |"
    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    body = ["| " + " | ".join(str(c).ljust(w) for c, w in zip(row, widths)) + " |" for row in rows]
    return "\n".join([line, rule, *body])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="default: %(default)s")
    parser.add_argument("--merges", type=int, nargs="+", default=[1000, 10000], help="default: 1000 10000")
    parser.add_argument("--repeats", type=int, default=5, help="runs per measurement (median); default: 5")
    parser.add_argument("--plain-merges", type=int, nargs="*", default=[1000], help="sizes for the plain loop")
    parser.add_argument("--plain-repeats", type=int, default=3, help="default: 3")
    parser.add_argument("--plain-timeout", type=float, default=600.0, help="seconds per plain run; default: 600")
    parser.add_argument("--skip-plain", action="store_true")
    parser.add_argument("--json", type=Path, help="also write every measurement here")
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        kind, *rest = args.worker
        if kind == "train":
            tool, corpus, merges, codes, vocab_size = rest
            _worker_train(tool, corpus, int(merges), codes, int(vocab_size))
        else:
            tool, corpus, codes, output = rest
            _worker_encode(tool, corpus, codes, output)
        return 0

    if not args.corpus.exists():
        raise SystemExit(f"{args.corpus} is missing: run `python scripts/get_corpus.py` first")
    import subword_nmt  # noqa: F401  (fail early with a clear message if missing)
    import tokenizers

    from bpe_ref.codes import count_words
    from bpe_ref.fast import word_symbols

    text = args.corpus.read_text(encoding="utf-8")
    words = count_words(text)
    alphabet = {symbol for word in words for symbol in word_symbols(word, "attached")}
    from importlib.metadata import version

    print(
        f"corpus {args.corpus.name}: {len(text.encode('utf-8')):,} bytes, {sum(words.values()):,} words, "
        f"{len(words):,} distinct, {len(alphabet)} initial symbols (end-of-word marker attached)"
    )
    print(
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs, subword-nmt {version('subword-nmt')}, "
        f"tokenizers {tokenizers.__version__}; load average at start {os.getloadavg()[0]:.2f}"
    )
    print(
        f"training: tie-break largest, --min-frequency {MIN_FREQUENCY}; median of {args.repeats} runs "
        f"(plain loop: {args.plain_repeats}, capped at {args.plain_timeout:.0f} s per run)\n"
    )

    record: dict = {"train": [], "encode": []}
    work = Path(tempfile.mkdtemp(prefix="bench-bpe-"))
    train_rows = []
    targets = []
    codes_for_encoding = None
    for merges in args.merges:
        vocab_size = len(alphabet) + merges
        tools = [("bpe_ref fast", "fast", {}), ("subword-nmt", "subword-nmt", {})]
        if not args.skip_plain and merges in args.plain_merges:
            tools.insert(1, ("bpe_ref plain", "plain", {}))
        tools += [("tokenizers", "tokenizers", {}), ("tokenizers 1 thread", "tokenizers", {"RAYON_NUM_THREADS": "1"})]
        # round robin: run 1 of every tool, then run 2 of every tool, ... so that a change of load on the machine
        # falls on all of them alike
        results: dict[str, list[dict]] = {label: [] for label, _, _ in tools}
        timed_out: set[str] = set()
        for repeat in range(max(args.repeats, args.plain_repeats)):
            for label, tool, env in tools:
                plain = tool == "plain"
                if repeat >= (args.plain_repeats if plain else args.repeats) or label in timed_out:
                    continue
                codes = work / f"{tool}-{merges}-{label.replace(' ', '_')}-{repeat}.codes"
                run = _run(
                    ["--worker", "train", tool, str(args.corpus), str(merges), str(codes), str(vocab_size)],
                    env,
                    args.plain_timeout if plain else None,
                )
                if run is None:
                    timed_out.add(label)
                    continue
                run["codes"] = str(codes)
                results[label].append(run)
                print(f"  {merges:>6} merges  {label:<20} run {repeat + 1}: {run['seconds']:.2f} s", file=sys.stderr)
        for label, _, _ in tools:
            record["train"].append({"merges": merges, "tool": label, "runs": results[label]})
        reference = _normalize(Path(results["subword-nmt"][0]["codes"]))
        snmt = statistics.median(r["seconds"] for r in results["subword-nmt"])
        tok = statistics.median(r["seconds"] for r in results["tokenizers"])
        for label, _, _ in tools:
            runs = results[label]
            if not runs:
                train_rows.append([f"{merges:,}", label, f"> {args.plain_timeout:.0f}"] + ["-"] * 7)
                continue
            median = statistics.median(r["seconds"] for r in runs)
            middle = _median_run(runs)
            same = "-"
            if not label.startswith("tokenizers"):
                same = "yes" if all(_normalize(Path(r["codes"])) == reference for r in runs) else "NO"
            train_rows.append(
                [
                    f"{merges:,}",
                    label,
                    f"{median:.2f}",
                    f"{min(r['seconds'] for r in runs):.2f}",
                    f"{middle['cpu']:.2f}",
                    f"{middle['peak_kb'] / 1024:.0f} (+{(middle['peak_kb'] - middle['before_kb']) / 1024:.0f})",
                    f"{middle['merges']:,}",
                    _fmt_ratio(snmt / median, 1),
                    _fmt_ratio(median / tok),
                    same,
                ]
            )
        fast = statistics.median(r["seconds"] for r in results["bpe_ref fast"])
        one_thread = statistics.median(r["seconds"] for r in results["tokenizers 1 thread"])
        line = (
            f"{merges:,} merges: bpe_ref fast is {snmt / fast:.1f}x faster than subword-nmt and takes "
            f"{fast / tok:.2f}x the time of tokenizers ({fast / one_thread:.2f}x that of tokenizers on 1 thread)"
        )
        if merges == 10000:  # the targets are set at 10,000 merges
            line += (
                f"; targets at 10,000 merges: >= 10x faster than subword-nmt "
                f"{'met' if snmt / fast >= 10 else 'NOT met'}, <= 1.2x tokenizers' time "
                f"{'met' if fast / tok <= 1.2 else 'NOT met'}"
            )
        targets.append(line)
        codes_for_encoding = Path(results["subword-nmt"][0]["codes"])

    print("Training: corpus file -> codes file (seconds, wall clock)")
    headers = ["merges", "trainer", "median s", "best s", "CPU s", "peak RSS MB (+work)", "merges made"]
    headers += ["speed-up vs subword-nmt", "time / tokenizers", "same merges as subword-nmt"]
    print(_table(headers, train_rows))
    print()
    for line in targets:
        print(line)

    # encoding
    print(f"\nEncoding the whole corpus with the {codes_for_encoding and len(_normalize(codes_for_encoding)):,} merges")
    encoders = [
        ("bpe_ref Encoder", "fast", {}),
        ("subword-nmt", "subword-nmt", {}),
        ("tokenizers", "tokenizers", {}),
        ("tokenizers 1 thread", "tokenizers", {"RAYON_NUM_THREADS": "1"}),
    ]
    results = {label: [] for label, _, _ in encoders}
    for repeat in range(args.repeats):
        for label, tool, env in encoders:
            output = work / f"encode-{label.replace(' ', '_')}-{repeat}.txt"
            run = _run(["--worker", "encode", tool, str(args.corpus), str(codes_for_encoding), str(output)], env)
            run["output"] = str(output)
            results[label].append(run)
            print(f"  encode {label:<20} run {repeat + 1}: {run['seconds']:.2f} s", file=sys.stderr)
    for label, _, _ in encoders:
        record["encode"].append({"tool": label, "runs": results[label]})
    snmt_out = Path(results["subword-nmt"][0]["output"]).read_bytes()
    snmt = statistics.median(r["seconds"] for r in results["subword-nmt"])
    tok = statistics.median(r["seconds"] for r in results["tokenizers"])
    rows = []
    for label, _, _ in encoders:
        runs = results[label]
        median = statistics.median(r["seconds"] for r in runs)
        out = Path(runs[0]["output"]).read_bytes()
        if label.startswith("tokenizers"):
            ours, theirs = out.decode().split(), snmt_out.decode().split()
            diff = sum(a != b for a, b in zip(ours, theirs)) + abs(len(ours) - len(theirs))
            same = "same subwords" if diff == 0 else f"{diff:,} tokens differ"
        else:
            same = "identical bytes" if out == snmt_out else "DIFFERENT"
        rows.append(
            [
                label,
                f"{median:.3f}",
                f"{runs[0]['words'] / median:,.0f}",
                f"{_median_run(runs)['cpu']:.3f}",
                _fmt_ratio(snmt / median, 1),
                _fmt_ratio(median / tok),
                same,
            ]
        )
    headers = ["encoder", "median s", "words/s", "CPU s", "speed-up vs subword-nmt", "time / tokenizers"]
    print(_table(headers + ["output vs subword-nmt"], rows))
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(record, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

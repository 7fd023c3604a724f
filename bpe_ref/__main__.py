"""Command line: learn BPE codes from a corpus and apply them, in ``subword-nmt``'s file formats.

Usage::

    python -m bpe_ref train CORPUS --merges N [--tie-break largest|smallest|first]
                                   [--marker separate|attached|none] [--min-frequency K]
                                   [--trainer fast|plain] [-o CODES]
    python -m bpe_ref apply --codes CODES [INPUT] [-o OUTPUT] [--separator @@] [--merges N]

``CORPUS`` / ``INPUT`` may be ``-`` for standard input (the default for ``apply``); ``-o`` defaults to standard
output. Text is read and written as UTF-8, line ends kept as they are.

The defaults of ``train`` are ``subword-nmt``'s: ``--tie-break largest --marker attached --min-frequency 2``; with
them ``python -m bpe_ref train corpus.txt --merges 10000 -o codes`` writes the same file as
``subword-nmt learn-bpe -s 10000 < corpus.txt > codes``, and ``python -m bpe_ref apply --codes codes corpus.txt``
writes the same text as ``subword-nmt apply-bpe -c codes -i corpus.txt``. Words are split on single spaces, one
line at a time; ``--min-frequency K`` stops training when the best pair occurs fewer than K times.
"""

from __future__ import annotations

import argparse
import re
import sys
import time

from . import codes as codes_module
from .core import TIE_BREAKS
from .fast import MARKERS, train_fast, train_plain

_OTHER_WHITESPACE = re.compile(r"[^\S ]")


def _read_text(path: str) -> str:
    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        with open(path, "rb") as source:
            data = source.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SystemExit(f"bpe_ref: error: {path!r} is not UTF-8 text: {error}") from None


def _write_text(path: str, text: str) -> None:
    data = text.encode("utf-8")
    if path == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        with open(path, "wb") as out:
            out.write(data)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _non_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bpe_ref",
        description="Learn and apply byte-pair encoding codes (subword-nmt's codes file and output formats).",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    train = commands.add_parser("train", help="learn merges from a corpus and write a codes file")
    train.add_argument("corpus", help="UTF-8 text, words separated by spaces; '-' for standard input")
    train.add_argument(
        "--merges", "-s", type=_non_negative, required=True, metavar="N", help="the number of merges to learn"
    )
    train.add_argument("--tie-break", choices=TIE_BREAKS, default="largest", help="default: %(default)s")
    train.add_argument("--marker", choices=MARKERS, default="attached", help="end-of-word marker; default: %(default)s")
    train.add_argument(
        "--min-frequency",
        type=_positive,
        default=2,
        metavar="K",
        help="stop when the best pair occurs fewer than this many times; default: %(default)s",
    )
    train.add_argument(
        "--trainer",
        choices=("fast", "plain"),
        default="fast",
        help="the incremental trainer (default) or the plain reference loop (slow; for checking)",
    )
    train.add_argument("-o", "--output", default="-", metavar="CODES", help="the codes file; default: standard output")
    train.add_argument("-v", "--verbose", action="store_true", help="report counts and timing on standard error")

    apply = commands.add_parser("apply", help="segment text with a codes file")
    apply.add_argument("input", nargs="?", default="-", help="UTF-8 text; default: standard input")
    apply.add_argument("--codes", "-c", required=True, help="a codes file written by `train` or subword-nmt")
    apply.add_argument("-o", "--output", default="-", help="default: standard output")
    apply.add_argument("--separator", "-s", default=codes_module.SEPARATOR, help="default: %(default)s")
    apply.add_argument(
        "--merges", "-m", type=_non_negative, metavar="N", help="use only the first N merges of the codes file"
    )
    return parser


def _train(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    words = codes_module.count_words(_read_text(args.corpus))
    if not words:
        raise SystemExit(f"bpe_ref: error: the corpus {args.corpus!r} holds no words")
    counted = time.perf_counter()
    trainer = train_fast if args.trainer == "fast" else train_plain
    merges = trainer(words, args.merges, args.tie_break, marker=args.marker, min_frequency=args.min_frequency)
    trained = time.perf_counter()
    _write_text(args.output, codes_module.format_codes(merges, args.marker))
    odd = sum(1 for word in words if _OTHER_WHITESPACE.search(word))
    if odd:
        print(
            f"bpe_ref: note: {odd} words hold whitespace other than ' ' (tabs ...); subword-nmt learn-bpe treats "
            "those inconsistently, so its merges may differ on this corpus",
            file=sys.stderr,
        )
    if len(merges) < args.merges:
        print(
            f"bpe_ref: learned {len(merges)} of {args.merges} merges: no pair occurs >= {args.min_frequency} times",
            file=sys.stderr,
        )
    if args.verbose:
        print(
            f"bpe_ref: {sum(words.values())} words, {len(words)} distinct; counting {counted - start:.3f} s, "
            f"training ({args.trainer}) {trained - counted:.3f} s",
            file=sys.stderr,
        )
    return 0


def _apply(args: argparse.Namespace) -> int:
    try:
        merges, marker = codes_module.read_codes(args.codes)
    except (OSError, ValueError, UnicodeDecodeError) as error:
        raise SystemExit(f"bpe_ref: error: cannot read the codes file {args.codes!r}: {error}") from None
    if args.merges is not None:
        merges = merges[: args.merges]
    encoder = codes_module.Encoder(merges, marker, args.separator)
    _write_text(args.output, encoder.apply(_read_text(args.input)))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return _train(args) if args.command == "train" else _apply(args)
    except FileNotFoundError as error:
        raise SystemExit(f"bpe_ref: error: {error.strerror}: {error.filename!r}") from None


if __name__ == "__main__":
    raise SystemExit(main())

"""``python -m tests.mutants``: grade every mutant and correct alternative through nbgrader and print the table.

Options: ``--jobs N`` (default 2), ``--out DIR`` (default: a temporary folder), ``--in-process`` (no nbgrader:
seconds instead of minutes), ``--only STUDENT ...`` (e.g. ``m-merge-no-skip m-encode-by-rank``),
``--seeds S ...``: judge in process under each seed (``autograder.cases.SEED = S``) and with the fixed cases alone, and
print the table mutants x seeds. Exit status 0 when every rule holds (see :mod:`tests.mutants.harness`).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
from pathlib import Path

from . import harness


@contextlib.contextmanager
def _stdout_to_stderr():
    """Send file descriptor 1 to stderr meanwhile: the grading kernels inherit it and print their banners there."""
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.mutants", description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--in-process", action="store_true", help="judge in process only, without nbgrader")
    parser.add_argument("--only", nargs="+", default=None, metavar="STUDENT")
    parser.add_argument("--seeds", nargs="+", type=int, default=None, metavar="SEED")
    args = parser.parse_args(argv)
    if args.seeds:
        matrix = harness.run_matrix([harness.FIXED, *args.seeds], only=args.only)
        print(matrix.text())
        return 0 if matrix.ok else 1
    with tempfile.TemporaryDirectory(prefix="mutants-") as scratch, _stdout_to_stderr():
        out = args.out or Path(scratch)
        report = harness.run(out, jobs=args.jobs, only=args.only, nbgrader=not args.in_process)
    print(report.text())
    return 1 if report.problems else 0


if __name__ == "__main__":
    sys.exit(main())

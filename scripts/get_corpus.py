#!/usr/bin/env python3
"""Write the King James Bible (public domain, ~4.1 MB) as plain text, one verse per line, from Debian's packages.

The text comes from Debian's ``bible-kjv-text`` package (``/usr/lib/bible.data``, the Bible Retrieval System's own
compressed format) and is decoded by the ``bible`` program of the ``bible-kjv`` package, so no web download is needed:

* if ``bible-kjv`` is installed (``apt-get install bible-kjv``), its ``/usr/bin/bible`` and ``/usr/lib/bible.data``
  are used;
* otherwise the two ``.deb`` files are fetched with ``apt-get download bible-kjv bible-kjv-text`` (no root needed,
  but the apt lists must be present: run ``apt-get update`` once) and unpacked with ``dpkg-deb -x`` into a temporary
  directory. The unpacked program needs ``libreadline8``, which most Debian systems have.

``bible -f Gen1:1-Rev22:21`` prints one verse per line with its reference first (``Ge1:1 In the beginning ...``);
the reference is dropped. The result has 31,102 lines and 789,634 space-separated words.

Usage (from the repository root)::

    python scripts/get_corpus.py                      # writes data/kjv.txt (ignored by git)
    python scripts/get_corpus.py -o /tmp/kjv.txt
    python scripts/get_corpus.py --excerpt data/kjv_genesis.txt   # also the book of Genesis (~197 KB)

The committed test excerpt ``data/kjv_genesis.txt`` is exactly what ``--excerpt`` writes.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUTPUT = ROOT / "data" / "kjv.txt"
PACKAGES = ("bible-kjv", "bible-kjv-text")
WHOLE_BIBLE = "Gen1:1-Rev22:21"
VERSES = 31102
REFERENCE = re.compile(r"^([1-3]?[A-Za-z]+)(\d+):(\d+) ")
# sha256 of the plain text made from bible-kjv-text 4.38 (Debian 12 / 13); another version may differ slightly
KNOWN_SHA256 = "b5c4940bcfeee072c0935b5200d0f9d88a00a0199cb0961d16133458fcdfae5d"


def _run_bible(program: Path, data_dir: Path) -> str:
    result = subprocess.run(
        [str(program), "-f", "-p", str(data_dir), WHOLE_BIBLE],
        check=True,
        capture_output=True,
    )
    return result.stdout.decode("utf-8")


def dump_bible() -> str:
    """The raw output of ``bible -f Gen1:1-Rev22:21``, from the installed package or from unpacked ``.deb`` files."""
    installed = shutil.which("bible")
    if installed and Path("/usr/lib/bible.data").exists():
        return _run_bible(Path(installed), Path("/usr/lib"))
    for tool in ("apt-get", "dpkg-deb"):
        if shutil.which(tool) is None:
            sys.exit(f"error: {tool} not found: this script needs Debian's apt (or an installed bible-kjv package)")
    with tempfile.TemporaryDirectory(prefix="kjv-") as tmp:
        work = Path(tmp)
        fetched = subprocess.run(["apt-get", "download", *PACKAGES], cwd=work, capture_output=True, text=True)
        if fetched.returncode != 0:
            sys.exit(
                "error: `apt-get download bible-kjv bible-kjv-text` failed; run `apt-get update` first "
                f"(or `apt-get install bible-kjv`).\n{fetched.stderr.strip()}"
            )
        root = work / "root"
        for deb in sorted(work.glob("*.deb")):
            subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
        try:
            return _run_bible(root / "usr" / "bin" / "bible", root / "usr" / "lib")
        except (OSError, subprocess.CalledProcessError) as error:
            sys.exit(f"error: could not run the unpacked `bible` program ({error}); try `apt-get install bible-kjv`")


def verses(raw: str) -> list[tuple[str, str]]:
    """Split ``bible -f`` output into ``(book, verse text)`` pairs, checking every line has a reference."""
    out = []
    for number, line in enumerate(raw.splitlines(), 1):
        match = REFERENCE.match(line)
        if not match:
            raise ValueError(f"line {number} of the bible output has no verse reference: {line[:60]!r}")
        out.append((match.group(1), line[match.end() :]))
    if len(out) != VERSES:
        raise ValueError(f"expected {VERSES} verses, got {len(out)}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", type=Path, default=DEFAULT_OUTPUT, help="default: %(default)s")
    parser.add_argument("--excerpt", type=Path, help="also write the book of Genesis (~197 KB) to this path")
    args = parser.parse_args(argv)

    text = verses(dump_bible())
    whole = "".join(verse + "\n" for _, verse in text)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(whole, encoding="utf-8", newline="\n")
    digest = hashlib.sha256(whole.encode("utf-8")).hexdigest()
    print(f"wrote {args.output}: {len(text)} verses, {len(whole.encode('utf-8'))} bytes, sha256 {digest}")
    if digest != KNOWN_SHA256:
        print(f"note: this differs from the text of bible-kjv-text 4.38 (sha256 {KNOWN_SHA256})", file=sys.stderr)
    if args.excerpt:
        genesis = "".join(verse + "\n" for book, verse in text if book == "Ge")
        args.excerpt.parent.mkdir(parents=True, exist_ok=True)
        args.excerpt.write_text(genesis, encoding="utf-8", newline="\n")
        print(f"wrote {args.excerpt}: the book of Genesis, {len(genesis.encode('utf-8'))} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

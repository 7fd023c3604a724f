"""The expected answers of the public cases, shipped as data: what :func:`bpe_lab.selfcheck.check` compares with.

One gzip-compressed JSON file per graded function, ``data/expected/<function>.json.gz``, written by the grader
(``python -m autograder release``, :mod:`autograder.checks.public_cases`, from the reference) and read here. For each
part of the function's checks, in the order the notebook's hidden tests run them: the judge by name and parameters
(:func:`bpe_lab.harness.make_judge`), the adapter by name, and the cases run with the course's public seed, one per
input, smallest first, each with its arguments, note, size and expected answer. Values go through
:mod:`bpe_lab.codec` (read with :func:`bpe_lab.codec.loads`, so no other object of the file has one key that is a
tag). An expected answer is ``{"value": ...}``, ``{"raised": "ValueError"}`` (the function must
raise it) or ``{"described": "..."}`` (an answer of a kind, not one value: any merge table on which rank and
replay disagree). A pattern the checks show by its name (``GPT4_PATTERN``) is listed under ``"named"`` and shown by
that name again.

Example:
    >>> data = dump("f", [PublicPart("basic", ("pair", {}), None, [Case(("ab",), "", 2)], {"('ab',)": ("a", "b")})])
    >>> load_bytes(data)[0].answers
    {"('ab',)": ('a', 'b')}
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .codec import loads, pack
from .harness import Case, Described, Named, Raised

FOLDER = Path(__file__).resolve().parent / "data" / "expected"
"""Where the files are, in the installed package."""

SUFFIX = ".json.gz"


@dataclass(frozen=True)
class PublicPart:
    """One part of a function's checks as data: ``answers`` maps ``repr(case.args)`` to the expected answer."""

    part: str
    judge: tuple[str, Mapping[str, Any]]
    adapter: str | None
    cases: list[Case]
    answers: dict[str, Any]


def path_of(function: str, folder: Path | None = None) -> Path:
    """The file of ``function``'s expected answers (in :data:`FOLDER` unless ``folder`` is given)."""
    return (folder or FOLDER) / f"{function}{SUFFIX}"


def _answer_data(value: Any) -> dict[str, Any]:
    if isinstance(value, Raised):
        return {"raised": "ValueError"}
    if isinstance(value, Described):
        return {"described": value.text}
    return {"value": pack(value)}


def _answer(data: Mapping[str, Any]) -> Any:
    if "raised" in data:
        return Raised(ValueError(""))
    if "described" in data:
        return Described(str(data["described"]))
    return data["value"]  # decoded by codec.loads as it was read


def to_json(function: str, parts: list[PublicPart]) -> dict[str, Any]:
    """The JSON object of ``function``'s file (the answers of each case looked up by ``repr`` of its arguments)."""
    named = {a.name: str(a) for p in parts for c in p.cases for a in c.args if isinstance(a, Named)}
    for key in [*named, *(k for p in parts for k in p.judge[1])]:  # no one-key object may look like a tag
        if key in ("t", "d", "s", "b", "F"):
            raise ValueError(f"{key!r} cannot name a pattern or a judge's parameter: it is one of the codec's tags")
    return {
        "function": function,
        "named": dict(sorted(named.items())),
        "parts": [
            {
                "part": p.part,
                "judge": [p.judge[0], dict(p.judge[1])],
                "adapter": p.adapter,
                "cases": [
                    {
                        "args": pack(c.args),
                        "note": c.note,
                        "size": c.size,
                        "expected": _answer_data(p.answers[repr(c.args)]),
                    }
                    for c in p.cases
                ],
            }
            for p in parts
        ],
    }


def dump(function: str, parts: list[PublicPart]) -> bytes:
    """The gzip-compressed JSON of :func:`to_json`, the same bytes for the same data (no time stamp inside)."""
    text = json.dumps(to_json(function, parts), ensure_ascii=False, separators=(",", ":"))
    return gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)


def read_json(path: Path) -> dict[str, Any]:
    """The JSON object of a file written by :func:`dump`."""
    return json.loads(gzip.decompress(path.read_bytes()).decode("utf-8"))


def _parts_of(data: Mapping[str, Any]) -> list[PublicPart]:
    named = {text: Named(text, name) for name, text in data["named"].items()}
    parts = []
    for entry in data["parts"]:
        cases, answers = [], {}
        for item in entry["cases"]:
            args = tuple(named.get(a, a) if type(a) is str else a for a in item["args"])
            cases.append(Case(args, item["note"], item["size"]))
            answers[repr(args)] = _answer(item["expected"])
        judge = (entry["judge"][0], entry["judge"][1])
        parts.append(PublicPart(entry["part"], judge, entry["adapter"], cases, answers))
    return parts


def load_bytes(data: bytes) -> list[PublicPart]:
    """The parts of the data :func:`dump` made."""
    return _parts_of(loads(gzip.decompress(data).decode("utf-8")))


def load(function: str, folder: Path | None = None) -> list[PublicPart]:
    """The parts of ``function``'s checks with their public cases and expected answers, in the order they run.

    Raises:
        FileNotFoundError: no data for ``function`` (a toolkit installed without its data, or an unknown name).
    """
    path = path_of(function, folder)
    if not path.exists():
        raise FileNotFoundError(f"no expected answers for {function} at {path} (reinstall bpe_lab with its data)")
    return load_bytes(path.read_bytes())

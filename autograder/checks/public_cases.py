"""Write the expected answers of the public cases into ``bpe_lab/data/expected/``, for the learner's ``check``.

For every graded function and every part its hidden tests run (:data:`bpe_lab.selfcheck.HIDDEN_CHECKS`), the
cases of its :class:`~autograder.checks.spec.Spec` with the course's public seed, as the check runs them (one per input,
smallest first), with the reference's answer. ``python -m autograder release`` calls :func:`write`, and
``release --check`` reports the files that differ from a fresh :func:`build` (:func:`stale`).
"""

from __future__ import annotations

import copy
import tempfile
from pathlib import Path

from bpe_lab import expected
from bpe_lab.harness import ADAPTERS, ordered_cases
from bpe_lab.selfcheck import HIDDEN_CHECKS

from . import SPECS, cases
from .spec import ALL, Spec

FOLDER = Path("bpe_lab") / "data" / "expected"
"""The folder of the files, in the course's repository."""


def parts_of(spec: Spec, parts: list[str]) -> list[expected.PublicPart]:
    """The public cases of ``parts`` of ``spec`` with the reference's answers (the public seed, all cases)."""
    saved = cases.SEED, cases.FIXED_ONLY
    cases.SEED, cases.FIXED_ONLY = cases.PUBLIC_SEED, False
    try:
        out = []
        for part in parts:
            reference = spec.reference_of(part)
            if spec.adapter is not None:
                reference = ADAPTERS[spec.adapter](reference)
            chosen = ordered_cases(spec.parts[part].cases())
            answers = {repr(c.args): reference(*copy.deepcopy(c.args)) for c in chosen}
            out.append(expected.PublicPart(part, spec.judge_of(part), spec.adapter, chosen, answers))
        return out
    finally:
        cases.SEED, cases.FIXED_ONLY = saved


def build() -> dict[str, bytes]:
    """Every graded function's file name and bytes (:func:`bpe_lab.expected.dump`)."""
    files = {}
    for function, calls in HIDDEN_CHECKS.items():
        parts = [part[0] if part else ALL for _, part in calls]
        parts = [part for part in parts if part not in SPECS[function].measured]  # a measurement has no cases
        files[expected.path_of(function, Path(".")).name] = expected.dump(function, parts_of(SPECS[function], parts))
    return files


def write(course_root: Path) -> list[Path]:
    """Write every file into ``course_root/bpe_lab/data/expected/`` (old files of the folder are removed)."""
    folder = course_root / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    files = build()
    for old in folder.glob(f"*{expected.SUFFIX}"):
        if old.name not in files:
            old.unlink()
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return [folder / name for name in files]


def stale(course_root: Path) -> list[str]:
    """The files of ``bpe_lab/data/expected/`` that differ from a fresh :func:`build` (missing, extra or changed).

    The JSON inside is compared, not the compressed bytes (another zlib may compress the same text differently).
    """
    folder = course_root / FOLDER
    with tempfile.TemporaryDirectory(prefix="bpe-expected-") as tmp:
        fresh = Path(tmp)
        for name, data in build().items():
            (fresh / name).write_bytes(data)
        names = {p.name for p in fresh.iterdir()} | {p.name for p in folder.glob(f"*{expected.SUFFIX}")}
        problems = []
        for name in sorted(names):
            if not (folder / name).exists():
                problems.append(f"{FOLDER / name} is missing")
            elif not (fresh / name).exists():
                problems.append(f"{FOLDER / name} is not made by release")
            elif expected.read_json(fresh / name) != expected.read_json(folder / name):
                problems.append(f"{FOLDER / name} is stale")
        return problems

"""``release``: generate the student notebooks of ``notebooks/`` from ``solutions/`` with nbgrader.

nbgrader's ``generate_assignment`` replaces each solution by a stub, removes the hidden tests, locks the
read-only cells and records checksums. The result is then normalised (no outputs, no execution counts,
sorted JSON as nbformat writes it) so that a second release changes nothing, and ``release --check`` can
tell whether the committed ``notebooks/`` are stale. The release also writes the data the learner's toolkit ships,
and ``--check`` compares it too: the chart traces (``bpe_lab/data/traces/``, from :mod:`bpe_ref.traces`) and the
expected answers of the public cases that the learner's ``check`` reads (``bpe_lab/data/expected/``,
:mod:`autograder.checks.public_cases`), and the drill's problem pages and model solutions
(:mod:`autograder.course.problems`); and it holds the source notebooks and the learner's list of checks to the
checks' specs (:mod:`autograder.course.contract`).
"""

from __future__ import annotations

import filecmp
import shutil
import tempfile
from pathlib import Path

import nbformat

from ..checks import public_cases
from . import contract
from . import problems as drill_problems
from .directory import CourseError, Workspace, assignments

TRACES = Path("bpe_lab") / "data" / "traces"
"""Where the course keeps the charts' traces, relative to the course directory."""


def normalise(path: Path) -> None:
    """Strip outputs and execution counts from a notebook in place (what nbstripout does)."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        cell.metadata.pop("execution", None)
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, path)


def generate(course_root: Path, out: Path, only: list[str] | None = None, *, traces: bool = True) -> list[str]:
    """Generate the release version of the assignments into ``out/<assignment>/``, and the learner's toolkit's data.

    Args:
        course_root: the course directory (with ``solutions/``).
        out: the folder to write into; each assignment's folder is replaced.
        only: the assignment ids to release; default all.
        traces: also write the data ``bpe_lab`` ships, in ``course_root``: the charts' traces
            (``bpe_lab/data/traces/``, :func:`bpe_ref.traces.write`) and the expected answers of the public cases
            (``bpe_lab/data/expected/``, :func:`autograder.checks.public_cases.write`).

    Returns:
        The assignment ids released.

    Raises:
        CourseError: an unknown assignment, or nbgrader failed (its log is in the message).
    """
    known = assignments(course_root)
    chosen = only or known
    for name in chosen:
        if name not in known:
            raise CourseError(f"unknown assignment {name!r}; the course has {', '.join(known)}")
    with tempfile.TemporaryDirectory(prefix="bpe-release-") as tmp:
        workspace = Workspace.create(course_root, Path(tmp))
        api = workspace.api()
        for name in chosen:
            result = api.generate_assignment(name, force=True, create=True)
            if not result["success"]:
                raise CourseError(f"nbgrader generate_assignment {name} failed:\n{result.get('log', '')}")
            released = Path(tmp) / "release" / name
            for notebook in released.rglob("*.ipynb"):
                normalise(notebook)
            target = out / name
            if target.exists():
                shutil.rmtree(target)
            shutil.copytree(released, target)
    if traces:
        from bpe_ref import traces as chart_traces  # the reference: only the grader's install has it

        chart_traces.write(course_root / TRACES)
        public_cases.write(course_root)
        if not only or set(only) == set(known):  # the drill's pages and model solutions span every assignment
            drill_problems.write(course_root, out)
    return list(chosen)


def stale(course_root: Path, only: list[str] | None = None) -> list[str]:
    """The files of ``notebooks/`` and of the learner's toolkit's data that differ from a fresh release, as
    sentences."""
    from bpe_ref import traces as chart_traces

    with tempfile.TemporaryDirectory(prefix="bpe-release-check-") as tmp:
        names = generate(course_root, Path(tmp), only, traces=False)
        problems: list[str] = []
        for name in names:
            fresh, committed = Path(tmp) / name, course_root / "notebooks" / name
            fresh_files = {p.relative_to(fresh) for p in fresh.rglob("*") if p.is_file()}
            committed_files = (
                {p.relative_to(committed) for p in committed.rglob("*") if p.is_file()} if committed.exists() else set()
            )
            for rel in sorted(fresh_files | committed_files):
                if rel not in committed_files:
                    problems.append(f"notebooks/{name}/{rel} is missing")
                elif rel not in fresh_files:
                    problems.append(f"notebooks/{name}/{rel} is not in the release")
                elif not filecmp.cmp(fresh / rel, committed / rel, shallow=False):
                    problems.append(f"notebooks/{name}/{rel} is stale")
        if set(names) == set(assignments(course_root)):  # the drill's pages and model solutions, from every one
            problems += drill_problems.stale(course_root, Path(tmp))
            problems += contract.problems(course_root)  # the notebooks and the learner's list agree with the specs
        # the data the learner's toolkit ships: the charts' traces and the expected answers its check reads
        return problems + chart_traces.stale(course_root / TRACES) + public_cases.stale(course_root)

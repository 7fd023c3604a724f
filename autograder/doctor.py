"""Examine a submission before grading: repair what can be repaired, and say in one line per problem what was found.

nbgrader grades a well-formed notebook; students hand in whatever their editor wrote. :func:`examine` reads
the file and returns a notebook nbgrader can grade together with a list of :class:`Problem` lines for the
instructor's report and the student's feedback:

* not UTF-8 (decoded as Windows-1252), corrupt JSON (not gradable), an old nbformat (converted to 4);
* a renamed notebook; cells whose nbgrader metadata was stripped (matched back to the source by the function
  they define) or comes from another notebook (removed); duplicated ``grade_id`` s (a copy-pasted cell: the
  last copy counts, as nbgrader does); a graded or solution cell whose type was changed (restored); a
  deleted test cell (nbgrader puts it back);
* integrity: code that imports or reaches ``bpe_ref`` or ``autograder``, patches the checks, or reads or
  writes files, named with its cell and line.

A folder holding several notebooks (the untouched original beside ``-Copy1``) is graded by one rule, :func:`choose`:
the notebook with work in the most solution cells, and a note says which was graded and which were not.
"""

from __future__ import annotations

import ast
import copy
import json
import re
import stat
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat

from bpe_lab import cells

from .inert import markdown_text

GRADER_MODULES = ("bpe_ref", "autograder")
FLAGS = ("grade", "solution", "locked", "points", "task")
"""The nbgrader flags of a cell that only the instructor's notebook decides."""
MAX_BYTES = 20 * 1024**2
"""A submission larger than this (20 MiB) is not read: the course's notebooks are a few hundred KB."""


@dataclass(frozen=True)
class Problem:
    """One finding: ``kind`` is ``"repaired"``, ``"fatal"``, ``"integrity"``, ``"choice"`` (which of several notebooks
    was graded, :func:`choose`) or ``"timestamp"``; ``text`` is one line."""

    kind: str
    text: str

    def __str__(self) -> str:
        return f"[{self.kind}] {self.text}"


def _decode(raw: bytes, problems: list[Problem]) -> str:
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
        problems.append(Problem("repaired", "the file starts with a byte-order mark: removed"))
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.append(Problem("repaired", f"the file is not UTF-8 (byte {exc.start}): read as Windows-1252 instead"))
        return raw.decode("cp1252", errors="replace")


def _defined_functions(source: str) -> set[str]:
    # [ \t]*, not \s*: \s would also eat newlines, and a cell of blank lines would take quadratic time
    return set(re.findall(r"^[ \t]*def[ \t]+([A-Za-z_]\w*)[ \t]*\(", source, re.M))


def examine(path: Path, source_path: Path, expected_name: str | None = None):
    """Read and repair the submission at ``path`` against its source notebook.

    Args:
        path: the submitted notebook.
        source_path: the instructor's source notebook of the assignment (with solutions and hidden tests).
        expected_name: the file name nbgrader expects (``<assignment>.ipynb``).

    Returns:
        ``(notebook, problems)``: a ``NotebookNode`` ready for nbgrader, or ``None`` when the file cannot be
        graded (then ``problems`` holds a ``"fatal"`` line saying why).

    Example:
        >>> nb, problems = examine(Path("alice.ipynb"), Path("solutions/01/01.ipynb"))  # doctest: +SKIP
    """
    nb, problems = read(path, expected_name)
    if nb is None:
        return None, problems
    try:
        return nb, [*problems, *repair(nb, nbformat.read(source_path, 4))]
    except Exception as exc:  # a malformed notebook nbformat accepted but our repairs choke on
        return None, [*problems, Problem("fatal", f"{path.name} has a malformed cell ({type(exc).__name__}: {exc})")]


def read(path: Path, expected_name: str | None = None):
    """The file-level half of :func:`examine`: read ``path`` as a notebook, repairing its bytes and format.

    Returns:
        ``(notebook, problems)``, the notebook ``None`` when the file cannot be graded (a ``"fatal"`` problem).
    """
    problems: list[Problem] = []
    try:
        info = path.lstat()
    except OSError as exc:
        return None, [Problem("fatal", f"{path.name} cannot be read: {exc.strerror or exc}")]
    if path.is_symlink() or not stat.S_ISREG(info.st_mode):
        return None, [Problem("fatal", f"{path.name} is not a regular file (a symbolic link, a pipe...): not graded")]
    if info.st_size > MAX_BYTES:
        return None, [Problem("fatal", f"{path.name} is {info.st_size:,} bytes, over the {MAX_BYTES:,}-byte limit")]
    try:
        return _read(path, expected_name, problems)
    except Exception as exc:  # a malformed notebook nbformat accepted
        return None, [*problems, Problem("fatal", f"{path.name} has a malformed cell ({type(exc).__name__}: {exc})")]


def repair(nb, source) -> list[Problem]:
    """The cell-level half of :func:`examine`: repair ``nb``'s cells against the ``source`` notebook (in place)
    and scan it for integrity problems. Returns the problems found."""
    problems: list[Problem] = []
    _repair_cells(nb, source, problems)
    _bound(nb, problems)
    problems += scan_integrity(nb, source)
    return problems


def writable(node: object) -> object:
    r"""``node`` (a string, or lists and dicts of them, changed in place) with every string encodable as UTF-8.

    Student code can put text that is not (a lone surrogate such as ``"\ud800"``, from an error's message, a print,
    ``errors="surrogateescape"``) into outputs; written as it is, the whole notebook fails to save and every cell
    loses its points. Such a character is written as its escape instead.

    Example:
        >>> writable(["ok", {"evalue": "bad \ud800 text"}])
        ['ok', {'evalue': 'bad \\ud800 text'}]
    """
    if isinstance(node, str):
        try:
            node.encode("utf-8")
        except UnicodeEncodeError:
            return node.encode("utf-8", "backslashreplace").decode("utf-8")
        return node
    if isinstance(node, dict):
        for key, value in node.items():
            node[key] = writable(value)
    elif isinstance(node, list):
        node[:] = [writable(value) for value in node]
    return node


def _read(path: Path, expected_name: str | None, problems: list[Problem]):
    if expected_name and path.name != expected_name:
        problems.append(Problem("repaired", f"the notebook was named {path.name!r}: graded as {expected_name!r}"))
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return None, [Problem("fatal", f"{path.name} cannot be read: {exc.strerror or exc}")]
    if not raw.strip():
        return None, [*problems, Problem("fatal", f"{path.name} is empty")]
    text = _decode(raw, problems)
    try:
        data = json.loads(text)
    except ValueError as exc:
        return None, [*problems, Problem("fatal", f"{path.name} is not valid JSON ({exc})")]
    if not isinstance(data, dict) or "cells" not in data and "worksheets" not in data:
        return None, [*problems, Problem("fatal", f"{path.name} is JSON but not a notebook")]
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:  # "\ud800" in the JSON: a lone surrogate, which no notebook can be written with
        data = writable(data)
        problems.append(Problem("repaired", "the file holds text that is not Unicode (a lone surrogate): escaped"))
    except (ValueError, RecursionError):
        pass  # nbformat says what is wrong below
    version = data.get("nbformat")
    try:
        nb = nbformat.reads(json.dumps(data), as_version=4)
    except Exception as exc:  # nbformat raises many kinds
        return None, [*problems, Problem("fatal", f"{path.name} is not a readable notebook ({exc})")]
    if isinstance(version, int) and version < 4:
        problems.append(Problem("repaired", f"the notebook is in nbformat {version}: converted to nbformat 4"))
    return nb, problems


MAX_CANDIDATES = 20
"""Notebooks of one submission's folder that :func:`choose` reads (the expected one and the newest by name order);
the rest are not read, and a note counts them: a hostile submission may hold thousands."""
STUB_MARKERS = ("raise NotImplementedError()", "YOUR ANSWER HERE")
"""What nbgrader's release puts in a solution cell (``nbgrader_config.py``'s ``ClearSolutions`` stubs): a cell
still holding one has no work in it, where the release notebook is not at hand to compare with."""


def _normalized(source: str) -> str:
    return "\n".join(line.rstrip() for line in source.strip().splitlines())


def release_stubs(release: Any) -> dict[str, str]:
    r"""The solution cells of a release notebook: ``grade_id`` -> its stub, as :func:`work_in` compares it.

    Example:
        >>> stub = nbformat.v4.new_code_cell("def f():\n    raise NotImplementedError()")
        >>> stub.metadata["nbgrader"] = {"grade_id": "f", "solution": True}
        >>> release_stubs(nbformat.v4.new_notebook(cells=[stub]))
        {'f': 'def f():\n    raise NotImplementedError()'}
    """
    return {cells.grade_id(c): _normalized(cells.source(c)) for c in release.cells if cells.is_solution(c)
            and cells.grade_id(c)}  # fmt: skip


def work_in(nb: Any, stubs: Mapping[str, str] | None = None) -> int:
    r"""How many solution cells of ``nb`` hold the student's work: cells found by ``metadata.nbgrader.grade_id`` whose
    source differs from the release's stub (``stubs``, from :func:`release_stubs`; the last copy of a duplicated
    ``grade_id`` counts, as in nbgrader). Which ids are solution cells is the release's word, not the file's; without
    ``stubs``, the file's own solution cells count when they hold no :data:`STUB_MARKERS`.

    Example:
        >>> cell = nbformat.v4.new_code_cell("def f():\n    return 1")
        >>> cell.metadata["nbgrader"] = {"grade_id": "f", "solution": True}
        >>> work_in(nbformat.v4.new_notebook(cells=[cell]), {"f": "def f():\n    raise NotImplementedError()"})
        1
    """
    latest: dict[str, str] = {}
    for cell in nb.cells:
        grade_id = cells.grade_id(cell)
        if grade_id and (stubs is not None or cells.is_solution(cell)):
            latest[grade_id] = _normalized(cells.source(cell))
    if stubs is None:
        return sum(1 for text in latest.values() if not any(m in text for m in STUB_MARKERS))
    return sum(1 for grade_id, stub in stubs.items() if grade_id in latest and latest[grade_id] != stub)


@dataclass(frozen=True)
class Choice:
    """What :func:`choose` decided: the notebook graded, read and repaired at file level, and what to say about it."""

    path: Path
    """The notebook graded."""
    notebook: Any
    """It, read (a ``NotebookNode``), or ``None`` when it cannot be graded (``problems`` says why)."""
    problems: list[Problem] = field(default_factory=list)
    """Its file-level problems (:func:`read`) and, when there were several notebooks, the ``"choice"`` notes."""
    considered: tuple[Path, ...] = ()
    """Every notebook read to choose, the graded one included."""
    skipped: tuple[Path, ...] = ()
    """Notebooks over :data:`MAX_CANDIDATES`, not read."""


def name_order(path: Path) -> tuple:
    """The sort key of "newest by name order": numbers in a name compare as numbers (``x-Copy10`` after ``x-Copy9``).

    Example:
        >>> [p.name for p in sorted([Path("a-Copy10.ipynb"), Path("a-Copy9.ipynb")], key=name_order)]
        ['a-Copy9.ipynb', 'a-Copy10.ipynb']
    """
    parts = re.split(r"(\d+)", path.name)  # text, number, text, ...: the kinds alternate, so they always compare
    return tuple(int(part) if index % 2 else part for index, part in enumerate(parts)), path.name


def _shown(path: Path) -> str:
    name = path.name if len(path.name) <= 60 else path.name[:57] + "..."
    return repr(name)


def _work_text(work: int) -> str:
    if work < 0:
        return "not readable"
    return "untouched" if work == 0 else f"work in {work} solution cell{'s' if work != 1 else ''}"


def choose(
    paths: Sequence[Path],
    expected_name: str,
    stubs: Mapping[str, str] | None = None,
    limit: int = MAX_CANDIDATES,
) -> Choice:
    """The notebook to grade among those of one submission's folder, by the one rule both ways of grading use.

    The rule: the notebook with work in the most solution cells wins (:func:`work_in`: a solution cell, known by
    its ``grade_id``, whose source differs from the release's stub; a file that cannot be read ranks below an
    untouched one); ties go to the expected name, then to the newest by name order (:func:`name_order`). At most
    ``limit`` notebooks are read, each within :func:`read`'s limits (:data:`MAX_BYTES`): the expected one and the
    newest others by name order; the rest are noted, not read. With more than one notebook, a ``"choice"`` problem
    says which was graded and which were not, and why.

    Args:
        paths: the notebooks of the folder (at least one).
        expected_name: the file name the gradebook expects (``<assignment>.ipynb``).
        stubs: the release's solution cells (:func:`release_stubs`), or ``None`` where the release is not at hand.
        limit: how many notebooks are read at most.

    Returns:
        A :class:`Choice`; its ``notebook`` is ``None`` when the chosen file cannot be graded (a ``"fatal"`` problem).

    Raises:
        ValueError: ``paths`` is empty.

    Example:
        >>> chosen = choose([Path("01/01.ipynb"), Path("01/01-Copy1.ipynb")], "01.ipynb", stubs)  # doctest: +SKIP
        >>> chosen.path.name, chosen.problems[-1].text  # doctest: +SKIP
        ('01-Copy1.ipynb', "2 notebooks handed in: graded '01-Copy1.ipynb' (work in 2 solution cells), ignored ...")
    """
    if not paths:
        raise ValueError("no notebook to choose from")
    ordered = sorted(paths, key=name_order, reverse=True)  # newest first
    expected = [p for p in ordered if p.name == expected_name][:1]
    others = [p for p in ordered if p not in expected]
    considered = expected + others[: max(limit - len(expected), 0)]
    skipped = tuple(others[len(considered) - len(expected) :])
    best: tuple | None = None
    chosen: tuple[Path, Any, list[Problem]] | None = None
    work: dict[Path, int] = {}
    for path in considered:
        nb, problems = read(path, expected_name)
        work[path] = work_in(nb, stubs) if nb is not None else -1
        key = (work[path], path.name == expected_name, name_order(path))
        if best is None or key > best:
            best, chosen = key, (path, nb, problems)
    assert chosen is not None
    path, nb, problems = chosen
    problems = list(problems)
    if len(paths) > 1:
        ignored = [p for p in considered if p != path]
        listed = ", ".join(f"{_shown(p)} ({_work_text(work[p])})" for p in ignored[:3])
        more = f" and {len(ignored) - 3} more" if len(ignored) > 3 else ""
        text = f"{len(paths)} notebooks handed in: graded {_shown(path)} ({_work_text(work[path])})"
        problems.append(Problem("choice", f"{text}, ignored {listed}{more}" if ignored else text))
    if skipped:
        names = ", ".join(_shown(p) for p in skipped[:3]) + (" ..." if len(skipped) > 3 else "")
        problems.append(Problem("choice", f"{len(skipped)} more notebooks were not read (over the limit of {limit} "
                                          f"looked at): {names}"))  # fmt: skip
    return Choice(path, nb, problems, tuple(considered), skipped)


MAX_ATTACHMENT_BYTES = 1024**2
"""Attachments (images pasted into markdown) kept per notebook; the rest are dropped."""
MAX_TEXT_CELL_CHARS = 100_000
"""Characters kept of a markdown or raw cell (the course's answers are a few lines)."""
MAX_METADATA_CHARS = 10_000
"""Characters of metadata kept per cell, and for the notebook (beyond what Jupyter and nbgrader need)."""
MAX_CELLS = 300
"""Cells kept of a submission (the course's notebooks have under 40): past it, cells of the student's own (without
nbgrader metadata) are dropped from the end; the course's cells are always kept."""
MAX_CODE_CELL_CHARS = 100_000
"""Characters of one code cell: a longer one is not run (it raises, saying why), so it costs only its own points."""
MAX_SOURCE_CHARS = 1_000_000
"""Characters of all the cells together; a cell of the student's own past it is emptied (the course's keep theirs)."""
NOTEBOOK_METADATA = ("kernelspec", "language_info")
CELL_METADATA = ("nbgrader", "tags", "deletable", "editable", "collapsed", "scrolled", "jupyter", "trusted")


def _size(value) -> int:
    return len(json.dumps(value, default=str))


def _bound(nb, problems: list[Problem]) -> None:
    """Cut what a submission carries into the graded notebook and the feedback beyond its code: notebook and cell
    metadata (widget state...), attachments, huge markdown; and clear the outputs it brought (grading makes them)."""
    dropped = {k: v for k, v in nb.metadata.items() if k not in NOTEBOOK_METADATA}
    nb.metadata = nbformat.NotebookNode({k: v for k, v in nb.metadata.items() if k in NOTEBOOK_METADATA})
    if _size(nb.metadata) > MAX_METADATA_CHARS:
        nb.metadata = nbformat.NotebookNode()
    if dropped and _size(dropped) > MAX_METADATA_CHARS:
        problems.append(Problem("repaired", f"notebook metadata ({', '.join(sorted(dropped))[:80]}) dropped"))
    _bound_cells(nb, problems)
    attachment_bytes = 0
    for number, cell in enumerate(nb.cells, 1):
        extra = {k: v for k, v in cell.metadata.items() if k not in CELL_METADATA}
        kept = {k: v for k, v in cell.metadata.items() if k in CELL_METADATA}
        if _size(kept) > MAX_METADATA_CHARS:
            kept = {"nbgrader": kept["nbgrader"]} if "nbgrader" in kept and _size(kept["nbgrader"]) < 2_000 else {}
            extra["(oversized)"] = True
        cell.metadata = nbformat.NotebookNode(kept)
        if extra and _size(extra) > MAX_METADATA_CHARS:
            problems.append(Problem("repaired", f"cell {number}: {_size(extra):,} characters of metadata dropped"))
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
        if "attachments" in cell:
            size = _size(cell.attachments)
            if attachment_bytes + size > MAX_ATTACHMENT_BYTES:
                del cell["attachments"]
                cell.source = cell.source.replace("attachment:", "dropped-attachment:")  # no dangling reference
                text = f"cell {number}: attachments of {size:,} bytes dropped (too large)"
                problems.append(Problem("repaired", text))
            else:
                attachment_bytes += size
        if cell.cell_type != "code" and len(cell.source) > MAX_TEXT_CELL_CHARS:
            problems.append(Problem("repaired", f"cell {number}: {len(cell.source):,} characters of text cut short"))
            cell.source = cell.source[:MAX_TEXT_CELL_CHARS] + "\n\n[... cut by the grader ...]"


def _bound_cells(nb, problems: list[Problem]) -> None:
    """The number of cells and the size of their sources within :data:`MAX_CELLS`, :data:`MAX_CODE_CELL_CHARS`
    and :data:`MAX_SOURCE_CHARS`; what is cut costs the student only (a note says what)."""
    if len(nb.cells) > MAX_CELLS:
        room = MAX_CELLS - sum(1 for c in nb.cells if cells.meta(c).get("grade_id"))
        kept = []
        for cell in nb.cells:
            if cells.meta(cell).get("grade_id") or room > 0:
                room -= 0 if cells.meta(cell).get("grade_id") else 1
                kept.append(cell)
        problems.append(Problem("repaired", f"{len(nb.cells):,} cells, over the limit of {MAX_CELLS}: "
                                f"{len(nb.cells) - len(kept):,} of the student's own cells dropped"))  # fmt: skip
        nb.cells = kept
    total, emptied = 0, 0
    for number, cell in enumerate(nb.cells, 1):
        source = cell.source if isinstance(cell.source, str) else "".join(cell.source)
        if cell.cell_type == "code" and len(source) > MAX_CODE_CELL_CHARS:
            problems.append(Problem("repaired", f"cell {number}: {len(source):,} characters of code, over the limit "
                                    f"of {MAX_CODE_CELL_CHARS:,}: not run"))  # fmt: skip
            source = f"raise RuntimeError('this cell has {len(source):,} characters, over the grader\\'s limit')"
        total += len(source)
        if total > MAX_SOURCE_CHARS and not cells.meta(cell).get("grade_id"):
            total -= len(source)
            source, emptied = "", emptied + 1
        cell.source = source
    if emptied:
        problems.append(Problem("repaired", f"the notebook's cells hold over {MAX_SOURCE_CHARS:,} characters: "
                                f"{emptied:,} of the student's own cells emptied"))  # fmt: skip


def _repair_cells(nb, source, problems: list[Problem]) -> None:
    source_cells = {cells.meta(c)["grade_id"]: c for c in source.cells if cells.meta(c).get("grade_id")}
    seen: dict[str, int] = {}
    for cell in nb.cells:
        grade_id = cells.meta(cell).get("grade_id")
        if "nbgrader" in cell.get("metadata", {}) and not isinstance(cell.metadata.nbgrader, dict):
            cell.metadata.pop("nbgrader")
            problems.append(Problem("repaired", "a cell's nbgrader metadata was not a dictionary: removed"))
        elif cells.meta(cell) and not grade_id:
            problems.append(Problem("repaired", "a cell has nbgrader metadata without a grade_id: removed"))
            cell.metadata.pop("nbgrader", None)
        elif grade_id and grade_id not in source_cells:
            problems.append(Problem("repaired", f"a cell has nbgrader metadata {grade_id!r} from another notebook"))
            cell.metadata.pop("nbgrader", None)
        elif grade_id:
            seen[grade_id] = seen.get(grade_id, 0) + 1
    last_copy = {cells.meta(c).get("grade_id"): i for i, c in enumerate(nb.cells) if cells.meta(c).get("grade_id")}
    for index, cell in enumerate(nb.cells):
        grade_id = cells.meta(cell).get("grade_id")
        if grade_id and last_copy[grade_id] != index:
            cell.metadata.pop("nbgrader", None)  # an earlier copy runs as plain code, as in Python
    for cell in nb.cells:  # flags (grade, solution, locked, points...) are the instructor's, whatever the file says
        grade_id = cells.meta(cell).get("grade_id")
        if grade_id in source_cells:
            wanted = cells.meta(source_cells[grade_id])
            changed = [k for k in FLAGS if cells.meta(cell).get(k) != wanted.get(k)]
            if changed:
                for key in changed:
                    if key in wanted:
                        cell.metadata["nbgrader"][key] = copy.deepcopy(wanted[key])
                    else:
                        cell.metadata["nbgrader"].pop(key, None)
                text = f"cell {grade_id!r} had its nbgrader {', '.join(changed)} changed: restored"
                problems.append(Problem("repaired", text))
    for grade_id, count in seen.items():
        if count > 1:
            problems.append(
                Problem("repaired", f"cell {grade_id!r} appears {count} times (copy-pasted?): the last copy is graded")
            )
    # Solution cells whose metadata was stripped: find the student's cell defining the same function.
    for grade_id, src in source_cells.items():
        meta = cells.meta(src)
        if grade_id in seen or not cells.is_solution(src) or src.cell_type != "code":
            continue
        defines = _defined_functions(src.source) or {grade_id}
        for cell in nb.cells:
            if cell.cell_type == "code" and not cells.meta(cell) and defines & _defined_functions(cell.source):
                cell.metadata["nbgrader"] = copy.deepcopy(dict(meta))
                problems.append(
                    Problem("repaired", f"the cell defining {sorted(defines)[0]}() had lost its nbgrader metadata")
                )
                seen[grade_id] = 1
                break
        else:
            problems.append(Problem("repaired", f"solution cell {grade_id!r} is missing: graded as unanswered"))
    for grade_id, src in source_cells.items():
        if cells.is_test(src) and grade_id not in seen:
            problems.append(Problem("repaired", f"test cell {grade_id!r} was deleted: put back and graded"))
    for cell in nb.cells:
        grade_id = cells.meta(cell).get("grade_id")
        src = source_cells.get(grade_id)
        if src is not None and cell.cell_type != src.cell_type and (cells.is_graded(src) or cells.is_solution(src)):
            problems.append(
                Problem("repaired", f"cell {grade_id!r} was changed to {cell.cell_type}: restored as {src.cell_type}")
            )


_READERS = {"open", "read_text", "read_bytes", "write_text", "write_bytes", "listdir", "scandir", "walk", "glob",
            "rglob", "iterdir", "system", "popen", "connect"}  # fmt: skip
_RISKY_MODULES = {"subprocess", "sqlite3", "shutil", "ctypes", "socket", "importlib", "inspect", "gc"}


def scan_integrity(nb, source=None) -> list[Problem]:
    """Integrity flags for the student's code cells: imports or reaches the graders, patches checks, touches files.

    Args:
        nb: the submission.
        source: the instructor's notebook. Only cells that are test or locked cells *there* are skipped (nbgrader
            puts their source back); what a submission's own metadata says is not trusted. Without it, the
            submission's test and locked cells are skipped. A flag the instructor's own solution of a cell raises
            is what the exercise asks for (06's ``chunk_counts_file`` opens its file): not raised for that cell
            (flags are notes for the reviewer; the sandbox is what keeps student code away from the course).

    Example:
        >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import autograder.checks as c")])
        >>> [p.text for p in scan_integrity(nb)]
        ['cell 1, line 1: imports autograder.checks']
    """
    replaced = None
    expected: dict[str, set[str]] = {}
    if source is not None:
        replaced = {
            cells.grade_id(c) for c in source.cells if cells.grade_id(c) and (cells.is_locked(c) or cells.is_test(c))
        }
        expected = {
            cells.grade_id(c): set(_cell_flags(c.source))
            for c in source.cells
            if c.cell_type == "code" and cells.grade_id(c) and cells.is_solution(c)
        }
    found: list[Problem] = []
    for number, cell in enumerate(nb.cells, 1):
        meta = cells.meta(cell)
        if cell.cell_type != "code":
            continue
        if replaced is not None and meta.get("grade_id") in replaced:
            continue  # nbgrader puts the instructor's source back before grading
        if replaced is None and (cells.is_test(cell) or cells.is_locked(cell)):
            continue
        name = f"cell {meta['grade_id']!r}" if meta.get("grade_id") else f"cell {number}"
        try:
            tree = ast.parse(python_of(cell.source))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            found.append(Problem("integrity", f"{name}: cannot be read as Python, so it was not checked"))
            continue
        asked = expected.get(meta.get("grade_id", ""), set())  # what the exercise's own solution does
        for node in ast.walk(tree):
            line = getattr(node, "lineno", 0)
            for text in _flags(node):
                if text not in asked:
                    found.append(Problem("integrity", f"{name}, line {line}: {text}"))
    return found


def _cell_flags(source: str) -> list[str]:
    """The flags of a cell's code (none for code that is not Python)."""
    try:
        tree = ast.parse(python_of(source))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    return [text for node in ast.walk(tree) for text in _flags(node)]


_MAGIC = re.compile(r"(\s*)(?:[%!]|[\w.]+\s*=\s*[%!]|\?{1,2}[\w.]+\s*$|[\w.]+\?{1,2}\s*$)")
"""A line of IPython syntax: ``%magic``, ``!shell``, ``x = %magic``, ``x = !shell``, ``?help``, ``obj??``."""
_RUN_BODY = {"time", "timeit", "capture", "prun"}


def _statement_starts(lines: list[str]):
    """For each line, whether it starts a statement: not inside brackets, a string, or after a backslash.

    A small scanner of brackets, quotes and comments, linear in the text; lines of IPython syntax are skipped
    (they are not Python).
    """
    depth, quote, continued = 0, "", False
    for line in lines:
        starts = depth == 0 and not quote and not continued
        yield starts
        if starts and _MAGIC.match(line):
            continue
        i, n = 0, len(line)
        while i < n:
            c = line[i]
            if quote:
                if c == "\\":
                    i += 2
                    continue
                if line.startswith(quote, i):
                    i, quote = i + len(quote), ""
                    continue
            elif c == "#":
                break
            elif c in "\"'":
                quote = line[i : i + 3] if line[i : i + 3] in ('"""', "'''") else c
                i += len(quote) - 1
            elif c in "([{":
                depth += 1
            elif c in ")]}":
                depth = max(0, depth - 1)
            i += 1
        if quote in ('"', "'") and not line.endswith("\\"):
            quote = ""  # a one-line string left open: a syntax error Python reports, not a continuation
        continued = not quote and line.rstrip().endswith("\\")


def python_of(source: str) -> str:
    r"""A cell's source as plain Python: each line of IPython syntax becomes ``pass`` (same indentation, same line
    numbers); a cell magic runs its body (``%%time``) or becomes ``pass`` (``%%bash``). Linear in the source's
    length, whatever it holds (IPython's own translation can take minutes on a long cell full of magics).

    Example:
        >>> python_of("%matplotlib inline\nfor w in words:\n    !echo {w}\nx = 1")
        'pass\nfor w in words:\n    pass\nx = 1'
        >>> python_of("%%bash\nls -l")
        'pass\n'
    """
    lines = source.split("\n")
    first = lines[0].strip()
    if first.startswith("%%"):
        if first[2:].split(" ")[0] not in _RUN_BODY:
            return "pass" + "\n" * (len(lines) - 1)
        lines[0] = ""
    out = []
    for line, starts in zip(lines, _statement_starts(lines)):
        match = _MAGIC.match(line) if starts else None  # "!= x" continuing a bracket is Python, not a shell escape
        out.append(match.group(1) + "pass" if match else line)
    return "\n".join(out)


def _flags(node: ast.AST) -> list[str]:
    flags = []
    if isinstance(node, ast.Import):
        for alias in node.names:
            top = alias.name.split(".")[0]
            if top in GRADER_MODULES:
                flags.append(f"imports {alias.name}")
            elif top in _RISKY_MODULES:
                flags.append(f"imports {alias.name}")
    elif isinstance(node, ast.ImportFrom) and node.module:
        top = node.module.split(".")[0]
        if top in GRADER_MODULES or top in _RISKY_MODULES:
            flags.append(f"imports from {node.module}")
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
        if any(re.search(rf"\b{m}\b", node.value) for m in GRADER_MODULES):
            flags.append(f"names a grader module in a string ({node.value[:40]!r})")
        if re.search(r"gradebook|solutions/|\.ipynb\b|submitted/|autograded/", node.value):
            flags.append(f"names a course file ({node.value[:40]!r})")
    elif isinstance(node, ast.Call):
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if called in _READERS:
            flags.append(f"calls {called}() (files, processes or databases)")
        builtin = isinstance(func, ast.Name)  # regex.compile(...) is no compile()
        if called in {"setattr", "import_module"} or (
            builtin and called in {"__import__", "exec", "eval", "compile", "globals"}
        ):
            flags.append(f"calls {called}()")
    elif isinstance(node, (ast.Assign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            text = ast.unparse(target)
            if isinstance(target, ast.Attribute) and re.search(r"check|harness|bpe_ref|autograder|sys\.modules", text):
                flags.append(f"assigns {text} (patching the graders?)")
            elif isinstance(target, ast.Subscript) and "sys.modules" in text:
                flags.append(f"assigns {text}")
    elif isinstance(node, ast.Attribute) and ast.unparse(node) in {"sys.modules", "builtins.__import__"}:
        flags.append(f"uses {ast.unparse(node)}")
    return flags


REPORT_METADATA = "bpe_course_doctor"
"""The metadata key of :func:`report_cell` that keeps each problem's kind for the class report."""


MAX_NOTES = 30
"""The most problems the notes of one submission list (:func:`bounded`): a submission can make thousands (a cell
with a foreign ``grade_id`` each), and the notes reach the formgrader, the feedback, ``grades.csv`` and the terminal."""
SEVERITY = ("fatal", "timestamp", "choice", "integrity", "repaired")
"""The order the notes list problems in, the gravest first: one that decides the grade (a fatal problem, a timestamp
the late penalty uses, which of several notebooks was graded) is never left out."""


def bounded(problems: list[Problem], limit: int = MAX_NOTES) -> list[Problem]:
    """``problems`` in :data:`SEVERITY` order (stable within a kind), at most ``limit`` of them: past that, the
    first ``limit - 1`` and one line that counts the rest, of the gravest kind left out.

    Example:
        >>> found = [Problem("repaired", f"cell {i} repaired") for i in range(5)] + [Problem("timestamp", "late")]
        >>> [str(p) for p in bounded(found, 3)]
        ['[timestamp] late', '[repaired] cell 0 repaired', '[repaired] and 4 more problems: 4 repaired']
    """
    rank = {kind: i for i, kind in enumerate(SEVERITY)}
    ordered = sorted(problems, key=lambda p: rank.get(p.kind, len(rank)))
    if len(ordered) <= limit:
        return ordered
    kept, left = ordered[: limit - 1], ordered[limit - 1 :]
    counts = Counter(p.kind for p in left)
    kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items(), key=lambda kv: rank.get(kv[0], len(rank))))
    return [*kept, Problem(left[0].kind, f"and {len(left)} more problems: {kinds}")]


def report_cell(problems: list[Problem]):
    """A markdown cell for the top of the graded notebook, so the student's feedback lists the problems.

    Its metadata (``REPORT_METADATA``) keeps the problems it lists with their kinds, for
    :mod:`autograder.reports.report`: at most :data:`MAX_NOTES`, the gravest first (:func:`bounded`). Each line is
    escaped (:func:`autograder.inert.markdown_text`): a problem quotes names the student chose.
    """
    problems = bounded(problems)
    lines = ["**Notes from the grader about this submission**", ""]
    lines += [f"- {markdown_text(p.text)}" for p in problems]  # a quoted file name renders as its characters
    cell = nbformat.v4.new_markdown_cell("\n".join(lines))
    cell.metadata[REPORT_METADATA] = {"problems": [{"kind": p.kind, "text": p.text} for p in problems]}
    return cell


def noted_problems(nb) -> list[Problem]:
    """The problems :func:`report_cell` noted at the top of a graded notebook (``[]`` when there is no such cell)."""
    if nb is None or not nb.cells or nb.cells[0].get("cell_type") != "markdown":
        return []
    stored = nb.cells[0].get("metadata", {}).get(REPORT_METADATA, {})
    found = stored.get("problems", []) if isinstance(stored, dict) else []
    if not isinstance(found, list):
        return []
    listed = [p for p in found[:MAX_NOTES] if isinstance(p, dict)]  # a forged cell may list any number
    return [Problem(str(p.get("kind", "")), str(p.get("text", ""))[:500]) for p in listed]

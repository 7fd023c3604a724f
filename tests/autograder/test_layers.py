"""The dependency rules of :mod:`autograder` (the table in its docstring), read from every import of every module.

Each module of ``autograder/`` is parsed with :mod:`ast`; every ``import`` and ``from ... import`` counts, at the top
of a module or inside a function (a lazy import is still a dependency). A module belongs to its room: the first
folder under ``autograder/`` (``autograder.isolation.judge`` is in ``isolation``), or, for a module at the top, its
own name (``doctor``, ``cli``, ``__main__``); the package itself is ``autograder``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import autograder

PACKAGE = Path(autograder.__file__).resolve().parent

ALLOWED: dict[str, set[str]] = {
    "autograder": {"checks"},  # the package re-exports the checks, lazily
    "checks": set(),
    "inert": set(),
    "formgrader_csp": {"inert"},
    "doctor": {"inert"},
    "isolation": {"doctor", "inert"},
    "course": {"checks", "doctor", "isolation", "inert"},
    "preprocessors": {"checks", "doctor", "isolation", "course", "inert", "formgrader_csp"},
    "reports": {"checks", "doctor", "course", "inert"},
    "cli": {"checks", "doctor", "isolation", "course", "preprocessors", "reports", "inert"},
    "__main__": {"cli"},
}
"""Which rooms each room may import, besides its own and the package itself (``import autograder``)."""

NEVER_REACHES: dict[str, set[str]] = {"reports": {"isolation"}}
"""Rooms that may not reach another even through what they import: a report needs no sandbox."""


def module_name(path: Path, root: Path) -> str:
    """``autograder/isolation/judge.py`` -> ``autograder.isolation.judge``; a package is its ``__init__``."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def room(module: str) -> str:
    """The room of a module of the package: ``autograder.course.sample_class.tie_breaks`` -> ``course``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def imports_of(path: Path, module: str, is_package: bool) -> list[tuple[str, int]]:
    """Every module of the package that ``path`` imports, with the line, wherever the import statement stands.

    ``from . import x`` names ``x`` as a module when it is one (``from autograder.course import grading``); else the
    package it is taken from.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    top = module.split(".")[0]
    base = module.split(".") if is_package else module.split(".")[:-1]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names if alias.name.split(".")[0] == top]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = base[: len(base) - node.level + 1]
                target = ".".join([*anchor, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            if target.split(".")[0] != top:
                continue
            found += [(f"{target}.{alias.name}", node.lineno) for alias in node.names]
    return found


def graph(root: Path) -> dict[str, list[tuple[str, int]]]:
    """Every module of the package at ``root`` with the modules (or packages) of the package it imports."""
    modules = {}
    for path in sorted(root.rglob("*.py")):
        name = module_name(path, root)
        modules[name] = (path, path.name == "__init__.py")
    edges: dict[str, list[tuple[str, int]]] = {}
    for name, (path, is_package) in modules.items():
        resolved = []
        for target, line in imports_of(path, name, is_package):
            while target not in modules and "." in target:  # `from pkg import function`: the module is pkg
                target = target.rsplit(".", 1)[0]
            resolved.append((target, line))
        edges[name] = resolved
    return edges


def violations(root: Path, allowed: dict[str, set[str]], never_reaches: dict[str, set[str]] | None = None) -> list[str]:
    """Every import of the package at ``root`` that breaks ``allowed`` or ``never_reaches``, and every cycle between
    rooms, one line each naming the module, its line and the edge."""
    edges = graph(root)
    top = root.name
    problems = []
    rooms: dict[str, set[str]] = {}
    for module, targets in edges.items():
        source = room(module)
        for target, line in targets:
            dest = room(target)
            if target == top or dest == source:
                continue  # the package itself (a module locating its folder), or its own room
            rooms.setdefault(source, set()).add(dest)
            if dest not in allowed.get(source, set()):
                problems.append(f"{module} (line {line}) imports {target}: {source} -> {dest} is not allowed")
    for source, forbidden in (never_reaches or {}).items():
        for module in [m for m in edges if room(m) == source]:
            path = _reach(module, edges, lambda m, rooms=forbidden: room(m) in rooms)
            if path:
                problems.append(f"{module} reaches {room(path[-1])} through {' -> '.join(path)}")
    cycle = _room_cycle(rooms)
    if cycle:
        problems.append(f"the rooms import each other in a circle: {' -> '.join(cycle)}")
    return problems


def _reach(start: str, edges: dict[str, list[tuple[str, int]]], bad) -> list[str] | None:
    """The import chain from ``start`` to the first module for which ``bad`` holds, importing a module's parent
    packages with it (``import a.b.c`` runs ``a/__init__`` and ``a/b/__init__``), or ``None``."""
    seen, stack = {start}, [[start]]
    while stack:
        path = stack.pop()
        for target, _ in edges.get(path[-1], []):
            parts = target.split(".")
            for chain in [".".join(parts[:i]) for i in range(2, len(parts) + 1)]:
                if chain in seen or chain not in edges:
                    continue
                seen.add(chain)
                if bad(chain):
                    return [*path, chain]
                stack.append([*path, chain])
    return None


def _room_cycle(rooms: dict[str, set[str]]) -> list[str] | None:
    """A circle in the graph of rooms (``['a', 'b', 'a']``), or ``None``."""
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(rooms.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt] if nxt in path else [*path, nxt]
            if not state.get(nxt):
                found = visit(nxt, [*path, nxt])
                if found:
                    return found
        state[node] = 2
        return None

    for node in sorted(rooms):
        if not state.get(node):
            found = visit(node, [node])
            if found:
                return found
    return None


# ---------------------------------------------------------------------------------------------------------------
# the course's grader
# ---------------------------------------------------------------------------------------------------------------


def test_every_import_of_the_grader_keeps_the_dependency_rules():
    problems = violations(PACKAGE, ALLOWED, NEVER_REACHES)
    assert not problems, "forbidden imports (see the table in autograder/__init__.py):\n" + "\n".join(problems)


def test_every_room_of_the_grader_has_a_rule_and_is_seen():
    rooms = {room(m) for m in graph(PACKAGE)}
    assert rooms == set(ALLOWED), "a room without a rule (or a rule without a room): add it to ALLOWED"
    imported = {t for targets in graph(PACKAGE).values() for t, _ in targets}
    assert "autograder.isolation.sandbox" in imported and "autograder.course.directory" in imported  # sees imports


def test_the_rules_are_the_table_of_the_packages_docstring():
    lines = [line.split() for line in autograder.__doc__.splitlines()]
    header = next(words for words in lines if words[:2] == ["imports", "->"])[2:]
    table = {w[0]: {header[i] for i, mark in enumerate(w[1:]) if mark == "x"} for w in lines if w and w[0] in ALLOWED}
    assert table == {name: rule for name, rule in ALLOWED.items() if name not in ("autograder", "__main__")}


# ---------------------------------------------------------------------------------------------------------------
# the checker itself, on a tiny package of its own
# ---------------------------------------------------------------------------------------------------------------


def _package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for folder in [root / "pkg", *{p.parent for p in (root / "pkg").rglob("*.py")}]:
        (folder / "__init__.py").touch()
    return root / "pkg"


RULES = {"pkg": set(), "low": set(), "high": {"low"}, "top": {"high", "low"}}


def test_the_checker_accepts_a_tree_that_keeps_the_rules(tmp_path):
    root = _package(
        tmp_path,
        {"low/a.py": "import os\n", "high/b.py": "from ..low import a\n", "top/c.py": "from pkg.high.b import x\n"},
    )
    assert violations(root, RULES) == []


def test_the_checker_names_the_module_the_line_and_the_edge_of_an_import_inside_a_function(tmp_path):
    root = _package(
        tmp_path, {"low/a.py": "def f():\n    from ..high import b\n", "high/b.py": "from ..low import a\n"}
    )
    assert violations(root, RULES) == [
        "pkg.low.a (line 2) imports pkg.high.b: low -> high is not allowed",
        "the rooms import each other in a circle: high -> low -> high",
    ]


def test_the_checker_finds_a_circle_the_rules_would_allow(tmp_path):
    root = _package(tmp_path, {"low/a.py": "import pkg.high.b\n", "high/b.py": "from pkg.low import a\n"})
    assert violations(root, {"low": {"high"}, "high": {"low"}})[-1].startswith("the rooms import each other")


def test_the_checker_follows_imports_through_other_rooms_for_a_room_that_must_never_reach_one(tmp_path):
    root = _package(
        tmp_path, {"low/a.py": "", "high/b.py": "from ..low import a\n", "top/c.py": "from ..high import b\n"}
    )
    assert violations(root, RULES) == []
    assert violations(root, RULES, {"top": {"low"}}) == [
        "pkg.top.c reaches low through pkg.top.c -> pkg.high.b -> pkg.low"
    ]


@pytest.mark.parametrize("statement", ["import pkg.high.b", "from pkg.high import b", "from pkg import high"])
def test_every_spelling_of_an_import_is_an_edge(tmp_path, statement):
    root = _package(tmp_path, {"low/a.py": f"{statement}\n", "high/b.py": ""})
    assert [p.split(":")[1].strip() for p in violations(root, RULES)] == ["low -> high is not allowed"]

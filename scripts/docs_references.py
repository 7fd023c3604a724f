"""A MkDocs hook (``mkdocs.yml``: ``hooks``): every file, folder and module the docs and the README name exists.

MkDocs itself checks the links between pages and their anchors (``validation`` in ``mkdocs.yml``), but the docs
name the course's code mostly as inline code, not as links: ``autograder/cli.py``, ``bpe_lab.traces.Round``. When a
module moves, those names go stale without a word. This hook warns about each one that no longer exists, so
``mkdocs build --strict`` (``scripts/test.sh`` runs it) fails on it, naming the page and the name:

* a repository path: an inline code span whose first part is one of :data:`ROOTS` (``autograder/sandbox.py``,
  ``benchmarks/``, ``nbgrader_config.py``) must be a file or folder of the checkout; spans with placeholders
  (``solutions/<assignment>/``), wildcards or spaces are examples, not paths, and are left alone; in a file map,
  an item nested under an item that names a folder (``* `autograder/` ...`` then ``  * `cli.py` ...``) names a
  path inside that folder;
* a module name: a dotted name that starts with one of the course's packages (:data:`PACKAGES`), such as
  ``autograder.checks`` or ``bpe_lab.traces.Round``, must be a module of the checkout or a name defined in one
  (its source is read, not imported);
* ``README.md``, which is no page of the site: the same two rules, and each relative link must reach a file.

What it does not check: names inside fenced code blocks (commands, not references), nbgrader settings such as
``JudgeTests.call_timeout``, and anything outside the repository.

Example (the function the hook runs on each page)::

    >>> stale_references("see `autograder/cli.py` and `bpe_lab.nothing_here`", ROOT)
    ['`bpe_lab.nothing_here`: no such module or attribute']
"""

from __future__ import annotations

import ast
import logging
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

#: The repository's top-level entries: a code span that starts with one of them names a path of the checkout.
ROOTS = (
    ".ci",
    "autograder",
    "benchmarks",
    "bpe_lab",
    "bpe_ref",
    "data",
    "docs",
    "learner",
    "notebooks",
    "scripts",
    "solutions",
    "tests",
    "README.md",
    "environment.yml",
    "mkdocs.yml",
    "nbgrader_config.py",
    "pyproject.toml",
)
#: The course's own packages: a dotted name that starts with one of them names a module or an attribute of one.
PACKAGES = ("autograder", "bpe_lab", "bpe_ref")

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,}).*?^(?P=indent)(?P=fence)[ \t]*$", re.M | re.S)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_MODULE = re.compile(r"^(?:" + "|".join(PACKAGES) + r")(?:\.[A-Za-z_]\w*)*$")
_NOT_A_PATH = re.compile(r"[<>*?{}\s…|]")
_ITEM = re.compile(r"^(?P<indent>[ \t]*)[*+-][ \t]+(?P<spans>`[^`\n]+`(?:,[ \t]*`[^`\n]+`)*)")

log = logging.getLogger("mkdocs.hooks.docs_references")


def _prose(markdown: str) -> str:
    """The markdown without fenced code blocks and HTML comments (their contents are not references)."""
    return _COMMENT.sub("", _FENCE.sub("", markdown))


def _defined_names(body: list[ast.stmt]) -> set[str]:
    """The names a module or class body defines: functions, classes, assignments, imports, and ``__all__``."""
    names: set[str] = set()
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for leaf in ast.walk(target):
                    if isinstance(leaf, ast.Name):
                        names.add(leaf.id)
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and node.value is not None:
                names.update(c.value for c in ast.walk(node.value) if isinstance(c, ast.Constant))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.If | ast.Try):
            names |= _defined_names([*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", [])])
    return names


def _module_exists(name: str, root: Path) -> bool:
    """Whether ``name`` is a module of the checkout, or a name defined in one (read, not imported: no side effects).

    The longest prefix that is a file (``autograder/checks.py``) or a package (``autograder/checks/__init__.py``)
    is the module; the next part must be defined at its top level, and the one after that in that class's body.
    """
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        base = root.joinpath(*parts[:cut])
        source = base.with_suffix(".py") if base.with_suffix(".py").is_file() else base / "__init__.py"
        if not source.is_file():
            continue
        rest = parts[cut:]
        if not rest:
            return True
        body = ast.parse(source.read_text(encoding="utf-8")).body
        if rest[0] not in _defined_names(body):
            return False
        if len(rest) == 1:
            return True
        classes = [node for node in body if isinstance(node, ast.ClassDef) and node.name == rest[0]]
        return not classes or rest[1] in _defined_names(classes[0].body)
    return False


def _path_exists(span: str, root: Path) -> bool | None:
    """True or False for a span that names a path of the repository; None for one that does not name a path."""
    if _NOT_A_PATH.search(span):
        return None
    first = span.split("/", 1)[0]
    if first not in ROOTS:
        return None
    return (root / span).exists()


def _nested_paths(prose: str, root: Path) -> list[str]:
    """The paths a file map names by nesting: an item ``* `tests.py`...`` under ``* `autograder/`...`` names
    ``autograder/tests.py`` (each leading code span of the nested item, as in ``* `a.py`, `b.py`: ...``)."""
    paths: list[str] = []
    folders: list[tuple[int, str]] = []  # (indent, folder) of the items above, innermost last
    for line in prose.splitlines():
        item = _ITEM.match(line)
        if not item:
            continue
        indent = len(item["indent"].expandtabs(4))
        while folders and folders[-1][0] >= indent:
            folders.pop()
        names = _SPAN.findall(item["spans"])
        parent = folders[-1][1] if folders else ""
        full = [parent + name if parent and not _NOT_A_PATH.search(name) else name for name in names]
        if parent:
            paths += [path for path, name in zip(full, names) if path != name]
        if full and full[0].endswith("/") and _path_exists(full[0], root) is not None:
            folders.append((indent, full[0]))
    return paths


def stale_references(markdown: str, root: Path = ROOT) -> list[str]:
    """The names in ``markdown``'s inline code that name a path or module of the course that does not exist.

    Args:
        markdown: a page's text (fenced code blocks and HTML comments are skipped).
        root: the repository's root folder, where paths are looked up.

    Returns:
        One message per stale name, in the order they appear (each name once), e.g.
        ``"`autograder/sandbox.py`: no such file or folder"``; an empty list when every name exists.
    """
    problems: list[str] = []
    seen: set[str] = set()
    prose = _prose(markdown)
    for span in _SPAN.findall(prose) + _nested_paths(prose, root):
        span = span.strip()
        if span in seen:
            continue
        seen.add(span)
        if _MODULE.match(span):
            if not _module_exists(span, root):
                problems.append(f"`{span}`: no such module or attribute")
        elif _path_exists(span, root) is False:
            problems.append(f"`{span}`: no such file or folder")
    return problems


def broken_links(markdown: str, base: Path) -> list[str]:
    """The relative links of ``markdown`` (a file in folder ``base``) whose target file does not exist.

    Args:
        markdown: the text of a markdown file that is read outside the site (the README).
        base: the folder of that file; links are relative to it.

    Returns:
        One message per missing target, e.g. ``"link docs/nothing.md: no such file"``; links with a scheme
        (``https:``), a bare ``#anchor`` or a ``mailto:`` are not checked.
    """
    problems = []
    for target in _LINK.findall(_prose(markdown)):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue
        path = target.split("#", 1)[0]
        if path and not (base / path).exists():
            problems.append(f"link {target}: no such file")
    return problems


def unmapped_modules(markdown: str, root: Path = ROOT) -> list[str]:
    """The modules of :data:`PACKAGES` (``__init__.py`` and ``__main__.py`` aside) that the file map in ``markdown``
    does not name, as paths: a file map has one line per module.

    Example:
        >>> file_map = ["* `autograder/`: the grader", "    * `cli.py`: its commands"]
        >>> unmapped_modules("\\n".join(file_map), Path("/nowhere"))
        []
    """
    named = set(_nested_paths(_prose(markdown), root))
    found = sorted(
        path.relative_to(root).as_posix()
        for package in PACKAGES
        for path in (root / package).rglob("*.py")
        if path.name not in ("__init__.py", "__main__.py") and "sample_class" not in path.parts
    )
    return [path for path in found if path not in named]


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """MkDocs event: warn about each stale name on a page (``--strict`` turns the warnings into a failed build)."""
    for problem in stale_references(markdown, ROOT):
        log.warning(f"Doc file '{page.file.src_uri}' names {problem}")
    return markdown


def on_pre_build(config: Any) -> None:
    """MkDocs event: check ``README.md``, the entrance that links into the site, by the same rules and its links."""
    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    for problem in stale_references(text, ROOT) + broken_links(text, ROOT):
        log.warning(f"README.md names {problem}")
    for path in unmapped_modules(text, ROOT):
        log.warning(f"README.md's file map has no line for {path} (one line per module)")

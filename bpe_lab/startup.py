"""What a process of the course does before it imports nbformat: one library's import deferred to its first use.

Importing ``nbformat`` imports ``jsonschema``, whose format checkers import ``rfc3987_syntax`` (where the GPL
``rfc3987`` is not installed; Jupyter's server pulls in ``jsonschema[format-nongpl]``, which brings it). That module
builds about 35 Earley parsers with Lark when it is imported: about 2 s of CPU, in every process that reads a
notebook, for a format (``iri``) that no notebook schema uses. Upstream: python-jsonschema/jsonschema#1428 (asks
for the lazy import), opendatahub-io/notebooks#3532 (measures it).

:func:`defer_iri_syntax` puts a stand-in under that module's name: ``jsonschema`` imports it at once, and the real
module is imported the first time something asks it to check an IRI, which then behaves exactly as before. The
grader's command (``python -m autograder``), its worker processes and ``bpe-lab drill`` call it before they import
nbformat. Standard library only.

Example:
    >>> import sys
    >>> defer_iri_syntax()  # idempotent; nothing to do where the module is absent or already imported
    >>> "rfc3987_syntax" not in sys.modules or hasattr(sys.modules["rfc3987_syntax"], "is_valid_syntax")
    True
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
import types
from typing import Any

__all__ = ["IRI_SYNTAX", "defer_iri_syntax"]

IRI_SYNTAX = "rfc3987_syntax"
"""The module whose import is deferred: ``jsonschema._format`` imports ``is_valid_syntax`` from it."""

_LOCK = threading.Lock()


class _Deferred(types.ModuleType):
    """Stands in for :data:`IRI_SYNTAX` until first used; then imports it and hands every attribute over."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(_real(), name)


def _real() -> types.ModuleType:
    with _LOCK:
        current = sys.modules.get(IRI_SYNTAX)
        if isinstance(current, _Deferred):
            del sys.modules[IRI_SYNTAX]
            try:
                return importlib.import_module(IRI_SYNTAX)
            except BaseException:
                sys.modules[IRI_SYNTAX] = current  # an import that failed (interrupted): try again next time
                raise
        assert current is not None  # the stand-in left only for the real module
        return current


def _is_valid_syntax(syntax: str, value: str) -> bool:
    return _real().is_valid_syntax(syntax, value)


def defer_iri_syntax() -> None:
    """Put a stand-in for :data:`IRI_SYNTAX` in ``sys.modules``, unless it is imported already or not installed.

    ``from rfc3987_syntax import is_valid_syntax`` then returns at once; the first call (or any other attribute
    asked for) imports the real module. Returns nothing; raises nothing.

    Example:
        >>> defer_iri_syntax()
        >>> defer_iri_syntax()  # a second call changes nothing
    """
    if IRI_SYNTAX in sys.modules:
        return
    try:
        spec = importlib.util.find_spec(IRI_SYNTAX)
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        return
    stand_in = _Deferred(IRI_SYNTAX, "deferred by bpe_lab.startup: imported on first use")
    stand_in.__spec__ = spec  # find_spec and the like see the real module's spec, not None
    stand_in.is_valid_syntax = _is_valid_syntax  # type: ignore[attr-defined]
    sys.modules[IRI_SYNTAX] = stand_in

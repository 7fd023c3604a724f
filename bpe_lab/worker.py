"""The process that runs a learner's code for the command-line check and the drill, and nothing else.

``bpe-lab check`` and ``bpe-lab drill NAME --check`` judge in their own process (:mod:`bpe_lab.remote`) and run the
learner's code here, in a second process started as ``python -c "from bpe_lab.worker import main; main()"``. So what
the learner's code does (print a forged "8 of 8", replace the checks in ``sys.modules``, exit early) happens in a
process whose only say is its answers to calls: the judge compares those plain values (numbers, strings, lists,
tuples, dicts, sets, bytes) with the expected answers in its own process, and counts the points itself.

Requests arrive one JSON object a line on the process's stdin, replies leave one a line on a private copy of its
stdout; before any of the learner's code runs, file descriptors 0, 1 and 2 point at ``/dev/null``, so a print is
dropped and never read as a reply. Requests (``op``) and replies:

* ``run`` ``{"cells": [[id, source], ...], "timeout": s}``: the cells in order in one namespace, each with a CPU
  time limit; replies ``{"errors": [[id, "Type: message", where], ...]}`` for the cells that raised.
* ``lookup`` ``{"names": [...]}``: replies ``{"names": {name: {"kind": "function", "calls": [...]} | {"kind":
  "missing"} | {"kind": "value"}}}``; ``calls`` lists the functions of the namespace it reaches by name, directly
  or through others (:func:`called_names`).
* ``call`` ``{"name", "args", "limit"}``: calls the function with ``limit`` seconds of CPU time; replies ``{"value",
  "args_after", "alias"}`` (``alias``: the index of the argument it returned itself), ``{"raised": {"type",
  "message", "where"}}``, ``{"timed_out": true}`` or ``{"unreadable": "type"}`` (not plain data).
* ``stream`` ``{"name", "lines", "args", "keep", "repeat", "limit"}``: ``name(lines..., *args)`` through
  :func:`bpe_lab.probes.stream_probe` (the lines fed lazily); replies ``{"value": probe}``, ``{"raised": ...}`` or
  ``{"timed_out": true}``. ``trim`` ``{}``: the memory freed so far given back to the system; replies ``{}``.
* ``calls`` ``{"name", "calls": [args, ...], "limit"}``: the same for each argument list in turn, up to the first
  that runs out of time; replies ``{"answers": [...]}``.

``where`` lists ``[cell id, line number, line]`` of the learner's own lines an exception passed through.
"""

from __future__ import annotations

import builtins
import contextlib
import json
import os
import sys
import tempfile
import types
from collections.abc import Callable, Mapping
from typing import Any

from . import cputime
from .codec import pack, unpack
from .probes import materialized, release_free_memory, stream_probe

JUDGING = "BPE_LAB_JUDGING"
"""Set in this process's environment: a ``check()`` or drill cell among the learner's code does nothing here."""


def called_names(fn: Callable[..., Any], namespace: Mapping[str, Any]) -> list[str]:
    """The functions of ``namespace`` that ``fn`` calls by name, directly or through each other (its inner
    functions and closures included), in the order first met.

    Example:
        >>> def pretokenize(text): return text.split()
        >>> def chunks(text): return pretokenize(text)
        >>> def train(text): return [len(c) for c in chunks(text)]
        >>> called_names(train, {"pretokenize": pretokenize, "chunks": chunks, "train": train})
        ['chunks', 'pretokenize']
    """
    seen: dict[str, None] = {}
    todo = [fn]
    while todo:
        code = getattr(todo.pop(0), "__code__", None)
        codes = [code] if code is not None else []
        while codes:
            current = codes.pop()
            codes += [c for c in current.co_consts if isinstance(c, types.CodeType)]
            for name in (*current.co_names, *current.co_freevars):
                target = namespace.get(name)
                if name not in seen and target is not fn and isinstance(target, types.FunctionType):
                    seen[name] = None
                    todo.append(target)
    return list(seen)


class _OutOfTime(BaseException):
    """Past a call's CPU time (a ``BaseException``: the learner's ``except Exception`` does not catch it)."""


def _out_of_time(kind: str, seconds: float) -> _OutOfTime:
    return _OutOfTime(kind, seconds)


def _cpu_limit(seconds: float) -> contextlib.AbstractContextManager[bool]:
    """Raise :class:`_OutOfTime` in the running code after ``seconds`` of this process's CPU time, its threads
    together (:func:`bpe_lab.cputime.limited`; the judge's wall clock is the backstop)."""
    return cputime.limited(max(seconds, 0.001), 0.0, _out_of_time)


SOURCES: dict[str, str] = {}


def where(exc: BaseException) -> list[list[Any]]:
    """The last three of the learner's lines ``exc`` passed through, as ``[cell id, line number, line]``."""
    out = []
    tb = exc.__traceback__
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if name.startswith("<cell ") and name.endswith(">"):
            cell = name[6:-1]
            lines = SOURCES.get(cell, "").splitlines()
            text = lines[tb.tb_lineno - 1].strip() if 0 < tb.tb_lineno <= len(lines) else ""
            out.append([cell, tb.tb_lineno, text[:200]])
        tb = tb.tb_next
    return out[-3:]


def _error(exc: BaseException) -> dict[str, Any]:
    try:
        message = str(exc).splitlines()[0][:300] if str(exc) else ""
    except BaseException:
        message = ""
    return {"type": type(exc).__name__, "message": message, "where": where(exc)}


class _Silent:
    """``get_ipython()`` here: any attribute or call gives another silent object and does nothing."""

    def __getattr__(self, name: str) -> _Silent:
        return _Silent()

    def __call__(self, *args: Any, **kwargs: Any) -> _Silent:
        return _Silent()


_FILES: list[tempfile.TemporaryDirectory[str]] = []


def _files_folder() -> str:
    """The folder where a file argument (``chunk_counts_file``'s) is written before the call: one per worker,
    removed when it exits."""
    if not _FILES:
        _FILES.append(tempfile.TemporaryDirectory(prefix="bpe-files-"))
    return _FILES[0].name


def _stream(namespace: dict[str, Any], request: dict[str, Any], limit: float) -> dict[str, Any]:
    """:func:`bpe_lab.probes.stream_probe` of the learner's ``request["name"]``, as the reply to send."""
    try:
        rest = materialized([unpack(a) for a in request["args"]], _files_folder())
        with _cpu_limit(limit):
            probe = stream_probe(namespace[request["name"]], request["lines"], rest, request["keep"],
                                 request.get("repeat", 1))  # fmt: skip
    except _OutOfTime:
        return {"timed_out": True}
    except BaseException as exc:
        return {"raised": _error(exc)}
    return {"value": pack(probe)}


def _call(namespace: dict[str, Any], name: str, packed: list[Any], limit: float) -> dict[str, Any]:
    """One call of the learner's ``name`` on the packed arguments, as the reply to send."""
    try:
        args = materialized([unpack(a) for a in packed], _files_folder())
        with _cpu_limit(limit):
            value = namespace[name](*args)
    except _OutOfTime:
        return {"timed_out": True}
    except BaseException as exc:  # the judge decides what it means
        return {"raised": _error(exc)}
    alias = next((i for i, a in enumerate(args) if value is a), None)
    try:
        return {"value": None if alias is not None else pack(value), "alias": alias,
                "args_after": [pack(a) for a in args]}  # fmt: skip
    except BaseException:
        return {"unreadable": type(value).__name__}


def main() -> None:
    """Serve requests until stdin closes (see the module's docstring)."""
    requests = os.fdopen(os.dup(0), "r", encoding="utf-8")
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    sys.stdin = open(os.devnull, encoding="utf-8")
    sys.stdout = sys.stderr = open(os.devnull, "w", encoding="utf-8")
    os.environ[JUDGING] = "1"
    os.environ["NBGRADER_EXECUTION"] = "autograde"  # a notebook's check("...") cells do nothing here
    silent = _Silent()
    # the cells run in a module of their own that is sys.modules["__main__"], as in a notebook's kernel: a function
    # they define can then be pickled by name (06's chunk_counts_file hands one to its processes)
    main_module = types.ModuleType("__main__")
    sys.modules["__main__"] = main_module
    namespace: dict[str, Any] = main_module.__dict__
    namespace.update({"__builtins__": builtins, "get_ipython": lambda: silent})
    namespace["display"] = silent.display

    def reply(message: dict[str, Any]) -> None:
        replies.write(json.dumps(message) + "\n")
        replies.flush()

    for line in requests:
        request = json.loads(line)
        op = request.get("op")
        if op == "run":
            errors = []
            for cell_id, source in request["cells"]:
                SOURCES[cell_id] = source
                try:
                    with _cpu_limit(float(request.get("timeout", 60.0))):
                        exec(compile(source, f"<cell {cell_id}>", "exec"), namespace)
                except _OutOfTime:
                    used = f"used more than {request.get('timeout', 60.0):g} s of CPU time (a loop at top level?)"
                    errors.append([cell_id, f"TimeoutError: {used}", []])
                except BaseException as exc:  # the learner's error: reported, the next cell runs
                    info = _error(exc)
                    errors.append([cell_id, f"{info['type']}: {info['message']}".rstrip(": "), info["where"]])
            reply({"errors": errors})
        elif op == "lookup":
            found: dict[str, Any] = {}
            for name in request["names"]:
                value = namespace.get(name)
                if name not in namespace:
                    found[name] = {"kind": "missing"}
                elif callable(value):
                    found[name] = {"kind": "function", "calls": called_names(value, namespace)}
                else:
                    found[name] = {"kind": "value"}
            reply({"names": found})
        elif op == "call":
            reply(_call(namespace, request["name"], request["args"], float(request["limit"])))
        elif op == "stream":  # encode_iterable's probe: the lines fed lazily, the ids consumed here
            reply(_stream(namespace, request, float(request.get("limit", 60.0))))
        elif op == "trim":  # before a measurement of memory
            release_free_memory()
            reply({})
        elif op == "calls":  # the cases of one check at once: one exchange instead of one per case
            answers = []
            for args in request["calls"]:
                answers.append(_call(namespace, request["name"], args, float(request["limit"])))
                if answers[-1].get("timed_out"):
                    break  # a function out of time is not called again
            reply({"answers": answers})
        else:
            reply({"raised": {"type": "ProtocolError", "message": f"unknown op {op!r}", "where": []}})

"""The process that runs a submission's code for :mod:`autograder.isolation.judge`, and nothing else.

It is started as ``python -I -c <this file's text>`` (never imported by the grader), reads one JSON request
per line on stdin and writes one JSON reply per line on a private copy of stdout. Before any student code
runs, file descriptors 0, 1 and 2 are pointed at ``/dev/null``, so what the code prints is dropped and cannot
be mistaken for a reply. The grader trusts nothing that comes back: a reply is plain data (numbers, strings,
lists, tuples, dicts, sets), which it decodes and compares with :mod:`bpe_ref` in its own process.

Requests (``op``) and replies:

* ``run`` ``{"cells": [{"id", "source"}]}`` runs cells in order in one namespace; replies
  ``{"errors": {id: "Type: message"}}`` for the cells that raised.
* ``lookup`` ``{"names": [...]}`` replies ``{"names": {name: {"kind": "function" | "value" | "missing"
  | "unreadable", "value": ...}}}``.
* ``trim`` ``{}``: gives the memory the worker freed back to the system (before a memory measurement); replies
  ``{}``.
* ``stream`` ``{"name", "lines", "args", "keep", "repeat"}`` calls ``name(lines..., *args)`` through
  :func:`bpe_lab.probes.stream_probe` (the lines fed lazily, the result consumed); replies ``{"value": probe}``.
* ``call`` ``{"name", "args", "kwargs"}`` calls the function (a file argument, :class:`bpe_lab.codec.FileBytes`,
  is written to a file of the worker's and passed as its path); replies ``{"value", "args_after", "alias"}``
  (``alias`` is the index of the argument the function returned itself, else ``null``; ``args_after`` each argument
  as the call left it, ``null`` where it is as it came), or ``{"raised":
  {"type", "message"}}``, or ``{"unreadable": {"type", "repr"}}`` when the value is not plain data.
* ``calls`` ``{"name", "calls": [args, ...]}`` makes those calls in turn, each as ``call`` does (no keyword
  arguments), and writes each one's reply on its own line as soon as the call ends: every call of the batch is made,
  whatever an earlier one gave, so which calls ran never depends on how fast the grader reads
  (:meth:`autograder.isolation.judge.RemoteFunction.prefetch`).

Only the standard library is used (values travel in :mod:`bpe_lab.codec`, files and streams are made by
:mod:`bpe_lab.probes`; :data:`autograder.isolation.judge.WORKER_SOURCE` puts their texts in place of their import
lines), and importing ``bpe_ref``,
``autograder`` or ``bpe_lab`` fails here.
"""

import builtins
import gc
import json
import os
import sys
import types

from bpe_lab.codec import pack, unpack  # judge.WORKER_SOURCE puts the codec's text here instead
from bpe_lab.probes import materialized, release_free_memory, stream_probe  # judge.WORKER_SOURCE: its text

BLOCKED = ("bpe_ref", "autograder", "bpe_lab", "bpe_lab_solutions")


def describe(value):
    try:
        text = repr(value)
    except BaseException:
        text = f"<{type(value).__name__}>"
    return {"type": type(value).__name__, "repr": text[:200]}


SOURCES: dict[str, str] = {}
"""The source of each cell run so far, by id, to show the lines of a traceback."""


def error_text(exc):
    """``{"type", "message", "where"}``: ``where`` lists the last lines of the submission's cells it passed through
    as ``[cell id, line number, line]``."""
    try:
        message = str(exc).splitlines()[0][:300] if str(exc) else ""
    except BaseException:
        message = ""
    where = []
    tb = exc.__traceback__
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if name.startswith("<cell ") and name.endswith(">"):
            cell = name[6:-1]
            lines = SOURCES.get(cell, "").splitlines()
            text = lines[tb.tb_lineno - 1].strip() if 0 < tb.tb_lineno <= len(lines) else ""
            where.append([cell, tb.tb_lineno, text[:200]])
        tb = tb.tb_next
    return {"type": type(exc).__name__, "message": message, "where": where[-3:]}


class _Silent:
    """What ``get_ipython()`` returns here: any attribute, call or magic (``%matplotlib inline``,
    ``get_ipython().events.register(...)``) gives another silent object and does nothing."""

    def __getattr__(self, name):
        return _Silent()

    def __call__(self, *args, **kwargs):
        return _Silent()


class _BlockCourse:
    """An import hook that refuses the course's reference and grading packages."""

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"{name} is not available while grading", name=name)
        return None


def _quiet_selfcheck():
    """The notebooks' ``check("...")`` cells, importable and doing nothing (grading runs the hidden tests itself):
    ``bpe_lab.selfcheck`` is an empty stand-in with a ``check`` that returns ``None``; every other module of the
    course stays blocked."""
    package = types.ModuleType("bpe_lab")
    package.__path__ = []  # a package with nothing in it: its other modules go through the blocking finder
    selfcheck = types.ModuleType("bpe_lab.selfcheck")
    vars(selfcheck)["check"] = lambda *args, **kwargs: None
    vars(package)["selfcheck"] = selfcheck
    sys.modules.update({"bpe_lab": package, "bpe_lab.selfcheck": selfcheck})


def _ran_out_of_time(name):
    """A stand-in for a function that ran out of time in a test cell: it fails at once instead of looping again."""

    def stand_in(*args, **kwargs):
        raise TimeoutError(f"{name} ran out of time in a test cell above, so it is not run again")

    stand_in.__name__ = name
    return stand_in


def called(fn, sent_args, sent_kwargs, collect):
    """The reply to a call of ``fn`` on the packed ``sent_args`` and ``sent_kwargs`` (see ``call`` above);
    ``collect`` false: the cyclic garbage collector off during the call (a timed call: the function alone)."""
    args = materialized([unpack(a) for a in sent_args])
    kwargs = {k: unpack(v) for k, v in sent_kwargs.items()}
    paused = collect is False and gc.isenabled()
    if paused:
        gc.disable()
    try:
        value = fn(*args, **kwargs)
    except BaseException as exc:  # reported; the grader decides what it means
        return {"raised": error_text(exc)}
    finally:
        if paused:
            gc.enable()
    alias = next((i for i, a in enumerate(args) if value is a), None)
    try:
        answer = {"value": None if alias is not None else pack(value), "alias": alias}
        after = [pack(a) for a in args]  # null for an argument as it came (most): a short reply
        answer["args_after"] = [None if a == b else a for a, b in zip(after, sent_args)]
    except BaseException:
        return {"unreadable": describe(value)}
    return answer


def main():
    requests = os.fdopen(os.dup(0), "r", encoding="utf-8")
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    sys.stdin = open(os.devnull, encoding="utf-8")
    sys.stdout = sys.stderr = open(os.devnull, "w", encoding="utf-8")
    sys.meta_path.insert(0, _BlockCourse())
    for name in [m for m in sys.modules if m.split(".")[0] in BLOCKED]:
        del sys.modules[name]
    _quiet_selfcheck()
    silent = _Silent()
    # the cells run in a module of their own that is sys.modules["__main__"], as in a notebook's kernel: a function
    # they define can then be pickled by name (multiprocessing sends it so to the processes it forks)
    main_module = types.ModuleType("__main__")
    sys.modules["__main__"] = main_module
    namespace = main_module.__dict__
    namespace.update({"__builtins__": builtins, "get_ipython": lambda: silent, "display": silent.display})

    def reply(message):
        replies.write(json.dumps(message, allow_nan=True) + "\n")
        replies.flush()

    for line in requests:
        request = json.loads(line)
        op = request["op"]
        if op == "run":
            errors = {}
            for name in request.get("timed_out", []):  # ran out of time in a test cell: not run again
                if callable(namespace.get(name)):
                    namespace[name] = _ran_out_of_time(name)
            for cell in request["cells"]:
                SOURCES[cell["id"]] = cell["source"]
                try:
                    exec(compile(cell["source"], "<cell {}>".format(cell["id"]), "exec"), namespace)
                except BaseException as exc:  # the student's error: recorded, the next cell runs
                    errors[cell["id"]] = "{}: {}".format(*list(error_text(exc).values())[:2])
            reply({"errors": errors})
        elif op == "lookup":
            found = {}
            for name in request["names"]:
                if name not in namespace:
                    found[name] = {"kind": "missing"}
                elif callable(namespace[name]):
                    found[name] = {"kind": "function"}
                else:
                    try:
                        found[name] = {"kind": "value", "value": pack(namespace[name])}
                    except BaseException:
                        found[name] = {"kind": "unreadable", "value": describe(namespace[name])}
            reply({"names": found})
        elif op == "trim":  # before a measurement of memory: what earlier calls freed goes back to the system
            release_free_memory()
            reply({})
        elif op == "stream":
            rest = materialized([unpack(a) for a in request["args"]])
            try:
                probe = stream_probe(
                    namespace[request["name"]], request["lines"], rest, request["keep"], request.get("repeat", 1)
                )
            except BaseException as exc:
                reply({"raised": error_text(exc)})
                continue
            reply({"value": pack(probe)})
        elif op == "call":
            reply(called(namespace[request["name"]], request["args"], request["kwargs"], request.get("collect", True)))
        elif op == "calls":  # the cases of one check: one request, a reply a call (the grader times each)
            for args in request["calls"]:
                reply(called(namespace[request["name"]], args, {}, True))
        else:
            reply({"raised": {"type": "ProtocolError", "message": f"unknown op {op!r}"}})


if __name__ == "__main__":
    main()

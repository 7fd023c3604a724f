"""The learner's code in a second process, its functions called from the judge's: what ``bpe-lab check`` and the
drill judge with.

The judge (this process) never runs a line of the learner's code: :class:`Session` starts :mod:`bpe_lab.worker`,
sends it the code, and each of the learner's functions is a :class:`RemoteFunction` here. A call sends the
arguments over a pipe and gets plain data back; the checks (:func:`bpe_lab.selfcheck.check_parts`), the expected
answers and the points stay in this process, so no print, ``sys.exit`` or patched module of the learner's can
change a verdict. Each call has a limit of CPU time in the worker (the learner's function's own time, whatever else
the machine runs), and a wall clock ten times as long as a backstop; a worker that runs out of time or dies is
started again, with the learner's code run again, before the next call.

Example:
    >>> with Session(".") as session:  # doctest: +SKIP
    ...     session.run([("cell 1", "def double(x): return 2 * x")])
    ...     session.functions(["double"])["double"](21)
    []
    42
"""

from __future__ import annotations

import builtins
import collections
import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from . import measure
from .codec import Unreadable, pack, unpack
from .harness import DEFAULT_TIME_LIMIT, CallTimeout, active_limit, add_note


def worker_command() -> list[str]:
    """``python -S`` (no ``site``: a start in a few hundredths of a second, not tenths) with this process's
    ``sys.path`` (folders only: what ``site`` and the ``.pth`` files gave it) and the folder of ``bpe_lab``
    itself (an editable install finds it through an import hook), behind the working folder, as ``python -c``."""
    here = str(Path(__file__).resolve().parent.parent)
    paths = [p for p in sys.path if p and os.path.isdir(p)]
    boot = "import sys, json; sys.path[1:] = json.loads(sys.argv[1]); from bpe_lab.worker import main; main()"
    return [sys.executable, "-S", "-c", boot, json.dumps([*paths, here] if here not in paths else paths)]


MAX_REPLY_BYTES = 4 * 1024**2
BACKSTOP = 10.0
"""The wall clock of a call, as a multiple of its CPU time limit (a learner's function that sleeps)."""


class ProcessDied(Exception):
    """The worker stopped (the learner's code called ``os._exit``, crashed or ran out of memory)."""


class _NoReply(Exception):
    pass


class Opaque:
    """An answer that is not plain data (a generator...): it equals nothing and shows its type."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def __repr__(self) -> str:
        return f"<{self.kind}>"


def learner_exception(info: Any) -> Exception:
    """The exception to raise here for the worker's ``{"type", "message", "where"}``: a built-in class as itself
    (``KeyError``, ``RecursionError``), another as an ``Exception`` of the same name; ``where`` becomes notes
    naming the learner's lines.

    Example:
        >>> error = learner_exception({"type": "IndexError", "message": "list index out of range",
        ...                            "where": [["merge", 6, "if ids[i + 1] == pair[1]:"]]})
        >>> type(error).__name__, error.__notes__
        ('IndexError', ['  line 6 of your merge: if ids[i + 1] == pair[1]:'])
    """
    info = info if isinstance(info, dict) else {}
    name, message = str(info.get("type", "Error"))[:80], str(info.get("message", ""))[:300]
    cls = getattr(builtins, name, None)
    exc: Exception | None = None
    if isinstance(cls, type) and issubclass(cls, Exception) and not issubclass(cls, CallTimeout):
        with contextlib.suppress(TypeError):
            exc = type(name, (cls,), {"__str__": lambda self, text=message: text})(message)
    if exc is None:
        exc = type(name if name.isidentifier() else "Error", (Exception,), {})(message)
    for entry in info.get("where") or []:
        if isinstance(entry, list) and len(entry) == 3:
            add_note(exc, f"  line {entry[1]} of your {str(entry[0])[:60]}: {str(entry[2])[:200]}")
    return exc


def _sync(target: Any, after: Any) -> None:
    """Make ``target`` hold what the worker's copy held after the call (the learner's function changed it)."""
    if isinstance(target, dict) and isinstance(after, dict):
        target.clear()
        target.update(after)
    elif isinstance(target, (list, set)) and type(after) is type(target):
        if isinstance(target, list):
            target[:] = after
        else:
            target.clear()
            target.update(after)


class Session:
    """The learner's code loaded in a worker process, restarted (and the code run again) when a call hangs or
    kills it.

    Args:
        folder: the worker's working folder (the notebook's, so that its own files open as in Jupyter).
        cell_timeout: seconds of CPU time each piece of the learner's code may take while it is loaded.
    """

    def __init__(self, folder: str | os.PathLike[str], cell_timeout: float = 60.0) -> None:
        self.folder, self.cell_timeout = str(folder), cell_timeout
        self.cells: list[tuple[str, str]] = []
        self.process: subprocess.Popen | None = None
        self._buffer = bytearray()
        self.start()

    def start(self) -> None:
        """Start the worker (it boots while the judge reads its expected answers)."""
        if self.process is None:
            self.process = subprocess.Popen(
                worker_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                cwd=self.folder, start_new_session=True,
            )  # fmt: skip
            self._buffer = bytearray()

    def close(self) -> None:
        """Stop the worker and whatever it started."""
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()
        self.process = None

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _request(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        try:
            if self.process is None:
                self.start()
                if self.cells:  # the learner's code again, silently, as it was
                    self._exchange({"op": "run", "cells": self.cells, "timeout": self.cell_timeout},
                                   self.cell_timeout * BACKSTOP)  # fmt: skip
            return self._exchange(message, timeout)
        except BaseException:  # no reply, a death, a garbled reply, the judge's own alarm: start afresh next time
            self.close()
            raise

    def _exchange(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.process is not None and self.process.stdin and self.process.stdout
        deadline = time.monotonic() + timeout
        try:
            self.process.stdin.write((json.dumps(message) + "\n").encode("utf-8"))
            self.process.stdin.flush()
        except (BrokenPipeError, ConnectionResetError):
            raise ProcessDied("the process running your code stopped") from None
        out = self.process.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([out], [], [], left)[0]:
                raise _NoReply
            chunk = os.read(out, 1 << 16)
            if not chunk:
                raise ProcessDied("the process running your code stopped")
            self._buffer += chunk
            if len(self._buffer) > MAX_REPLY_BYTES:
                raise ValueError(f"an answer of more than {MAX_REPLY_BYTES:,} bytes")
        line, _, rest = bytes(self._buffer).partition(b"\n")
        self._buffer = bytearray(rest)
        reply = json.loads(line)
        if not isinstance(reply, dict):
            raise ValueError("a reply that is not a JSON object")
        return reply

    def run(self, cells: Iterable[tuple[str, str]]) -> list[tuple[str, str, list]]:
        """Run the learner's ``cells`` (``(id, source)``) in order; returns ``(id, "Type: message", where)`` for
        each that raised (or every one, when the worker stopped or ran out of time)."""
        cells = list(cells)
        try:
            reply = self._request({"op": "run", "cells": cells, "timeout": self.cell_timeout},
                                  self.cell_timeout * BACKSTOP)  # fmt: skip
        except (_NoReply, ProcessDied, ValueError) as exc:
            why = "ran out of time" if isinstance(exc, _NoReply) else "stopped"
            return [(cells[-1][0] if cells else "code", f"the code {why} while it was loading", [])]
        self.cells += cells
        return [(str(e[0]), str(e[1])[:300], e[2] if isinstance(e[2], list) else []) for e in reply.get("errors", [])]

    def functions(self, names: Iterable[str]) -> dict[str, RemoteFunction]:
        """The learner's functions among ``names``, each a :class:`RemoteFunction` (names it lacks left out)."""
        names = sorted(set(names))
        try:
            reply = self._request({"op": "lookup", "names": names}, BACKSTOP)
        except (_NoReply, ProcessDied, ValueError):
            return {}
        found = {}
        for name in names:
            entry = reply.get("names", {}).get(name)
            if isinstance(entry, dict) and entry.get("kind") == "function":
                calls = [str(c) for c in entry.get("calls", []) if isinstance(c, str)]
                found[name] = RemoteFunction(self, name, calls)
        return found

    def call(self, name: str, args: tuple[Any, ...], limit: float, sent: list[Any] | None = None) -> Any:
        """The learner's ``name(*args)`` in the worker; see :class:`RemoteFunction`."""
        sent = _packed(name, args) if sent is None else sent
        try:
            reply = self._request({"op": "call", "name": name, "args": sent, "limit": limit}, limit * BACKSTOP)
        except _NoReply:
            raise CallTimeout("wall", limit * BACKSTOP, name) from None
        except ValueError as exc:
            raise TypeError(f"{name} sent back an answer that cannot be read ({exc})") from None
        return self.answer(name, args, sent, reply, limit)

    def call_many(self, name: str, calls: list[list[Any]], limit: float) -> list[dict[str, Any]]:
        """The worker's replies to ``name`` called on each packed argument list of ``calls`` (up to the first
        timeout): one exchange for a whole check. A batch that gets no reply gives none (the calls are then made
        one by one)."""
        if not calls:
            return []
        try:
            reply = self._request({"op": "calls", "name": name, "calls": calls, "limit": limit},
                                  limit * BACKSTOP * len(calls))  # fmt: skip
        except (_NoReply, ProcessDied, ValueError):
            return []
        answers = reply.get("answers")
        return [a for a in answers if isinstance(a, dict)] if isinstance(answers, list) else []

    def stream(
        self,
        name: str,
        lines: list[str],
        args: tuple[Any, ...],
        keep: int,
        repeat: int = 1,
        timeout: float | None = None,
        watch: bool = False,
    ) -> tuple[dict[str, Any], measure.Watch | None]:
        """``name(lines..., *args)`` through :func:`bpe_lab.probes.stream_probe` in the worker (the lines fed lazily
        there): its probe and, with ``watch``, what the worker spent meanwhile (read from ``/proc`` here), as the
        grader's session does.

        Raises:
            CallTimeout: out of CPU time; the learner's exception under its own name.
        """
        limit = DEFAULT_TIME_LIMIT if timeout is None else timeout
        sent = _packed(name, args)
        if watch:
            self._request({"op": "trim"}, BACKSTOP)
        watched = measure.Watch(self.process.pid) if watch and self.process is not None else None
        message = {"op": "stream", "name": name, "lines": lines, "args": sent, "keep": keep, "repeat": repeat,
                   "limit": limit}  # fmt: skip
        try:
            with watched or contextlib.nullcontext():
                reply = self._request(message, limit * BACKSTOP)
        except _NoReply:
            raise CallTimeout("wall", limit * BACKSTOP, name) from None
        if reply.get("timed_out"):
            self.close()
            raise CallTimeout("cpu", limit, name)
        if "raised" in reply:
            raise learner_exception(reply["raised"])
        probe = unpack(reply.get("value"))
        if not isinstance(probe, dict):
            raise TypeError(f"{name} sent back an answer that cannot be read")
        return probe, watched

    def answer(
        self,
        name: str,
        args: tuple[Any, ...],
        sent: list[Any],
        reply: dict[str, Any],
        limit: float = DEFAULT_TIME_LIMIT,
    ) -> Any:
        """What the call returns here for the worker's ``reply`` to a call under ``limit`` CPU seconds (see
        :class:`RemoteFunction`)."""
        if reply.get("timed_out"):
            self.close()  # a function caught the limit and went on: it is not trusted to stop
            raise CallTimeout("cpu", limit, name)
        if "raised" in reply:
            raise learner_exception(reply["raised"])
        if "unreadable" in reply:
            return Opaque(str(reply["unreadable"])[:80])
        try:
            after = [unpack(a) for a in reply.get("args_after", [])]
            value = unpack(reply.get("value"))
        except (ValueError, TypeError, AttributeError, RecursionError) as exc:
            raise TypeError(f"{name} sent back an answer that cannot be read ({exc})") from None
        if len(after) == len(args):
            for given, before, now, decoded in zip(args, sent, reply["args_after"], after):
                if now != before:
                    _sync(given, decoded)
        alias = reply.get("alias")
        if type(alias) is int and 0 <= alias < len(args):
            return args[alias]
        return value


def _packed(name: str, args: tuple[Any, ...]) -> list[Any]:
    try:
        return [pack(a) for a in args]
    except Unreadable as exc:
        raise TypeError(f"cannot send a {exc} to {name}") from None


class RemoteFunction:
    """Stands in the judge for one of the learner's functions: calling it calls the real one in the worker.

    Arguments go over as plain data and the answer comes back as plain data (a ``Counter`` as a ``dict``); when the
    function changes an argument, the same change is made to the judge's argument, and when it returns an argument
    itself, the judge gets that very object back, so the checks' mutation rules mean what they say. An exception is
    raised here again under its own name, with notes naming the learner's lines. ``calls``: the learner's functions
    it reaches by name (for the "fix X first" notes).

    Raises:
        CallTimeout: out of CPU time (or of the wall-clock backstop). ProcessDied: the worker stopped.
    """

    def __init__(self, session: Session, name: str, calls: list[str], limit: float = DEFAULT_TIME_LIMIT) -> None:
        self._session, self.__name__, self.calls, self.limit = session, name, calls, limit

        self._ahead: collections.deque[tuple[list[Any], dict[str, Any]]] = collections.deque()

    def prefetch(self, calls: Iterable[tuple[Any, ...]]) -> None:
        """Run the function on each argument tuple of ``calls`` now, in one exchange; the calls that then come in
        that order with those arguments get these answers (any other call is made as usual)."""
        sent = [_packed(self.__name__, tuple(args)) for args in calls]
        answers = self._session.call_many(self.__name__, sent, self.limit)
        self._ahead = collections.deque(zip(sent, answers))

    def __call__(self, *args: Any) -> Any:
        sent = _packed(self.__name__, args)
        if self._ahead:
            expected, reply = self._ahead.popleft()
            if expected == sent:
                return self._session.answer(self.__name__, args, sent, reply, self.limit)
            self._ahead.clear()
        active = active_limit()  # a check's own limit, when one calls it
        return self._session.call(self.__name__, args, active.cpu if active and active.cpu > 0 else self.limit, sent)

    def __repr__(self) -> str:
        return f"<your function {self.__name__}>"

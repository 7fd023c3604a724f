"""Judge a notebook's test cells outside the kernel, so that no code in the submission can change a score.

nbgrader scores a test cell by running it in the same kernel as the student's code. That code can then
rewrite the rules: patch IPython so that errors vanish, turn later cells into ``pass``, read the expected
answers from a check's frame, patch the functions a check relies on, or return objects whose ``__eq__``
always says yes. Here the student's code runs in a **worker** process of its own
(:mod:`autograder.isolation.judge_worker`: standard library only, the course's packages unimportable, sandboxed and
limited like the grading kernel), and each test cell runs in the grading process, where every name the
cell reads from the submission (``count_pairs``...) is a :class:`RemoteFunction`. A call sends its
arguments to the worker and gets back plain data (numbers, strings, lists, tuples, dicts, sets), so the
test cell's asserts and the hidden checks compare real values with :mod:`bpe_ref` in a process the
student's code never touches. A hidden check plans its calls ahead (:meth:`RemoteFunction.prefetch`): the worker
gets them a chunk at a time and answers each as it ends, so each call keeps its own limits in fewer exchanges.

:class:`autograder.preprocessors.judge_tests.JudgeTests` is the nbgrader preprocessor that puts this into
``autograde``: it runs after the kernel (which skips the test cells, see
:class:`autograder.preprocessors.limited_execute.LimitedExecute`) and writes each test cell's outputs, from which
nbgrader's ``SaveAutoGrades`` takes the score as usual; ``check`` (:mod:`autograder.course.fastcheck`) calls
:func:`judge_cells` without nbgrader. This module is the session with the worker and the running of test cells on
its answers; it is no nbgrader step and reads no gradebook, and it knows no course secret (the caller seeds the
checks).
"""

from __future__ import annotations

import ast
import builtins
import collections
import contextlib
import io
import json
import math
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from nbformat.notebooknode import NotebookNode

from bpe_lab import cells as cells_
from bpe_lab import codec, measure, probes
from bpe_lab.codec import Unreadable, pack
from bpe_lab.harness import CallTimeout, TimeLimit, active_limit, add_note, timed_out_in, timeout_text

from ..doctor import python_of
from . import sandbox
from .kernel import LimitedKernelManager
from .limits import POLL_SECONDS, Cgroup, CpuMeter, joined_command, limited_command


def _worker_source() -> str:
    """The worker's text with the texts of the codec and the probes in place of their import lines (the worker
    imports no package)."""
    worker = Path(__file__).with_name("judge_worker.py").read_text(encoding="utf-8")
    inlined = {
        "from bpe_lab.codec import pack, unpack  # judge.WORKER_SOURCE puts the codec's text here instead\n": codec,
        "from bpe_lab.probes import materialized, release_free_memory, stream_probe"
        "  # judge.WORKER_SOURCE: its text\n": probes,
    }
    for line, module in inlined.items():
        if worker.count(line) != 1:
            raise RuntimeError(f"judge_worker.py must import {module.__name__} on one line of its own")
        text = Path(str(module.__file__)).read_text(encoding="utf-8")
        worker = worker.replace(
            line, "\n".join(t for t in text.splitlines() if "judge.WORKER_SOURCE drops" not in t) + "\n"
        )
    return worker


WORKER_SOURCE = _worker_source()
MAX_REPLY_BYTES = 4 * 1024**2
MAX_ITEMS = 200_000
"""Values (numbers, strings, containers) one answer may hold."""
MAX_CELL_OUTPUT = 100_000
MAX_MESSAGE = 2_000
WALL_FACTOR = 2.0
"""Wall seconds a measured call may take per CPU second of its limit (:meth:`Session.timed_call`,
:meth:`Session.stream`): room for a loaded machine, not for a call that sleeps."""


class StudentError(Exception):
    """An exception raised by the student's code in the worker that is not a built-in one (its name is kept)."""


class ProcessDied(Exception):
    """The worker stopped while running the student's code (``os._exit``, a crash, a resource limit)."""


class OutOfTime(Exception):
    """The notebook used up its time budget (its CPU time, or the wall clock's backstop)."""


class Opaque:
    """A value the worker could not send as plain data; it equals nothing and shows the worker's ``repr``."""

    def __init__(self, text: str) -> None:
        self._text = text

    def __repr__(self) -> str:
        return self._text


def _named(base: type, name: str) -> type:
    """A subclass of ``base`` called ``name`` (so messages say ``generator`` or ``MyError``, as in the kernel)."""
    return type(name if name.isidentifier() else "Error", (base,), {})


def student_exception(info: Mapping[str, Any]) -> Exception:
    """The exception to raise in the grader for ``{"type", "message"}`` from the worker.

    A built-in exception class (``ValueError``...) is raised as itself, anything else (including
    ``SystemExit`` and ``KeyboardInterrupt``, which must not stop the grader) as a :class:`StudentError`
    subclass of the same name.

    Example:
        >>> str(student_exception({"type": "KeyError", "message": "300"}))  # as str(KeyError(300)) in the worker
        '300'
        >>> isinstance(student_exception({"type": "KeyError", "message": "'x'"}), KeyError)
        True
        >>> type(student_exception({"type": "SystemExit", "message": "0"})).__name__
        'SystemExit'
    """
    name, message = str(info.get("type", "Error"))[:80], str(info.get("message", ""))[:300]
    cls = getattr(builtins, name, None)
    exc: Exception | None = None
    if isinstance(cls, type) and issubclass(cls, Exception):
        try:
            exc = cls(message)
        except TypeError:  # UnicodeDecodeError needs five arguments: a class of its name on the nearest base that
            for base in cls.__mro__[1:]:  # takes a message (UnicodeError), so that it is still a ValueError
                with contextlib.suppress(TypeError):
                    exc = type(name, (base,), {})(message)
                    break
        if exc is not None and str(exc) != message:  # KeyError quotes its argument: keep the worker's text as is
            exc = type(name, (cls,), {"__str__": lambda self, text=message: text})(message)
    if exc is None:
        exc = _named(StudentError, name)(message)
    where = info.get("where")
    for entry in where if isinstance(where, list) else []:
        if isinstance(entry, list) and len(entry) == 3:  # where in the submission's cells it was raised
            add_note(exc, f"  line {entry[1]} of your cell {str(entry[0])[:60]}: {str(entry[2])[:200]}")
    return exc


def _sync(target: Any, after: Any) -> None:
    """Make ``target`` (the grader's argument) hold what the worker's copy holds after the call (a mutation)."""
    if isinstance(target, dict) and isinstance(after, dict):
        target.clear()
        target.update(after)
    elif isinstance(target, list) and isinstance(after, list):
        target[:] = after
    elif isinstance(target, set) and isinstance(after, set):
        target.clear()
        target.update(after)


class _Watch:
    """The limits of one request, checked each time the grader wakes up while it waits (see :meth:`Worker.request`)."""

    def __init__(self, limit: TimeLimit, cpu_seconds: Callable[[], float], start_cpu: float | None = None) -> None:
        self.limit, self.cpu_seconds = limit, cpu_seconds
        self.start_cpu = (cpu_seconds() if start_cpu is None else start_cpu) if limit.cpu > 0 else 0.0
        self.deadline = time.monotonic() + limit.wall if limit.wall > 0 else None

    def wait(self) -> float:
        """Seconds to wait for the worker before looking again; raises :class:`CallTimeout` past the wall limit."""
        left = POLL_SECONDS if self.deadline is None else self.deadline - time.monotonic()
        if left <= 0:
            raise CallTimeout("wall", self.limit.wall)
        return min(left, POLL_SECONDS) if self.limit.cpu > 0 else left

    def waited(self) -> None:
        """After a wait in which the worker did not answer: raises :class:`CallTimeout` past the CPU limit (read
        only then: a reply within the first wait costs no reading of the worker's CPU time but the first)."""
        if self.limit.cpu > 0 and self.cpu_seconds() - self.start_cpu > self.limit.cpu:
            raise CallTimeout("cpu", self.limit.cpu)


class Worker:
    """One worker process running a submission's code; requests and replies are JSON lines.

    Args:
        command: the argv that starts ``python -I -c WORKER_SOURCE``, prefixed by limits and a sandbox.
        workdir: the worker's working folder.
    """

    def __init__(self, command: list[str], workdir: str) -> None:
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=workdir,
            start_new_session=True,
            env=sandbox.launch_environment(),  # no secrets, not even in bwrap's own environment (/proc/1/environ)
        )
        if self.process.stdin is None or self.process.stdout is None:  # never: both are pipes
            raise RuntimeError("the worker's pipes did not open")
        self.stdin, self.stdout = self.process.stdin, self.process.stdout
        os.set_blocking(self.stdin.fileno(), False)
        self._buffer = bytearray()

    def request(self, message: dict, watch: _Watch) -> dict:
        """Send ``message`` and wait for the reply while the worker uses at most ``watch.limit.cpu`` seconds of CPU
        time (``watch.cpu_seconds()``: the worker's CPU so far, its processes and threads together, read every
        :data:`POLL_SECONDS` while the grader waits) and at most ``watch.limit.wall`` seconds pass (``0``: no such
        limit).

        Raises:
            bpe_lab.harness.CallTimeout: past a limit (``kind`` says which). ProcessDied: the worker is gone.
            ValueError: a reply that is not a JSON object or is larger than :data:`MAX_REPLY_BYTES`.
        """
        self.send(message, watch)
        return self.receive(lambda: watch)

    def send(self, message: dict, watch: _Watch) -> None:
        """Write ``message`` as one line, within ``watch``'s limits (a worker that reads nothing blocks a long one).

        Raises:
            bpe_lab.harness.CallTimeout, ProcessDied: as :meth:`request`.
        """
        data = (json.dumps(message) + "\n").encode("utf-8")
        out = self.stdin.fileno()
        while data:
            if not select.select([], [out], [], watch.wait())[1]:
                watch.waited()
                continue
            try:
                data = data[os.write(out, data) :]
            except (BrokenPipeError, ConnectionResetError):
                raise ProcessDied("the process running the code stopped") from None

    def receive(self, watch_from: Callable[[], _Watch]) -> dict:
        """The next reply. A reply the worker has written already is taken at once; only if the grader has to wait
        is ``watch_from()`` asked for the limits of the wait (so a reply that was ready costs no reading of the
        worker's CPU time).

        Raises:
            bpe_lab.harness.CallTimeout, ProcessDied, ValueError: as :meth:`request`.
        """
        watch: _Watch | None = None
        inp = self.stdout.fileno()
        while b"\n" not in self._buffer:
            if watch is None and not select.select([inp], [], [], 0)[0]:
                watch = watch_from()
            if watch is not None and not select.select([inp], [], [], watch.wait())[0]:
                watch.waited()
                continue
            chunk = os.read(inp, 1 << 16)
            if not chunk:
                raise ProcessDied("the process running the code stopped")
            self._buffer += chunk
            if len(self._buffer) > MAX_REPLY_BYTES:
                raise ValueError(f"an answer of more than {MAX_REPLY_BYTES:,} bytes")
        line, _, rest = bytes(self._buffer).partition(b"\n")
        self._buffer = bytearray(rest)
        try:
            reply = json.loads(line)
        except (ValueError, RecursionError):
            raise ValueError("a reply that is not JSON") from None
        if not isinstance(reply, dict):
            raise ValueError("a reply that is not a JSON object")
        return reply

    def kill(self) -> None:
        """Stop the worker and everything it started."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()
        self.process.wait()
        for stream in (self.stdin, self.stdout):
            with contextlib.suppress(OSError):
                stream.close()


class Session:
    """The submission's code loaded in a worker, cell by cell, and restarted when a call kills or hangs it.

    Every limit counts the worker's **CPU time** (its processes and threads together, :class:`CpuMeter`), so a
    busy grading machine never costs a correct submission; each also has a wall clock, a generous backstop against
    code that sleeps or waits.

    Args:
        command: see :class:`Worker`.
        call_timeout: CPU seconds a call may use outside the hidden checks (which set their own, shorter limit:
            :func:`bpe_lab.harness.active_limit`); ``call_wall_timeout`` its wall clock.
        cell_timeout: CPU seconds one cell of the submission may use; ``cell_wall_timeout`` its wall clock.
        notebook_timeout: CPU seconds for the whole notebook (cells, calls and restarts together);
            ``notebook_wall_timeout`` its wall clock. Past either, everything fails with :class:`OutOfTime`.
    """

    def __init__(
        self,
        command: list[str],
        *,
        call_timeout: float = 10.0,
        cell_timeout: float = 120.0,
        notebook_timeout: float = 600.0,
        call_wall_timeout: float = 60.0,
        cell_wall_timeout: float = 600.0,
        notebook_wall_timeout: float = 1800.0,
    ) -> None:
        self.command = command
        self.call_limit = TimeLimit(call_timeout, call_wall_timeout)
        self.cell_limit = TimeLimit(cell_timeout, cell_wall_timeout)
        self.notebook_limit = TimeLimit(notebook_timeout, notebook_wall_timeout)
        self.started = time.monotonic()
        self.workdir = tempfile.mkdtemp(prefix="bpe-judge-")
        self.loaded: list[dict] = []  # cells that ran to the end (with or without an error): replayed on restart
        self.worker: Worker | None = None
        self.cgroup: Cgroup | None = None  # every process of the worker, when the machine allows it
        self.meter = CpuMeter(lambda: self.cgroup, lambda: self.worker.process.pid if self.worker else None)
        self._owed = 0  # replies to a batch of calls (RemoteFunction.prefetch) that the worker writes, not yet read
        self._owed_limit = self.call_limit  # the limits of each of those calls
        self._owed_to: _Batch | None = None  # the batch they answer

    def close(self) -> None:
        self._forget_batch()
        if self.worker is not None:
            self.worker.kill()
            self.worker = None
        if self.cgroup is not None:
            self.cgroup.close()
            self.cgroup = None
        shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _watch(self, wanted: TimeLimit) -> _Watch:
        """The limits of a wait: ``wanted``, cut to what is left of the notebook's budget (one reading of the
        worker's CPU time for both); :class:`OutOfTime` when nothing is left."""
        notebook = self.notebook_limit
        used = self.meter.seconds() if notebook.cpu > 0 or wanted.cpu > 0 else 0.0
        cpu_left = notebook.cpu - used if notebook.cpu > 0 else math.inf
        wall_left = notebook.wall - (time.monotonic() - self.started) if notebook.wall > 0 else math.inf
        for kind, left in (("cpu", cpu_left), ("wall", wall_left)):
            if left <= 0:
                raise self._out_of_time(kind)
        cpu = min(wanted.cpu if wanted.cpu > 0 else math.inf, cpu_left)
        wall = min(wanted.wall if wanted.wall > 0 else math.inf, wall_left)
        limit = TimeLimit(0.0 if cpu == math.inf else cpu, 0.0 if wall == math.inf else wall)
        return _Watch(limit, self.meter.seconds, used)

    def _out_of_time(self, kind: str) -> OutOfTime:
        seconds = self.notebook_limit.cpu if kind == "cpu" else self.notebook_limit.wall
        return OutOfTime(f"the notebook used up its {seconds:g} s of {'CPU' if kind == 'cpu' else 'wall'} time")

    def _request(self, message: dict, wanted: TimeLimit) -> dict:
        """Send ``message`` under ``wanted`` (and the notebook's budget), starting the worker if need be, once the
        replies still owed to a batch of calls are read and dropped.

        Raises:
            CallTimeout: past ``wanted`` (its own seconds). OutOfTime: past the notebook's budget. ProcessDied,
            ValueError: see :meth:`Worker.request`.
        """
        self._drain()
        return self._guarded(lambda worker: worker.request(message, self._watch(wanted)), wanted)

    def _guarded(self, action: Callable[[Worker], dict], wanted: TimeLimit) -> dict:
        """``action`` on the worker (started, with the cells so far, if need be); the worker is killed, and the
        replies it owed forgotten, when ``action`` raises (see :meth:`_request`)."""
        try:
            if self.worker is None:
                self.worker = Worker(self.command, self.workdir)
                for cell in self.loaded:  # silently, as before
                    self.worker.request({"op": "run", "cells": [cell]}, self._watch(self.cell_limit))
            return action(self.worker)
        except BaseException as exc:  # a timeout, a death, a garbled reply, or a check's signal: start afresh
            self.restart()
            if isinstance(exc, CallTimeout):
                own = wanted.cpu if exc.kind == "cpu" else wanted.wall
                if own <= 0 or exc.seconds < own:  # the notebook's budget was the nearer limit
                    raise self._out_of_time(exc.kind) from None
                raise CallTimeout(exc.kind, own) from None
            raise

    def _forget_batch(self) -> None:
        self._owed, self._owed_to = 0, None

    def _drain(self) -> None:
        """Read and drop the replies the worker still owes to a batch of calls, each call under its limits: the
        worker makes every call of a batch (so the calls that ran never depend on timing); one past its limits
        is stopped as any call is, and the worker started afresh for what comes next."""
        while self._owed > 0:
            try:
                self._next_reply()
            except (CallTimeout, ProcessDied, ValueError):
                return  # the worker was killed, and the batch forgotten: the next request starts a new one

    def _next_reply(self) -> dict:
        """The worker's next reply to the batch of calls it is making, under that batch's limits per call."""
        wanted = self._owed_limit
        reply = self._guarded(lambda worker: worker.receive(lambda: self._watch(wanted)), wanted)
        self._owed -= 1
        if self._owed == 0:
            self._owed_to = None
        return reply

    def batched_call(self, batch: _Batch, args: tuple, limit: TimeLimit | None) -> Any:
        """``batch``'s next call, ``args`` being the arguments it planned for that call: its answer from the worker,
        which makes the batch's calls a chunk at a time (:meth:`RemoteFunction.prefetch`). A batch the worker no
        longer owes replies to (it was killed, or another request came between) is given up: the call is made on
        its own, as :meth:`call` makes it.

        Raises:
            As :meth:`call`.
        """
        wanted = limit or self.call_limit
        if batch.sent == batch.made:  # every answer so far read: the next chunk
            self._drain()
            chunk = batch.next_chunk()
            if not chunk:  # its arguments cannot be sent: the call on its own says so
                batch.give_up()
                return self.call(batch.name, args, {}, limit)
            message = {"op": "calls", "name": batch.name, "calls": chunk}

            def send(worker: Worker) -> dict:
                worker.send(message, self._watch(wanted))
                return {}

            self._guarded(send, wanted)
            self._owed, self._owed_limit, self._owed_to = len(chunk), wanted, batch
        elif self._owed_to is not batch or self._owed_limit != wanted:
            batch.give_up()
            return self.call(batch.name, args, {}, limit)
        sent = batch.packed[batch.made]
        batch.made += 1
        try:
            reply = self._next_reply()
        except CallTimeout as exc:
            raise CallTimeout(exc.kind, exc.seconds, batch.name) from None
        except ValueError as exc:
            raise StudentError(f"{batch.name} sent back an answer that cannot be read ({exc})") from None
        return self._answer(batch.name, args, sent, reply)

    def run(self, cell_id: str, source: str) -> str:
        """Run one cell of the submission (magics do nothing); returns ``""`` or ``"Type: message"`` of what it
        raised (a ``TimeoutError`` past the cell's limits)."""
        cell = {"id": cell_id, "source": python_of(source)}
        timed_out = sorted(timed_out_in(self))  # a function that looped in a test cell does not loop here again
        try:
            reply = self._request({"op": "run", "cells": [cell], "timed_out": timed_out}, self.cell_limit)
        except CallTimeout as exc:
            return f"TimeoutError: the cell {timeout_text(exc.kind, exc.seconds, 'finish')}"
        except ProcessDied:
            return "ProcessDied: the process stopped while running this cell"
        except (ValueError, RecursionError) as exc:
            return f"ValueError: {exc}"
        self.loaded.append(cell)
        errors = reply.get("errors")
        return str(errors.get(cell_id, ""))[:MAX_MESSAGE] if isinstance(errors, dict) else ""

    def lookup(self, names: Iterable[str]) -> dict[str, Any]:
        """The submission's values of ``names``: a :class:`RemoteFunction` for a function; absent names left out."""
        names = sorted(set(names))
        if not names:
            return {}
        try:
            reply = self._request({"op": "lookup", "names": names}, self.call_limit)
        except CallTimeout as exc:
            raise CallTimeout(exc.kind, exc.seconds, "the submission's code") from None
        found: dict[str, Any] = {}
        for name in names:
            entry = reply.get("names", {}).get(name, {})
            kind = entry.get("kind") if isinstance(entry, dict) else None
            if kind == "function":
                found[name] = RemoteFunction(self, name)
            elif kind == "value":
                found[name] = _decoded(entry.get("value"))
            elif kind == "unreadable":
                found[name] = _opaque(entry.get("value"))
        return found

    def call(
        self, name: str, args: tuple, kwargs: dict, limit: TimeLimit | None = None, *, collect: bool = True
    ) -> Any:
        """Call the submission's ``name(*args, **kwargs)`` in the worker under ``limit`` (default: the session's
        call limits); see :class:`RemoteFunction`. ``collect=False``: the worker's cyclic garbage collector is off
        during the call (a timed call: its CPU time is then the function's work, not the collector's sweeps over
        whatever else the worker holds)."""
        try:
            sent = [pack(a) for a in args]
            sent_kwargs = {k: pack(v) for k, v in kwargs.items()}
        except Unreadable as exc:
            raise TypeError(f"cannot send a {exc} to {name}") from None
        message = {"op": "call", "name": name, "args": sent, "kwargs": sent_kwargs, "collect": collect}
        try:
            reply = self._request(message, limit or self.call_limit)
        except CallTimeout as exc:
            raise CallTimeout(exc.kind, exc.seconds, name) from None
        except ValueError as exc:
            raise StudentError(f"{name} sent back an answer that cannot be read ({exc})") from None
        return self._answer(name, args, sent, reply)

    def _answer(self, name: str, args: tuple, sent: list, reply: dict) -> Any:
        """What a call of ``name`` returns in the grader for the worker's ``reply`` (``sent``: ``args`` packed): the
        value, the argument it returned itself, or its exception raised here; a mutation made to ``args`` too."""
        if "raised" in reply:
            raise student_exception(reply["raised"] if isinstance(reply["raised"], dict) else {})
        if "unreadable" in reply:
            return _opaque(reply["unreadable"])
        after = reply.get("args_after")
        if isinstance(after, list) and len(after) == len(args):
            for given, before, now in zip(args, sent, after):
                if now is not None and now != before:  # None: as it came
                    _sync(given, _decoded(now))
        alias = reply.get("alias")
        if type(alias) is int and 0 <= alias < len(args):
            return args[alias]
        return _decoded(reply.get("value"))

    def worker_pid(self) -> int:
        """The process id of the running worker (started, with the cells so far, if it is not running)."""
        if self.worker is None:
            self._request({"op": "lookup", "names": []}, self.call_limit)
        assert self.worker is not None
        return self.worker.process.pid

    def stream(
        self,
        name: str,
        lines: list[str],
        args: tuple,
        *,
        keep: int,
        repeat: int = 1,
        timeout: float | None = None,
        watch: bool = False,
    ) -> tuple[dict[str, Any], measure.Watch | None]:
        """Run ``name`` through :func:`bpe_lab.probes.stream_probe` in the worker: its probe, and, with ``watch``, what
        the worker's processes spent meanwhile (CPU seconds and peak resident memory, read from ``/proc`` by the
        grader).

        Raises:
            TimeoutError, ProcessDied, StudentError: as :meth:`call`; the submission's exception under its name.
        """
        try:
            sent = [pack(a) for a in args]
        except Unreadable as exc:
            raise TypeError(f"cannot send a {exc} to {name}") from None
        message = {"op": "stream", "name": name, "lines": lines, "args": sent, "keep": keep, "repeat": repeat}
        # ``timeout``: CPU seconds; the wall clock only as the session's backstop against sleeping
        limit = self.call_limit if timeout is None else self._measured_limit(timeout)
        if watch:  # the figure is what this call allocates, whatever earlier calls freed
            self._request({"op": "trim"}, limit)
        watched = measure.Watch(self.worker_pid()) if watch else None
        with watched or contextlib.nullcontext():
            try:
                reply = self._request(message, limit)
            except CallTimeout as exc:
                raise CallTimeout(exc.kind, exc.seconds, name) from None
        if "raised" in reply:
            raise student_exception(reply["raised"] if isinstance(reply["raised"], dict) else {})
        probe = _decoded(reply.get("value"))
        if not isinstance(probe, dict):
            raise StudentError(f"{name} sent back an answer that cannot be read")
        return probe, watched

    def timed_call(self, name: str, args: tuple, timeout: float) -> tuple[Any, float]:
        """:meth:`call` under its own ``timeout`` (CPU seconds; :meth:`_measured_limit`), with the CPU seconds the
        worker's processes spent on it, read by the grader, not by the worker: from the session's cgroup where the
        machine gives one, which counts every process that ran in it (a child the kernel reaps unseen, its parent
        ignoring ``SIGCHLD``, included), else from ``/proc`` (:class:`autograder.isolation.limits.CpuMeter`); with
        the worker's garbage collector off during the call (as 06's speed check does in process)."""
        self.worker_pid()  # started (its cells replayed) before the count begins
        before = self.meter.seconds()
        value = self.call(name, args, {}, self._measured_limit(timeout), collect=False)
        return value, max(0.0, self.meter.seconds() - before)

    def _measured_limit(self, timeout: float) -> TimeLimit:
        """The limits of a measured call (:meth:`timed_call`, :meth:`stream`): ``timeout`` CPU seconds, and
        :data:`WALL_FACTOR` times as many of wall clock (at least the session's call limit), but at most half the
        wall clock the notebook has left: the backstop against a call that sleeps, which then holds a grading slot
        minutes, not twenty, and leaves the cells after it their time (``check``'s three minutes a notebook)."""
        wall = max(self.call_limit.wall, WALL_FACTOR * timeout)
        if self.notebook_limit.wall > 0:
            left = self.notebook_limit.wall - (time.monotonic() - self.started)
            wall = min(wall, max(left / 2, 1.0))
        return TimeLimit(timeout, wall)

    def restart(self) -> None:
        """Stop the worker: the next request starts a new one, in a new sandbox, with the submission's cells
        replayed. Nothing the code kept from earlier calls (a cache of an answer, a file in its ``/tmp``) reaches
        what comes next: 06's speed check reruns a close call this way, so a rerun is measured, not remembered."""
        self._forget_batch()
        if self.worker is not None:
            self.meter.seconds()  # what it used, kept when no cgroup counts it
            self.worker.kill()
            self.worker = None
        if self.cgroup is not None:
            self.cgroup.kill_all()  # what it started in sessions of their own

    def clean(self) -> Session:
        """A new session of the same worker command with none of the submission's code (close it after use):
        for the course's own code to run beside the submission's, under the same sandbox and limits."""
        budget = self.notebook_limit
        cpu_left = budget.cpu - self.meter.seconds() if budget.cpu > 0 else 0.0
        wall_left = budget.wall - (time.monotonic() - self.started) if budget.wall > 0 else 0.0
        return Session(
            self.command,
            call_timeout=self.call_limit.cpu,
            call_wall_timeout=self.call_limit.wall,
            cell_timeout=self.cell_limit.cpu,
            cell_wall_timeout=self.cell_limit.wall,
            notebook_timeout=max(cpu_left, 1.0) if budget.cpu > 0 else 0.0,
            notebook_wall_timeout=max(wall_left, 1.0) if budget.wall > 0 else 0.0,
        )


_PLAIN = (bool, int, float, str)
"""The types JSON gives back as they are."""


def decode_answer(data: Any) -> Any:
    """Rebuild the value of a worker's answer, trusting nothing in it.

    An answer is JSON from :func:`bpe_lab.codec.pack`. It may hold at most :data:`MAX_ITEMS` values,
    and the keys of a dict (or the members of a set) must not be built to share one hash: thousands of keys with
    equal hashes make a dict take quadratic time to fill, which would stall the grader, not the student's code.

    Raises:
        ValueError: an answer that is malformed, too large, or made of colliding keys.

    Example:
        >>> decode_answer({"d": [[{"t": ["a", "b"]}, 2]]})
        {('a', 'b'): 2}
    """
    budget = [MAX_ITEMS]

    def spend(values: int, depth: int) -> None:
        budget[0] -= values
        if budget[0] < 0 or depth > 100:
            raise ValueError(f"an answer larger than {MAX_ITEMS:,} values or nested too deep")

    def build(node: Any, depth: int) -> Any:
        spend(1, depth)
        if node is None or type(node) in _PLAIN:
            return node
        if type(node) is list:
            if node and all(v is None or type(v) in _PLAIN for v in node):  # ids: counted and taken at once
                spend(len(node), depth + 1)
                return list(node)
            return [build(v, depth + 1) for v in node]
        if type(node) is not dict or len(node) != 1:
            raise ValueError("an answer that is not plain data")
        ((tag, body),) = node.items()
        if tag == "b" and type(body) is str:
            return body.encode("latin-1")
        if type(body) is not list:
            raise ValueError("an answer that is not plain data")
        if tag == "t":
            if body and all(v is None or type(v) in _PLAIN for v in body):  # a pair of ids, at once
                spend(len(body), depth + 1)
                return tuple(body)
            return tuple(build(v, depth + 1) for v in body)
        if tag == "d":
            if not all(type(pair) is list and len(pair) == 2 for pair in body):
                raise ValueError("an answer that is not plain data")
            keys = _distinct_hashes([build(k, depth + 1) for k, _ in body])
            return dict(zip(keys, (build(v, depth + 1) for _, v in body)))
        if tag == "s":
            return set(_distinct_hashes([build(v, depth + 1) for v in body]))
        raise ValueError(f"an answer with an unknown tag {str(tag)[:20]!r}")

    return build(data, 0)


MAX_SAME_HASH = 16
"""Keys of one answer that may share a hash (honest keys almost never share one)."""


def _distinct_hashes(keys: list[Any]) -> list[Any]:
    """``keys``, if they can be the keys of a dict without many sharing a hash (else ``ValueError``)."""
    try:
        counts = collections.Counter(hash(k) for k in keys)
    except TypeError:
        raise ValueError("an answer with a key that cannot be a dict key") from None
    if counts and max(counts.values()) > MAX_SAME_HASH:
        raise ValueError(f"an answer with {max(counts.values()):,} keys sharing one hash (built to collide)")
    return keys


def _decoded(data: Any) -> Any:
    try:
        return decode_answer(data)
    except (ValueError, RecursionError, UnicodeError) as exc:  # a garbled reply, or one forged by the student's code
        raise StudentError(f"an answer that cannot be read: {exc}"[:300]) from None


def _opaque(info: Any) -> Opaque:
    info = info if isinstance(info, dict) else {}
    return _named(Opaque, str(info.get("type", "object"))[:80])(str(info.get("repr", "<object>"))[:200])


MAX_CHUNK = 64
"""The most calls of a batch (:meth:`RemoteFunction.prefetch`) sent to the worker in one request."""


class _Batch:
    """The calls a check plans to make of one function (:meth:`RemoteFunction.prefetch`), and how far they went."""

    def __init__(self, name: str, calls: Sequence[tuple]) -> None:
        self.name, self.calls = name, calls
        self.packed: list[list[Any]] = []  # the calls sent to the worker so far, packed
        self.made = 0  # the calls answered so far
        self.given_up = False

    @property
    def sent(self) -> int:
        return len(self.packed)

    def is_next(self, args: tuple) -> bool:
        """``args`` are the very objects planned for the next call."""
        if self.given_up or self.made >= len(self.calls):
            return False
        planned = self.calls[self.made]
        return len(planned) == len(args) and all(a is b for a, b in zip(planned, args))

    def next_chunk(self) -> list[list[Any]]:
        """The next calls to send, packed: as many as were sent before (at least one, at most :data:`MAX_CHUNK`),
        up to the first whose arguments cannot be sent."""
        chunk = []
        for args in self.calls[self.sent : self.sent + min(MAX_CHUNK, max(1, self.sent))]:
            try:
                chunk.append([pack(a) for a in args])
            except Unreadable:
                break
        self.packed += chunk
        return chunk

    def give_up(self) -> None:
        self.given_up = True


class RemoteFunction:
    """Stands in the grader for a function of the submission: calling it calls the real one in the worker.

    Arguments go over as plain data and the answer comes back as plain data (a ``Counter`` arrives as a
    ``dict``, an object that is not plain data as an :class:`Opaque`). When the function changes an argument,
    the same change is made to the grader's argument; when it returns an argument itself, the grader gets
    that very object back (so ``merge(ids, ...) is ids`` and mutation checks mean what they say). An
    exception is raised again here under its own name.

    Raises:
        bpe_lab.harness.CallTimeout: past the CPU time (or the wall clock) of the check that calls it
        (:func:`bpe_lab.harness.active_limit`), else of the session's ``call_timeout``. ProcessDied: the worker
        stopped.
        StudentError: a non-built-in exception, or an answer that cannot be read.
    """

    limits_itself = True
    """Its calls' limits are kept by the session (the worker's CPU time, the wall clock): a check sets no timer of
    its own around it (:func:`bpe_lab.harness.call`)."""

    def __init__(self, session: Session, name: str) -> None:
        self._session, self.__name__ = session, name
        self._batch: _Batch | None = None

    def prefetch(self, calls: Iterable[tuple]) -> None:
        """Plan the calls about to be made, in this order and with these very argument objects (left unchanged until
        each is made): the worker then makes them a chunk at a time, one request for many calls, and writes a reply
        for each as it ends, so that each call keeps its own limits (:meth:`Session.batched_call`). Chunks grow
        1, 1, 2, 4... up to :data:`MAX_CHUNK` calls, so a check that stops at its first wrong answer has made at
        most as many calls again as it read, always the same ones. Any other call ends the plan.

        Example:
            >>> cases = [([1, 2],), ([3],)]
            >>> double.prefetch(cases)  # doctest: +SKIP
            >>> [double(*args) for args in cases]  # two calls, one request  # doctest: +SKIP
            [[1, 2, 1, 2], [3, 3]]
        """
        self._batch = _Batch(self.__name__, calls if isinstance(calls, Sequence) else list(calls))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        batch = self._batch
        if batch is not None:
            if not kwargs and batch.is_next(args):
                if batch.made + 1 >= len(batch.calls):
                    self._batch = None  # its last call: the plan's arguments are not kept
                return self._session.batched_call(batch, args, active_limit())
            self._batch = None
        return self._session.call(self.__name__, args, kwargs, active_limit())  # a check's limit, if one runs it

    def __repr__(self) -> str:
        return f"<function {self.__name__}>"


def free_names(source: str) -> list[str]:
    r"""The names a cell reads before it binds them, built-ins aside: what it expects from earlier cells.

    A name read inside a comprehension or a function of the cell may be listed though the cell binds it; the
    caller only looks such names up, so an extra one costs nothing.

    Raises:
        SyntaxError: the source is not Python.

    Example:
        >>> free_names("counts = count_pairs(vocab)\nassert len(counts) == 2")
        ['count_pairs', 'vocab']
    """
    bound: set[str] = set()
    free: set[str] = set()
    for statement in ast.parse(source).body:
        stores: set[str] = set()
        for node in ast.walk(statement):
            if isinstance(node, ast.Name):
                if isinstance(node.ctx, ast.Load):
                    free |= {node.id} - bound
                else:
                    stores.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                stores.add(node.name)
            elif isinstance(node, ast.alias):
                stores.add((node.asname or node.name).split(".")[0])
        bound |= stores
    return sorted(free - set(dir(builtins)))


def _error_output(exc: BaseException, source: str) -> NotebookNode:
    name = type(exc).__name__
    value = str(exc)[:MAX_MESSAGE]  # an assert's message may show a huge returned value
    lines = ["Traceback (most recent call last):"]
    frame = exc.__traceback__
    where = None
    while frame is not None:
        if frame.tb_frame.f_code.co_filename == "<test cell>":
            where = frame.tb_lineno
        frame = frame.tb_next
    if where is not None:
        text = source.splitlines()[where - 1].strip() if 0 < where <= len(source.splitlines()) else ""
        lines.append(f"  line {where} of this test cell: {text}")
    lines += [str(note) for note in getattr(exc, "__notes__", [])]
    lines.append(f"{name}: {value}" if value else name)
    return NotebookNode(output_type="error", ename=name, evalue=value, traceback=lines)


def run_test_cell(session: Session, source: str) -> list[NotebookNode]:
    """Run one test cell in this (the grader's) process against the submission loaded in ``session``.

    Returns:
        The cell's outputs in nbformat: what it printed (a ``stream``), then an ``error`` if it raised.
    """
    printed = io.StringIO()
    outputs: list[NotebookNode] = []
    error: BaseException | None = None
    try:
        code = compile(source, "<test cell>", "exec")
        namespace: dict[str, Any] = {"__name__": "__test__", "__builtins__": builtins}
        namespace.update(session.lookup(free_names(source)))
        with contextlib.redirect_stdout(printed):
            exec(code, namespace)
    except BaseException as exc:  # the verdict on the submission, never the grader's end
        if isinstance(exc, (KeyboardInterrupt, SystemExit)) and not isinstance(exc, StudentError):
            raise
        error = exc
    text = printed.getvalue()
    if text:
        if len(text) > MAX_CELL_OUTPUT:
            text = text[:MAX_CELL_OUTPUT] + "\n[... output cut ...]\n"
        outputs.append(NotebookNode(output_type="stream", name="stdout", text=text))
    if error is not None:
        outputs.append(_error_output(error, source))
    return outputs


def judge_cells(cells: list[NotebookNode], tests: Mapping[str, str], session: Session) -> dict[int, list[NotebookNode]]:
    """Run a notebook's cells in order: the others in the worker, the test cells (``tests``: grade_id -> trusted
    source) in the grader.

    Returns:
        Outputs by cell index: for a test cell, what it printed and its error if any; for another code cell,
        an ``error`` output if it raised in the worker (a SyntaxError...), else nothing.
    """
    results: dict[int, list[NotebookNode]] = {}
    for index, cell in enumerate(cells):
        if cell.get("cell_type") != "code":
            continue
        grade_id = cells_.grade_id(cell)
        if grade_id in tests:  # judged by the trusted source, whatever the submission's cell holds
            try:
                results[index] = run_test_cell(session, python_of(tests[grade_id]))
            except OutOfTime as exc:
                results[index] = [_error_output(exc, "")]
        elif cell.get("source", "").strip():
            try:
                error = session.run(str(grade_id or f"cell-{index}"), cell.source)
            except Exception as exc:  # OutOfTime, or a reply the student's code garbled
                error = f"{type(exc).__name__}: {exc}"[:MAX_MESSAGE]
            name, _, value = error.partition(": ")
            results[index] = (
                [NotebookNode(output_type="error", ename=name, evalue=value, traceback=[error])] if error else []
            )
    return results


def worker_command(
    memory: int, cpu: int, prefix: list[str] | None, *, processes: int = 0, cgroup: Cgroup | None = None
) -> list[str]:
    """The argv that starts a worker: in ``cgroup`` (if any), ``prefix`` (a ``bwrap`` argv from
    :func:`autograder.isolation.sandbox.sandbox_argv`, or ``None``), limits, ``python -I -c`` (isolated mode: no user
    site, no ``PYTHONPATH``, not the working folder; installed packages such as numpy stay importable, and the sandbox
    shows none of the course's own packages)."""
    command = limited_command([sys.executable, "-I", "-c", WORKER_SOURCE], memory, cpu, processes=processes)
    return joined_command([*(prefix or []), *command], cgroup)


TIMEOUTS = (
    *("call_timeout", "cell_timeout", "notebook_timeout"),
    *("call_wall_timeout", "cell_wall_timeout", "notebook_wall_timeout"),
)
"""The time limits of a :class:`Session` (and of :class:`JudgeTests`): CPU seconds, and wall seconds as backstops."""


@contextlib.contextmanager
def worker_session(limits: Mapping[str, Any], *, folder: str | None = None, **timeouts: float) -> Iterator[Session]:
    """A :class:`Session` whose worker runs under the grading kernel's ``limits`` (``memory_limit``,
    ``cpu_limit``, ``process_limit``, ``sandbox``): in the allowlist sandbox with a private copy of ``folder``
    (the notebook's), in a cgroup of its own where the machine allows it. The one place the worker is set up,
    for ``grade`` (:class:`JudgeTests`) and ``check`` (:mod:`autograder.course.fastcheck`). ``timeouts``: the
    :data:`TIMEOUTS` of the session.

    Raises:
        autograder.isolation.sandbox.SandboxUnavailable: ``sandbox`` is ``required`` and bubblewrap cannot run (fail
        closed).
        TypeError: a timeout that is not one of :data:`TIMEOUTS`.
    """
    unknown = sorted(set(timeouts) - set(TIMEOUTS))
    if unknown:
        raise TypeError(f"unknown time limits {unknown}; the limits are {', '.join(TIMEOUTS)}")
    bwrap = sandbox.resolve(limits["sandbox"])
    if not bwrap:
        sandbox.refuse_visible_answer_keys()  # no sandbox: the grader's environment must not hold the solutions
    with Session([], **timeouts) as session:
        files = tempfile.mkdtemp(dir=session.workdir)
        sandbox.private_copy(folder, files)
        extra = limits.get("extra_distributions", ())
        prefix = sandbox.sandbox_argv(bwrap, files_from=files, extra_distributions=extra) if bwrap else None
        session.cgroup = Cgroup.create(limits["memory_limit"], limits["process_limit"])
        session.command = worker_command(
            limits["memory_limit"], limits["cpu_limit"], prefix, processes=limits["process_limit"],
            cgroup=session.cgroup,
        )  # fmt: skip
        yield session


def kernel_limits(config: Any, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The grading kernel's ``memory_limit``, ``cpu_limit``, ``process_limit``, ``sandbox`` and
    ``extra_distributions`` from an nbgrader
    config (``LimitedKernelManager``'s section), with ``{"LimitedKernelManager.<name>": value}`` overrides on top."""
    configured = config.LimitedKernelManager
    traits = LimitedKernelManager.class_traits()
    names = ("memory_limit", "cpu_limit", "process_limit", "sandbox", "extra_distributions")
    return {
        name: (overrides or {}).get(f"LimitedKernelManager.{name}", configured.get(name, traits[name].default()))
        for name in names
    }

"""nbgrader's ``Execute`` step for grading: a limited, sandboxed kernel whose failures cost only their own cells.

Time limits count the kernel's CPU time, per cell (``cell_timeout``) and per notebook (``notebook_timeout``), so that
a busy grading machine never costs a correct submission; the wall clock (nbclient's ``timeout`` per cell,
``notebook_wall_timeout``) is only a backstop against code that sleeps or waits.
Output budgets per cell (1 MB) and per notebook (5 MB) cover prints, displays and their updates, widget messages
and errors: a cell's own error is always kept, cut short, and past a budget to one line; no message over 64 MB is
ever read by the grader. A kernel that dies is restarted and the cells above replayed, all within the notebook's
budget: the replay stops at the deadline. A cell whose kernel dies,
stalls or floods its output gets an error and the kernel is restarted with the cells above replayed; past
``max_kernel_restarts`` the remaining cells are marked not run. The test cells are not run here:
:class:`autograder.preprocessors.judge_tests.JudgeTests` scores them outside the kernel.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import functools
import json
import math
import os
import queue
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Coroutine
from typing import Any

from jupyter_core.utils import ensure_async, run_sync
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors import Execute
from traitlets import Bool, Float, Integer, default

from bpe_lab import cells
from bpe_lab.harness import timeout_text

from ..isolation import sandbox
from ..isolation.kernel import LimitedKernelManager
from ..isolation.limits import POLL_SECONDS, PRIVATE_ENVIRONMENT, Cgroup, CpuMeter

__all__ = ["LimitedExecute"]


MAX_ERROR_TEXT = 2_000
"""Characters kept of an error's message."""
MAX_TRACEBACK_TEXT = 20_000
"""Characters kept of an error's traceback, all lines together (the last lines are kept)."""
MAX_MESSAGE_BYTES = 64 * 1024**2
"""The largest message the grader accepts from a kernel (ZeroMQ ``MAXMSGSIZE``): a larger one is never read into
the grader's memory, and the kernel's connection is reset (its output is lost; the cell goes on)."""


def _short_error(content: dict) -> dict:
    """An error message's content with its value cut to :data:`MAX_ERROR_TEXT` characters and its traceback to
    :data:`MAX_TRACEBACK_TEXT` (``raise ValueError("x" * 10**8)`` must not make a 100 MB notebook).

    Example:
        >>> short = _short_error({"ename": "E", "evalue": "x" * 10**6, "traceback": ["y" * 10**6] * 100})
        >>> len(short["evalue"]), sum(map(len, short["traceback"])) <= MAX_TRACEBACK_TEXT
        (2000, True)
    """
    content = dict(content)
    content["ename"] = str(content.get("ename", "Error"))[:200]
    content["evalue"] = str(content.get("evalue", ""))[:MAX_ERROR_TEXT]
    traceback = content.get("traceback", [])
    kept: list[str] = []
    room = MAX_TRACEBACK_TEXT
    for line in reversed(traceback if isinstance(traceback, list) else []):
        line = str(line)[: min(room, MAX_ERROR_TEXT)]
        room -= len(line)
        kept.append(line)
        if room <= 0:
            break
    content["traceback"] = kept[::-1]
    return content


MAX_TINY_ERROR = 200
"""Characters kept of an error's message once the output budget is spent (its name and one line)."""


def _tiny_error(content: dict) -> dict:
    """An error's content cut to its name and the first :data:`MAX_TINY_ERROR` characters of its message, with a
    one-line traceback: what a cell's own error keeps once the cell's or the notebook's output budget is spent
    (errors count against the budgets like any output: a thousand cells that each raise a long error must not
    make a notebook of tens of megabytes).

    Example:
        >>> _tiny_error({"ename": "ValueError", "evalue": "x" * 10**6, "traceback": ["y" * 10**6] * 9})["traceback"]
        ['ValueError: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...']
    """
    name = str(content.get("ename", "Error"))[:80]
    value = str(content.get("evalue", "")).split("\n", 1)[0]
    value = value if len(value) <= MAX_TINY_ERROR else value[: MAX_TINY_ERROR - 3] + "..."
    line = f"{name}: {value}"
    line = line if len(line) <= MAX_TINY_ERROR else line[: MAX_TINY_ERROR - 3] + "..."
    return {"ename": name, "evalue": value, "traceback": [line]}


def message_bytes(msg: dict) -> int:
    """The size of a kernel message's content and binary buffers, as stored in a notebook (about)."""
    size = len(json.dumps(msg.get("content", {}), default=str))
    return size + sum(len(buffer) for buffer in msg.get("buffers", []) or [] if hasattr(buffer, "__len__"))


def _note(name: str, text: str) -> NotebookNode:
    return NotebookNode(output_type="error", ename=name, evalue=text, traceback=[f"{name}: {text}"])


RECONNECT_MS = 5
"""Milliseconds between the grader's attempts to connect to a starting kernel's sockets."""


async def _wait_for_ready(kc: Any, timeout: float | None = None) -> None:
    """jupyter_client's ``wait_for_ready`` (a ``kernel_info`` reply on the shell channel, then any message on IOPub,
    which shows it connected), without its last step: reading IOPub until it has been silent for 0.2 s, which costs
    every notebook 0.2 s of wall time. Nothing is lost by skipping it: nbclient reads a cell's outputs by the id of
    the cell's own request, so the start's status messages that are left are passed over.

    Raises:
        RuntimeError: the kernel died before it replied, or did not reply within ``timeout`` seconds.
    """
    deadline = time.monotonic() + (math.inf if timeout is None else timeout)
    while True:
        kc.kernel_info()
        with contextlib.suppress(queue.Empty):
            reply = await ensure_async(kc.shell_channel.get_msg(timeout=1))
            if reply["msg_type"] == "kernel_info_reply":
                with contextlib.suppress(queue.Empty):
                    await ensure_async(kc.iopub_channel.get_msg(timeout=0.2))
                    kc._handle_kernel_info_reply(reply)
                    return
        if not await ensure_async(kc.is_alive()):
            raise RuntimeError("Kernel died before replying to kernel_info")
        if time.monotonic() > deadline:
            raise RuntimeError(f"Kernel didn't respond in {timeout:g} seconds")


class LimitedExecute(Execute):
    """nbgrader's ``Execute`` with :class:`LimitedKernelManager` kernels, output limits, and failures that cost only
    the cells concerned.

    Every message a cell's code sends that can end up in the notebook (printed text, displays and their
    ``update_display_data``, results, widget messages) counts against the cell's ``max_output_bytes`` and the
    notebook's ``max_notebook_output_bytes``; past either, the rest is dropped and the cell gets one
    ``OutputLimitExceeded`` error. Widget state is not stored in the notebook's metadata. Error messages are always
    kept, cut short. The kernel never reads the graded notebook's folder: it works in a private copy of its files.
    """

    max_output_bytes = Integer(1_000_000, help="bytes of output kept per cell (0: no limit)").tag(config=True)
    max_notebook_output_bytes = Integer(
        5_000_000, help="bytes of output kept for all the cells of a notebook (0: no limit)"
    ).tag(config=True)
    store_widget_state = Bool(False, help="store widget state in the notebook's metadata").tag(config=True)

    @default("shutdown_kernel")
    def _immediate_shutdown(self) -> str:
        # nbclient's default ("graceful") asks the kernel to stop and waits for it (about 0.6 s of wall and 0.2 s of
        # CPU per notebook): a graded kernel has nothing to save, and its sandbox and cgroup go with it
        return "immediate"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("kernel_manager_class", LimitedKernelManager)
        super().__init__(*args, **kwargs)
        self._output_bytes: dict[int, int] = {}

    max_kernel_restarts = Integer(3, help="kernel deaths survived per notebook").tag(config=True)
    # nbclient's own `timeout` (Execute.timeout) is the wall clock of one cell: a backstop against a cell that sleeps
    cell_timeout = Float(
        120.0, help="CPU seconds one cell may use, the kernel's processes and threads together (0: no limit)"
    ).tag(config=True)
    notebook_timeout = Float(600.0, help="CPU seconds for all the cells of a notebook (0: no limit)").tag(config=True)
    notebook_wall_timeout = Float(
        1800.0, help="wall seconds for all the cells of a notebook, a backstop against code that sleeps (0: no limit)"
    ).tag(config=True)
    stop_grace = Float(
        5.0, help="wall seconds a cell past a limit has to end once interrupted, before its kernel is killed"
    ).tag(config=True)
    run_test_cells = Bool(
        False,
        help="also run the test cells in the kernel (autograder.preprocessors.judge_tests.JudgeTests scores them)",
    ).tag(config=True)

    async def async_start_new_kernel(self, **kwargs: Any) -> None:
        # The kernel works in a folder of its own holding a copy of the files of the notebook's folder, not in the
        # folder nbgrader writes the graded notebook to: a symbolic link planted there cannot redirect nbgrader's
        # writes, and nothing it leaves is copied.
        if not getattr(self, "_scratch", None):
            self._scratch = tempfile.mkdtemp(prefix="bpe-run-")
            folder = kwargs.get("cwd") or (self.resources or {}).get("metadata", {}).get("path")
            sandbox.private_copy(folder or None, self._scratch)
        kwargs["cwd"] = self._scratch
        if isinstance(self.km, LimitedKernelManager):
            self.km.files_from = self._scratch
        # the kernel's own chatter ("To connect another client...") is not the grader's output
        kwargs.setdefault("stdout", subprocess.DEVNULL)
        kwargs.setdefault("stderr", subprocess.DEVNULL)
        # the course's private seed (autograder.checks.cases) stays with the grader, sandbox or not
        kwargs["env"] = {k: v for k, v in kwargs.get("env", os.environ).items() if k not in PRIVATE_ENVIRONMENT}
        await super().async_start_new_kernel(**kwargs)

    start_new_kernel = run_sync(async_start_new_kernel)

    async def async_start_new_kernel_client(self):
        # the client's sockets refuse messages over MAX_MESSAGE_BYTES: they never reach the grader's memory
        import zmq
        import zmq.asyncio

        context = zmq.asyncio.Context()
        context.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
        # they connect before the kernel has made its sockets: try again after RECONNECT_MS, not ZeroMQ's 100 ms
        # (then twice as long each time, up to 20 ms: a kernel that died is not called 200 times a second)
        context.setsockopt(zmq.RECONNECT_IVL, RECONNECT_MS)
        context.setsockopt(zmq.RECONNECT_IVL_MAX, 20)
        original = self.km.client

        def client(**kwargs: Any):
            kc = original(context=context, **kwargs)
            kc._created_context = True  # destroyed with the client
            kc.wait_for_ready = functools.partial(_wait_for_ready, kc)
            return kc

        self.km.client = client
        try:
            return await super().async_start_new_kernel_client()
        finally:
            self.km.client = original

    start_new_kernel_client = run_sync(async_start_new_kernel_client)

    def preprocess(self, nb: NotebookNode, resources: Any, km: Any = None):
        self._started = time.monotonic()
        self._meter = CpuMeter(lambda: getattr(self.km, "_cgroup", None), self._kernel_pid)
        self._stopped: tuple[str, str] | None = None
        self._noted: dict[int, bool] = {}
        self._output_bytes, self._notebook_bytes, self._dead, self._restarts = {}, 0, False, 0
        self._scratch = ""
        try:
            return super().preprocess(nb, resources, km)
        finally:
            if self._scratch:
                shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = ""

    async def async_execute_cell(
        self, cell: NotebookNode, cell_index: int, execution_count: int | None = None, store_history: bool = True
    ) -> NotebookNode:
        """Run a cell under its limits; if the kernel dies (``os._exit``, a crash, a resource limit), record it and go
        on.

        The limits count the kernel's CPU time (:class:`autograder.isolation.limits.CpuMeter`: its processes and threads
        together): ``cell_timeout`` for the cell and what is left of ``notebook_timeout`` for the notebook; the wall
        clock (``timeout`` for the cell, ``notebook_wall_timeout`` for the notebook) is a backstop against code that
        sleeps. A cell past a limit is interrupted and gets a ``CellTimeout`` (or ``NotebookTimeout``) error saying
        which; if it does not end within ``stop_grace`` seconds its kernel is killed. A cell whose kernel died gets a
        ``KernelDied`` error (0 points if it is a test cell); the kernel is restarted and the code cells above are
        run again, silently, so that the rest of the notebook is graded as usual.

        Test cells are not run here unless ``run_test_cells`` is set:
        :class:`autograder.preprocessors.judge_tests.JudgeTests` scores them outside the kernel. Once the notebook has
        used up its budget, the remaining cells are not run and get a ``NotebookTimeout`` error.
        """
        if cells.is_test(cell) and not self.run_test_cells:
            cell.outputs = []
            return cell
        if cell.cell_type == "code" and getattr(self, "_dead", False):
            cell.outputs = [_note("KernelDied", f"not run: the kernel died more than {self.max_kernel_restarts} times")]
            return cell
        used_up = self._used_up()
        if cell.cell_type == "code" and used_up:
            cell.outputs = [_note("NotebookTimeout", f"not run: {used_up}")]
            return cell
        try:
            return await self._watched(
                super().async_execute_cell(cell, cell_index, execution_count, store_history), cell
            )
        except (DeadKernelError, CellTimeoutError) as exc:
            # a dead kernel (killed past a limit, or it died), or one whose output did not stop in time: this cell
            # fails, the kernel is restarted, the rest is graded
            self._restarts = getattr(self, "_restarts", 0) + 1
            if self._stopped is not None:
                name, text = self._stopped
                cell.outputs.append(_note(name, f"{text}; the kernel was restarted"))
            elif isinstance(exc, DeadKernelError):
                cell.outputs.append(_note("KernelDied", "the kernel stopped while running this cell (os._exit, a "
                                          "crash, or a resource limit)"))  # fmt: skip
            else:
                cell.outputs.append(_note("CellTimeout", "the cell's output did not stop in time; the kernel was "
                                          "restarted"))  # fmt: skip
            if self._restarts > self.max_kernel_restarts:
                self._dead = True  # the cells below are not run; the judge still scores the test cells
                return cell
            if not self._used_up():  # else no cell below runs: nothing to replay for
                await self._restart_and_replay(cell_index)
            return cell

    execute_cell = run_sync(async_execute_cell)

    def _cgroup_of_kernel(self) -> Cgroup | None:
        return getattr(self.km, "_cgroup", None)

    def _kernel_pid(self) -> int | None:
        """The pid of the kernel's process (the sandbox's, when it has one), or ``None`` when none runs."""
        process = getattr(getattr(self.km, "provisioner", None), "process", None)
        return getattr(process, "pid", None)

    def _left(self) -> tuple[float, float]:
        """CPU and wall seconds left of the notebook's budget (``math.inf``: no budget)."""
        cpu = self.notebook_timeout - self._meter.seconds() if self.notebook_timeout else math.inf
        wall = (
            self.notebook_wall_timeout - (time.monotonic() - self._started) if self.notebook_wall_timeout else math.inf
        )
        return cpu, wall

    def _used_up(self) -> str:
        """What of the notebook's budget is used up (``"the notebook used up its 600 s of CPU time"``), or ``""``."""
        if not hasattr(self, "_meter"):
            return ""
        cpu, wall = self._left()
        return self._notebook_used_up("cpu") if cpu <= 0 else self._notebook_used_up("wall") if wall <= 0 else ""

    def _notebook_used_up(self, kind: str) -> str:
        if kind == "cpu":
            return f"the notebook used up its {self.notebook_timeout:g} s of CPU time"
        return f"the notebook used up its {self.notebook_wall_timeout:g} s of wall time"

    async def _watched(self, execution: Coroutine[Any, Any, NotebookNode], cell: NotebookNode) -> NotebookNode:
        """Run ``execution`` (one cell's) under the cell's limits and the notebook's budget (see
        :meth:`async_execute_cell`); ``self._stopped`` says which limit stopped it, if one did."""
        self._stopped = None
        cpu_left, wall_left = self._left()
        cell_cpu, cell_wall = self.cell_timeout, float(self.timeout or 0)
        limits = [  # (kind, seconds, error name, what to say)
            ("cpu", cell_cpu or math.inf, "CellTimeout", f"this cell {timeout_text('cpu', cell_cpu)}"),
            ("cpu", cpu_left, "NotebookTimeout", self._notebook_used_up("cpu")),
            ("wall", cell_wall or math.inf, "CellTimeout", f"this cell {timeout_text('wall', cell_wall, 'finish')}"),
            ("wall", wall_left, "NotebookTimeout", self._notebook_used_up("wall")),
        ]
        task = asyncio.ensure_future(execution)
        start_cpu, start_wall = self._meter.seconds(), time.monotonic()
        stopping_since: float | None = None
        killed = False
        while not task.done():
            await asyncio.wait({task}, timeout=POLL_SECONDS)
            if task.done():
                break
            if stopping_since is None:
                used = {"cpu": self._meter.seconds() - start_cpu, "wall": time.monotonic() - start_wall}
                hit = next(((name, text) for kind, seconds, name, text in limits if used[kind] > seconds), None)
                if hit is not None:
                    self._stopped, stopping_since = hit, time.monotonic()
                    with contextlib.suppress(Exception):
                        await ensure_async(self.km.interrupt_kernel())
            elif not killed and time.monotonic() - stopping_since > self.stop_grace:
                killed = True  # it ignored the interrupt: nbclient sees the kernel dead within a second
                await self._kill_kernel()
        done = task.result()  # DeadKernelError, CellTimeoutError: the caller's
        if self._stopped is not None:
            name, text = self._stopped
            done.outputs.append(_note(name, f"{text}; it was interrupted"))
        return done

    async def _kill_kernel(self) -> None:
        """Kill the kernel and everything it started (its cgroup, else its process group)."""
        group = self._cgroup_of_kernel()
        if group is not None:
            group.kill_all()
        with contextlib.suppress(Exception):
            await ensure_async(self.km.signal_kernel(signal.SIGKILL))

    def _get_timeout(self, cell: NotebookNode | None) -> int | None:
        # nbclient's own wall clock comes after the watch's (_watched), which interrupts, then kills: a last resort
        timeout = super()._get_timeout(cell)
        return None if timeout is None else int(timeout + self.stop_grace + 10)

    async def _restart_and_replay(self, cell_index: int) -> None:
        group = self._cgroup_of_kernel()
        if group is not None:
            group.kill_all()  # what the old kernel left running
        await self.km.restart_kernel(now=True)
        # a fresh client: the old one's sockets may have been cut off (a message over MAX_MESSAGE_BYTES)
        with contextlib.suppress(Exception):
            self.kc.stop_channels()
        await self.async_start_new_kernel_client()
        for index, earlier in enumerate(self.nb.cells[:cell_index]):
            if self._used_up():
                return  # the replay stops at the notebook's deadline, like the cells themselves
            if earlier.cell_type == "code" and earlier.source.strip():
                scratch = NotebookNode(copy.deepcopy(dict(earlier)))
                scratch.outputs = []
                try:  # under the same limits: the notebook's budget pays for the replay too
                    await self._watched(super().async_execute_cell(scratch, index, store_history=False), scratch)
                except (DeadKernelError, CellTimeoutError):
                    return  # an earlier cell kills or stalls it again: the rest will fail on their own
                if self._stopped is not None:
                    self._stopped = None
                    return

    def process_message(self, msg: dict, cell: NotebookNode, cell_index: int):
        msg_type = msg.get("msg_type", "")
        if msg_type in ("status", "execute_input", "clear_output"):
            return super().process_message(msg, cell, cell_index)
        if msg_type == "error":
            msg = {**msg, "content": _short_error(msg.get("content", {}))}
        if not self._over_budget(msg, cell_index):
            return super().process_message(msg, cell, cell_index)
        first_error = not any(o.get("output_type") == "error" and o.get("ename") != "OutputLimitExceeded"
                              for o in cell.get("outputs", []))  # fmt: skip
        if msg_type == "error" and first_error:  # the cell's own error is kept over budget, in one short line
            return super().process_message({**msg, "content": _tiny_error(msg.get("content", {}))}, cell, cell_index)
        return None  # dropped: the cell's (or the notebook's) output budget is spent

    def _over_budget(self, msg: dict, cell_index: int) -> bool:
        """Count ``msg`` against the cell's and the notebook's budgets; ``True`` (and a note, once) when over."""
        size = message_bytes(msg)
        used = self._output_bytes.get(cell_index, 0)
        self._output_bytes[cell_index] = used + size
        notebook_used = getattr(self, "_notebook_bytes", 0)
        self._notebook_bytes = notebook_used + size
        over_cell = self.max_output_bytes and used + size > self.max_output_bytes
        over_notebook = self.max_notebook_output_bytes and notebook_used + size > self.max_notebook_output_bytes
        if not (over_cell or over_notebook):
            return False
        if not getattr(self, "_noted", {}).get(cell_index):
            self._noted = {**getattr(self, "_noted", {}), cell_index: True}
            limit = f"{self.max_output_bytes:,} bytes" if over_cell else f"{self.max_notebook_output_bytes:,} bytes"
            where = "this cell" if over_cell else "the notebook"
            note = _note("OutputLimitExceeded", f"{where} made more than {limit} of output; the rest was dropped")
            cell = self.nb.cells[cell_index]
            cell.outputs.append(note)
        return True

    def output(self, outs: list[NotebookNode], msg: dict, display_id: str | None, cell_index: int):
        cell = self.nb.cells[cell_index] if 0 <= cell_index < len(self.nb.cells) else {}
        if msg.get("msg_type") == "execute_result" and cells.is_graded(cell):
            # nbgrader reads a test cell's execute_result as its score (partial credit): the course's hidden
            # tests never make one, so one there came from student code (sys.displayhook...). Drop it.
            return None
        if msg.get("msg_type") == "error":  # kept, whatever the budget, but cut to a readable size
            msg = {**msg, "content": _short_error(msg.get("content", {}))}
        return super().output(outs, msg, display_id, cell_index)

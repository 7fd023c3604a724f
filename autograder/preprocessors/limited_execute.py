"""nbgrader's ``Execute`` step for grading: a limited, sandboxed kernel whose failures cost only their own cells.

Output budgets per cell (1 MB) and per notebook (5 MB) cover prints, displays and their updates, widget messages
and errors: a cell's own error is always kept, cut short, and past a budget to one line; no message over 64 MB is
ever read by the grader. A kernel that dies is restarted and the cells above replayed, all within the notebook's
time (``notebook_timeout``): the replay stops at the deadline. A cell whose kernel dies,
stalls or floods its output gets an error and the kernel is restarted with the cells above replayed; past
``max_kernel_restarts`` the remaining cells are marked not run. The test cells are not run here:
:class:`autograder.preprocessors.judge_tests.JudgeTests` scores them outside the kernel.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import shutil
import subprocess
import tempfile
import time
from typing import Any

from jupyter_core.utils import run_sync
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors import Execute
from traitlets import Bool, Integer

from bpe_lab import cells

from ..isolation import sandbox
from ..isolation.kernel import LimitedKernelManager
from ..isolation.limits import PRIVATE_ENVIRONMENT, Cgroup

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

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("kernel_manager_class", LimitedKernelManager)
        super().__init__(*args, **kwargs)
        self._output_bytes: dict[int, int] = {}

    max_kernel_restarts = Integer(3, help="kernel deaths survived per notebook").tag(config=True)
    notebook_timeout = Integer(600, help="seconds for all the cells of a notebook (0: no limit)").tag(config=True)
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
        original = self.km.client

        def client(**kwargs: Any):
            kc = original(context=context, **kwargs)
            kc._created_context = True  # destroyed with the client
            return kc

        self.km.client = client
        try:
            return await super().async_start_new_kernel_client()
        finally:
            self.km.client = original

    start_new_kernel_client = run_sync(async_start_new_kernel_client)

    def preprocess(self, nb: NotebookNode, resources: Any, km: Any = None):
        self._deadline = time.monotonic() + self.notebook_timeout if self.notebook_timeout else None
        self._output_bytes, self._notebook_bytes, self._dead, self._noted, self._restarts = {}, 0, False, {}, 0
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
        """Run a cell; if the kernel dies (``os._exit``, a crash, the CPU limit), record it and go on.

        The cell gets a ``KernelDied`` error (0 points if it is a test cell); the kernel is restarted and the
        code cells above are run again, silently, so that the rest of the notebook is graded as usual.

        Test cells are not run here unless ``run_test_cells`` is set:
        :class:`autograder.preprocessors.judge_tests.JudgeTests` scores them outside the kernel. Once the notebook has
        used up ``notebook_timeout``, the remaining cells are not run and get a ``NotebookTimeout`` error.
        """
        if cells.is_test(cell) and not self.run_test_cells:
            cell.outputs = []
            return cell
        if cell.cell_type == "code" and getattr(self, "_dead", False):
            cell.outputs = [_note("KernelDied", f"not run: the kernel died more than {self.max_kernel_restarts} times")]
            return cell
        left = self._time_left()
        if cell.cell_type == "code" and left is not None and left < 1:  # cells get whole seconds: none is left
            cell.outputs = [
                NotebookNode(
                    output_type="error",
                    ename="NotebookTimeout",
                    evalue=f"not run: the notebook used up its {self.notebook_timeout} s",
                    traceback=[f"NotebookTimeout: the notebook used up its {self.notebook_timeout} s"],
                )
            ]
            return cell
        try:
            return await super().async_execute_cell(cell, cell_index, execution_count, store_history)
        except (DeadKernelError, CellTimeoutError) as exc:
            # a dead kernel, or one that neither answered nor finished its output in time (it ignores SIGINT, it
            # floods its output channel): this cell fails, the kernel is restarted, the rest is graded
            self._restarts = getattr(self, "_restarts", 0) + 1
            if isinstance(exc, DeadKernelError):
                cell.outputs.append(_note("KernelDied", "the kernel stopped while running this cell (os._exit, a "
                                          "crash, or a resource limit)"))  # fmt: skip
            else:
                cell.outputs.append(_note("CellTimeout", "the cell did not finish in time (or its output did not "
                                          "stop); the kernel was restarted"))  # fmt: skip
            if self._restarts > self.max_kernel_restarts:
                self._dead = True  # the cells below are not run; the judge still scores the test cells
                return cell
            left = self._time_left()
            if left is not None and left < 1:
                return cell  # the notebook's time is up: the cells below get NotebookTimeout, no restart is needed
            await self._restart_and_replay(cell_index)
            return cell

    execute_cell = run_sync(async_execute_cell)

    def _cgroup_of_kernel(self) -> Cgroup | None:
        return getattr(self.km, "_cgroup", None)

    def _time_left(self) -> float | None:
        """Seconds left of the notebook's budget (``None``: no budget)."""
        deadline = getattr(self, "_deadline", None)
        return None if deadline is None else max(0.0, deadline - time.monotonic())

    def _get_timeout(self, cell: NotebookNode | None) -> int | None:
        timeout = super()._get_timeout(cell)
        left = self._time_left()
        if left is None:
            return timeout
        return max(1, int(min(timeout or left, left)))

    async def _restart_and_replay(self, cell_index: int) -> None:
        if self._cgroup_of_kernel() is not None:
            self._cgroup_of_kernel().kill_all()  # what the old kernel left running
        await self.km.restart_kernel(now=True)
        # a fresh client: the old one's sockets may have been cut off (a message over MAX_MESSAGE_BYTES)
        with contextlib.suppress(Exception):
            self.kc.stop_channels()
        await self.async_start_new_kernel_client()
        for index, earlier in enumerate(self.nb.cells[:cell_index]):
            left = self._time_left()
            if left is not None and left < 1:
                return  # the replay stops at the notebook's deadline, like the cells themselves
            if earlier.cell_type == "code" and earlier.source.strip():
                scratch = NotebookNode(copy.deepcopy(dict(earlier)))
                scratch.outputs = []
                try:
                    await super().async_execute_cell(scratch, index, store_history=False)
                except (DeadKernelError, CellTimeoutError):
                    return  # an earlier cell kills or stalls it again: the rest will fail on their own

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

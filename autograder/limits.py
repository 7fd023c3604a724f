"""Limits on a submission's code, and an nbgrader ``Execute`` preprocessor that keeps its failures to its own cells.

nbgrader bounds a cell's wall time only. Here each grading kernel (and, through :mod:`autograder.judge`, each
worker) also runs

* in the allowlist sandbox of :mod:`autograder.sandbox` (required for grading: without bubblewrap it refuses);
* in a :class:`Cgroup` of its own where the machine allows it: memory (default 2 GiB) and processes (256) for all
  its processes together, and whatever it leaves running is killed; else ``RLIMIT_NPROC``;
* under ``RLIMIT_AS`` (memory per process), ``RLIMIT_CPU`` (600 s per process) and ``RLIMIT_FSIZE`` (file size);
* with output budgets per cell (1 MB) and per notebook (5 MB) covering prints, displays and their updates, and
  widget messages; error messages kept, cut short; no message over 64 MB is ever read by the grader.

A cell whose kernel dies, stalls or floods its output gets an error and the kernel is restarted with the cells
above replayed; past ``max_kernel_restarts`` the remaining cells are marked not run. The judge scores the test
cells either way. The kernel is started by a few lines of Python (:data:`JOIN_CGROUP`, then bubblewrap, then
:data:`SET_LIMITS`, each run with ``python -I -S -c`` in milliseconds) that set the limits and become the kernel.
"""

from __future__ import annotations

import contextlib
import copy
import itertools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any

from jupyter_client.manager import AsyncKernelManager
from jupyter_core.utils import run_sync
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors import Execute
from traitlets import Bool, Integer, List, Unicode

from bpe_lab import cells

from . import sandbox
from .sandbox import KEPT_ENVIRONMENT, SandboxUnavailable

GIB = 1024**3

__all__ = ["KEPT_ENVIRONMENT", "SandboxUnavailable", "bubblewrap"]

bubblewrap = sandbox.bubblewrap

PRIVATE_ENVIRONMENT = ("BPE_COURSE_SEED", "BPE_COURSE_SECRET")
"""Variables student code never gets, even with the sandbox off."""


def parse_size(text: str) -> int:
    """``"2G"``, ``"512M"``, ``"1048576"`` -> bytes.

    Raises:
        ValueError: not a size, naming the text.

    Example:
        >>> parse_size("2G"), parse_size("512M"), parse_size("100")
        (2147483648, 536870912, 100)
    """
    units = {"K": 1024, "M": 1024**2, "G": GIB, "T": 1024**4}
    cleaned = text.strip().upper().removesuffix("B").removesuffix("I")
    try:
        if cleaned and cleaned[-1] in units:
            return int(float(cleaned[:-1]) * units[cleaned[-1]])
        return int(cleaned)
    except ValueError:
        raise ValueError(f"not a size: {text!r} (use e.g. 2G, 512M or a number of bytes)") from None


def sandbox_status(mode: str) -> str:
    """A one-line account of the isolation a sandbox ``mode`` gives on this machine (see :func:`sandbox.status`)."""
    return sandbox.status(mode)


def package_dirs(installed: bool = False) -> list[str]:
    """The folders of the course's packages (``autograder``, ``bpe_ref``) this process imported; with
    ``installed``, also any copy of them in site-packages (what student code could import instead)."""
    return [p for copies in sandbox.course_package_dirs(installed).values() for p in copies]


# ---------------------------------------------------------------------------------------------------------------
# limits on all the processes of one submission together
# ---------------------------------------------------------------------------------------------------------------


class Cgroup:
    """A control group holding every process of one run of a submission's code (its kernel or its worker, and all
    they start), so that memory and processes are limited for all of them together.

    cgroup v2 is used where this process may create a child of its own cgroup with the ``memory`` and ``pids``
    controllers (a delegated cgroup, e.g. under ``systemd-run --user --scope``); else cgroup v1, where the
    ``memory`` and ``pids`` hierarchies are writable (a root grader, a container). Where neither is, :meth:`create`
    returns ``None`` and the fallback holds: ``RLIMIT_NPROC`` for the processes of the sandbox's own user
    namespace, ``RLIMIT_AS``, ``RLIMIT_CPU`` and ``RLIMIT_FSIZE`` per process, and size-limited in-memory
    folders for disk (:mod:`autograder.sandbox`).

    Processes join it before they become the sandbox (:data:`JOIN_CGROUP`), so every child is born inside.
    """

    def __init__(self, folders: list[str], procs: list[str]) -> None:
        self.folders, self.procs = folders, procs

    @classmethod
    def create(cls, memory: int, processes: int) -> Cgroup | None:
        """A new cgroup limited to ``memory`` bytes (0: none) and ``processes`` tasks (0: none), or ``None``."""
        name = f"bpe-{os.getpid()}-{next(_COUNTER)}"
        try:
            own = _own_cgroups()
        except OSError:
            return None
        for attempt in (cls._v2, cls._v1):
            try:
                made = attempt(own, name, memory, processes)
            except OSError:
                made = None
            if made is not None:
                return made
        return None

    @classmethod
    def _v2(cls, own: dict[str, str], name: str, memory: int, processes: int) -> Cgroup | None:
        root = "/sys/fs/cgroup"
        if "" not in own or not os.path.exists(os.path.join(root, "cgroup.controllers")):
            return None
        parent = os.path.join(root, own[""].lstrip("/"))
        with open(os.path.join(parent, "cgroup.subtree_control")) as handle:
            enabled = handle.read().split()
        if not {"memory", "pids"} <= set(enabled):
            return None  # not delegated to us: enabling them would move this process's siblings
        folder = os.path.join(parent, name)
        os.mkdir(folder)
        made = cls([folder], [os.path.join(folder, "cgroup.procs")])
        try:
            _write(os.path.join(folder, "memory.max"), memory or "max")
            _write(os.path.join(folder, "memory.swap.max"), 0, optional=True)
            _write(os.path.join(folder, "pids.max"), processes or "max")
        except OSError:
            made.close()
            return None
        return made

    @classmethod
    def _v1(cls, own: dict[str, str], name: str, memory: int, processes: int) -> Cgroup | None:
        folders = []
        for controller in ("memory", "pids"):
            key = next((k for k in own if controller in k.split(",")), None)
            base = os.path.join("/sys/fs/cgroup", controller)
            if key is None or not os.path.isdir(base):
                cls(folders, []).close()
                return None
            folder = os.path.join(base, own[key].lstrip("/"), name)
            os.mkdir(folder)
            folders.append(folder)
        made = cls(folders, [os.path.join(f, "cgroup.procs") for f in folders])
        try:
            if memory:
                _write(os.path.join(folders[0], "memory.limit_in_bytes"), memory)
                _write(os.path.join(folders[0], "memory.memsw.limit_in_bytes"), memory, optional=True)
            if processes:
                _write(os.path.join(folders[1], "pids.max"), processes)
        except OSError:
            made.close()
            return None
        return made

    def pids(self) -> list[int]:
        found: set[int] = set()
        for path in self.procs:
            with contextlib.suppress(OSError, ValueError), open(path) as handle:
                found |= {int(line) for line in handle if line.strip()}
        return sorted(found)

    def close(self) -> None:
        """Kill every process still in it, and remove it."""
        self.kill_all()
        for folder in reversed(self.folders):
            with contextlib.suppress(OSError):
                os.rmdir(folder)

    def kill_all(self) -> None:
        """Kill every process in it (it stays, for the next run)."""
        for _ in range(50):
            left = self.pids()
            if not left:
                break
            for pid in left:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.02)


_COUNTER = itertools.count()


def _own_cgroups() -> dict[str, str]:
    """``/proc/self/cgroup`` as {controllers: path} (``""`` is the cgroup v2 hierarchy)."""
    own = {}
    with open("/proc/self/cgroup") as handle:
        for line in handle:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            own[controllers] = path
    return own


def _write(path: str, value: object, optional: bool = False) -> None:
    try:
        with open(path, "w") as handle:
            handle.write(str(value))
    except OSError:
        if not optional:
            raise


JOIN_CGROUP = """
import os, sys
end = sys.argv.index("--")
for path in sys.argv[1:end]:
    with open(path, "w") as handle:
        handle.write(str(os.getpid()))
os.execvp(sys.argv[end + 1], sys.argv[end + 1:])
"""
"""Moves itself into the cgroups whose ``cgroup.procs`` files are given, then becomes the command after ``--``."""


def joined_command(command: list[str], cgroup: Cgroup | None) -> list[str]:
    """``command``, started inside ``cgroup`` (unchanged when ``cgroup`` is ``None``)."""
    if cgroup is None:
        return command
    return [sys.executable, "-I", "-S", "-c", JOIN_CGROUP, *cgroup.procs, "--", *command]


class LimitedKernelManager(AsyncKernelManager):
    """A kernel manager whose kernels start in the allowlist sandbox (:mod:`autograder.sandbox`), under memory,
    process and CPU-time limits.

    The kernel talks to the grader over Unix sockets (ZeroMQ ``ipc``) in a folder of its own, the only host folder
    it may write. Its processes share one :class:`Cgroup` where the machine allows it (memory and processes for
    all of them together), and each has ``RLIMIT_AS``, ``RLIMIT_CPU``, ``RLIMIT_FSIZE`` and ``RLIMIT_NPROC``.
    """

    memory_limit = Integer(2 * GIB, help="bytes of memory of the kernel and its children (0: none)").tag(config=True)
    cpu_limit = Integer(600, help="RLIMIT_CPU of each process in seconds (0: none)").tag(config=True)
    process_limit = Integer(256, help="processes and threads of the kernel together (0: none)").tag(config=True)
    sandbox = Unicode(
        "required",
        help="'required' (also 'bwrap': refuse to run student code without bubblewrap), 'auto' (bubblewrap when it "
        "works, else none: self-checks) or 'off' (no isolation, said explicitly)",
    ).tag(config=True)
    hidden_paths = List(Unicode(), [], help="ignored: the sandbox is an allowlist (kept for old configs)").tag(
        config=True
    )
    files_from = Unicode("", help="host folder whose files the kernel sees in its working folder").tag(config=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._bwrap = sandbox.resolve(self.sandbox)  # SandboxUnavailable: fail closed, before any student code
        self._cgroup: Cgroup | None = None
        if self._bwrap:
            self._socket_dir = tempfile.mkdtemp(prefix="bpe-kernel-")
            self.transport = "ipc"
            self.ip = os.path.join(self._socket_dir, "kernel")

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        command = super().format_kernel_cmd(extra_arguments)
        return limited_command(command, self.memory_limit, self.cpu_limit, processes=self.process_limit)

    async def _async_pre_start_kernel(self, **kw: Any):
        command, kw = await super()._async_pre_start_kernel(**kw)
        if self._bwrap:
            command = [*self.sandbox_prefix(self.files_from or None), *command]
        if self._cgroup is None:
            self._cgroup = Cgroup.create(self.memory_limit, self.process_limit)
        return joined_command(command, self._cgroup), kw

    def sandbox_prefix(self, files_from: str | None = None) -> list[str]:
        """The ``bwrap`` argv that runs this kernel (see :func:`autograder.sandbox.sandbox_argv`): it may import
        :data:`autograder.sandbox.KERNEL_PACKAGES` (the learner's toolkit, which the notebooks' own cells use) and
        nothing else of the course; its ZeroMQ sockets and connection file are bound in."""
        return sandbox.sandbox_argv(
            self._bwrap,
            course_packages=sandbox.KERNEL_PACKAGES,
            files_from=files_from,
            binds=[self._socket_dir],
            read_only=[self.connection_file],
        )

    async def _async_interrupt_kernel(self) -> None:
        # In the sandbox the kernel runs in its own session, out of reach of a signal to bubblewrap: ask it to
        # interrupt itself with an interrupt_request on the control channel (the kernel spec's "message" mode).
        if self._bwrap and self.has_kernel:
            self._connect_control_socket()
            self.session.send(self._control_socket, self.session.msg("interrupt_request", content={}))
            return
        await super()._async_interrupt_kernel()

    interrupt_kernel = _async_interrupt_kernel

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart=restart)
        if restart:
            return
        if self._cgroup is not None:
            self._cgroup.close()  # every process the kernel left behind
            self._cgroup = None
        if self._bwrap:
            shutil.rmtree(self._socket_dir, ignore_errors=True)

    cleanup_resources = _async_cleanup_resources


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
        False, help="also run the test cells in the kernel (they are scored by autograder.judge.JudgeTests)"
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
        # the course's private seed (autograder.cases) stays with the grader, sandbox or not
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

        Test cells are not run here unless ``run_test_cells`` is set: :class:`autograder.judge.JudgeTests`
        scores them outside the kernel. Once the notebook has used up ``notebook_timeout``, the remaining
        cells are not run and get a ``NotebookTimeout`` error.
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
        if msg_type == "error" and first_error:  # the cell's own error is kept, whatever the budget
            return super().process_message(msg, cell, cell_index)
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


SET_LIMITS = """
import os, resource, sys
memory, cpu, size, processes = (int(x) for x in sys.argv[1:5])
if memory > 0:
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
if cpu > 0:
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
if size > 0:
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
if processes > 0:
    resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))
os.execvp(sys.argv[5], sys.argv[5:])
"""
"""Sets RLIMIT_AS, RLIMIT_CPU, RLIMIT_FSIZE and RLIMIT_NPROC, then becomes the command; arguments: memory bytes,
CPU seconds, file bytes, processes, command... ``RLIMIT_NPROC`` counts the processes of the sandbox's own user
(``nobody`` in its user namespace), except when the grader runs as root: then only the cgroup limits them."""

FILE_BYTES = 256 * 1024**2
"""The largest file student code may write (RLIMIT_FSIZE); in the sandbox its folders are small tmpfs as well."""


def limited_command(
    command: list[str], memory: int, cpu: int, file_size: int = FILE_BYTES, *, processes: int = 0
) -> list[str]:
    """``command`` prefixed so that it runs under ``memory`` bytes of address space, ``cpu`` seconds of CPU, writes
    no file larger than ``file_size`` bytes, and its user runs at most ``processes`` processes (threads included).

    ``0`` means no limit. The prefix is ``python -I -S -c SET_LIMITS``: it imports only ``os``, ``resource`` and
    ``sys`` (about 20 ms), where ``python -m autograder...`` would import the course's packages first (seconds).

    Raises:
        ValueError: an empty command, or a negative limit.

    Example:
        >>> limited_command(["true"], 2**30, 60)[-5:]
        ['1073741824', '60', '268435456', '0', 'true']
    """
    if not command:
        raise ValueError("no command to limit")
    if min(memory, cpu, file_size, processes) < 0:
        raise ValueError(
            f"limits must be 0 (none) or positive: memory={memory!r}, cpu={cpu!r}, file={file_size!r}, "
            f"processes={processes!r}"
        )
    limits = [str(memory), str(cpu), str(file_size), str(processes)]
    return [sys.executable, "-I", "-S", "-c", SET_LIMITS, *limits, *command]

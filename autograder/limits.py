"""Resource limits for the grading kernel, and an nbgrader ``Execute`` preprocessor that enforces an output limit.

nbgrader bounds a cell's wall time only. Here each grading kernel also runs under

* a memory limit (``RLIMIT_AS``, default 2 GiB): a memory bomb raises ``MemoryError`` in its cell;
* a CPU-time limit (``RLIMIT_CPU``, default 600 s for the whole notebook): past it the kernel is stopped;
* an output limit per cell (default 1 MB): the rest of the cell's output is dropped, and the cell gets an
  ``OutputLimitExceeded`` error, so a test cell that floods its output scores 0 with the reason given.

The kernel is started by a few lines of Python (:data:`SET_LIMITS`, run with ``python -I -S -c``, so it starts in
milliseconds and imports nothing of the course) that set the limits on themselves and then become the kernel
(``os.execvp``).
"""

from __future__ import annotations

import copy
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any

from jupyter_client.manager import AsyncKernelManager
from jupyter_core.utils import ensure_async, run_sync
from nbclient.exceptions import DeadKernelError
from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors import Execute
from traitlets import Bool, Integer, List, Unicode

GIB = 1024**3

KEPT_ENVIRONMENT = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "PYTHONPATH", "PYTHONIOENCODING", "NBGRADER_EXECUTION",
                    "NBGRADER_VALIDATING", "JPY_SESSION_NAME")  # fmt: skip
"""What a sandboxed kernel keeps of the grader's environment (no secrets, no JPY_PARENT_PID: PID 1 is bwrap)."""

PRIVATE_ENVIRONMENT = ("BPE_COURSE_SEED",)
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


@functools.cache
def bubblewrap() -> str | None:
    """The path of a working ``bwrap`` (bubblewrap), or ``None`` when it is missing or cannot make namespaces."""
    path = shutil.which("bwrap")
    if path is None:
        return None
    probe = [path, "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-net", "--die-with-parent", "true"]
    try:
        ok = subprocess.run(probe, capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        ok = False
    return path if ok else None


def sandbox_status(mode: str) -> str:
    """A one-line account of the sandbox a ``mode`` gives on this machine (for reports)."""
    if mode == "off":
        return "sandbox: off (student code can read and write what the grading user can)"
    if bubblewrap():
        return "sandbox: bubblewrap (no network; course sources, gradebooks and other submissions hidden)"
    return "sandbox: OFF, bubblewrap is missing or cannot run here (Debian: apt-get install bubblewrap)"


def package_dirs(installed: bool = False) -> list[str]:
    """The folders of the course's packages (``autograder``, ``bpe_ref``) this process imported; with
    ``installed``, also any copy of them in site-packages (what student code could import instead)."""
    import site

    import autograder
    import bpe_ref

    found = [os.path.dirname(os.path.abspath(m.__file__)) for m in (autograder, bpe_ref)]
    if installed:
        for folder in [*site.getsitepackages(), site.getusersitepackages()]:
            found += [os.path.join(folder, name) for name in ("autograder", "bpe_ref")]
    return [path for path in found if os.path.exists(path)]


def _code_roots() -> list[str]:
    """The folders the kernel must read to run: Python's prefixes, its import path, the course's packages."""
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(sys.executable)}
    roots |= {os.path.dirname(p) for p in package_dirs()}
    # sys.path[0] is the script's folder or the working folder (with -m), which may be anything: not a code root
    roots |= {p for p in sys.path[1:] if p and os.path.isdir(p) and os.path.realpath(p) != os.getcwd()}
    return sorted({os.path.realpath(r) for r in roots})


def sandbox_argv(
    bwrap: str,
    workdir: str,
    hidden_paths: list[str],
    *,
    home: str | None = None,
    binds: list[str] = (),  # type: ignore[assignment]
    read_only: list[str] = (),  # type: ignore[assignment]
) -> list[str]:
    """The ``bwrap`` argv that runs a command with ``workdir`` as its only writable folder.

    The command runs as ``nobody`` in user, PID, network, IPC and UTS namespaces of its own with no
    capabilities, so it can neither see nor signal the grader's processes, nor reach any network. It sees the
    file system read-only, with each of ``hidden_paths`` replaced by an empty folder (or ``/dev/null``), plus
    ``binds`` writable and ``read_only`` readable; ``workdir`` (where it starts), ``/tmp``, ``/dev/shm`` and the
    temporary folder are small private tmpfs, so what it writes stays in memory, within limits, and vanishes.
    Its environment is cleared but for :data:`KEPT_ENVIRONMENT`, with ``HOME`` set to ``home`` (default
    ``workdir``).

    Args:
        bwrap: the path of ``bwrap`` (see :func:`bubblewrap`).
        workdir: the working folder, writable.
        hidden_paths: files and folders the command must not see.

    Returns:
        The argv to put before the command.

    Example:
        >>> argv = sandbox_argv("/usr/bin/bwrap", "/srv/run", ["/srv/solutions"])
        >>> argv[argv.index("--chdir") + 1], "--unshare-net" in argv
        ('/srv/run', True)
    """
    workdir = os.path.realpath(workdir)
    home = home or workdir
    small = str(256 * 1024**2)
    argv = [bwrap, "--unshare-user", "--uid", "65534", "--gid", "65534", "--cap-drop", "ALL"]
    argv += ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--die-with-parent"]
    argv += ["--new-session", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    argv += ["--size", small, "--tmpfs", "/tmp", "--size", small, "--tmpfs", "/dev/shm"]
    if os.path.realpath(tempfile.gettempdir()) != "/tmp":  # TMPDIR elsewhere: other runs' scratch folders live there
        argv += ["--size", small, "--tmpfs", os.path.realpath(tempfile.gettempdir())]
    hidden = sorted({os.path.realpath(p) for p in hidden_paths})
    _hide(argv, hidden)
    # Python and the course's packages stay readable where they live under /tmp or a hidden folder (a home
    # folder with pyenv, a virtual environment, a clone in /tmp); hidden paths inside them are hidden again.
    covers = ["/tmp", *hidden]
    kept = [r for r in _code_roots() if r not in hidden and any(r.startswith(c.rstrip("/") + "/") for c in covers)]
    for keep in kept:
        argv += ["--ro-bind", keep, keep]
    _hide(argv, [p for p in hidden if any(p.startswith(k.rstrip("/") + "/") for k in kept)])
    argv += ["--size", str(WORKDIR_BYTES), "--tmpfs", workdir]  # private and small: nothing of it reaches the disk
    for path in binds:
        argv += ["--bind", path, path]
    for path in read_only:
        argv += ["--ro-bind", path, path]
    argv += ["--clearenv"]
    for name in KEPT_ENVIRONMENT:
        if name in os.environ:
            argv += ["--setenv", name, os.environ[name]]
    argv += ["--setenv", "HOME", home, "--setenv", "IPYTHONDIR", os.path.join(home, ".ipython")]
    argv += ["--setenv", "MPLCONFIGDIR", os.path.join(home, ".matplotlib"), "--setenv", "TMPDIR", "/tmp"]
    argv += ["--chdir", workdir]
    return argv


def _hide(argv: list[str], paths: list[str]) -> None:
    for path in paths:
        if os.path.isdir(path):
            argv += ["--tmpfs", path]  # a working folder inside it is bound back afterwards
        elif os.path.exists(path):
            argv += ["--ro-bind", "/dev/null", path]


class LimitedKernelManager(AsyncKernelManager):
    """A kernel manager whose kernels start under memory and CPU-time limits, optionally in a bubblewrap sandbox.

    In the sandbox (``sandbox = "auto"`` or ``"bwrap"``) the kernel sees the file system read-only, with every
    path of ``hidden_paths`` (and ``/tmp``) replaced by an empty folder, except its own working folder, which
    it may write; it has no network (its own network namespace); and it talks to the grader over Unix sockets
    (ZeroMQ ``ipc``) in a folder of its own.
    """

    memory_limit = Integer(2 * GIB, help="RLIMIT_AS of the kernel in bytes (0: none)").tag(config=True)
    cpu_limit = Integer(600, help="RLIMIT_CPU of the kernel in seconds (0: none)").tag(config=True)
    sandbox = Unicode("auto", help="'auto' (bubblewrap when it works), 'bwrap' (required) or 'off'").tag(config=True)
    hidden_paths = List(Unicode(), [], help="paths the sandboxed kernel sees as empty folders").tag(config=True)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._bwrap = self._sandbox_binary()
        if self._bwrap:
            self._socket_dir = tempfile.mkdtemp(prefix="bpe-kernel-")
            self.transport = "ipc"
            self.ip = os.path.join(self._socket_dir, "kernel")

    def _sandbox_binary(self) -> str | None:
        if self.sandbox == "off":
            return None
        found = bubblewrap()
        if found is None and self.sandbox == "bwrap":
            raise RuntimeError("sandbox = 'bwrap' but bubblewrap is missing or cannot run (apt-get install bubblewrap)")
        return found

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        command = super().format_kernel_cmd(extra_arguments)
        return limited_command(command, self.memory_limit, self.cpu_limit)

    async def _async_pre_start_kernel(self, **kw: Any):
        command, kw = await super()._async_pre_start_kernel(**kw)
        if self._bwrap:
            command = [*self.sandbox_prefix(kw.get("cwd") or os.getcwd()), *command]
        return command, kw

    def sandbox_prefix(self, workdir: str) -> list[str]:
        """The ``bwrap`` argv that runs this kernel with ``workdir`` as its only writable folder (see
        :func:`sandbox_argv`); its ZeroMQ sockets and connection file are bound in as well."""
        scratch_home = os.path.join(self._socket_dir, "home")
        os.makedirs(scratch_home, exist_ok=True)
        return sandbox_argv(
            self._bwrap,
            workdir,
            self.hidden_paths,
            home=scratch_home,
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
        if self._bwrap and not restart:
            shutil.rmtree(self._socket_dir, ignore_errors=True)

    cleanup_resources = _async_cleanup_resources


MAX_ERROR_TEXT = 10_000
"""Characters kept of an error's message, and of each line of its traceback (the last 60 lines are kept)."""


def _short_error(content: dict) -> dict:
    """An error message's content with its value and traceback cut to :data:`MAX_ERROR_TEXT` characters a piece
    (``raise ValueError("x" * 10**8)`` must not make a 100 MB notebook)."""
    content = dict(content)
    content["evalue"] = str(content.get("evalue", ""))[:MAX_ERROR_TEXT]
    traceback = content.get("traceback", [])
    content["traceback"] = [str(line)[:MAX_ERROR_TEXT] for line in (traceback if isinstance(traceback, list) else [])][
        -60:
    ]
    return content


class LimitedExecute(Execute):
    """nbgrader's ``Execute`` with :class:`LimitedKernelManager` kernels and an output limit per cell."""

    max_output_bytes = Integer(1_000_000, help="bytes of output kept per cell (0: no limit)").tag(config=True)

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
        # The kernel works in an empty folder of its own, not in the folder nbgrader writes the graded notebook
        # to: a symbolic link planted there cannot redirect nbgrader's writes, and nothing it leaves is copied.
        self._scratch = tempfile.mkdtemp(prefix="bpe-run-")
        kwargs["cwd"] = self._scratch
        # the kernel's own chatter ("To connect another client...") is not the grader's output
        kwargs.setdefault("stdout", subprocess.DEVNULL)
        kwargs.setdefault("stderr", subprocess.DEVNULL)
        # the course's private seed (autograder.cases) stays with the grader, sandbox or not
        kwargs["env"] = {k: v for k, v in kwargs.get("env", os.environ).items() if k not in PRIVATE_ENVIRONMENT}
        await super().async_start_new_kernel(**kwargs)

    start_new_kernel = run_sync(async_start_new_kernel)

    def preprocess(self, nb: NotebookNode, resources: Any, km: Any = None):
        self._deadline = time.monotonic() + self.notebook_timeout if self.notebook_timeout else None
        try:
            return super().preprocess(nb, resources, km)
        finally:
            if getattr(self, "_scratch", None):
                shutil.rmtree(self._scratch, ignore_errors=True)

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
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("grade") and not meta.get("solution") and not self.run_test_cells:
            cell.outputs = []
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
        except DeadKernelError:
            self._restarts = getattr(self, "_restarts", 0) + 1
            cell.outputs.append(
                NotebookNode(
                    output_type="error",
                    ename="KernelDied",
                    evalue="the kernel stopped while running this cell (os._exit, a crash, or a resource limit)",
                    traceback=["KernelDied: the kernel stopped while running this cell"],
                )
            )
            if self._restarts > self.max_kernel_restarts:
                raise
            await self._restart_and_replay(cell_index)
            return cell

    execute_cell = run_sync(async_execute_cell)

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
        await self.km.restart_kernel(now=True)
        await ensure_async(self.kc.wait_for_ready(timeout=self.startup_timeout))
        for index, earlier in enumerate(self.nb.cells[:cell_index]):
            if earlier.cell_type == "code" and earlier.source.strip():
                scratch = NotebookNode(copy.deepcopy(dict(earlier)))
                scratch.outputs = []
                try:
                    await super().async_execute_cell(scratch, index, store_history=False)
                except DeadKernelError:
                    return  # an earlier cell kills it again: the rest will fail on their own

    def output(self, outs: list[NotebookNode], msg: dict, display_id: str | None, cell_index: int):
        cell = self.nb.cells[cell_index] if 0 <= cell_index < len(self.nb.cells) else {}
        if msg.get("msg_type") == "execute_result" and cell.get("metadata", {}).get("nbgrader", {}).get("grade"):
            # nbgrader reads a test cell's execute_result as its score (partial credit): the course's hidden
            # tests never make one, so one there came from student code (sys.displayhook...). Drop it.
            return None
        if msg.get("msg_type") == "error":  # kept, whatever the budget, but cut to a readable size
            msg = {**msg, "content": _short_error(msg.get("content", {}))}
            return super().output(outs, msg, display_id, cell_index)
        if not self.max_output_bytes:
            return super().output(outs, msg, display_id, cell_index)
        size = len(json.dumps(msg.get("content", {}), default=str))
        used = self._output_bytes.get(cell_index, 0)
        self._output_bytes[cell_index] = used + size
        if used + size <= self.max_output_bytes:
            return super().output(outs, msg, display_id, cell_index)
        if used <= self.max_output_bytes:  # the first output over the limit: say so once
            note = NotebookNode(
                output_type="error",
                ename="OutputLimitExceeded",
                evalue=f"this cell printed more than {self.max_output_bytes:,} bytes; the rest was dropped",
                traceback=[f"OutputLimitExceeded: more than {self.max_output_bytes:,} bytes of output"],
            )
            outs.append(note)
        return None


SET_LIMITS = """
import os, resource, sys
memory, cpu, size = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
if memory > 0:
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
if cpu > 0:
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
if size > 0:
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
os.execvp(sys.argv[4], sys.argv[4:])
"""
"""Sets RLIMIT_AS, RLIMIT_CPU and RLIMIT_FSIZE, then becomes the command; arguments: memory bytes, CPU seconds,
file bytes, command..."""

FILE_BYTES = 256 * 1024**2
"""The largest file student code may write (RLIMIT_FSIZE); in the sandbox its folders are small tmpfs as well."""
WORKDIR_BYTES = 256 * 1024**2


def limited_command(command: list[str], memory: int, cpu: int, file_size: int = FILE_BYTES) -> list[str]:
    """``command`` prefixed so that it runs under ``memory`` bytes of address space, ``cpu`` seconds of CPU, and
    writes no file larger than ``file_size`` bytes.

    ``0`` means no limit. The prefix is ``python -I -S -c SET_LIMITS``: it imports only ``os``, ``resource`` and
    ``sys`` (about 20 ms), where ``python -m autograder...`` would import the course's packages first (seconds).

    Raises:
        ValueError: an empty command, or a negative limit.

    Example:
        >>> limited_command(["true"], 2**30, 60)[-4:]
        ['1073741824', '60', '268435456', 'true']
    """
    if not command:
        raise ValueError("no command to limit")
    if memory < 0 or cpu < 0 or file_size < 0:
        raise ValueError(f"limits must be 0 (none) or positive: memory={memory!r}, cpu={cpu!r}, file={file_size!r}")
    return [sys.executable, "-I", "-S", "-c", SET_LIMITS, str(memory), str(cpu), str(file_size), *command]

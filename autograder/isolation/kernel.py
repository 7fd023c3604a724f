"""The grading kernel's manager: a Jupyter kernel started in the allowlist sandbox, under the submission's limits.

:class:`LimitedKernelManager` is what :class:`autograder.preprocessors.limited_execute.LimitedExecute` (nbgrader's
``Execute`` step) starts its kernels with. The limits themselves (cgroup, rlimits) are
:mod:`autograder.isolation.limits`; the file system the kernel sees is :mod:`autograder.isolation.sandbox`.
"""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any

from jupyter_client.manager import AsyncKernelManager
from traitlets import Integer, List, Unicode

from . import sandbox
from .limits import GIB, Cgroup, joined_command, limited_command

__all__ = ["LimitedKernelManager", "SOCKETS", "sandbox_root"]

SOCKETS = "/tmp/bpe-kernel-sockets"
"""Where, inside the sandbox, the kernel makes its ZeroMQ sockets: its own in-memory ``/tmp`` (size-limited)."""
SANDBOX_START_S = 30.0
KILL_POLL_S, KILL_WAIT_S = 0.005, 5.0
"""How often, and how long at most, the end of a killed kernel is awaited."""
KERNEL_OPTIONS = ("--HistoryManager.enabled=False",)
"""IPython options of a grading kernel, whichever configuration starts it: no input history (IPython's SQLite
database and the thread that writes it; no output depends on it)."""


def sandbox_root(pid: int, poll: Any = lambda: None, timeout: float = SANDBOX_START_S) -> str:
    """``/proc/<pid>/root`` of the first process under ``pid`` (bubblewrap) whose root holds :data:`SOCKETS`: the
    sandbox's file system as this process sees it. Waits until bubblewrap has built it.

    Raises:
        RuntimeError: the sandbox did not start within ``timeout`` seconds, or its process ended (``poll()`` not
            ``None``).
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        todo, seen = [pid], set()
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            root = f"/proc/{current}/root"
            if current != pid and os.path.isdir(root + SOCKETS):
                return root
            try:
                with open(f"/proc/{current}/task/{current}/children") as handle:
                    todo += [int(child) for child in handle.read().split()]
            except OSError:
                continue
        if poll() is not None:
            raise RuntimeError("the sandbox of the grading kernel stopped before it started")
        time.sleep(0.01)
    raise RuntimeError(f"the sandbox of the grading kernel did not start within {timeout:g} s")


class LimitedKernelManager(AsyncKernelManager):
    """A kernel manager whose kernels start in the allowlist sandbox (:mod:`autograder.isolation.sandbox`), under
    memory, process and CPU-time limits.

    The kernel talks to the grader over Unix sockets (ZeroMQ ``ipc``) that it makes in :data:`SOCKETS`, a folder
    of the sandbox's own in-memory, size-limited ``/tmp``: no host folder is writable from the sandbox. The
    grader reaches them through the sandbox's root as the host sees it (``/proc/<pid>/root``, the process being
    the grader's own child), so the connection file the kernel reads (bound read-only) names the path inside, and
    the clients the path outside. Its processes share one :class:`Cgroup` where the machine allows it (memory and
    processes for all of them together), and each has ``RLIMIT_AS``, ``RLIMIT_CPU``, ``RLIMIT_FSIZE`` and
    ``RLIMIT_NPROC``.
    """

    memory_limit = Integer(2 * GIB, help="bytes of memory of the kernel and its children (0: none)").tag(config=True)
    cpu_limit = Integer(600, help="RLIMIT_CPU of each process in seconds (0: none)").tag(config=True)
    process_limit = Integer(256, help="processes and threads of the kernel together (0: none)").tag(config=True)
    sandbox = Unicode(
        "required",
        help="'required' (also 'bwrap': refuse to run student code without bubblewrap), 'auto' (bubblewrap when it "
        "works, else none: self-checks) or 'off' (no isolation, said explicitly)",
    ).tag(config=True)
    extra_distributions = List(
        Unicode(),
        [],
        help="installed distributions student code may import beyond the learner's install (bpe_lab's requirements "
        "and their dependencies), with their own dependencies: what your students' image adds, e.g. ['pandas']",
    ).tag(config=True)
    hidden_paths = List(Unicode(), [], help="ignored: the sandbox is an allowlist (kept for old configs)").tag(
        config=True
    )
    files_from = Unicode("", help="host folder whose files the kernel sees in its working folder").tag(config=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._bwrap = sandbox.resolve(self.sandbox)  # SandboxUnavailable: fail closed, before any student code
        if self._bwrap:
            sandbox.allowed_site_entries(tuple(self.extra_distributions))  # SandboxUnavailable: names a bad one
        else:
            sandbox.refuse_visible_answer_keys()  # no sandbox: this environment must not hold the model solutions
        self._cgroup: Cgroup | None = None
        if self._bwrap:
            self.transport = "ipc"
            self.ip = SOCKETS + "/kernel"

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        command = super().format_kernel_cmd([*(extra_arguments or []), *KERNEL_OPTIONS])
        return limited_command(command, self.memory_limit, self.cpu_limit, processes=self.process_limit)

    async def _async_pre_start_kernel(self, **kw: Any):
        if self._bwrap:
            self.ip = SOCKETS + "/kernel"  # the connection file names the sockets as the kernel sees them
        command, kw = await super()._async_pre_start_kernel(**kw)
        if self._bwrap:
            command = [*self.sandbox_prefix(self.files_from or None), *command]
            kw["env"] = sandbox.launch_environment()  # bwrap's own: student code reads it in /proc/1/environ
        if self._cgroup is None:
            self._cgroup = Cgroup.create(self.memory_limit, self.process_limit)
        return joined_command(command, self._cgroup), kw

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: Any) -> None:
        await super()._async_launch_kernel(kernel_cmd, **kw)
        if self._bwrap:  # the clients (and the control socket) reach the sockets through the sandbox's root
            process = getattr(self.provisioner, "process", None)
            if process is None:
                raise RuntimeError("the kernel's provisioner started no process to find the sandbox's root through")
            self.ip = sandbox_root(process.pid, process.poll) + SOCKETS + "/kernel"

    _launch_kernel = _async_launch_kernel

    def sandbox_prefix(self, files_from: str | None = None) -> list[str]:
        """The ``bwrap`` argv that runs this kernel (see :func:`autograder.isolation.sandbox.sandbox_argv`): it may
        import :data:`autograder.isolation.sandbox.KERNEL_PACKAGES` (the learner's toolkit, which the notebooks' own
        cells use) and nothing else of the course; its ZeroMQ sockets and connection file are bound in.

        Raises:
            autograder.isolation.sandbox.SandboxUnavailable: this manager runs its kernels without the sandbox.
        """
        if not self._bwrap:
            raise sandbox.SandboxUnavailable(f"this kernel manager runs without the sandbox (sandbox={self.sandbox!r})")
        return sandbox.sandbox_argv(
            self._bwrap,
            course_packages=sandbox.KERNEL_PACKAGES,
            extra_distributions=self.extra_distributions,
            files_from=files_from,
            dirs=[SOCKETS],
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

    async def _async_kill_kernel(self, restart: bool = False) -> None:
        # jupyter_client's, but the kernel's end is awaited every KILL_POLL_S (its local provisioner looks every
        # 0.1 s, which costs every graded notebook about 0.1 s of wall time)
        if not self.has_kernel or self.provisioner is None:
            return
        await self.provisioner.kill(restart=restart)
        process = getattr(self.provisioner, "process", None)
        deadline = time.monotonic() + KILL_WAIT_S
        while process is not None and process.poll() is None:
            if time.monotonic() > deadline:
                self.log.warning("Wait for final termination of kernel timed out - continuing...")
                return
            await asyncio.sleep(KILL_POLL_S)
        if self.has_kernel:
            await self.provisioner.wait()  # at once: the process has ended (its pipes are closed there)

    _kill_kernel = _async_kill_kernel

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart=restart)
        if restart:
            return
        if self._cgroup is not None:
            self._cgroup.close()  # every process the kernel left behind
            self._cgroup = None

    cleanup_resources = _async_cleanup_resources

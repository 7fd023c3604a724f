"""Limits on a submission's code: resource limits, cgroups and the commands that apply them.

nbgrader bounds a cell's wall time only. Here each grading kernel (:mod:`autograder.isolation.kernel`; and, through
:mod:`autograder.isolation.judge`, each worker) also runs

* in the allowlist sandbox of :mod:`autograder.isolation.sandbox` (required for grading: without bubblewrap it refuses);
* in a :class:`Cgroup` of its own where the machine allows it: memory (default 2 GiB) and processes (256) for all
  its processes together, and whatever it leaves running is killed; else ``RLIMIT_NPROC``;
* under ``RLIMIT_AS`` (memory per process), ``RLIMIT_CPU`` (600 s per process, the hard floor) and
  ``RLIMIT_FSIZE`` (file size);
* under time limits that count the **CPU time** its processes and threads spend together (:class:`CpuMeter`: the
  cgroup's accounting, else the process tree in ``/proc``), per call, per cell and per notebook, so that a busy
  grading machine never costs a correct submission; wall-clock limits are only backstops against code that sleeps
  or waits;
* with output budgets per cell and per notebook (:mod:`autograder.preprocessors.limited_execute`, the
  ``Execute`` preprocessor).

The kernel is started by a few lines of Python (:data:`JOIN_CGROUP`, then bubblewrap, then
:data:`SET_LIMITS`, each run with ``python -I -S -c`` in milliseconds) that set the limits and become the kernel.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import sys
import time
from collections.abc import Callable

from . import sandbox
from .sandbox import KEPT_ENVIRONMENT, SandboxUnavailable

GIB = 1024**3

__all__ = ["KEPT_ENVIRONMENT", "SandboxUnavailable", "bubblewrap"]

bubblewrap = sandbox.bubblewrap

PRIVATE_ENVIRONMENT = ("BPE_COURSE_SECRET",)
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
    folders for disk (:mod:`autograder.isolation.sandbox`).

    Processes join it before they become the sandbox (:data:`JOIN_CGROUP`), so every child is born inside. Its CPU
    accounting (:meth:`cpu_seconds`: ``cpu.stat`` in v2, the ``cpuacct`` controller in v1 where it is writable)
    counts every process that ever ran in it.
    """

    def __init__(self, folders: list[str], procs: list[str], cpu_file: str = "") -> None:
        self.folders, self.procs, self.cpu_file = folders, procs, cpu_file

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
        made = cls([folder], [os.path.join(folder, "cgroup.procs")], os.path.join(folder, "cpu.stat"))
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
        folders: list[str] = []
        for controller in ("memory", "pids"):
            key = next((k for k in own if controller in k.split(",")), None)
            base = os.path.join("/sys/fs/cgroup", controller)
            if key is None or not os.path.isdir(base):
                cls(folders, []).close()
                return None
            folder = os.path.join(base, own[key].lstrip("/"), name)
            os.mkdir(folder)
            folders.append(folder)
        cpu_file = ""
        key = next((k for k in own if "cpuacct" in k.split(",")), None)
        accounting = os.path.join("/sys/fs/cgroup", "cpuacct")
        if key is not None and os.path.isdir(accounting):  # optional: else the process tree is read (CpuMeter)
            with contextlib.suppress(OSError):
                folder = os.path.join(accounting, own[key].lstrip("/"), name)
                os.mkdir(folder)
                folders.append(folder)
                cpu_file = os.path.join(folder, "cpuacct.usage")
        made = cls(folders, [os.path.join(f, "cgroup.procs") for f in folders], cpu_file)
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

    def cpu_seconds(self) -> float | None:
        """CPU seconds (user and system) used by every process that ever ran in it, or ``None`` where this
        machine gives it no CPU accounting."""
        if not self.cpu_file:
            return None
        try:
            with open(self.cpu_file) as handle:
                text = handle.read()
        except OSError:
            return None
        if self.cpu_file.endswith("cpuacct.usage"):  # v1: nanoseconds
            return int(text.strip() or 0) / 1e9
        for line in text.splitlines():  # v2: "usage_usec N" among others
            key, _, value = line.partition(" ")
            if key == "usage_usec":
                return int(value) / 1e6
        return None

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

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def tree_cpu_seconds(pid: int) -> float | None:
    """CPU seconds used by process ``pid`` and its descendants alive now, as ``/proc`` has them: each one's user
    and system time (all its threads) and that of the children it has reaped. ``None`` when ``pid`` is gone or
    ``/proc`` cannot tell.

    Example:
        >>> tree_cpu_seconds(os.getpid()) > 0
        True
    """
    total, todo, seen = 0.0, [pid], set()
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        try:
            with open(f"/proc/{current}/stat") as handle:
                fields = handle.read().rpartition(")")[2].split()
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as handle:
                    todo += [int(child) for child in handle.read().split()]
        except (OSError, ValueError):
            if current == pid:
                return None
            continue  # a child that ended meanwhile: its parent's reaped-children time has it, or will
        total += sum(int(x) for x in fields[11:15]) / _TICKS  # utime, stime, cutime, cstime
    return total


POLL_SECONDS = 0.05
"""How often the grader reads the CPU time of a run of student code while it waits for it (the judge's worker, the
kernel): a CPU-time limit is overshot by at most about this much."""


class CpuMeter:
    """The CPU seconds used so far by one run of a submission's code, its processes and threads together.

    From the run's :class:`Cgroup` where it has CPU accounting (every process that ever ran in it, children that
    escaped their parents included); else from ``/proc`` (:func:`tree_cpu_seconds`) under the run's current root
    process, ``root()``, which changes when the run is restarted: what an earlier root had used when last read is
    kept. A process that leaves that tree (an orphan where no sandbox reaps it) is not counted there;
    ``RLIMIT_CPU`` still bounds each process.

    Args:
        cgroup: gives the run's cgroup or ``None`` (read at each measure: a run may get one after it starts).
        root: gives the pid of the run's root process now, or ``None`` when none runs.

    Example:
        >>> CpuMeter(lambda: None, os.getpid).seconds() > 0
        True
    """

    def __init__(self, cgroup: Callable[[], Cgroup | None], root: Callable[[], int | None]) -> None:
        self._cgroup, self._root = cgroup, root
        self._earlier = 0.0
        self._last: tuple[int | None, float] = (None, 0.0)

    def seconds(self) -> float:
        """CPU seconds used so far."""
        group = self._cgroup()
        used = group.cpu_seconds() if group is not None else None
        if used is not None:
            return used
        pid = self._root()
        last_pid, last = self._last
        if pid != last_pid:  # a new root: keep what the old one had used
            self._earlier += last
            last = 0.0
        now = tree_cpu_seconds(pid) if pid is not None else None
        self._last = (pid, max(last, now if now is not None else last))
        return self._earlier + self._last[1]


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


JOIN_CGROUP = (
    'for path do if [ "$path" = -- ]; then shift; exec "$@"; exit 127; fi; echo $$ > "$path" || exit 126; shift; done'
)
"""A ``/bin/sh`` script: moves itself into the cgroups whose ``cgroup.procs`` files are given, then becomes the command
after ``--`` (a shell starts in a tenth of the CPU time of ``python -I -S``, twice for each notebook graded)."""


def joined_command(command: list[str], cgroup: Cgroup | None) -> list[str]:
    """``command``, started inside ``cgroup`` (unchanged when ``cgroup`` is ``None``).

    Raises:
        ValueError: an empty command.

    Example:
        >>> joined_command(["true"], Cgroup(["/sys/fs/cgroup/g"], ["/sys/fs/cgroup/g/cgroup.procs"]))[-3:]
        ['/sys/fs/cgroup/g/cgroup.procs', '--', 'true']
    """
    if not command:
        raise ValueError("no command to start in the cgroup")
    if cgroup is None:
        return command
    return ["/bin/sh", "-c", JOIN_CGROUP, "join-cgroup", *cgroup.procs, "--", *command]


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

"""What a worker process spends, read by the grader from the kernel's own accounting (``/proc``), never from the
worker: the CPU time and the resident memory of a process and everything it started.

The speed and memory checks of assignment 06 (:mod:`autograder.checks.a06`) rest on these figures. A submission
runs in the worker and can rewrite anything in it (``time.process_time``, ``tracemalloc``), but not what the kernel
counts for its processes: utime + stime of each process of the tree (with what its finished children used) and
the resident set of each, summed. CPU time, not the wall clock, so the figures do not depend on how busy the
machine is. Linux only; elsewhere :func:`available` is false and the checks say so.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass

TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def available() -> bool:
    """Whether ``/proc`` shows processes' CPU time and memory here (Linux).

    Example:
        >>> isinstance(available(), bool)
        True
    """
    return os.path.exists(f"/proc/{os.getpid()}/stat")


@dataclass(frozen=True)
class Usage:
    """A process tree's CPU seconds (its live processes and the children they reaped) and resident bytes."""

    cpu: float
    rss: int


def _stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return None
    return text.rpartition(")")[2].split()  # fields from the state on: the name may hold spaces and brackets


def tree(root: int) -> list[int]:
    """``root`` and every live process below it (children found through each process's parent id).

    Example:
        >>> tree(os.getpid())[0] == os.getpid()
        True
    """
    parents: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            fields = _stat(int(name))
            if fields is not None and len(fields) > 1:
                parents.setdefault(int(fields[1]), []).append(int(name))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(parents.get(pid, ()))
    return out


def usage(root: int, pids: list[int] | None = None) -> Usage:
    """The CPU time and resident memory of ``root``'s tree now (or of ``pids``, a tree found before).

    Example:
        >>> usage(os.getpid()).rss > 0
        True
    """
    cpu, rss = 0, 0
    for pid in tree(root) if pids is None else pids:
        fields = _stat(pid)
        if fields is None or len(fields) < 22:
            continue
        cpu += sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
        rss += int(fields[21]) * PAGE
    return Usage(cpu / TICKS, rss)


class Watch:
    """Within the block, the CPU seconds a process tree spends and the peak of its resident memory, sampled every
    ``every`` seconds by a thread of the grader.

    Example:
        >>> with Watch(os.getpid()) as watch:
        ...     _ = sum(range(10**5))
        >>> watch.cpu >= 0 and watch.peak_rss >= watch.start_rss > 0
        True
    """

    def __init__(self, root: int, every: float = 0.005) -> None:
        self.root, self.every = root, every
        self.cpu = 0.0
        self.start_rss = self.peak_rss = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Watch:
        first = usage(self.root)
        self._start_cpu, self.start_rss, self.peak_rss = first.cpu, first.rss, first.rss
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> None:
        pids, rounds = tree(self.root), 0
        while not self._stop.wait(self.every):
            rounds += 1
            if rounds % 20 == 0:  # a new process of the tree is seen within 20 samples
                pids = tree(self.root)
            self.peak_rss = max(self.peak_rss, usage(self.root, pids).rss)

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        last = usage(self.root)
        self.peak_rss = max(self.peak_rss, last.rss)
        self.cpu = max(0.0, last.cpu - self._start_cpu)

    @property
    def rss_growth(self) -> int:
        """Bytes of resident memory above what the tree held when the block began."""
        return max(0, self.peak_rss - self.start_rss)

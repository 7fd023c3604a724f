"""A limit on the CPU time that code running in this process may use, its threads together, with the wall clock only as
a backstop: the one mechanism of the learner's checks (:mod:`bpe_lab.harness`) and of the process that runs a
learner's code for ``bpe-lab check`` and the drill (:mod:`bpe_lab.worker`).

CPU time, not the wall clock: a busy machine slows a call's wall clock but not the CPU time it needs, so it never
fails a correct function, and an endless loop costs its limit, about the same time as before on a quiet machine.

A timer (``ITIMER_REAL``) wakes the main thread every :data:`TICK` seconds to read ``time.process_time()`` (user and
system time of all the process's threads). A CPU-time timer (``ITIMER_PROF``) would not do: its signal goes to
whichever thread is running, and a main thread that waits for a thread it started would wait on. While the code is
past a limit, every tick raises again, so code that catches the first one and goes on is stopped at the next.

Only the standard library, and little of it: the worker imports this at start-up. What it does not do: limit child
processes (their time is not this process's; the grader counts them through its cgroup, :mod:`autograder.isolation`).
"""

from __future__ import annotations

# _signal.signal is signal.signal's own C function: the wrapper in signal.py turns the handler it returns into an enum
# by way of a ValueError caught for a handler that is a function (17 us a call against 2 us, twice around every case)
import _signal  # type: ignore[import-not-found]
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

TICK = 0.1
"""Seconds between two looks at the CPU time (a limit is overshot by at most about this much)."""


class limited:  # noqa: N801 - used as a function: ``with limited(cpu, wall, raising):``
    """Raise ``raising(kind, seconds)`` in the running code once it has used ``cpu`` seconds of this process's CPU
    time (``kind`` ``"cpu"``) or once ``wall`` seconds have passed (``"wall"``); ``0`` is no such limit.

    Signals need the main thread and a POSIX system: elsewhere nothing is limited, and the block gets ``False``
    (else ``True``).

    Leaving the block disarms the timer whatever happens meanwhile: a tick that arrives while the block is being
    left (on a loaded machine the process may be descheduled for many ticks right there) does nothing, so a second
    stop never escapes from the exit and leaves a timer raising in whatever code runs next; a stop that comes as the
    timer starts disarms it before it leaves ``__enter__``. Enter the block directly with ``with``: a stop raised
    between ``__enter__`` and the block (in a generator-based context manager around it) would skip ``__exit__``.

    Example:
        >>> def spin():
        ...     while True:
        ...         pass
        >>> try:
        ...     with limited(0.2, 60, lambda kind, seconds: TimeoutError(kind, seconds)):
        ...         spin()
        ... except TimeoutError as stopped:
        ...     stopped.args
        ('cpu', 0.2)
    """

    def __init__(self, cpu: float, wall: float, raising: Callable[[str, float], BaseException]) -> None:
        self._limits = [(kind, seconds) for kind, seconds in (("cpu", cpu), ("wall", wall)) if seconds > 0]
        self._raising = raising
        self._armed = False
        self._start: dict[str, float] = {}
        self._previous: Any = None

    def __enter__(self) -> bool:
        limits = self._limits
        if not limits or not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
            return False
        self._start = {"cpu": time.process_time(), "wall": time.monotonic()}
        tick = min(TICK, *(seconds / 4 for _, seconds in limits))
        self._previous = _signal.signal(signal.SIGALRM, self._look)
        self._armed = True
        try:  # a tick handled as the timer starts (the process was descheduled, or collected its garbage, meanwhile)
            # raises here, before the block is entered: its __exit__ would never run, and the timer go on raising
            signal.setitimer(signal.ITIMER_REAL, tick, tick)
            return True
        except BaseException:
            self.__exit__()
            raise

    def __exit__(self, *exc: object) -> None:
        # A tick that lands here, or in what this calls, does nothing (_leaving); once _armed is off, none does.
        if self._armed:
            self._armed = False
            signal.setitimer(signal.ITIMER_REAL, 0)
            _signal.signal(signal.SIGALRM, self._previous)

    def _look(self, signum: int, frame: Any) -> None:
        if not self._armed or _leaving(frame):
            return
        now = {"cpu": time.process_time(), "wall": time.monotonic()}
        for kind, seconds in self._limits:
            if now[kind] - self._start[kind] > seconds:
                raise self._raising(kind, seconds)


_EXIT = limited.__exit__.__code__


def _leaving(frame: Any, depth: int = 4) -> bool:
    """Whether ``frame`` is :meth:`limited.__exit__` or called from it (a few frames up at most: it calls only
    ``signal``'s functions)."""
    while frame is not None and depth > 0:
        if frame.f_code is _EXIT:
            return True
        frame, depth = frame.f_back, depth - 1
    return False

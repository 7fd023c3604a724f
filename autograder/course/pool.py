"""A pool of grading workers in which a dead worker costs only the submissions it was grading or had next, and those
are retried.

``concurrent.futures.ProcessPoolExecutor`` fails every pending task when one of its workers dies (killed by the
out-of-memory killer, a crash in a C extension): one bad submission would cost every submission queued behind it.
:func:`run_contained` gives the pool at most :data:`QUEUED` tasks per worker (the one it runs and the next, so that
a worker that finishes starts its next task at once, not after this process has taken the result in), so the tasks
lost with a dead worker are the few that were running or next; it starts a fresh pool and grades each of those
again, alone, so that the one that kills its worker is found and reported (``on_lost``), and the others are graded
as usual.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

QUEUED = 2
"""Tasks in the pool per worker: the one it runs and its next, which it starts at once when it finishes, instead of
waiting while this process takes in the last result (for ``grade``: the course gradebook, the journal, the copies)."""

T = TypeVar("T")
R = TypeVar("R")


def run_contained(
    items: Iterable[T],
    work: Callable[[T], R],
    on_result: Callable[[T, R], Any],
    on_lost: Callable[[T, str], Any],
    *,
    jobs: int = 1,
    initializer: Callable[..., Any] | None = None,
    initargs: tuple = (),
    context: Any = None,
) -> None:
    """Run ``work(item)`` for every item in worker processes; report each outcome as it comes.

    Args:
        items: what to do (submissions).
        work: a picklable function run in a worker; its return value goes to ``on_result``.
        on_result: called in this process with ``(item, result)``.
        on_lost: called with ``(item, reason)`` for an item whose worker died twice running it (once with other
            items beside it, once alone), or that raised in a way the pool reports as an exception.
        jobs: worker processes.
        initializer, initargs: run once in each new worker (as for ``ProcessPoolExecutor``); a fresh pool after a
            death runs it again.
        context: a ``multiprocessing`` context (default: ``fork``).

    Example:
        >>> done = []
        >>> run_contained([1, 2], abs, lambda i, r: done.append(r), print, jobs=1)
        >>> done
        [1, 2]
    """
    context = context or multiprocessing.get_context("fork")
    queue = list(items)
    while queue:
        lost, queue = _run_batch(queue, work, on_result, on_lost, jobs, initializer, initargs, context)
        for item in lost:  # each alone in a fresh pool of one: a second death is its own
            again, _ = _run_batch([item], work, on_result, on_lost, 1, initializer, initargs, context)
            for dead in again:
                on_lost(dead, "its grading worker died twice while grading it (killed, or out of memory)")


def _run_batch(items, work, on_result, on_lost, jobs, initializer, initargs, context) -> tuple[list, list]:
    """Run ``items`` in one pool, at most ``jobs`` at a time (and ``jobs`` more queued), until they are done or a
    worker dies.

    Returns:
        ``(lost, not_started)``: the items that were running or queued when a worker died, and those not given to
        the pool yet.
    """
    pending = list(items)
    running: dict[Future, Any] = {}
    jobs = max(1, jobs)
    with ProcessPoolExecutor(jobs, context, initializer, initargs) as pool:
        while pending or running:
            while pending and len(running) < jobs * QUEUED:
                item = pending.pop(0)
                running[pool.submit(work, item)] = item
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            broken = False
            for future in [f for f in running if f in done]:  # in the order given: `done` is a set
                item = running.pop(future)
                try:
                    result = future.result()
                except BrokenProcessPool:
                    broken = True
                    running[future] = item  # lost with the pool
                    continue
                except Exception as exc:  # the work itself failed: that item's outcome, not the pool's
                    on_lost(item, f"grading failed: {type(exc).__name__}: {exc}"[:500])
                    continue
                on_result(item, result)
            if broken:
                return list(running.values()), pending
    return [], []

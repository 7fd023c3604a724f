"""A dead grading worker costs only what it was grading; that is graded again, and a repeat killer is named."""

import concurrent.futures
import os
import time

from autograder.course import pool
from autograder.course.pool import run_contained


def _grade(item):
    if item == "killer":
        os._exit(9)  # as the out-of-memory killer would end it
    if item == "raises":
        raise ValueError("bad notebook")
    return item.upper()


def test_a_dead_worker_costs_only_the_submission_that_killed_it():
    items = ["a", "b", "killer", "c", "d", "e", "raises", "f"]
    results, lost = {}, {}
    run_contained(items, _grade, results.__setitem__, lost.__setitem__, jobs=2)
    assert results == {i: i.upper() for i in items if i not in ("killer", "raises")}
    assert set(lost) == {"killer", "raises"}
    assert "died twice" in lost["killer"] and "ValueError: bad notebook" in lost["raises"]


def test_without_deaths_every_item_is_done_once():
    results = []
    run_contained(list("abcdefgh"), _grade, lambda item, result: results.append(result), print, jobs=3)
    assert sorted(results) == list("ABCDEFGH")


def _mark_started(item):
    folder, name = item
    (folder / name).touch()
    return name


def test_a_worker_has_its_next_item_before_this_process_takes_in_the_last_result(tmp_path):
    """The parent publishes each result (the gradebook, the journal) before it hands out more work: a worker that
    got only what it was running waited for that, each notebook. Its next item is already in the pool."""
    seen: list[bool] = []

    def publish(item, result):
        if result == "first":  # meanwhile, the worker has started the second, without this process
            deadline = time.monotonic() + 30
            while not (tmp_path / "second").exists() and time.monotonic() < deadline:
                time.sleep(0.01)
            seen.append((tmp_path / "second").exists())

    run_contained([(tmp_path, "first"), (tmp_path, "second")], _mark_started, publish, print, jobs=1)
    assert seen == [True]


def test_results_that_are_ready_together_are_taken_in_the_order_given(monkeypatch):
    """A parent slow to look (a loaded machine) finds several results ready at once: it takes them in the order the
    items were given, not in the order of a set of futures (the docstring's example once read ``[2, 1]``). Simulated
    by a wait that returns only once everything running is done."""
    monkeypatch.setattr(pool, "wait", lambda futures, return_when: concurrent.futures.wait(futures))
    taken: list[str] = []
    items = [f"item{i:02d}" for i in range(40)]
    run_contained(items, str.upper, lambda item, result: taken.append(result), print, jobs=3)
    assert taken == [i.upper() for i in items]

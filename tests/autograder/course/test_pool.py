"""A dead grading worker costs only what it was grading; that is graded again, and a repeat killer is named."""

import os

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

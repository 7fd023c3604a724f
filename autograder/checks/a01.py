"""Hidden checks of 01_pair_counts_and_merge, each comparing a learner's function with :mod:`bpe_ref`.

Its graded functions: pair counts of a list of ids and one merge.

A notebook's hidden test is a one-line call into this module (through :mod:`autograder.checks`), for example
``check_get_pair_counts(fn, ...)``. What a check returns and raises, and what ``part`` means, is said once in
:mod:`autograder.checks`. This module holds the specs (:class:`~autograder.checks.spec.Spec`) of the assignment's
graded functions and their case generators; it runs no process, reads no file and knows nothing of nbgrader.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import bpe_ref
from bpe_lab.harness import DEFAULT_TIME_LIMIT, CheckFailed

from . import cases as gen
from .spec import Part, Spec, run_spec

__all__ = [
    "SPECS",
    "CheckFailed",
    "check_get_pair_counts",
    "check_merge",
]


def check_get_pair_counts(fn: Callable[..., Any], part: str = "basic", time_limit: float = DEFAULT_TIME_LIMIT) -> None:
    """Check ``get_pair_counts(ids)`` against :func:`bpe_ref.get_pair_counts`.

    Parts: ``"basic"``, the counts and their order (keys in order of first occurrence) on lists with no two equal
    neighbours; ``"overlaps"``, overlapping pairs and lists of length 0 and 1 (the order is not judged there, so
    that an order mistake is filed under the part that states the order).

    Raises:
        CheckFailed: the smallest input on which ``fn`` is wrong, with the expected and returned values.

    Example:
        >>> check_get_pair_counts(bpe_ref.get_pair_counts, "overlaps")
    """
    __tracebackhide__ = True
    run_spec(GET_PAIR_COUNTS, fn, part, time_limit)


GET_PAIR_COUNTS = Spec(
    "get_pair_counts",
    bpe_ref.get_pair_counts,
    ("mapping", {"fresh": True}),
    {
        "basic": Part(
            gen.sized_later(lambda: gen.pair_count_cases("basic")), ("mapping", {"order": True, "fresh": True})
        ),
        "overlaps": Part(gen.sized_later(lambda: gen.pair_count_cases("overlaps"))),
    },
)


def check_merge(fn: Callable[..., Any], part: str = "basic", time_limit: float = DEFAULT_TIME_LIMIT) -> None:
    """Check ``merge(ids, pair, new_id)`` against :func:`bpe_ref.merge`.

    Parts: ``"basic"``, pairs of two different ids (no overlaps), multi-digit ids among them (``[21, 2]``
    holds no pair ``(1, 2)``, which a ``str.replace`` on the joined ids gets wrong); ``"overlaps"``, runs such as
    ``[5, 5, 5]``, lists of length 0 and 1 and a ``new_id`` equal to an id of the list. Every part fails a
    function that changes ``ids`` or returns it instead of a new list.

    Raises:
        CheckFailed: the smallest input on which ``fn`` is wrong.

    Example:
        >>> check_merge(bpe_ref.merge, "overlaps")
    """
    __tracebackhide__ = True
    run_spec(MERGE, fn, part, time_limit)


MERGE = Spec(
    "merge",
    bpe_ref.merge,
    ("sequence", {"fresh": True}),
    {part: Part(gen.sized_later(functools.partial(gen.merge_cases, part))) for part in ("basic", "overlaps")},
)


SPECS: dict[str, Spec] = {spec.function: spec for spec in (GET_PAIR_COUNTS, MERGE)}
"""The checks of assignment 01 as data, by graded function."""

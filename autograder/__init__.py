"""autograder: hidden checks against bpe_ref, self-check, batch grading through nbgrader, feedback and grades.

The checks are imported on first use (``from autograder import check_merge`` works as before), so that the
notebooks' learner-facing helpers (:mod:`bpe_lab.selfcheck`) import without the reference answers.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "CheckFailed",
    "check_apply_bpe",
    "check_best_pair",
    "check_bpe_train",
    "check_count_pairs",
    "check_counterexample",
    "check_encode",
    "check_get_pair_counts",
    "check_learn_bpe",
    "check_merge",
    "check_merge_vocab",
    "check_train_bpe",
]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import checks

        return getattr(checks, name)
    raise AttributeError(f"module 'autograder' has no attribute {name!r}")

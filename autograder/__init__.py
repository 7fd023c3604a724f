"""autograder: hidden checks against bpe_ref, self-check, batch grading through nbgrader, feedback and grades."""

from .checks import (
    CheckFailed,
    check_apply_bpe,
    check_best_pair,
    check_bpe_train,
    check_count_pairs,
    check_counterexample,
    check_encode,
    check_get_pair_counts,
    check_learn_bpe,
    check_merge,
    check_merge_vocab,
    check_train_bpe,
)

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

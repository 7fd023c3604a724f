"""bpe_ref: the reference solutions of the bpe-course assignments, and the training trace for its charts.

Every graded function lives here once (:mod:`bpe_ref.core`, on the primitives of :mod:`bpe_ref.primitives`); the
autograder compares submissions with it.
"""

from .core import (
    END_OF_WORD,
    TIE_BREAKS,
    TraceRound,
    apply_bpe,
    apply_ranked,
    best_pair,
    bpe_train,
    count_pairs,
    encode,
    get_pair_counts,
    get_word_symbols,
    learn_bpe,
    merge,
    merge_ranks,
    merge_vocab,
    rank_and_replay_disagree,
    replay,
    train_bpe,
    train_trace,
    train_vocab,
)

__all__ = [
    "END_OF_WORD",
    "TIE_BREAKS",
    "TraceRound",
    "apply_bpe",
    "apply_ranked",
    "best_pair",
    "bpe_train",
    "count_pairs",
    "encode",
    "get_pair_counts",
    "get_word_symbols",
    "learn_bpe",
    "merge",
    "merge_ranks",
    "merge_vocab",
    "rank_and_replay_disagree",
    "replay",
    "train_bpe",
    "train_trace",
    "train_vocab",
]

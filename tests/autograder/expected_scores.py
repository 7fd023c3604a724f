"""The exact score of every sample student, per assignment and exercise (graded function).

Each value is what a careful reader of the notebook would give that submission by hand; the demo test
asserts that the autograder gives exactly this.
"""

_FULL_06 = {
    "chunk_counts": 2,
    "chunk_counts_file": 4,
    "train_fast": 8,
    "encode_iterable": 5,
    "bytes_to_unicode": 1,
    "gpt2_files": 4,
}
_FULL_05 = {"pretokenize": 2, "train_bytes": 6, "encode_bytes": 4, "decode_bytes": 2, "encode_ranks": 6}

EXPECTED = {
    "01_pair_counts_and_merge": {
        "blank": {"get_pair_counts": 0, "merge": 0},
        "correct-counter": {"get_pair_counts": 4, "merge": 4},
        "correct-loops": {"get_pair_counts": 4, "merge": 4},
        "counts-no-overlap": {"get_pair_counts": 2, "merge": 4},
        "counts-sorted": {"get_pair_counts": 2, "merge": 4},
        "half-done": {"get_pair_counts": 4, "merge": 0},
        "merge-mutates-input": {"get_pair_counts": 4, "merge": 0},
        "merge-no-skip": {"get_pair_counts": 4, "merge": 2},
    },
    "02_training_loop": {
        "blank": {"count_pairs": 0, "merge_vocab": 0, "train_bpe": 0},
        "correct-counter": {"count_pairs": 4, "merge_vocab": 4, "train_bpe": 4},
        "correct-loops": {"count_pairs": 4, "merge_vocab": 4, "train_bpe": 4},
        "counts-unweighted": {"count_pairs": 2, "merge_vocab": 4, "train_bpe": 0},
        "half-done": {"count_pairs": 4, "merge_vocab": 4, "train_bpe": 0},
        "marker-as-characters": {"count_pairs": 4, "merge_vocab": 4, "train_bpe": 0},
        "merge-overwrites-counts": {"count_pairs": 4, "merge_vocab": 2, "train_bpe": 4},
        "merge-with-str-replace": {"count_pairs": 4, "merge_vocab": 2, "train_bpe": 2},
        "no-early-stop": {"count_pairs": 4, "merge_vocab": 4, "train_bpe": 2},
        "ties-smallest": {"count_pairs": 4, "merge_vocab": 4, "train_bpe": 2},
    },
    "03_tie_breaks": {
        "blank": {"best_pair": 0, "learn_bpe": 0, "bpe_train": 0},
        "correct-builtins": {"best_pair": 6, "learn_bpe": 4, "bpe_train": 4},
        "correct-loops": {"best_pair": 6, "learn_bpe": 4, "bpe_train": 4},
        "forgot-word-counts": {"best_pair": 6, "learn_bpe": 0, "bpe_train": 4},
        "half-done": {"best_pair": 6, "learn_bpe": 0, "bpe_train": 0},
        "joined-strings": {"best_pair": 2, "learn_bpe": 2, "bpe_train": 4},
        "marker-split-to-chars": {"best_pair": 6, "learn_bpe": 4, "bpe_train": 0},
        "no-early-stop": {"best_pair": 6, "learn_bpe": 2, "bpe_train": 2},
        "stale-first-seen": {"best_pair": 6, "learn_bpe": 4, "bpe_train": 2},
        "tie-direction-swapped": {"best_pair": 2, "learn_bpe": 0, "bpe_train": 4},
    },
    "04_apply_bpe": {
        "apply-by-replay": {"apply_bpe": 2, "encode": 4, "disagreeing_merges": 2},
        "apply-no-marker": {"apply_bpe": 0, "encode": 4, "disagreeing_merges": 2},
        "blank": {"apply_bpe": 0, "encode": 0, "disagreeing_merges": 0},
        "correct-gpt2-style": {"apply_bpe": 4, "encode": 4, "disagreeing_merges": 2},
        "correct-helper": {"apply_bpe": 4, "encode": 4, "disagreeing_merges": 2},
        "counterexample-one-word": {"apply_bpe": 4, "encode": 4, "disagreeing_merges": 0},
        "encode-by-rank": {"apply_bpe": 4, "encode": 2, "disagreeing_merges": 2},
        "encode-greedy-sweep": {"apply_bpe": 4, "encode": 0, "disagreeing_merges": 2},
        "half-done": {"apply_bpe": 4, "encode": 0, "disagreeing_merges": 0},
        "last-duplicate-wins": {"apply_bpe": 2, "encode": 4, "disagreeing_merges": 2},
        "merge-leftmost-only": {"apply_bpe": 2, "encode": 4, "disagreeing_merges": 2},
    },
    "05_byte_level_bpe": {  # every exercise at full marks but the one the student's mistake is in
        "blank": dict.fromkeys(_FULL_05, 0),
        "correct-loops": _FULL_05,
        "correct-minbpe-style": _FULL_05,
        "decode-each-token": {**_FULL_05, "decode_bytes": 1},
        "decode-strict": {**_FULL_05, "decode_bytes": 1},
        "encode-by-replay": {**_FULL_05, "encode_bytes": 2},
        "half-done": {**_FULL_05, "encode_bytes": 0, "decode_bytes": 0, "encode_ranks": 0},
        "ids-after-largest": {**_FULL_05, "train_bytes": 0},
        "merge-across-chunks": {**_FULL_05, "train_bytes": 0, "encode_bytes": 2},
        "specials-as-text": {**_FULL_05, "encode_ranks": 4},
        "ties-by-value": {**_FULL_05, "train_bytes": 3},
    },
    "06_training_at_scale": {  # full marks but the mistake's exercise, and what calls the function it is in
        "blank": dict.fromkeys(_FULL_06, 0),
        "correct": _FULL_06,
        "joins-the-lines": {**_FULL_06, "encode_iterable": 2},  # the right ids, neither lazy nor in bounded memory
        "line-by-line": {**_FULL_06, "encode_iterable": 3},  # lazy and bounded, wrong where a chunk spans two lines
        "max-scan": {**_FULL_06, "train_fast": 4},  # the right merges, about 7x the plain loop's speed, not 12x
        "plain-loop": {**_FULL_06, "train_fast": 4},  # the right merges at the plain loop's speed
        "space-as-itself": {**_FULL_06, "bytes_to_unicode": 0, "gpt2_files": 0},  # gpt2_files uses the table
        "specials-counted": {**_FULL_06, "chunk_counts": 1, "chunk_counts_file": 0},  # the file's counts use it
        "text-mode": {**_FULL_06, "chunk_counts_file": 0},  # "\r\n" read as "\n", in every example file
        "ties-smallest": {**_FULL_06, "train_fast": 2},  # untied inputs pass; ties and the speed input (real ties) fail
    },
}

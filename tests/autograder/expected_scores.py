"""The exact score of every sample student, per assignment and exercise (graded function).

Each value is what a careful reader of the notebook would give that submission by hand; the demo test
asserts that the autograder gives exactly this.
"""

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
    # 02_training_loop: filled in with the assignment
    # 03_tie_breaks: filled in with the assignment
    # 04_apply_bpe: filled in with the assignment
}

"""Sample submissions of assignment 04, one per typical student (filled in with the assignment)."""

ASSIGNMENT = "04_apply_bpe"

STUDENTS: dict[str, dict[str, str]] = {}

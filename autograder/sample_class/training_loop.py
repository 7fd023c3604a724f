"""Sample submissions of assignment 02, one per typical student (filled in with the assignment)."""

ASSIGNMENT = "02_training_loop"

STUDENTS: dict[str, dict[str, str]] = {}

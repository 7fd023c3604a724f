"""Sample submissions of assignment 03, one per typical student (filled in with the assignment)."""

ASSIGNMENT = "03_tie_breaks"

STUDENTS: dict[str, dict[str, str]] = {}

"""The exact score of every sample student, per assignment and exercise (graded function), as the sample class
states them (:func:`autograder.course.sample_class.expected`, held to the course at ``release --check``): the tests
assert that grading gives exactly these."""

from pathlib import Path

from autograder.course import sample_class

EXPECTED = sample_class.expected(Path(__file__).resolve().parents[2])

"""The class pipeline's configuration of a batch: what ``grade`` tells nbgrader's steps for every submission."""

from autograder.course import grading


def test_the_batch_config_names_the_course_secret_and_no_paths_to_hide(course_root):
    config = grading.batch_config(course_root)
    assert config == {"JudgeTests.secret_file": str(course_root.resolve() / ".course_secret")}

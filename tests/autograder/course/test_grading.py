"""The class pipeline's configuration of a batch: what ``grade`` tells nbgrader's steps for every submission."""

from autograder.course import grading


def test_the_batch_config_names_the_course_secret_and_no_paths_to_hide(course_root, tmp_path):
    config = grading._sandbox_paths(course_root, tmp_path / "out", [], tmp_path)
    assert config == {"JudgeTests.secret_file": str(course_root.resolve() / ".course_secret")}

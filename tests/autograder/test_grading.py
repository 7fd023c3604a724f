"""What the sandbox hides for a batch: the submissions' folders, never the system, Python or the course."""

import sys
from pathlib import Path

from autograder import grading


def _hidden(course_root, out, notebooks, class_folder=None):
    submissions = [grading.Submission("s", "01_pair_counts_and_merge", Path(p)) for p in notebooks]
    paths = grading._sandbox_paths(course_root, out, submissions, class_folder)
    return [Path(p) for p in paths["LimitedKernelManager.hidden_paths"]]


def test_the_folders_of_a_class_are_hidden(course_root, tmp_path):
    notebook = tmp_path / "submitted" / "ada" / "01" / "01.ipynb"
    hidden = _hidden(course_root, tmp_path / "out", [notebook])
    assert notebook.parent.resolve() in hidden and notebook.parent.parent.resolve() in hidden
    assert (course_root / "solutions") in hidden and Path.home() in hidden


def test_a_notebook_near_the_root_never_hides_the_system_python_or_the_course(course_root, tmp_path):
    notebooks = ["/tmp/mine.ipynb", "/x.ipynb", str(course_root / "mine.ipynb"), str(course_root.parent / "y.ipynb")]
    hidden = _hidden(course_root, tmp_path / "out", notebooks)
    needed = [Path("/"), course_root.resolve(), Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()]
    for path in hidden:
        assert not any(path == n or path in n.parents for n in needed if path != Path.home()), path


def test_a_shard_hides_the_whole_class_and_the_worker_the_whole_course(course_root, tmp_path):
    mine = tmp_path / "class" / "ada" / "01" / "01.ipynb"  # bob's notebook, in another shard, sits beside it
    assert (tmp_path / "class").resolve() in _hidden(course_root, tmp_path / "out", [mine], tmp_path / "class")
    submissions = [grading.Submission("ada", "01", mine)]
    paths = grading._sandbox_paths(course_root, tmp_path / "out", submissions)
    assert str(course_root.resolve()) in paths["JudgeTests.worker_hidden_paths"]

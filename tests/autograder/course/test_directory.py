"""The course directory: its source notebooks' folder is the one its nbgrader configuration names."""

from pathlib import Path

from autograder.course import directory


def test_the_source_folder_is_the_configurations(tmp_path: Path) -> None:
    (tmp_path / "nbgrader_config.py").write_text('c = get_config()\nc.CourseDirectory.source_directory = "src"\n')
    (tmp_path / "src" / "01_a").mkdir(parents=True)
    (tmp_path / "src" / "01_a" / "01_a.ipynb").write_text("{}")
    (tmp_path / "solutions" / "02_b").mkdir(parents=True)  # not the configured folder: not an assignment
    (tmp_path / "solutions" / "02_b" / "02_b.ipynb").write_text("{}")
    assert directory.source_folder(tmp_path) == tmp_path / "src"
    assert directory.assignments(tmp_path) == ["01_a"]
    assert directory.source_notebook(tmp_path, "01_a") == tmp_path / "src" / "01_a" / "01_a.ipynb"


def test_the_course_as_committed_keeps_its_notebooks_in_solutions(course_root: Path) -> None:
    assert directory.source_folder(course_root) == course_root / "solutions"

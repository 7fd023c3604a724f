"""autograder.course.collect: ``nbgrader zip_collect`` with the course's collector cannot give one student's work to
another, and refuses what it cannot order, naming the files."""

import subprocess
import sys
import zipfile

import nbformat
import pytest

from autograder.course import sample_class

pytestmark = pytest.mark.slow
ASSIGNMENT = "01_pair_counts_and_merge"


def _notebook(course, student_answers):
    release = nbformat.read(course / "notebooks" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", 4)
    return nbformat.writes(sample_class.fill(release, sample_class.students()[ASSIGNMENT][student_answers]))


def _download(course, planted):
    archive = course / "downloaded" / ASSIGNMENT / "archive"
    archive.mkdir(parents=True)
    with zipfile.ZipFile(archive / "hw1_alice_attempt_2027-01-10-10-00-00_01_pair_counts_and_merge.zip", "w") as z:
        z.writestr(f"{ASSIGNMENT}.ipynb", _notebook(course, "correct-loops"))
        if planted:  # inside alice's archive, named as bob's newest attempt
            z.writestr(f"hw1_bob_attempt_2099-01-01-00-00-00_{ASSIGNMENT}.ipynb", _notebook(course, "blank"))
    bob = archive / f"hw1_bob_attempt_2027-01-10-11-00-00_{ASSIGNMENT}.ipynb"
    bob.write_text(_notebook(course, "merge-no-skip"))
    return archive


def _zip_collect(course):
    return subprocess.run([sys.executable, "-m", "nbgrader", "zip_collect", ASSIGNMENT], cwd=course,
                          capture_output=True, text=True, timeout=300)  # fmt: skip


def _collected(course, student):
    path = course / "submitted" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    return path.read_text() if path.exists() else None


def test_each_student_gets_their_own_file_from_an_lms_download(course_copy):
    _download(course_copy, planted=False)
    done = _zip_collect(course_copy)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert _collected(course_copy, "alice") == _notebook(course_copy, "correct-loops")
    assert _collected(course_copy, "bob") == _notebook(course_copy, "merge-no-skip")
    assert "2027-01-10 11:00:00" in (course_copy / "submitted" / "bob" / ASSIGNMENT / "timestamp.txt").read_text()


def test_a_file_inside_one_students_archive_is_never_collected_as_another_students(course_copy):
    _download(course_copy, planted=True)
    done = _zip_collect(course_copy)
    said = done.stdout + done.stderr
    assert done.returncode != 0, said[-2000:]
    assert "hw1_alice_attempt_2027-01-10-10-00-00_01_pair_counts_and_merge" in said and "'bob'" in said
    assert _collected(course_copy, "bob") != _notebook(course_copy, "blank")  # bob's work is not alice's plant


def test_two_files_with_nothing_to_order_them_are_refused_naming_both(course_copy):
    archive = course_copy / "downloaded" / ASSIGNMENT / "archive"
    archive.mkdir(parents=True)
    name = f"hw1_bob_attempt_2027-01-10-11-00-00_{ASSIGNMENT}"
    (archive / f"{name}.ipynb").write_text(_notebook(course_copy, "merge-no-skip"))
    with zipfile.ZipFile(archive / f"{name}.zip", "w") as z:  # the same attempt, once more, as an archive
        z.writestr(f"{ASSIGNMENT}.ipynb", _notebook(course_copy, "correct-loops"))
    done = _zip_collect(course_copy)
    said = done.stdout + done.stderr
    assert done.returncode != 0, said[-2000:]
    lines = [line for line in said.splitlines() if "with nothing to order them" in line]  # logged, then raised
    assert lines and all(f"{name}.ipynb" in s and f"{name}/{ASSIGNMENT}.ipynb" in s and "'bob'" in s for s in lines)
    assert _collected(course_copy, "bob") is None


def test_the_terminal_shows_the_archives_names_with_control_characters_escaped(course_copy):
    archive = course_copy / "downloaded" / ASSIGNMENT / "archive"
    archive.mkdir(parents=True)
    with zipfile.ZipFile(archive / "hw1_alice_attempt_2027-01-10-10-00-00_01_pair_counts_and_merge.zip", "w") as z:
        z.writestr(f"x\x1b[2J\x1b]0;owned\x07/hw1_bob_attempt_2099-01-01-00-00-00_{ASSIGNMENT}.ipynb",
                   _notebook(course_copy, "blank"))  # fmt: skip
    done = _zip_collect(course_copy)
    said = done.stdout + done.stderr
    assert done.returncode != 0 and "refusing to collect it as another student's work" in said, said[-2000:]
    refused = [line for line in said.splitlines() if "refusing to collect it" in line]  # the course's own lines
    assert refused and all("\x1b" not in s and "\x07" not in s and "x\\x1b[2J\\x1b]0;owned\\x07" in s for s in refused)
    assert "\x1b" not in said and "\x07" not in said  # nbgrader's own log lines (its "Extracting ...") too

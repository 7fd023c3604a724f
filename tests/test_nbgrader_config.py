"""The course's nbgrader configuration: what it drops from stderr, and that no output can make that slow."""

import re
import subprocess
import sys

import pytest

from autograder.course.directory import load_config


@pytest.fixture(scope="module")
def pattern(course_root):
    return load_config(course_root).IgnorePattern.pattern


@pytest.mark.parametrize(
    "stderr",
    [
        "/srv/x.py:3: DeprecationWarning: old\n  foo()\n",
        "a.py:1: UserWarning: x\n  y = 1\nb.py:2: FutureWarning: z\n",
        "a.py:1: UserWarning: x",
    ],
)
def test_stderr_made_only_of_warnings_is_dropped(pattern, stderr):
    assert re.search(pattern, stderr)


@pytest.mark.parametrize("stderr", ["a.py:1: UserWarning: x\nTraceback: boom\n", "error!\n", ""])
def test_stderr_with_anything_else_is_kept(pattern, stderr):
    assert not re.search(pattern, stderr)


def test_no_output_makes_the_pattern_backtrack(pattern):
    # 40 warnings on one line and a last line that fails: a nested plain repeat takes about 7**40 steps here
    hostile = "a:1: Warning: " * 40 + "\nzzz"
    # the child may spend 10 s of CPU time (RLIMIT_CPU, whatever the machine's load); the wall clock is a backstop
    code = "import resource, re; resource.setrlimit(resource.RLIMIT_CPU, (10, 10)); "
    code += f"print(bool(re.search({pattern!r}, {hostile!r})))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.stdout.strip() == "False", done.stderr[-2000:]

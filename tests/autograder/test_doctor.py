"""The doctor's reading of student cells: IPython syntax made Python, and integrity flags it cannot be talked out of."""

import subprocess
import sys

import nbformat
from nbformat.v4 import new_code_cell, new_notebook

from autograder.doctor import python_of, scan_integrity


def test_ipython_syntax_becomes_pass_on_the_same_lines():
    source = "%time x = 1\ny = !ls\nlen?\n  ?len\nz = 3 % 2\n!= not magic"
    assert python_of(source).split("\n") == ["pass", "pass", "pass", "  pass", "z = 3 % 2", "pass"]
    assert python_of("%%time\nx = 1") == "\nx = 1"  # the body runs
    assert python_of("%%writefile a.txt\nhello\nworld") == "pass\n\n"


def test_lines_inside_brackets_strings_or_after_a_backslash_are_python():
    source = 'x = (a\n     != b)\ns = """\n%not a magic\n"""\nv = 1 + \\\n    % 2\n!echo magic'
    assert python_of(source).split("\n")[:-1] == source.split("\n")[:-1]  # all kept: Black's style, a docstring
    assert python_of(source).split("\n")[-1] == "pass"


def test_a_long_cell_full_of_magics_is_read_in_linear_time():
    # IPython's own translation took minutes of CPU on such a cell (grows with magics times size): the child may
    # spend 30 s of CPU time (RLIMIT_CPU, whatever the machine's load); the wall clock is only a backstop
    code = (
        "import resource\nresource.setrlimit(resource.RLIMIT_CPU, (30, 30))\n"
        "from autograder.doctor import python_of\n"
        "source = '%time 1\\n' * 2000 + 'x = 1\\n' * 200_000\n"
        "print(python_of(source).count('pass'))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.stdout.strip() == "2000", done.stderr[-2000:]


def test_a_cell_claiming_to_be_locked_is_still_scanned(course_root):
    source = nbformat.read(course_root / "solutions/01_pair_counts_and_merge/01_pair_counts_and_merge.ipynb", 4)
    meta = {"nbgrader": {"grade_id": "merge", "locked": True, "solution": True, "grade": False}}
    submission = new_notebook(cells=[new_code_cell("import bpe_ref\nmerge = bpe_ref.merge", metadata=meta)])
    assert [p.text for p in scan_integrity(submission, source)] == ["cell 'merge', line 1: imports bpe_ref"]
    given = {"nbgrader": {"grade_id": "together_demo", "locked": True}}  # locked in the source: put back, not scanned
    assert scan_integrity(new_notebook(cells=[new_code_cell("import bpe_ref", metadata=given)]), source) == []

"""The suite's work units for the two workers (tests/conftest.py, ``worker_group``): a graded class, a notebook's
cells and a file's module fixtures each stay on one worker; the longest units come first.

Collected (not run) in a subprocess, which prints each test's group.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRINTER = """
from tests import conftest

def pytest_collection_finish(session):
    for item in session.items:
        print("GROUP", item.nodeid.split("@")[0], item.stash.get(conftest.GROUP, None), sep="\\t")
"""
SELECTION = [
    "tests/autograder/test_cli.py",
    "tests/autograder/reports/test_exports.py",
    "tests/autograder/reports/test_report.py",
    "tests/mutants",
    "tests/autograder/test_adversarial.py",
    "tests/autograder/test_adversarial_nbgrader.py",
    "tests/autograder/isolation/test_sandbox.py",
    "solutions/01_pair_counts_and_merge/01_pair_counts_and_merge.ipynb",
]


def _groups(tmp_path: Path) -> list[tuple[str, str]]:
    (tmp_path / "print_groups.py").write_text(PRINTER)
    command = [sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider", "-n", "0", "-o", "addopts="]
    command += ["--nbval-lax", "-p", "print_groups", *SELECTION]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    run = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return [tuple(line.split("\t")[1:]) for line in run.stdout.splitlines() if line.startswith("GROUP\t")]


def test_each_expensive_set_up_is_built_on_one_worker_and_the_longest_units_come_first(tmp_path):
    rows = _groups(tmp_path)
    group = dict(rows)
    users = [n for n in group if "test_report.py" in n and "phone" in n or "test_exports.py::test_canvas" in n]
    assert users and {group[n] for n in users} == {"graded_sample_class"}  # the sample class graded once
    cells = [n for n in group if n.endswith(".ipynb") or ".ipynb::" in n]
    assert cells and {group[n] for n in cells} == {"solutions/01_pair_counts_and_merge/01_pair_counts_and_merge.ipynb"}
    batch = [n for n in group if "test_each_attack_gets_its_expected_outcome" in n]
    assert batch and {group[n] for n in batch} == {"tests/autograder/test_adversarial.py"}  # its module fixture
    judged = [n for n in group if "test_in_process_every_rule_holds" in n or "test_through_nbgrader" in n]
    assert len(judged) > 100 and {group[n] for n in judged} == {"mutants-judged-in-process"}
    assert group["tests/autograder/isolation/test_sandbox.py::test_an_unknown_mode_is_an_error_naming_it"] == "None"
    order = [n for n, _ in rows]
    first = order.index(next(n for n in order if "test_through_nbgrader" in n))
    assert (
        first
        < order.index(next(n for n in order if "test_the_same_attacks_through_plain" in n))
        < order.index(batch[0])
    )
    assert max(order.index(n) for n in judged) < order.index(batch[0])  # each unit's tests together


def test_under_the_test_command_a_notebook_s_cells_run_on_one_worker_in_one_kernel(tmp_path):
    """What scripts/test.sh relies on, end to end: ``--dist loadgroup`` keeps a unit on one worker (a pytest and
    pytest-xdist that stop grouping, silently, would split a notebook's cells over the two workers, and a cell would
    find its kernel without the names the cells before it defined)."""
    notebook = "solutions/01_pair_counts_and_merge/01_pair_counts_and_merge.ipynb"
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-o", "addopts=", "-n", "2"]
    command += ["--dist", "loadgroup", "--no-loadscope-reorder", "-v", "--nbval-lax"]
    command += ["tests/test_pyproject.py", notebook]  # a path under tests/: its conftest.py makes the units
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    cells = [line for line in run.stdout.splitlines() if f"{notebook}::Cell" in line and line.startswith("[gw")]
    assert run.returncode == 0, run.stdout[-3000:]
    assert len(cells) > 5 and all("PASSED" in line for line in cells), run.stdout[-3000:]
    assert len({line.split("]")[0] for line in cells}) == 1, cells  # one worker ran them all

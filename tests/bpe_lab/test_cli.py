"""``python -m bpe_lab check``: a notebook's graded functions on the public cases, from the command line."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.course import sample_class
from autograder.course.sample_class import pair_counts_and_merge as class_01
from bpe_lab import cli

COURSE = Path(__file__).resolve().parents[2]
A01 = "01_pair_counts_and_merge"


def _release(assignment: str) -> nbformat.NotebookNode:
    return nbformat.read(COURSE / "notebooks" / assignment / f"{assignment}.ipynb", 4)


def _write(tmp_path: Path, nb: nbformat.NotebookNode, name: str = f"{A01}.ipynb") -> Path:
    path = tmp_path / name
    nbformat.write(nb, path)
    return path


@pytest.fixture
def finished_01(tmp_path: Path) -> Path:
    """The release notebook of 01 with every exercise done as the course's solutions do it."""
    return _write(tmp_path, sample_class.finished(COURSE, A01))


@pytest.fixture
def merge_skips_nothing_01(tmp_path: Path) -> Path:
    """A student whose merge does not skip the id after a merged pair (``[5, 5, 5]`` gives ``[7, 7]``)."""
    return _write(tmp_path, sample_class.fill(_release(A01), class_01.STUDENTS["merge-no-skip"]))


def test_a_finished_notebook_scores_its_points(finished_01: Path) -> None:
    report = cli.check_notebook(finished_01)
    assert [(o.name, o.passed) for o in report.outcomes] == [("get_pair_counts", True), ("merge", True)]
    assert (report.score, report.possible) == (8.0, 8.0)
    assert report.cell_errors == []


def test_a_wrong_merge_is_named_with_its_smallest_failing_input(merge_skips_nothing_01: Path) -> None:
    report = cli.check_notebook(merge_skips_nothing_01)
    by_name = {o.name: o for o in report.outcomes}
    assert by_name["get_pair_counts"].passed and not by_name["merge"].passed
    first, expected, returned = by_name["merge"].message.splitlines()[:3]
    run = re.match(r"merge\(\[(\d+), \1, \1\], \(\1, \1\), (\d+)\)", first)  # the smallest: a run of three
    assert run, first
    old, new = run.groups()
    assert expected.strip() == f"expected: [{new}, {old}]" and returned.strip() == f"returned: [{new}, {new}]"
    assert (by_name["merge"].points, report.score) == (2.0, 6.0)  # its "basic" test cell passes, "overlaps" not


def test_the_release_notebook_fails_every_function_on_its_stub(tmp_path: Path) -> None:
    report = cli.check_notebook(_write(tmp_path, _release(A01)))
    assert [o.passed for o in report.outcomes] == [False, False]
    assert all("raised: NotImplementedError" in o.message for o in report.outcomes)


def test_one_function_alone_and_an_unknown_one_named(finished_01: Path) -> None:
    assert [o.name for o in cli.check_notebook(finished_01, ["merge"]).outcomes] == ["merge"]
    with pytest.raises(cli.NotebookError, match="grades no function 'train_bpe'; it grades get_pair_counts, merge"):
        cli.check_notebook(finished_01, ["train_bpe"])


def test_a_cell_that_raises_is_reported_and_the_rest_still_checked(tmp_path: Path) -> None:
    answers = {
        "get_pair_counts": "raise RuntimeError('half done')\n",
        "merge": class_01.STUDENTS["merge-no-skip"]["merge"],
    }
    report = cli.check_notebook(_write(tmp_path, sample_class.fill(_release(A01), answers)))
    assert report.cell_errors == [
        "get_pair_counts: RuntimeError: half done (line 1 of your get_pair_counts: raise RuntimeError('half done'))"
    ]
    assert "not defined" in report.outcomes[0].message and "returned:" in report.outcomes[1].message


def test_a_loop_at_top_level_costs_the_run_its_time_limit_only(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(cli, "RUN_TIMEOUT", 2.0)
    answers = {"get_pair_counts": "while True:\n    pass\n"}
    report = cli.check_notebook(_write(tmp_path, sample_class.fill(_release(A01), answers)))
    assert "used more than 2 s of CPU time (a loop at top level?)" in report.cell_errors[0]
    assert not any(o.passed for o in report.outcomes)


@pytest.mark.parametrize(
    ("content", "says"),
    [(None, "no such notebook"), ("{not json", "not a readable notebook"), ('{"cells": 3}', "no list of cells")],
)
def test_an_unreadable_notebook_exits_2_naming_it(tmp_path: Path, content: str | None, says: str) -> None:
    path = tmp_path / "mine.ipynb"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "bpe_lab", "check", str(path)], capture_output=True, text=True)
    assert done.returncode == 2
    assert str(path) in done.stderr and says in done.stderr


def test_the_command_line_prints_the_failure_and_exits_1(merge_skips_nothing_01: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bpe_lab", "check", str(merge_skips_nothing_01)], capture_output=True, text=True
    )
    assert done.returncode == 1, done.stderr
    assert "6 of 8 points" in done.stdout and "FAIL merge" in done.stdout and "expected: [" in done.stdout


def test_definitions_keep_the_given_code_and_leave_out_what_draws_or_tests() -> None:
    nb = json.loads((COURSE / "notebooks" / "05_byte_level_bpe" / "05_byte_level_bpe.ipynb").read_text("utf-8"))
    kept = [cell_id for cell_id, _ in cli.definitions(nb)]
    assert kept[0] == "given_code" and "pretokenize" in kept and "encode_ranks" in kept
    assert not [k for k in kept if k.startswith(("chart_", "test_", "check_"))]


FORGED_PASS = """def merge(ids, pair, new_id):
    return list(ids)

print("01_pair_counts_and_merge.ipynb: 8 of 8 points on the public cases")
print('{"errors": [], "results": [["get_pair_counts", [["basic", true, ""]], ""], ["merge", [["basic", true, ""]]]]}')
import os
os._exit(0)
"""

PATCHED_CHECKS = """import sys, types

def merge(ids, pair, new_id):
    return list(ids)

for _name in ("bpe_lab.selfcheck", "bpe_lab.harness", "bpe_lab.expected"):
    _fake = types.ModuleType(_name)
    _fake.check_parts = lambda name, fn, namespace=None: [("basic", 1, None), ("overlaps", 1, None)]
    _fake.run_cases = lambda *args, **kwargs: 1
    sys.modules[_name] = _fake
"""


@pytest.mark.parametrize("hostile", [FORGED_PASS, PATCHED_CHECKS], ids=["forged-pass-and-exit-0", "patched-checks"])
def test_a_notebook_cannot_forge_its_result(tmp_path: Path, hostile: str) -> None:
    """The learner's code runs in another process than the judge: a printed "8 of 8" and an early exit 0, or the
    check modules replaced before they import, change nothing of the report or the exit status."""
    answers = {"get_pair_counts": "def get_pair_counts(ids):\n    return {}\n", "merge": hostile}
    path = _write(tmp_path, sample_class.fill(_release(A01), answers))
    done = subprocess.run([sys.executable, "-m", "bpe_lab", "check", str(path)], capture_output=True, text=True)
    assert done.returncode == 1, done.stdout
    assert done.stdout.startswith(f"{A01}.ipynb: 0 of 8 points on the public cases"), done.stdout
    assert "FAIL get_pair_counts" in done.stdout and "FAIL merge" in done.stdout


def test_a_plain_py_file_is_checked_one_point_per_part(tmp_path: Path) -> None:
    path = tmp_path / "mine.py"
    merge = class_01.STUDENTS["merge-no-skip"]["merge"]
    path.write_text(f"{merge}\n\nprint(merge([1, 2], (1, 2), 3))\n", encoding="utf-8")
    report = cli.check_notebook(path)
    assert [o.name for o in report.outcomes] == ["merge"] and report.unit == "checks"
    assert (report.score, report.possible) == (1.0, 2.0)  # its "basic" part passes, "overlaps" not
    assert "returned:" in report.outcomes[0].message


def test_an_exception_names_the_learners_line(tmp_path: Path) -> None:
    path = tmp_path / "mine.py"
    path.write_text("def merge(ids, pair, new_id):\n    out = []\n    return out + [ids[len(ids)]]\n", "utf-8")
    (outcome,) = cli.check_notebook(path).outcomes
    assert "raised: IndexError" in outcome.message
    assert "line 3 of your mine.py: return out + [ids[len(ids)]]" in outcome.message


def test_a_function_that_reaches_a_failing_graded_one_through_a_helper_is_told_to_fix_that_first(tmp_path: Path):
    path = tmp_path / "mine.py"
    path.write_text(
        "def pretokenize(text, pattern):\n"
        "    return text.split()  # wrong: the spaces vanish\n\n\n"
        "def chunks_of(text, pattern):\n"
        "    return [list(c.encode()) for c in pretokenize(text, pattern)]\n\n\n"
        "def encode_bytes(text, merges, pattern):\n"
        "    return [i for ids in chunks_of(text, pattern) for i in ids]  # no merging either\n",
        encoding="utf-8",
    )
    outcomes = {o.name: o for o in cli.check_notebook(path).outcomes}
    assert not outcomes["pretokenize"].passed and not outcomes["encode_bytes"].passed
    assert "note: encode_bytes calls your pretokenize, which fails its own check" in outcomes["encode_bytes"].message
    assert "fix pretokenize first" in outcomes["encode_bytes"].message


def test_a_measured_part_is_named_with_its_points_as_graded_only(tmp_path: Path) -> None:
    """06's speed part has no public case: the line says its points come only from grading, not that they are lost."""
    a06 = "06_training_at_scale"
    report = cli.check_notebook(_write(tmp_path, sample_class.finished(COURSE, a06), f"{a06}.ipynb"), ["train_fast"])
    (outcome,) = report.outcomes
    assert outcome.passed and outcome.measured == ["speed"]
    assert outcome.points + outcome.measured_points == outcome.possible > outcome.points
    head, line = cli.format_report(report).splitlines()[:2]
    assert line.startswith("  ok   train_fast  ") and f"+{outcome.measured_points:g} for speed: measured only" in line
    assert head.endswith(f"({outcome.measured_points:g} of the 8 measured only when the course grades it)"), head

"""``bpe-lab drill``: the exercise list, a workspace, the clock, the judge, hints, the history, the mock interview."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from bpe_lab import cli, drill, pages
from bpe_lab.history import History
from bpe_lab.selfcheck import HIDDEN_CHECKS

COURSE = Path(__file__).resolve().parents[2]
MERGE = """def merge(ids, pair, new_id):
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == tuple(pair):
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out
"""
MERGE_NO_SKIP = MERGE.replace("i += 2", "i += 1")


@pytest.fixture
def candidate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A candidate in an empty folder, with a history of their own."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BPE_LAB_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("COLUMNS", "160")
    return tmp_path


def _answer(path: Path, code: str) -> None:
    """Replace the stub of the workspace by ``code``."""
    stub = pages.exercise(path.stem).stub.rstrip()
    text = path.read_text(encoding="utf-8")
    assert stub in text
    path.write_text(text.replace(stub, code.rstrip()), encoding="utf-8")


def test_the_list_is_every_graded_exercise_of_the_course_with_its_difficulty_and_time(candidate, capsys) -> None:
    assert cli.main(["drill"]) == 0
    out = capsys.readouterr().out
    assert [e.name for e in pages.exercises()] == list(HIDDEN_CHECKS)
    for exercise in pages.exercises():
        line = next(line for line in out.splitlines() if line.split()[:1] == [exercise.name])
        assert exercise.difficulty in line and f"{exercise.minutes} min" in line


def test_a_notebook_workspace_holds_the_page_the_stub_the_examples_and_a_check_cell(candidate) -> None:
    assert cli.main(["drill", "train_bpe"]) == 0
    nb = nbformat.read(candidate / "bpe-drills" / "train_bpe.ipynb", 4)
    exercise = pages.exercise("train_bpe")
    sources = [c.source for c in nb.cells]
    assert exercise.page.strip() in sources and exercise.stub.strip() in sources
    assert {"count_pairs", "merge_vocab"} == set(exercise.needs)  # what its solution calls: stubs too
    assert all(stub.strip() in sources for stub in exercise.needs.values())
    assert any("get_word_symbols" in s for s in sources)  # the given code
    assert 'check("train_bpe")' in sources[-2] and "Hint" not in "".join(sources)  # hints only on demand


def test_a_py_workspace_has_the_same_text_as_comments(candidate) -> None:
    assert cli.main(["drill", "merge", "--py"]) == 0
    text = (candidate / "bpe-drills" / "merge.py").read_text(encoding="utf-8")
    exercise = pages.exercise("merge")
    assert all(f"# {line}".rstrip() in text for line in exercise.page.splitlines())
    assert exercise.stub.strip() in text
    assert "# expect(merge, [5, 5, 5], (5, 5), 7, returns=[7, 5]" in text


def test_a_failing_check_names_the_smallest_input_and_counts_then_a_pass_is_timed(candidate, capsys) -> None:
    cli.main(["drill", "merge", "--py"])
    path = candidate / "bpe-drills" / "merge.py"
    _answer(path, MERGE_NO_SKIP)
    assert cli.main(["drill", "merge", "--check"]) == 1
    out = capsys.readouterr().out
    assert "expected: [" in out and "returned: [" in out and "elapsed 0:" in out
    assert "(merge's check cell 1 of 2: The worked example; merge returns a new list" in out
    assert "test_merge" not in out  # the cell's grade id: not what a learner sees
    path.write_text(path.read_text(encoding="utf-8").replace(MERGE_NO_SKIP.rstrip(), MERGE.rstrip()), "utf-8")
    assert cli.main(["drill", "merge", "--check"]) == 0
    out = capsys.readouterr().out
    assert "merge: PASS" in out and "0 of 3 hints, 1 failed checks" in out
    (attempt,) = History().attempts()
    assert attempt.passed is not None and attempt.failed_checks == 1
    cli.main(["drill"])
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("merge "))
    assert row.split()[-2:] == [drill.clock(attempt.seconds), "mastered"]  # best time; no hint, within 15 min


def test_hints_come_one_at_a_time_each_counted(candidate, capsys) -> None:
    cli.main(["drill", "merge", "--py"])
    hints = pages.exercise("merge").hints
    for shown in (1, 2, 3, 3):
        capsys.readouterr()
        cli.main(["drill", "merge", "--hint"])
        out = capsys.readouterr().out
        assert out.count("Hint ") == shown and hints[shown - 1] in out
    assert History().current("merge").hints == 3


def test_reset_starts_afresh(candidate) -> None:
    cli.main(["drill", "merge", "--py"])
    path = candidate / "bpe-drills" / "merge.py"
    _answer(path, MERGE)
    cli.main(["drill", "merge", "--hint"])
    assert cli.main(["drill", "merge", "--reset", "--py"]) == 0
    assert pages.exercise("merge").stub.strip() in path.read_text(encoding="utf-8")
    first, second = History().attempts()
    assert first.gave_up is not None and (second.hints, second.passed) == (0, None)


def test_the_model_solution_is_shown_beside_the_code_after_giving_up(candidate, capsys, monkeypatch) -> None:
    monkeypatch.syspath_prepend(str(COURSE / "learner" / "solutions"))  # the opt-in distribution, not installed
    cli.main(["drill", "decode_bytes", "--py"])
    assert cli.main(["drill", "decode_bytes", "--give-up"]) == 0
    out = capsys.readouterr().out
    assert "your code" in out and "the model solution" in out and "Complexity of the model solution: O(" in out
    assert History().current("decode_bytes").gave_up is not None


def test_without_the_solutions_package_the_candidate_is_told_how_to_get_it(candidate, capsys, monkeypatch) -> None:
    monkeypatch.setattr(drill, "_solution", lambda name: None)
    cli.main(["drill", "merge", "--give-up"])
    assert drill.SOLUTIONS_INSTALL in capsys.readouterr().out


def test_the_mock_interview_picks_an_exercise_not_mastered_and_counts_down_its_time(candidate, capsys) -> None:
    cli.main(["drill", "merge", "--py"])
    _answer(candidate / "bpe-drills" / "merge.py", MERGE)
    cli.main(["drill", "merge", "--check"])  # mastered: no hint, within its time
    for seed in range(12):
        capsys.readouterr()
        assert cli.main(["drill", "--mock", "--py", "--seed", str(seed)]) == 0
        attempt = History().attempts()[-1]
        assert attempt.exercise != "merge" and attempt.mode == "mock"
        assert attempt.time_limit == pages.exercise(attempt.exercise).minutes * 60
    capsys.readouterr()
    cli.main(["drill", attempt.exercise, "--check"])
    assert f"of {drill.clock(attempt.time_limit)} (mock interview: " in capsys.readouterr().out


def test_an_unknown_exercise_is_refused_naming_the_known_ones(candidate, capsys) -> None:
    assert cli.main(["drill", "mergee"]) == 2
    assert "no exercise 'mergee'; the exercises are get_pair_counts, merge" in capsys.readouterr().err


def test_the_history_lists_every_attempt(candidate, capsys) -> None:
    cli.main(["drill", "merge", "--py"])
    cli.main(["drill", "merge", "--give-up"])
    capsys.readouterr()
    cli.main(["drill", "--history"])
    header, row = capsys.readouterr().out.splitlines()
    assert "hints" in header and row.split()[2:5] == ["merge", "drill", "gave"]


def test_the_notebooks_check_cell_judges_the_kernels_code_in_another_process(candidate, capsys, monkeypatch) -> None:
    cli.main(["drill", "merge"])
    monkeypatch.setattr(drill, "_kernel_cells", lambda: [("cell In[1]", MERGE_NO_SKIP)])
    drill.check("merge")
    out = capsys.readouterr().out
    assert "FAIL" in out and "returned: [" in out
    assert History().current("merge").failed_checks == 1


FORGING_MERGE = """import os, sys, types

def merge(ids, pair, new_id):
    return list(ids)

print("merge: PASS, all 462 public cases")
_fake = types.ModuleType("bpe_lab.selfcheck")
_fake.check_parts = lambda name, fn, namespace=None: [("basic", 1, None), ("overlaps", 1, None)]
sys.modules["bpe_lab.selfcheck"] = _fake
sys.modules["bpe_lab.cli"] = _fake
"""


@pytest.mark.parametrize(
    "exit_line", ["", "_ = os._exit(0)  # an assignment: it runs\n"], ids=["patched-checks", "forged-pass-exit-0"]
)
def test_the_drill_judge_cannot_be_fooled_by_a_forged_pass(candidate, capsys, monkeypatch, exit_line: str) -> None:
    cli.main(["drill", "merge", "--py"])
    _answer(candidate / "bpe-drills" / "merge.py", FORGING_MERGE + exit_line)
    assert cli.main(["drill", "merge", "--check"]) == 1
    assert "merge: PASS" not in capsys.readouterr().out
    monkeypatch.setattr(drill, "_kernel_cells", lambda: [("cell In[1]", FORGING_MERGE + exit_line)])
    drill.check("merge")  # the notebook's check cell: the same judge, in its own process
    assert "FAIL" in capsys.readouterr().out
    attempt = History().current("merge")
    assert (attempt.passed, attempt.failed_checks) == (None, 2)

"""The notebooks' own helpers: ``expect`` for the examples of a page, ``check("name")`` for the hidden checks."""

import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

import bpe_ref
from autograder import cases
from bpe_lab import harness, selfcheck
from bpe_lab.harness import CheckFailed

ROOT = Path(__file__).resolve().parents[2]


def _hidden_calls() -> dict[str, list[tuple[str, tuple[str, ...]]]]:
    """``{function: [(check, part)...]}`` read from the hidden tests of the source notebooks."""
    found: dict[str, list] = {}
    for path in sorted((ROOT / "solutions").glob("*/*.ipynb")):
        for cell in nbformat.read(path, 4).cells:
            hidden = cell.source.partition("### BEGIN HIDDEN TESTS")[2]
            for check, fn, args in re.findall(r"^(check_\w+)\((\w+)((?:, \"\w+\")*)\)", hidden, re.M):
                found.setdefault(fn, []).append((check, tuple(re.findall(r'"(\w+)"', args))))
    return found


def test_check_runs_exactly_the_hidden_tests_of_the_source_notebooks():
    assert selfcheck.HIDDEN_CHECKS == _hidden_calls()


def test_every_check_named_exists():
    for entries in selfcheck.HIDDEN_CHECKS.values():
        for check_name, _ in entries:
            assert callable(selfcheck._the_check(check_name))
    with pytest.raises(LookupError, match="no check check_nothing"):
        selfcheck._the_check("check_nothing")


CHECK_CELL_ASSIGNMENTS = [
    "01_pair_counts_and_merge",
    "02_training_loop",
    "03_tie_breaks",
    "04_apply_bpe",
    "05_byte_level_bpe",
]


def test_every_graded_function_has_a_check_cell_in_its_notebook():
    cells = {}
    for path in [ROOT / "notebooks" / a / f"{a}.ipynb" for a in CHECK_CELL_ASSIGNMENTS]:
        for cell in nbformat.read(path, 4).cells:
            match = re.search(r'^check\("(\w+)"\)$', cell.source, re.M)
            if match:
                cells[match.group(1)] = cell.metadata["nbgrader"]["grade_id"]
    assert cells == {name: f"check_{name}" for name in selfcheck.HIDDEN_CHECKS}


def test_check_passes_a_right_function_found_in_the_callers_namespace(capsys):
    merge = bpe_ref.merge  # noqa: F841 (found by name, as in a notebook)
    selfcheck.check("merge")
    assert re.fullmatch(r"merge: the 2 hidden checks pass \(\d+\.\d s\)\n", capsys.readouterr().out)


def test_check_fails_with_the_hidden_checks_three_lines():
    def merge(ids, pair, new_id):  # no skip after a match
        out = []
        for i, x in enumerate(ids):
            if i + 1 < len(ids) and (x, ids[i + 1]) == tuple(pair):
                out.append(new_id)
            elif not (i and (ids[i - 1], x) == tuple(pair)):
                out.append(x)
        return out

    with pytest.raises(CheckFailed) as failed:
        selfcheck.check("merge", merge)
    call, expected, returned = str(failed.value).splitlines()
    assert re.fullmatch(r"merge\(\[(\d), \1, \1\], \(\1, \1\), \d+\)", call), call  # a run of three, the smallest
    assert re.fullmatch(r"  expected: \[\d+, \d\]", expected) and re.fullmatch(r"  returned: \[(\d+), \1\]", returned)


def test_check_uses_the_public_inputs_whatever_seed_the_process_has(monkeypatch):
    seen = []
    original = harness.run_cases

    def spy(name, fn, cases_, *args, **kwargs):
        seen.append(cases.SEED)
        return original(name, fn, cases_, *args, **kwargs)

    monkeypatch.setattr("autograder.checks.run_cases", spy)
    monkeypatch.setattr(cases, "SEED", 12345)
    selfcheck.check("merge", bpe_ref.merge)
    assert seen == [cases.PUBLIC_SEED, cases.PUBLIC_SEED] and cases.SEED == 12345


def test_check_does_nothing_while_nbgrader_executes_the_notebook(monkeypatch, capsys):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    assert selfcheck.check("merge", lambda *a: 1 / 0) is None
    assert capsys.readouterr().out == ""


def test_check_names_unknown_and_undefined_functions():
    with pytest.raises(KeyError, match="'nope' is not a graded function"):
        selfcheck.check("nope")
    with pytest.raises(NameError, match="define encode first"):
        selfcheck.check("encode")


def test_expect_returns_the_value_and_fails_with_three_lines():
    assert selfcheck.expect(bpe_ref.merge, [5, 5, 5], (5, 5), 7, returns=[7, 5]) == [7, 5]
    with pytest.raises(selfcheck.ExampleFailed) as failed:
        selfcheck.expect(bpe_ref.merge, [5, 5, 5], (5, 5), 7, returns=[7, 7], note="a rule")
    assert str(failed.value).splitlines() == [
        "merge([5, 5, 5], (5, 5), 7)  # a rule",
        "  expected: [7, 7]",
        "  returned: [7, 5]",
    ]
    with pytest.raises(selfcheck.ExampleFailed, match="expected: a pair\n  returned: 3"):
        selfcheck.expect(len, "abc", satisfies=lambda v: isinstance(v, tuple), described="a pair")
    with pytest.raises(TypeError, match="either returns= or satisfies="):
        selfcheck.expect(len, "abc")


def test_expect_raises_wants_that_exception_and_what_its_test_asks():
    def decode_bytes(ids, merges):
        raise ValueError(f"unknown id {ids[0]}")

    named = {"satisfies": lambda error: "300" in str(error), "described": "ValueError naming the id 300"}
    assert isinstance(selfcheck.expect(decode_bytes, [300], {}, raises=ValueError, **named), ValueError)
    for wrong, reason in [
        (lambda ids, merges: "", "  returned: ''"),
        (lambda ids, merges: {}[ids[0]], "  raised: KeyError: 300"),
        (lambda ids, merges: int("x"), "  raised: ValueError: invalid literal for int() with base 10: 'x'"),
    ]:
        wrong.__name__ = "decode_bytes"
        with pytest.raises(selfcheck.ExampleFailed) as failed:
            selfcheck.expect(wrong, [300], {}, raises=ValueError, **named)
        assert str(failed.value).splitlines() == [
            "decode_bytes([300], {})",
            "  expected: ValueError naming the id 300",
            reason,
        ]
    with pytest.raises(TypeError, match="raises= without returns="):
        selfcheck.expect(len, "abc", returns=3, raises=ValueError)


SPLIT = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"  # GPT-2's pattern


def test_expect_shows_a_long_argument_by_its_name_in_the_notebook_and_passes_the_value():
    seen = []

    def pretokenize(text, pattern):
        seen.append(pattern)
        return []

    with pytest.raises(selfcheck.ExampleFailed) as failed:
        selfcheck.expect(pretokenize, "a b", SPLIT, returns=["a", " b"])
    assert str(failed.value).splitlines()[0] == "pretokenize('a b', SPLIT)" and seen == [SPLIT]
    short = "ab"
    with pytest.raises(selfcheck.ExampleFailed) as failed:
        selfcheck.expect(pretokenize, "a b", short, returns=["a"])
    assert str(failed.value).splitlines()[0] == "pretokenize('a b', 'ab')"  # short values are shown as they are


def test_the_learner_side_imports_without_the_reference_answers():
    code = "import sys, bpe_lab.selfcheck; print(sorted(m for m in sys.modules if m.split('.')[0] == 'bpe_ref'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ, check=True)
    assert out.stdout.strip() == "[]"

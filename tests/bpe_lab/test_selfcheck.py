"""The notebooks' own helpers: ``expect`` for the examples of a page, ``check("name")`` for the hidden checks."""

import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

import bpe_ref
from autograder import checks
from autograder.checks import a05, cases
from autograder.course.directory import assignments
from bpe_lab import harness, selfcheck
from bpe_lab.harness import CheckFailed

ROOT = Path(__file__).resolve().parents[2]

BLOCK = """
import sys
class _Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("bpe_ref", "autograder"):
            raise ModuleNotFoundError(f"{name} is blocked", name=name)
sys.meta_path.insert(0, _Block())
"""
"""Put before a subprocess's code: importing the reference or the grader fails there, as in a learner's install."""


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


def test_every_check_named_is_a_check_of_the_grader():
    for entries in selfcheck.HIDDEN_CHECKS.values():
        for check_name, _ in entries:
            assert callable(getattr(checks, check_name, None) or getattr(a05, check_name, None)), check_name


CHECK_CELL_ASSIGNMENTS = assignments(ROOT)  # the course's own list: every folder of solutions/


def test_every_graded_function_has_a_check_cell_in_its_notebook():
    cells = {}
    for path in [ROOT / "notebooks" / a / f"{a}.ipynb" for a in CHECK_CELL_ASSIGNMENTS]:
        for cell in nbformat.read(path, 4).cells:
            match = re.search(r'^check\("(\w+)"\)$', cell.source, re.M)
            if match:
                cells[match.group(1)] = cell.metadata["nbgrader"]["grade_id"]
    assert cells == {name: f"check_{name}" for name in selfcheck.HIDDEN_CHECKS}


def _public_count(name: str) -> int:
    from bpe_lab import expected

    return sum(len({repr(case.args) for case in part.cases}) for part in expected.load(name))


def test_check_parts_scores_each_part_alone_as_its_test_cell_does():
    def best_pair(pair_counts, tie_break):  # "largest" picks the smallest: only that part fails
        top = max(pair_counts.values())
        tied = [p for p, c in pair_counts.items() if c == top]
        return tied[0] if tie_break == "first" else min(tied)

    parts = selfcheck.check_parts("best_pair", best_pair)
    assert [(part, failed is None) for part, _, failed in parts] == [
        ("largest", False),
        ("smallest", True),
        ("first", True),
    ]
    assert str(parts[0][2]).splitlines()[0].endswith("'largest')")


def test_a_failure_names_a_wrong_graded_function_it_calls():
    def count_pairs(vocab):  # counts each word once, whatever its count
        counts = {}
        for word in vocab:
            for pair in zip(word, word[1:]):
                counts[pair] = counts.get(pair, 0) + 1
        return counts

    def train_bpe(word_freqs, num_merges):
        vocab = {(*w, "</w>"): c for w, c in word_freqs.items()}
        merges = []
        for _ in range(num_merges):
            counts = count_pairs(vocab)
            if not counts:
                break
            best = max(counts, key=lambda p: (counts[p], p))
            merges.append(best)
            vocab = bpe_ref.merge_vocab(best, vocab)
        return merges

    with pytest.raises(harness.CheckFailed) as failed:
        selfcheck.check("train_bpe", train_bpe, {"count_pairs": count_pairs})
    (note,) = failed.value.__notes__
    assert note.startswith("note: train_bpe calls your count_pairs, which fails its own check (count_pairs(")
    assert note.endswith("fix count_pairs first")
    assert selfcheck.failing_helpers(train_bpe, {"count_pairs": bpe_ref.count_pairs}) == []


def test_check_passes_a_right_function_found_in_the_callers_namespace(capsys):
    merge = bpe_ref.merge  # noqa: F841 (found by name, as in a notebook)
    selfcheck.check("merge")
    said = re.fullmatch(r"merge: the (\d+) public cases pass \(\d+\.\d s\)\n", capsys.readouterr().out)
    assert said and int(said.group(1)) == _public_count("merge")


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


def test_check_fails_on_the_same_case_with_the_same_message_as_the_grader_with_the_public_seed(monkeypatch):
    def merge(ids, pair, new_id):  # no skip after a match
        out = []
        for i, x in enumerate(ids):
            if i + 1 < len(ids) and (x, ids[i + 1]) == tuple(pair):
                out.append(new_id)
            elif not (i and (ids[i - 1], x) == tuple(pair)):
                out.append(x)
        return out

    monkeypatch.setattr(cases, "SEED", cases.PUBLIC_SEED)
    with pytest.raises(CheckFailed) as graded:
        checks.check_merge(merge, "overlaps")
    monkeypatch.setattr(cases, "SEED", 12345)  # the check reads its cases from data: no seed of the process counts
    with pytest.raises(CheckFailed) as checked:
        selfcheck.check("merge", merge)
    assert str(checked.value) == str(graded.value)


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


def test_the_learner_side_checks_with_the_reference_and_grader_unimportable():
    code = BLOCK + (
        "import bpe_lab, bpe_lab.selfcheck, bpe_lab.harness, bpe_lab.expected, bpe_lab.codec\n"
        "def merge(ids, pair, new_id):\n"
        "    out, i = [], 0\n"
        "    while i < len(ids):\n"
        "        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:\n"
        "            out.append(new_id); i += 2\n"
        "        else:\n"
        "            out.append(ids[i]); i += 1\n"
        "    return out\n"
        "bpe_lab.selfcheck.check('merge')\n"
        "for name in bpe_lab.selfcheck.HIDDEN_CHECKS: bpe_lab.expected.load(name)\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'bpe_ref', 'autograder'}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    assert re.fullmatch(r"merge: the \d+ public cases pass \(\d+\.\d s\)\n\[\]\n", out.stdout)


def test_a_blocked_import_fails_in_the_subprocess():  # the test above would pass vacuously without the hook
    out = subprocess.run([sys.executable, "-c", BLOCK + "import bpe_ref"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 1 and "bpe_ref is blocked" in out.stderr


def _disagreeing_merges(word):
    symbols = bpe_ref.replay(list(word), [(word[0], word[1])])
    return [(symbols[0], symbols[1]), (word[0], word[1])]


def test_disagreeing_merges_is_judged_with_the_notebooks_apply_bpe_and_encode(capsys):
    apply_bpe, encode, disagreeing_merges = bpe_ref.apply_bpe, bpe_ref.encode, _disagreeing_merges  # noqa: F841
    selfcheck.check("disagreeing_merges")
    assert capsys.readouterr().out.endswith(", judged with your apply_bpe and encode)\n")

    def agreeing(word):  # learned order: rank and replay agree
        return [(word[0], word[1])]

    with pytest.raises(CheckFailed) as failed:
        selfcheck.check("disagreeing_merges", agreeing)
    assert str(failed.value).splitlines() == [
        "disagreeing_merges('aaa')",  # the smallest word, first by repr
        "  expected: a merge table on which applying by rank and replaying split 'aaa' differently",
        "  returned: [('a', 'a')], on which both give ['aa', 'a']",
    ]
    with pytest.raises(CheckFailed) as graded:
        checks.check_counterexample(agreeing)
    assert str(graded.value) == str(failed.value)  # the grader's judge, with the reference, says the same


def test_disagreeing_merges_asks_to_fix_a_failing_apply_bpe_first():
    def apply_bpe(word, merges):  # replays instead of merging by rank
        return bpe_ref.replay([*word, "</w>"], merges)

    encode, disagreeing_merges = bpe_ref.encode, _disagreeing_merges  # noqa: F841
    with pytest.raises(CheckFailed) as failed:
        selfcheck.check("disagreeing_merges")
    lines = str(failed.value).splitlines()
    assert lines[0] == "disagreeing_merges is judged with your apply_bpe, which fails its own check: fix it first"
    assert lines[1].startswith("apply_bpe(") and lines[2].startswith("  expected: ")
    del apply_bpe
    with pytest.raises(NameError, match="define apply_bpe first"):
        selfcheck.check("disagreeing_merges")


def _solution_cells(assignment: str) -> dict[str, str]:
    nb = nbformat.read(ROOT / "solutions" / assignment / f"{assignment}.ipynb", 4)
    return {
        c.metadata["nbgrader"]["grade_id"]: re.sub(r"### (BEGIN|END) SOLUTION", "", c.source)
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("solution")
    }


def test_the_helpers_written_beside_a_graded_function_are_the_ones_the_notebooks_define():
    import ast

    found = {}
    for assignment in assignments(ROOT):
        for grade_id, source in _solution_cells(assignment).items():
            if grade_id in selfcheck.HIDDEN_CHECKS:
                defined = [n.name for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)]
                found.update({helper: grade_id for helper in defined if helper != grade_id})
    assert found == selfcheck.CELL_HELPERS


def test_a_wrong_helper_without_a_check_is_blamed_through_the_check_of_its_cell():
    """encode_iterable calls split_specials, which has no check of its own: chunk_counts' check covers it (its
    special tokens part), so a wrong split_specials is named, with the cell to fix first."""
    import regex

    namespace = {"regex": regex}
    cells = _solution_cells("06_training_at_scale")
    exec(cells["chunk_counts"] + "\n\n" + cells["encode_iterable"], namespace)
    fn = namespace["encode_iterable"]
    assert selfcheck.failing_helpers(fn, namespace, "encode_iterable") == []  # all right: nothing to blame
    exec("def split_specials(text, special_tokens):\n    return [text]", namespace)  # the special tokens kept in
    (note,) = selfcheck.failing_helpers(fn, namespace, "encode_iterable")
    assert note.startswith("note: encode_iterable calls your split_specials, which chunk_counts's check covers, ")
    assert note.endswith(": fix that cell first")

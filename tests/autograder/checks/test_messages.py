"""Every failure message has the call, the expected value and the returned one: every way every check can fail,
and every example (visible test) of the notebooks.

A message is three lines: ``name(args)`` (and ``  # rule`` when the case says which), ``  expected: ...``, then
``  returned: ...`` or ``  raised: ...``.
"""

import ast
import sys
from collections.abc import Mapping
from pathlib import Path

import nbformat
import pytest

import bpe_ref
from autograder import checks
from autograder.checks import a05, a06
from autograder.course.directory import assignments
from bpe_lab import harness, selfcheck
from bpe_lab.harness import CheckFailed
from bpe_ref import bytelevel, scale

ROOT = Path(__file__).resolve().parents[3]
ASSIGNMENTS = assignments(ROOT)  # the course's own list: every folder of solutions/

# every check and part, with the reference (or, for the counterexample, a right answer)


def _counterexample(word):
    symbols = bpe_ref.replay(list(word), [(word[0], word[1])])
    return [(symbols[0], symbols[1]), (word[0], word[1])]


def disagreeing_merges(word):
    return _counterexample(word)


PARTS = [
    (checks.check_get_pair_counts, bpe_ref.get_pair_counts, "get_pair_counts", ["basic", "overlaps"]),
    (checks.check_merge, bpe_ref.merge, "merge", ["basic", "overlaps"]),
    (checks.check_count_pairs, bpe_ref.count_pairs, "count_pairs", ["basic", "weighted"]),
    (checks.check_merge_vocab, bpe_ref.merge_vocab, "merge_vocab", ["basic", "edge"]),
    (checks.check_train_bpe, bpe_ref.train_bpe, "train_bpe", ["basic", "edge"]),
    (checks.check_best_pair, bpe_ref.best_pair, "best_pair", ["largest", "smallest", "first"]),
    (checks.check_learn_bpe, bpe_ref.learn_bpe, "learn_bpe", ["basic", "edge"]),
    (checks.check_bpe_train, bpe_ref.bpe_train, "bpe_train", ["basic", "edge"]),
    (checks.check_apply_bpe, bpe_ref.apply_bpe, "apply_bpe", ["basic", "rank"]),
    (checks.check_encode, bpe_ref.encode, "encode", ["basic", "replay"]),
    (checks.check_counterexample, _counterexample, "disagreeing_merges", [None]),
    (a05.check_pretokenize, bytelevel.pretokenize, "pretokenize", [None]),
    (a05.check_train_bytes, bytelevel.train_bytes, "train_bytes", ["basic", "ties"]),
    (a05.check_encode_bytes, bytelevel.encode_bytes, "encode_bytes", ["basic", "rank"]),
    (a05.check_decode_bytes, bytelevel.decode_bytes, "decode_bytes", ["basic", "partial"]),
    (a05.check_encode_ranks, bytelevel.encode_ranks, "encode_ranks", ["basic", "special", "gpt4"]),
    (a06.check_chunk_counts, scale.chunk_counts, "chunk_counts", ["basic", "special"]),
    (a06.check_chunk_counts_file, scale.chunk_counts_file, "chunk_counts_file", ["serial", "parallel"]),
    (a06.check_train_fast, scale.train_fast, "train_fast", ["basic", "ties"]),
    (a06.check_encode_iterable, scale.encode_iterable, "encode_iterable", ["basic", "lazy"]),
    (a06.check_bytes_to_unicode, scale.bytes_to_unicode, "bytes_to_unicode", [None]),
    (a06.check_gpt2_files, scale.gpt2_files, "gpt2_files", ["files", "load"]),
]
UNCHANGEABLE = {"disagreeing_merges", "pretokenize", "train_bytes", "bytes_to_unicode"}  # nothing to change
ALL = [(check, ref, name, part) for check, ref, name, parts in PARTS for part in parts]


def _three_lines(message: str, name: str) -> list[str]:
    lines = message.splitlines()
    assert len(lines) == 3, message
    assert lines[0].startswith(f"{name}(") and ")" in lines[0], message
    assert lines[1].startswith("  expected: ") and len(lines[1]) > len("  expected: "), message
    assert lines[2].startswith(("  returned: ", "  raised: ")), message
    return lines


def _failure(check, part, fn, **kwargs) -> str:
    harness.forget_timeouts()
    with pytest.raises(CheckFailed) as failed:
        check(fn, **kwargs) if part is None else check(fn, part, **kwargs)
    return str(failed.value)


# ---------------------------------------------------------------------------------------------------------------
# every way a learner's function can go wrong, for every check and part
# ---------------------------------------------------------------------------------------------------------------


def _raises(*args):
    raise ValueError("max() arg is an empty sequence")


def _loops(*args):
    while True:
        pass


def _returns_none(*args):
    return None


def _wrong_but_right_type(reference):
    if reference is _counterexample:  # one merge: rank and replay agree on it
        return lambda word: [(word[0], word[1])]

    def wrong(*args):
        right = reference(*args)
        if isinstance(right, Mapping):
            return {**right, ("z", "z"): 99}
        if isinstance(right, list):
            return [*right, ("z", "z")] if right and isinstance(right[0], tuple) else [*right, "z"]
        return ("z", "z")

    return wrong


def _changes_its_argument(reference):
    def changes(*args):
        right = reference(*args)
        for arg in args:
            if isinstance(arg, (list, dict)):
                arg.clear()
                break
        return right

    return changes


def _returns_its_argument(*args):
    return next((a for a in args if isinstance(a, (list, dict))), None)


@pytest.mark.parametrize("check, reference, name, part", ALL, ids=lambda v: getattr(v, "__name__", str(v)))
def test_every_failure_of_every_check_has_the_call_the_expected_and_the_returned_value(check, reference, name, part):
    kinds = {
        "raises": _raises,
        "returns None": _returns_none,
        "not a function": 42,
        "wrong value": _wrong_but_right_type(reference),
    }
    if name not in UNCHANGEABLE:
        kinds["changes its argument"] = _changes_its_argument(reference)
        kinds["returns its argument"] = _returns_its_argument
    reasons = {}
    for kind, fn in kinds.items():
        lines = _three_lines(_failure(check, part, fn), name)
        reasons[kind] = lines[2]
    raised = "  raised: ValueError: max() arg is an empty sequence"
    if name == "decode_bytes" and part == "partial":  # its smallest case must raise a ValueError naming the id -1
        raised += " (name the unknown id, -1, in the message)"
    assert reasons["raises"] == raised
    assert reasons["not a function"].startswith("  raised: TypeError: 'int' object is not callable")
    if "changes its argument" in reasons:
        assert "changed argument" in reasons["changes its argument"]


@pytest.mark.parametrize("check, reference, name, part", ALL, ids=lambda v: getattr(v, "__name__", str(v)))
def test_a_timeout_names_its_input_and_a_second_check_names_the_same_at_once(check, reference, name, part):
    harness.forget_timeouts()
    with pytest.raises(CheckFailed) as first:
        check(_loops, time_limit=0.05) if part is None else check(_loops, part, time_limit=0.05)
    lines = _three_lines(str(first.value), name)
    assert lines[2] == "  returned: nothing: it used more than 0.05 s of CPU time (an endless loop?)"
    with pytest.raises(CheckFailed) as again:  # the same function, not called again
        check(_loops, time_limit=30) if part is None else check(_loops, part, time_limit=30)
    repeated = _three_lines(str(again.value), name)
    assert repeated[:2] == [lines[0].split("  # ")[0], lines[1]] and "not called again" in repeated[2]
    harness.forget_timeouts()


def test_the_judges_own_reasons_keep_the_three_lines():
    class Unreadable(dict):
        def __getitem__(self, key):
            raise RuntimeError("no")

    message = _failure(checks.check_count_pairs, "basic", lambda vocab: Unreadable({("a", "b"): 1}))
    assert _three_lines(message, "count_pairs")[2] == "  returned: a dict that cannot be read (RuntimeError)"
    message = _failure(
        checks.check_get_pair_counts, "basic", lambda ids: dict(sorted(bpe_ref.get_pair_counts(ids).items()))
    )
    assert "keys not in order of first occurrence" in _three_lines(message, "get_pair_counts")[2]
    message = _failure(checks.check_train_bpe, "edge", lambda w, n: bpe_ref.train_bpe(w, n)[::-1])
    assert "in another order" in _three_lines(message, "train_bpe")[2]
    message = _failure(checks.check_encode, "basic", lambda w, r: bpe_ref.encode(w, r) + ["</w>"])
    assert "no end-of-word marker" in _three_lines(message, "encode")[2]
    message = _failure(checks.check_counterexample, None, lambda w: "not a table")
    assert "not a merge table" in _three_lines(message, "disagreeing_merges")[2]
    message = _failure(a05.check_train_bytes, "basic", lambda *a: dict(reversed(bytelevel.train_bytes(*a).items())))
    assert "not in merge order" in _three_lines(message, "train_bytes")[2]


def _decode_unnamed(ids, merges):
    try:
        return bytelevel.decode_bytes(ids, merges)
    except ValueError:
        raise ValueError("unknown id") from None


def test_an_unknown_id_not_named_in_the_value_error_fails_with_the_three_lines():
    lines = _three_lines(_failure(a05.check_decode_bytes, "partial", _decode_unnamed), "decode_bytes")
    assert lines[0].startswith("decode_bytes([-1], {})")  # the smallest unknown id: a negative one
    assert lines[2] == "  raised: ValueError: unknown id (name the unknown id, -1, in the message)"


# ---------------------------------------------------------------------------------------------------------------
# every example of the notebooks goes through expect, and each one's failure has the three lines
# ---------------------------------------------------------------------------------------------------------------


def _visible_parts() -> list[tuple[str, str, str]]:
    out = []
    for assignment in ASSIGNMENTS:
        nb = nbformat.read(ROOT / "solutions" / assignment / f"{assignment}.ipynb", 4)
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("grade") and cell.cell_type == "code":
                out.append((assignment, meta["grade_id"], cell.source.split("### BEGIN HIDDEN TESTS")[0]))
    return out


VISIBLE = _visible_parts()
GIVEN = {
    a: [
        c.source
        for c in nbformat.read(ROOT / "notebooks" / a / f"{a}.ipynb", 4).cells
        if c.cell_type == "code" and str(c.metadata.get("nbgrader", {}).get("grade_id", "")).startswith("given")
    ]
    for a in ASSIGNMENTS
}
GRADED = set(selfcheck.HIDDEN_CHECKS)


@pytest.mark.parametrize("assignment, grade_id, source", VISIBLE, ids=[g for _, g, _ in VISIBLE])
def test_examples_call_graded_functions_only_through_expect_and_never_assert(assignment, grade_id, source):
    tree = ast.parse(source)
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.Assert)], "a bare assert: use expect"
    direct = [
        n.func.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in GRADED
    ]
    assert direct == [], f"called directly, not through expect: {direct}"
    assert any(isinstance(n, ast.Call) and getattr(n.func, "id", "") == "expect" for n in ast.walk(tree))


@pytest.mark.parametrize("assignment, grade_id, source", VISIBLE, ids=[g for _, g, _ in VISIBLE])
def test_every_example_fails_with_the_call_the_expected_and_the_returned_value(assignment, grade_id, source):
    """Each expect line of the cell, run on a function that raises and on one that returns a wrong value."""
    real = selfcheck.expect
    for bad in (_raises, lambda *args: "a wrong answer"):
        messages: dict[int, list[str]] = {}

        def spy(fn, *args, _bad=bad, _messages=messages, **kwargs):
            line = sys._getframe(1).f_lineno
            named = lambda *a: _bad(*a)  # noqa: E731
            named.__name__ = fn.__name__
            try:
                real(named, *args, **kwargs)
            except selfcheck.ExampleFailed as exc:
                _messages.setdefault(line, []).append(str(exc))
            return None

        namespace = {name: getattr(bpe_ref, name, None) or getattr(bytelevel, name, None) for name in GRADED}
        namespace.update({k: getattr(bytelevel, k) for k in ("GPT2_PATTERN", "GPT4_PATTERN", "GPT4_SPECIAL_TOKENS")})
        namespace["disagreeing_merges"] = disagreeing_merges
        namespace["get_word_symbols"] = bpe_ref.get_word_symbols
        for given in GIVEN[assignment]:  # the notebook's given code (06: the plain loop, the example files)
            exec(compile(given, "<given>", "exec"), namespace)
        code = compile(source.replace("from bpe_lab.selfcheck import expect", "pass"), grade_id, "exec")
        namespace["expect"] = spy
        exec(code, namespace)
        calls = {
            n.lineno
            for n in ast.walk(ast.parse(source))
            if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "expect"
        }
        assert set(messages) == calls, f"examples that did not fail: lines {sorted(calls - set(messages))}"
        for found in messages.values():
            for message in found:
                name = message.split("(")[0]
                assert name in GRADED, message
                _three_lines(message, name)


def test_a_trainer_that_makes_one_merge_too_many_is_told_so_not_to_stop_early():
    def one_more(word_freqs, num_merges):
        return bpe_ref.train_bpe(word_freqs, num_merges + 1)

    def no_stop(word_freqs, num_merges):  # goes on when no pair is left, repeating the last merge
        merges = bpe_ref.train_bpe(word_freqs, num_merges)
        return merges + merges[-1:] * (num_merges - len(merges)) if merges else merges

    too_many = _three_lines(_failure(checks.check_train_bpe, "basic", one_more), "train_bpe")[2]
    assert too_many.endswith("were asked, stop after that many rounds)"), too_many
    assert "no pair is left" not in too_many
    stop = _three_lines(_failure(checks.check_train_bpe, "edge", no_stop), "train_bpe")[2]
    assert stop.endswith("then no pair is left: stop early)"), stop

"""The expected answers shipped as data: what the reference gives today, read back as they were written."""

import copy
import gzip
import json
from pathlib import Path

import pytest

from autograder import checks
from autograder.checks import cases, public_cases
from bpe_lab import expected, selfcheck
from bpe_lab.harness import Case, Described, Named, Raised, ordered_cases

ROOT = Path(__file__).resolve().parents[2]


def test_the_committed_data_is_what_the_reference_gives_today():
    assert public_cases.stale(ROOT) == []  # regenerated in a temporary folder and compared


def test_a_changed_missing_or_extra_file_is_reported_stale(tmp_path):
    folder = tmp_path / public_cases.FOLDER
    folder.mkdir(parents=True)
    for path in (ROOT / public_cases.FOLDER).glob("*.json.gz"):
        (folder / path.name).write_bytes(path.read_bytes())
    data = json.loads(gzip.decompress((folder / "merge.json.gz").read_bytes()))
    data["parts"][0]["cases"][0]["expected"] = {"value": [1]}
    (folder / "merge.json.gz").write_bytes(gzip.compress(json.dumps(data).encode()))
    (folder / "encode.json.gz").unlink()
    (folder / "old.json.gz").write_bytes(gzip.compress(b"{}"))
    assert public_cases.stale(tmp_path) == [
        "bpe_lab/data/expected/encode.json.gz is missing",
        "bpe_lab/data/expected/merge.json.gz is stale",
        "bpe_lab/data/expected/old.json.gz is not made by release",
    ]


@pytest.mark.parametrize("function", list(selfcheck.HIDDEN_CHECKS))
def test_each_part_holds_the_public_cases_in_the_order_the_check_runs_them(function, monkeypatch):
    spec = checks.SPECS[function]
    monkeypatch.setattr(cases, "SEED", cases.PUBLIC_SEED)
    parts = expected.load(function)
    listed = [part[0] if part else "all" for _, part in selfcheck.HIDDEN_CHECKS[function]]
    assert [p.part for p in parts] == [p for p in listed if p not in spec.measured]  # a measurement has no cases
    for part in parts:
        run = ordered_cases(spec.parts[part.part].cases())
        assert [(repr(c.args), c.note, c.size) for c in part.cases] == [(repr(c.args), c.note, c.size) for c in run]
        assert part.judge == spec.judge_of(part.part) and part.adapter == spec.adapter
        assert ordered_cases(part.cases) == part.cases  # the learner's run_cases keeps this order


def test_expected_answers_are_the_references():
    (basic, overlaps) = expected.load("merge")
    case = next(c for c in overlaps.cases if c.args == ([5, 5, 5], (5, 5), 7))
    assert overlaps.answers[repr(case.args)] == [7, 5]
    (partial_free, partial) = expected.load("decode_bytes")
    unknown = next(c for c in partial.cases if c.args == ([300], {(97, 98): 256}))
    assert isinstance(partial.answers[repr(unknown.args)], Raised)  # the reference raises ValueError there
    (only,) = expected.load("disagreeing_merges")
    assert all(isinstance(a, Described) for a in only.answers.values())


def test_patterns_come_back_by_name_so_messages_and_order_match_the_graders():
    (part,) = expected.load("pretokenize")
    patterns = {c.args[1] for c in part.cases}
    assert {repr(p) for p in patterns if isinstance(p, Named)} == {"GPT2_PATTERN", "GPT4_PATTERN"}
    assert r"\S+|\s+" in patterns and not isinstance(next(p for p in patterns if p == r"\S+|\s+"), Named)


def test_dump_and_load_give_back_tuples_tuple_keys_bytes_sets_and_the_markers():
    args = (("a", "b"), {(1, 2): 3}, {b"ab": 256}, Named("x+", "X"))
    answers = {repr(args): {"s": {1, 2}, "t": (b"\xff",)}}
    part = expected.PublicPart("p", ("mapping", {"order": True}), None, [Case(args, "a note", 7)], answers)
    raised = expected.PublicPart("q", ("text", {}), "value_error_as_value", [Case(([1],))], {"([1],)": Raised(None)})
    back = expected.load_bytes(expected.dump("f", [part, raised]))
    assert back[0].cases[0].args == args and repr(back[0].cases[0].args[3]) == "X"
    assert (back[0].cases[0].note, back[0].cases[0].size, back[0].judge) == ("a note", 7, ("mapping", {"order": True}))
    assert back[0].answers == answers and type(back[0].answers[repr(args)]["t"]) is tuple
    assert isinstance(back[1].answers["([1],)"], Raised) and back[1].adapter == "value_error_as_value"
    assert expected.dump("f", [part]) == expected.dump("f", [copy.deepcopy(part)])  # no time stamp: same bytes


def test_a_function_without_data_is_named():
    with pytest.raises(FileNotFoundError, match="no expected answers for nothing"):
        expected.load("nothing")

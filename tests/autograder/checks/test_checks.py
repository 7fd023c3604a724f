"""The hidden checks: correct code in any style passes, typical mistakes fail with a short, exact message."""

import os
from collections import Counter, defaultdict

import pytest

import bpe_ref
from autograder import checks
from autograder.checks import CheckFailed

# ---------------------------------------------------------------------------------------------------------------
# every check accepts the reference, on every part
# ---------------------------------------------------------------------------------------------------------------

PARTS = [
    (checks.check_get_pair_counts, bpe_ref.get_pair_counts, ["basic", "overlaps"]),
    (checks.check_merge, bpe_ref.merge, ["basic", "overlaps"]),
    (checks.check_count_pairs, bpe_ref.count_pairs, ["basic", "weighted"]),
    (checks.check_merge_vocab, bpe_ref.merge_vocab, ["basic", "edge"]),
    (checks.check_train_bpe, bpe_ref.train_bpe, ["basic", "edge"]),
    (checks.check_best_pair, bpe_ref.best_pair, ["largest", "smallest", "first"]),
    (checks.check_learn_bpe, bpe_ref.learn_bpe, ["basic", "edge"]),
    (checks.check_bpe_train, bpe_ref.bpe_train, ["basic", "edge"]),
    (checks.check_apply_bpe, bpe_ref.apply_bpe, ["basic", "rank"]),
    (checks.check_encode, bpe_ref.encode, ["basic", "replay"]),
]


@pytest.mark.parametrize(
    "check, reference, part",
    [(c, r, p) for c, r, parts in PARTS for p in parts],
    ids=lambda v: getattr(v, "__name__", v),
)
def test_reference_passes_every_part(check, reference, part):
    assert check(reference, part) is None


def test_unknown_part_is_an_error_naming_it():
    with pytest.raises(ValueError, match="'nope'"):
        checks.check_merge(bpe_ref.merge, "nope")


# ---------------------------------------------------------------------------------------------------------------
# correct code in other styles
# ---------------------------------------------------------------------------------------------------------------


def counts_counter(ids):
    return Counter(zip(ids, ids[1:]))


def counts_defaultdict(ids):
    out = defaultdict(int)
    for i in range(len(ids) - 1):
        out[ids[i], ids[i + 1]] += 1
    return out


def merge_recursive(ids, pair, new_id):
    if len(ids) < 2:
        return list(ids)
    if (ids[0], ids[1]) == tuple(pair):
        return [new_id, *merge_recursive(ids[2:], pair, new_id)]
    return [ids[0], *merge_recursive(ids[1:], pair, new_id)]


def merge_tuple_chatty(ids, pair, new_id):
    print("merging", pair)  # printing is allowed and swallowed
    out, i = [], 0
    while i < len(ids):
        if tuple(ids[i : i + 2]) == tuple(pair):
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return tuple(out)


@pytest.mark.parametrize("fn", [counts_counter, counts_defaultdict])
@pytest.mark.parametrize("part", ["basic", "overlaps"])
def test_pair_counts_in_other_styles_pass(fn, part):
    checks.check_get_pair_counts(fn, part)


@pytest.mark.parametrize("fn", [merge_recursive, merge_tuple_chatty])
@pytest.mark.parametrize("part", ["basic", "overlaps"])
def test_merge_in_other_styles_pass(fn, part):
    checks.check_merge(fn, part)


def train_bpe_lists(word_freqs, num_merges):
    """Returns lists instead of tuples and uses a Counter: still correct."""
    vocab = {tuple(w) + ("</w>",): c for w, c in word_freqs.items()}
    merges = []
    for _ in range(num_merges):
        counts = Counter()
        for word, c in vocab.items():
            for p in zip(word, word[1:]):
                counts[p] += c
        if not counts:
            break
        best = max(counts, key=lambda p: (counts[p], p))
        merges.append(list(best))
        vocab = bpe_ref.merge_vocab(best, vocab)
    return merges


def test_trainer_returning_lists_of_lists_passes():
    checks.check_train_bpe(train_bpe_lists, "basic")
    checks.check_train_bpe(train_bpe_lists, "edge")


# ---------------------------------------------------------------------------------------------------------------
# typical mistakes fail, on the right part, with the smallest input and a three-line message
# ---------------------------------------------------------------------------------------------------------------


def merge_no_skip(ids, pair, new_id):
    out = []
    for i in range(len(ids)):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            out.append(new_id)
        elif i > 0 and (ids[i - 1], ids[i]) == pair:
            continue
        else:
            out.append(ids[i])
    return out


def test_merge_without_skip_passes_basic_and_fails_overlaps_on_the_smallest_run():
    checks.check_merge(merge_no_skip, "basic")  # no overlapping matches there
    with pytest.raises(CheckFailed) as info:
        checks.check_merge(merge_no_skip, "overlaps")
    lines = str(info.value).splitlines()
    assert len(lines) == 3
    # the smallest overlapping input is a run of three equal ids
    assert lines[0].startswith("merge([")
    expected = bpe_ref.merge(eval(lines[0][len("merge(") : lines[0].index("]") + 1]), *_pair_and_id(lines[0]))
    assert lines[1] == f"  expected: {expected!r}"
    assert lines[2].startswith("  returned: ")


def _pair_and_id(call_line):
    inner = call_line[call_line.index("],") + 2 : call_line.rindex(")")]
    pair, new_id = eval(f"({inner})")
    return pair, new_id


def merge_in_place(ids, pair, new_id):
    i = 0
    while i < len(ids) - 1:
        if (ids[i], ids[i + 1]) == pair:
            ids[i : i + 2] = [new_id]
        i += 1
    return ids


@pytest.mark.parametrize("part", ["basic", "overlaps"])
def test_merge_that_changes_its_input_fails_every_part(part):
    # The smallest inputs are empty lists, returned as they are; larger ones are changed in place.
    with pytest.raises(CheckFailed, match="changed argument 1|the list it was given itself"):
        checks.check_merge(merge_in_place, part)


def test_counts_sorted_instead_of_first_occurrence_fail_basic_only():
    """The order is stated in the part named for it (basic), never filed under overlaps."""

    def sorted_counts(ids):
        return dict(sorted(Counter(zip(ids, ids[1:])).items()))

    checks.check_get_pair_counts(sorted_counts, "overlaps")
    with pytest.raises(CheckFailed, match="not in order of first occurrence"):
        checks.check_get_pair_counts(sorted_counts, "basic")


def test_counts_without_overlaps_fail_with_expected_and_returned():
    def no_overlap(ids):
        out, i = {}, 0
        while i < len(ids) - 1:
            p = (ids[i], ids[i + 1])
            out[p] = out.get(p, 0) + 1
            i += 2 if ids[i] == ids[i + 1] else 1
        return out

    checks.check_get_pair_counts(no_overlap, "basic")
    with pytest.raises(CheckFailed) as info:
        checks.check_get_pair_counts(no_overlap, "overlaps")
    message = str(info.value)
    assert "expected: {(" in message and "returned: {(" in message


def test_an_endless_loop_costs_the_time_limit_and_says_so():
    def spin(ids):
        while True:
            pass

    with pytest.raises(CheckFailed, match="within 0.2 s"):
        checks.check_get_pair_counts(spin, "basic", time_limit=0.2)


def test_a_stub_fails_with_its_exception_name():
    def stub(ids):
        raise NotImplementedError()

    with pytest.raises(CheckFailed, match="raised: NotImplementedError"):
        checks.check_get_pair_counts(stub)


def test_not_a_function_fails_cleanly():
    with pytest.raises(CheckFailed, match="expected: .*\n  raised: TypeError: 'NoneType' object is not callable"):
        checks.check_merge(None)


def test_checks_write_nothing_to_stderr(capfd):
    checks.check_merge(merge_tuple_chatty, "basic")
    with pytest.raises(CheckFailed):
        checks.check_merge(merge_no_skip, "overlaps")
    out, err = capfd.readouterr()
    assert err == ""
    assert "merging" not in out  # the learner's prints are swallowed too


def test_wrong_tie_direction_fails_best_pair():
    def smallest_instead(pair_counts, tie_break):
        return min(pair_counts, key=lambda p: (-pair_counts[p], p))

    checks.check_best_pair(smallest_instead, "smallest")
    with pytest.raises(CheckFailed, match="best_pair"):
        checks.check_best_pair(smallest_instead, "largest")


def test_joined_string_comparison_fails_best_pair():
    def joined(pair_counts, tie_break):
        return max(pair_counts, key=lambda p: (pair_counts[p], p[0] + p[1]))

    with pytest.raises(CheckFailed):
        checks.check_best_pair(joined, "largest")


def test_apply_by_replay_fails_the_rank_part():
    def by_replay(word, merges):
        return bpe_ref.replay(bpe_ref.get_word_symbols(word), merges)

    checks.check_apply_bpe(by_replay, "basic")  # trained tables: both agree
    with pytest.raises(CheckFailed, match="apply_bpe"):
        checks.check_apply_bpe(by_replay, "rank")


def test_counterexample_check_accepts_a_real_one_and_rejects_a_table_that_agrees():
    def counterexample(word):
        # Merge the first two characters everywhere; then list the merge of the first two resulting symbols
        # ahead of it. Replay tries that merge first, before its left symbol exists; rank does it last.
        symbols = bpe_ref.replay(list(word), [(word[0], word[1])])
        return [(symbols[0], symbols[1]), (word[0], word[1])]

    checks.check_counterexample(counterexample)
    with pytest.raises(CheckFailed, match="on which both give"):
        checks.check_counterexample(lambda w: [(w[0], w[1])])


def test_checks_are_deterministic_from_one_process_to_the_next():
    """Regrading gives the same message: two fresh processes (nothing remembered between them) agree."""
    import subprocess
    import sys

    code = (
        "from autograder import checks\n"
        "from tests.autograder.checks.test_checks import merge_no_skip\n"
        "try:\n    checks.check_merge(merge_no_skip, 'overlaps')\n"
        "except checks.CheckFailed as exc:\n    print(exc)\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    env = {**os.environ, "BPE_COURSE_SEED": "7", "PYTHONPATH": root}
    runs = [
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=root) for _ in "ab"
    ]
    assert runs[0].stdout.count("\n") == 3 and runs[0].stdout == runs[1].stdout, [r.stdout + r.stderr for r in runs]


def test_the_reference_and_the_learner_never_share_an_argument():
    """Each side gets its own copy: a reference that changes its arguments cannot change what the learner's
    function receives, and a learner's function that changes them cannot change the reference's, nor the call the
    message names."""
    from bpe_lab.harness import Case, run_cases

    cases = [Case(([1, 2, 2],), size=3), Case(([3, 4],), size=2)]
    to_reference, to_learner = [], []

    def reference(ids):  # changes its argument after reading it
        to_reference.append((ids, list(ids)))
        result = bpe_ref.get_pair_counts(ids)
        ids.append(99)
        return result

    def learner(ids):
        to_learner.append((ids, list(ids)))
        return bpe_ref.get_pair_counts(ids)

    run_cases("get_pair_counts", learner, cases, reference, lambda r, e, a: None if r == e else "returned: wrong")
    assert [seen for _, seen in to_learner] == [[3, 4], [1, 2, 2]]  # the reference's change never reached it
    assert not {id(obj) for obj, _ in to_reference} & {id(obj) for obj, _ in to_learner}

    to_reference.clear()

    def clears(ids):  # a right answer, then the argument emptied
        result = bpe_ref.get_pair_counts(ids)
        ids.clear()
        return result

    with pytest.raises(CheckFailed) as failed:
        run_cases("get_pair_counts", clears, cases, bpe_ref.get_pair_counts, lambda r, e, a: None)
    assert str(failed.value).splitlines() == [
        "get_pair_counts([3, 4])  # inputs must not change",
        "  expected: {(3, 4): 1}",
        "  returned: {(3, 4): 1}, and changed argument 1 to [] (build a new object instead)",
    ]
    assert [list(c.args[0]) for c in cases] == [[1, 2, 2], [3, 4]]  # the cases themselves are untouched


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
            with cases.student_seed("s" * 40, "alice"):
                drawn = {repr(c.args) for c in spec.parts[part].cases()}
            if drawn <= public.get(part, set()):
                fixed_only.append(f"{function} {part}")
    assert fixed_only == []

"""What every hidden check does (:mod:`autograder.checks`): the reference passes every part, a failing function costs
its time limit or its exception and says so, and regrading gives the same message."""

import os

import pytest

import bpe_ref
from autograder import checks
from autograder.checks import CheckFailed

from .test_a01 import merge_no_skip, merge_tuple_chatty

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
# what every check does with a function that fails: a time limit, an exception, not a function, its prints
# ---------------------------------------------------------------------------------------------------------------


def test_an_endless_loop_costs_the_time_limit_and_says_so():
    def spin(ids):
        while True:
            pass

    with pytest.raises(CheckFailed, match=r"used more than 0\.2 s of CPU time \(an endless loop\?\)"):
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


def test_checks_are_deterministic_from_one_process_to_the_next():
    """Regrading gives the same message: two fresh processes (nothing remembered between them) agree."""
    import subprocess
    import sys

    code = (
        "from autograder import checks\n"
        "from tests.autograder.checks.test_a01 import merge_no_skip\n"
        "try:\n    checks.check_merge(merge_no_skip, 'overlaps')\n"
        "except checks.CheckFailed as exc:\n    print(exc)\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    env = {**os.environ, "PYTHONPATH": root}
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

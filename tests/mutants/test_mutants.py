"""Mutation testing of the hidden checks: every mutant loses points on its own function, every correct style keeps all.

The fast tests judge each mutant notebook in process (the source notebook's test cells executed on the answers,
as the grading kernel does); the slow test grades all of them through nbgrader and prints the table. The rules
and the layout are described in :mod:`tests.mutants.harness`.
"""

import pytest

from autograder.checks import a06, cases

from . import harness

SUBMISSIONS = harness.submissions()
MUTANT_NOTEBOOKS = [s for s in SUBMISSIONS if s.kind == "mutant"]
OTHER_NOTEBOOKS = [s for s in SUBMISSIONS if s.kind != "mutant"]
ASSIGNMENTS = [module.ASSIGNMENT for module in harness.MODULES]


def test_every_graded_function_has_mutants_and_correct_alternatives():
    mutants, correct = harness.variants("mutant"), harness.variants("correct")
    assert len(mutants) >= 35
    for assignment in ASSIGNMENTS:
        for function in harness.functions(assignment):
            assert sum(v.function == function for v in mutants) >= 3, function
            assert sum(v.function == function for v in correct) >= 2, function
    for module in harness.MODULES:  # no variant for a function the notebook does not grade
        names = set(harness.functions(module.ASSIGNMENT))
        assert set(module.MUTANTS) <= names and set(module.CORRECT) <= names and set(module.FILLERS) <= names


def test_every_variant_is_in_a_notebook_and_each_notebook_holds_at_most_one_mutant():
    placed = [v for s in SUBMISSIONS for v in s.variants]
    assert set(placed) == set(harness.variants())
    assert all(sum(v.kind == "mutant" for v in s.variants) <= 1 for s in SUBMISSIONS)
    assert len({s.student for s in SUBMISSIONS}) == len(SUBMISSIONS)
    for sub in MUTANT_NOTEBOOKS:  # no correct answer beside a mutant calls the mutated function
        assert not any(harness.calls(v.code, sub.mutant.function) for v in sub.variants if v.kind == "correct")


@pytest.mark.xdist_group(harness.IN_PROCESS_GROUP)  # on the worker of the nbgrader test, which judges the same
@pytest.mark.parametrize("sub", MUTANT_NOTEBOOKS + OTHER_NOTEBOOKS, ids=lambda s: s.student)
def test_in_process_every_rule_holds_and_a_second_run_gives_the_same(sub):
    judged = harness.judged_in_process(sub)  # judged once per worker: test_mutants_nbgrader.py compares nbgrader's
    hidden = {sub.student: judged.hidden} if sub.mutant else {}
    _, problems = harness.verdicts([sub], {sub.student: judged.cells}, hidden=hidden)
    assert problems == []
    assert harness.compare({sub.student: judged.cells}, {sub.student: judged.again}, "two runs") == []
    if sub.mutant:
        assert harness.same_hidden_messages(sub.student, judged.hidden, judged.hidden_again) == []


def test_a_survivor_and_a_false_fail_are_reported():
    """The harness itself: a mutant that is right after all survives, a correct answer that is wrong fails."""
    module = harness.MODULES[0]
    correct_merge = next(iter(module.CORRECT["merge"].values()))
    wrong_counts = module.MUTANTS["get_pair_counts"]["no-overlap"]
    survivor = harness.Variant(module.ASSIGNMENT, "merge", "not-wrong", "mutant", correct_merge)
    false = harness.Variant(module.ASSIGNMENT, "get_pair_counts", "not-right", "correct", wrong_counts)
    answers = {**harness.fillers(module), "merge": correct_merge, "get_pair_counts": wrong_counts}
    sub = harness.Submission("m-merge-not-wrong", module.ASSIGNMENT, answers, [survivor, false])
    _, problems = harness.verdicts([sub], {sub.student: harness.run_in_process(sub)})
    assert any("survived" in p for p in problems)
    assert any("false fail" in p and "test_get_pair_counts_overlaps" in p for p in problems)


def test_message_rule():
    hidden = "CheckFailed: merge([5, 5, 5], (5, 5), 7)\n  expected: [7, 5]\n  returned: [7, 7]"
    assert harness.message_problem(hidden, "merge([5, 5, 5], (5, 5), 7)") is None
    assert "smallest" in harness.message_problem(hidden, "merge([5, 5], (5, 5), 7)")
    changed = (
        "CheckFailed: merge([5, 5], (5, 5), 7)  # inputs must not change\n  expected: [7]\n"
        "  returned: [7], and changed argument 1 to [7] (build a new object instead)"
    )
    assert harness.message_problem(changed, "merge([5, 5], (5, 5), 7)") is None
    assert harness.message_problem(hidden.replace("\n  returned", "\n\n  returned"), None) is not None
    example = hidden.replace("CheckFailed", "ExampleFailed")
    assert harness.message_problem(example, "merge([5, 5], (5, 5), 7)") is None  # an example names its own call
    assert harness.message_problem(example.replace("  expected: [7, 5]\n", ""), None) is not None
    plain = "AssertionError: merge([5, 5, 5], (5, 5), 7) returned [7, 7]"
    assert harness.message_problem(plain, None) is not None
    assert harness.message_problem("ValueError: max() arg is an empty sequence", None) is not None


@pytest.mark.xdist_group(harness.IN_PROCESS_GROUP)  # after the per-notebook tests: their measured cells are reused
def test_the_fixed_cases_alone_kill_every_mutant_and_fail_no_correct_answer():
    """Every rule the notebooks state is a fixed case: with every generated input dropped, nothing changes."""
    matrix = harness.run_matrix([harness.FIXED])
    assert matrix.ok, matrix.text()
    assert all(lost[harness.FIXED] > 0 for v, lost in matrix.rows.items() if v.kind == "mutant")


@pytest.mark.xdist_group(harness.IN_PROCESS_GROUP)  # the per-notebook test of this notebook judged it already
def test_with_the_fixed_cases_alone_a_measured_cell_is_the_public_seeds_on_the_same_input():
    """The harness itself: dropping the generated cases leaves a measured part's input as it is (drawn from the
    seed), so the fixed setting takes the public seed's measured cells instead of measuring them a third time."""
    (sub,) = harness.submissions(["m-encode_iterable-returns-a-list"])
    judged = harness.judged_in_process(sub)
    public_inputs = [repr(a06._speed_input()), repr(a06._memory_input())]
    with harness.setting(harness.FIXED):
        assert [repr(a06._speed_input()), repr(a06._memory_input())] == public_inputs
        reused = harness._measured_before(sub)
        cells = harness.run_in_process(sub, own_only=True, measured=reused)
    measured = [c for c in judged.cells if c.grade_id in harness.measured_cells()]
    assert measured and reused == {c.grade_id: c for c in measured}
    (memory,) = [c for c in cells if c.grade_id == "test_encode_iterable_memory"]
    assert memory is reused["test_encode_iterable_memory"] and memory.message.startswith(harness.HIDDEN)
    with harness.setting(7):
        assert harness._measured_before(sub) is None  # another seed draws other inputs: measured there


def test_a_setting_changes_the_generated_inputs_and_restores_them():
    before = [repr(c.args) for c in cases.merge_cases("overlaps")]
    with harness.setting(7):
        seven = [repr(c.args) for c in cases.merge_cases("overlaps")]
    with harness.setting(harness.FIXED):
        fixed = [repr(c.args) for c in cases.merge_cases("overlaps")]
    assert seven != before and set(fixed) < set(before) and set(fixed) < set(seven)
    assert [repr(c.args) for c in cases.merge_cases("overlaps")] == before


SEEDS = [
    # the public seed's judgements are the per-notebook tests' (harness.run_matrix): on their worker, judged once
    pytest.param(cases.PUBLIC_SEED, marks=pytest.mark.xdist_group(harness.IN_PROCESS_GROUP), id="public"),
    *(pytest.param(seed, id=str(seed)) for seed in (1, 2, 3, 4)),  # four work units: the two workers share them
]


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_under_five_seeds_every_mutant_is_killed_and_no_correct_answer_loses_a_point(seed):
    matrix = harness.run_matrix([seed])
    print(matrix.text())
    assert matrix.ok, matrix.text()
    assert all(lost[str(seed)] > 0 for v, lost in matrix.rows.items() if v.kind == "mutant")


def test_a_cell_reaches_every_definition_of_a_name_it_uses():
    """The harness itself: a cell's outcome is shared between notebooks only where the code it reaches is the same:
    the definitions of the names it uses, then of the global names those use, whichever answer holds them (a helper
    another function's answer defines, or redefines, by the same name); a parameter named like another answer's
    function does not reach it, and another definition in the same answer is not reached."""
    module = harness.MODULES[0]
    helper = "def _pairs(ids):\n    return {}"
    answers = {
        "get_pair_counts": "def get_pair_counts(ids):\n    return _pairs(ids)\n",
        "merge": helper + "\n\n\ndef merge(ids, pair, idx):\n    return ids\n",
    }
    sub = harness.Submission("m-reach", module.ASSIGNMENT, answers, [])
    counts = next(t for t in harness.graded_cells(module.ASSIGNMENT) if t.function == "get_pair_counts")
    assert harness.reach(sub, counts) == (answers["get_pair_counts"].strip(), helper)
    changed_merge = {**answers, "merge": helper + "\n\n\ndef merge(ids, pair, idx):\n    return []\n"}
    assert harness.reach(harness.Submission("m-reach-2", module.ASSIGNMENT, changed_merge, []), counts) == (
        answers["get_pair_counts"].strip(), helper)  # fmt: skip
    plain_merge = "def merge(ids, pair, idx):\n    return ids\n"
    alone = harness.Submission("m-alone", module.ASSIGNMENT, {**answers, "merge": plain_merge}, [])
    assert harness.reach(alone, counts) == (answers["get_pair_counts"].strip(),)
    parameter = {**answers, "get_pair_counts": "def get_pair_counts(merge):\n    return {p: 1 for p in merge}\n"}
    named = harness.Submission("m-param", module.ASSIGNMENT, parameter, [])
    assert harness.reach(named, counts) == (parameter["get_pair_counts"].strip(),)
    called = {**parameter, "get_pair_counts": "def get_pair_counts(ids):\n    return merge(ids, (0, 0), 0)\n"}
    calls = harness.Submission("m-call", module.ASSIGNMENT, called, [])
    assert harness.reach(calls, counts) == (
        called["get_pair_counts"].strip(),
        "def merge(ids, pair, idx):\n    return ids",
    )


def test_a_measured_cell_judged_in_process_is_not_measured_again_for_its_hidden_check(monkeypatch):
    """The harness itself: the hidden check of a measured part (06's memory) reuses the in-process cell where its
    visible part passed, and gives what measuring it again gives; a cell whose visible part failed is measured.

    The measurement is a stand-in that counts its runs and fails with a new figure each time (the real one streams
    6 MB, seconds a run, and is tested in ``tests/autograder/checks/test_a06.py``): the harness's reuse is what is
    at stake here, and a count shows it where comparing messages could not."""
    runs = []

    def measure(fn, time_limit):
        runs.append(fn)
        raise a06.CheckFailed(f"encode_iterable(<text>)\n  returned: the right ids, holding {len(runs)}.5 MB more")

    monkeypatch.setitem(a06.ENCODE_ITERABLE.measured, "memory", measure)
    (sub,) = harness.submissions(["m-encode_iterable-returns-a-list"])
    cells = harness.run_in_process(sub, own_only=True)
    (memory,) = [c for c in cells if c.grade_id == "test_encode_iterable_memory"]
    assert memory.message.startswith(harness.HIDDEN) and "1.5 MB" in memory.message  # visible part passed
    assert len(runs) == 1
    reused = harness.hidden_failures(sub, judged=cells)
    assert len(runs) == 1  # not measured again
    assert reused["test_encode_iterable_memory"] == harness.HiddenFailure(memory.message, None)
    measured = harness.hidden_failures(sub)
    assert len(runs) == 2 and "2.5 MB" in measured["test_encode_iterable_memory"].message
    assert {k: harness.steady(v.message, k) for k, v in reused.items()} == {
        k: harness.steady(v.message, k) for k, v in measured.items()
    }
    failed_visibly = [harness.Cell(c.grade_id, c.function, 0.0, c.max_points, "ExampleFailed: ...") for c in cells]
    again = harness.hidden_failures(sub, judged=failed_visibly)  # measured anew: not the visible part's message
    assert len(runs) == 3 and "3.5 MB" in again["test_encode_iterable_memory"].message
    assert harness.same_hidden_messages(sub.student, again, measured) == []


def test_an_import_two_answers_make_is_the_same_code_whichever_answer_makes_it():
    """The harness itself: a cell's outcome is shared between two notebooks whose answers differ only in which of
    them imports a name (06's speed cell is measured once, not once per arrangement of imports), never between two
    where another answer redefines that name."""
    module = harness.MODULES[0]
    counts = "from collections import Counter\n\n\ndef get_pair_counts(ids):\n    return Counter(zip(ids, ids[1:]))\n"
    merge = "def merge(ids, pair, idx):\n    return ids\n"
    test = next(t for t in harness.graded_cells(module.ASSIGNMENT) if t.function == "get_pair_counts")

    def reached(merge_answer: str) -> tuple[str, ...]:
        answers = {"get_pair_counts": counts, "merge": merge_answer}
        return harness.reach(harness.Submission("m-imports", module.ASSIGNMENT, answers, []), test)

    alone = reached(merge)
    assert reached("from collections import Counter\n\n\n" + merge) == alone
    assert reached("import os\nfrom collections import Counter\n\n\n" + merge) == alone  # os: not used
    assert reached("Counter = dict\n\n\n" + merge) != alone

"""Mutation testing through nbgrader: every mutant notebook graded by `grade`, the table printed.

The rules and the layout are described in :mod:`tests.mutants.harness`. It runs on the worker of the in-process tests
(``xdist_group``): both hold the same in-process results (:func:`tests.mutants.harness.judged_in_process`), judged
once.
"""

import pytest

from . import harness

ASSIGNMENTS = [module.ASSIGNMENT for module in harness.MODULES]


@pytest.mark.slow
@pytest.mark.xdist_group(harness.IN_PROCESS_GROUP)
def test_through_nbgrader_every_mutant_is_killed_and_no_correct_answer_loses_a_point(tmp_path):
    report = harness.run(tmp_path, jobs=4)  # its kernels wait more than they compute: 4 at once on 2 cores
    print(report.text())
    mutants = [r for r in report.rows if r.variant.kind == "mutant"]
    correct = [r for r in report.rows if r.variant.kind == "correct"]
    assert len(mutants) == len(harness.variants("mutant")) and len(correct) == len(harness.variants("correct"))
    assert [r.variant.name for r in mutants if r.lost == 0] == []  # kill rate 100 %
    assert [r.variant.name for r in correct if r.lost > 0] == []  # false-fail rate 0 %
    assert report.regraded >= len(ASSIGNMENTS)
    assert report.problems == [], report.text()

"""The worked examples in the public docstrings are true (doctest)."""

import doctest
import importlib

import pytest

MODULES = ["bpe_ref.core", "bpe_ref.steps", "autograder.isolation.limits", "autograder.doctor"]
MODULES += ["autograder.checks.a01", "autograder.checks.a02", "autograder.checks.a03", "autograder.checks.a04"]
MODULES += ["autograder.checks.cases", "autograder.course.batch", "autograder.course.selfcheck"]
MODULES += ["autograder.reports.summary", "autograder.course.schedule", "autograder.course.readiness"]
MODULES += ["autograder.course.formgrader"]
MODULES += ["bpe_ref.bytelevel", "bpe_lab.charts.bytes", "autograder.checks.a05"]  # assignment 05
MODULES += ["bpe_lab.traces", "bpe_lab.charts.data", "bpe_lab.gpt4", "bpe_ref.traces"]  # the charts' traces


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0

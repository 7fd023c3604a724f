"""The worked examples in the docstrings of every module of the course's packages are true (doctest)."""

import doctest
import importlib
import pkgutil

import pytest

import autograder
import bpe_lab
import bpe_ref


def _modules() -> list[str]:
    """Every module of autograder, bpe_lab and bpe_ref (a package's ``__main__`` runs its command: left out)."""
    found = []
    for package in (autograder, bpe_lab, bpe_ref):
        found.append(package.__name__)
        found += [info.name for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")]
    return sorted(name for name in found if not name.endswith(".__main__"))


MODULES = _modules()


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS, report=False)
    assert result.failed == 0, f"{result.failed} of the {result.attempted} examples of {name} fail"


def test_the_walk_finds_the_modules_and_their_examples():
    assert {"autograder.isolation.judge", "bpe_lab.harness", "bpe_ref.core", "autograder.checks.a05"} <= set(MODULES)
    finder = doctest.DocTestFinder()
    examples = {name: sum(len(t.examples) for t in finder.find(importlib.import_module(name))) for name in MODULES}
    assert examples["bpe_lab.harness"] > 0 and examples["autograder.isolation.limits"] > 0
    assert sum(1 for count in examples.values() if count) >= 40, examples  # 41 modules of 77 had examples

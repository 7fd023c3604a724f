"""Fixtures of the chart tests: not under nbgrader, a trace for any input, no ``display()`` call."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from bpe_lab import traces  # noqa: E402
from bpe_ref import traces as reference_traces  # noqa: E402


@pytest.fixture
def not_grading(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)


@pytest.fixture
def traces_of_any_input(monkeypatch):
    """Every lookup computes its trace with the reference instead of reading the shipped files."""
    monkeypatch.setattr(traces, "lookup", reference_traces.compute)


@pytest.fixture
def no_display(monkeypatch):
    """Fail if a builder calls display() itself."""
    import IPython.core.display_functions
    import IPython.display

    def refuse(*args, **kwargs):
        raise AssertionError("a builder called display()")

    monkeypatch.setattr(IPython.display, "display", refuse)
    monkeypatch.setattr(IPython.core.display_functions, "display", refuse)

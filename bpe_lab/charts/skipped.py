"""What every chart is while nbgrader executes a notebook: a note, drawn with nothing but the standard library.

Grading runs every cell of a notebook, chart cells included, and draws no chart: each builder returns a
:class:`Skipped` note at once. This module imports neither ``ipywidgets`` nor ``matplotlib`` (about half a second of
CPU in each graded kernel), so that :mod:`bpe_lab.charts` can hand out the notes without loading the charts at all.

Example:
    >>> placeholder("pair_explorer").value[:59]
    '<p><i>The pair-frequency explorer is skipped while nbgrader'
"""

from __future__ import annotations

import html
import os

__all__ = ["CHARTS", "Skipped", "grading", "placeholder"]

CHARTS = {
    "pair_explorer": "pair-frequency explorer",
    "tie_break_comparison": "tie-break comparison",
    "apply_stepper": "apply_bpe stepper",
    "token_boundaries": "token chart",
    "byte_rounds": "training chart",
    "bytes_per_token": "bytes-per-token chart",
    "time_per_merge": "time-per-merge chart",
    "compression": "bytes-per-token chart",
}
"""Every chart builder of :mod:`bpe_lab.charts`, and what its note calls the chart it skips."""


def grading() -> bool:
    """Whether nbgrader is executing the notebook (it sets ``NBGRADER_EXECUTION`` while it does)."""
    return bool(os.environ.get("NBGRADER_EXECUTION"))


class Skipped:
    """The note a chart builder returns while nbgrader executes the notebook; shown as HTML by Jupyter and nbconvert.

    Attributes:
        value: the note's HTML.
    """

    def __init__(self, value: str) -> None:
        self.value = value

    def _repr_html_(self) -> str:
        return self.value

    def __repr__(self) -> str:
        return f"Skipped({self.value!r})"


def placeholder(builder: str) -> Skipped:
    """The note of the chart that ``builder`` (a key of :data:`CHARTS`) skips while nbgrader executes.

    Raises:
        KeyError: ``builder`` is not a chart builder of :mod:`bpe_lab.charts`.
    """
    what = CHARTS[builder]
    return Skipped(
        f"<p><i>The {html.escape(what)} is skipped while nbgrader executes this notebook "
        "(NBGRADER_EXECUTION is set). Run the cell in Jupyter to see it.</i></p>"
    )

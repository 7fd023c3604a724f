"""Charts as PNG files: the current state of a chart widget, or a chart drawn from its builder's arguments.

* :func:`save_png`: a chart widget (any builder's, the byte-level rounds too) as it shows now;
* :func:`render_png`: a chart widget, or the pair explorer, the tie-break comparison or the apply stepper drawn
  from the builder's arguments with no widget made (so with no kernel, and also while nbgrader executes), for a
  viewer with no kernel and for documentation.

It draws nothing of its own: each chart module's ``figure_at`` draws the figure, :mod:`bpe_lab.charts.drawing`
turns it into PNG bytes. A chart's own display already carries its PNG (:class:`bpe_lab.charts.widget.Chart`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import comparison, explorer, stepper
from .drawing import figure_png
from .widget import Chart

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["render_png", "save_png"]

_FIGURES: dict[str, Callable[..., Figure]] = {
    "pair_explorer": explorer.figure_at,
    "tie_break_comparison": comparison.figure_at,
    "apply_stepper": stepper.figure_at,
}


def _figure_of(kind: str, kwargs: dict[str, Any]) -> Figure:
    if kind not in _FIGURES:
        raise ValueError(f"kind must be a chart widget or one of {', '.join(map(repr, _FIGURES))}; got {kind!r}")
    return _FIGURES[kind](**kwargs)


def save_png(widget: Chart, path: str | os.PathLike[str], *, dpi: float | None = None) -> Path:
    """Write the current state of a chart widget (from one of the builders) to a PNG file.

    Args:
        widget: a :class:`Chart` returned by :func:`pair_explorer`, :func:`tie_break_comparison` or
            :func:`apply_stepper`.
        path: the file to write; its folder must exist.
        dpi: the resolution (default 110: the explorer, 11.5 inches wide, is 1265 pixels).

    Returns:
        The path written.

    Raises:
        TypeError: ``widget`` is not a chart widget (e.g. the placeholder shown while nbgrader executes).
    """
    if not isinstance(widget, Chart):
        raise TypeError(f"save_png needs a chart widget from bpe_lab.charts, got {type(widget).__name__}")
    path = Path(path)
    path.write_bytes(widget.png(dpi))
    return path


def render_png(
    widget_or_kind: Chart | str, path: str | os.PathLike[str], *, dpi: float | None = None, **kwargs: Any
) -> Path:
    """Render a chart to a PNG file, from a chart widget or from a kind and the builder's arguments.

    With a kind, no widget is made (so this works with no kernel, and also while nbgrader executes): the
    arguments are the builder's, plus the position to draw, ``round=`` (default: the last round; for the
    tie-break comparison the first round at which the policies part) or, for ``"apply_stepper"``, ``step=``
    (default: every step).

    Args:
        widget_or_kind: a chart widget, or ``"pair_explorer"``, ``"tie_break_comparison"`` or ``"apply_stepper"``.
        path: the file to write; its folder must exist.
        dpi: the resolution (default 110).
        **kwargs: with a kind, the builder's arguments.

    Returns:
        The path written.

    Raises:
        ValueError: an unknown kind; TypeError / ValueError: bad arguments for the builder; TypeError: keyword
        arguments given with a widget.

    Example::

        render_png("pair_explorer", "docs/explorer.png", word_freqs={"low": 5, "lower": 2}, num_merges=4, round=2)
    """
    if not isinstance(widget_or_kind, str):
        if kwargs:
            raise TypeError(f"render_png of a widget takes no builder arguments, got {sorted(kwargs)}")
        return save_png(widget_or_kind, path, dpi=dpi)
    path = Path(path)
    path.write_bytes(figure_png(_figure_of(widget_or_kind, kwargs), dpi))
    return path

"""The widget of every slider chart: a header, a play button and a slider, the PNG of the figure, a caption.

* :class:`Chart`: an ``ipywidgets.VBox``; moving the slider (or pressing play) redraws the figure as a PNG (cached
  per position) and rewrites the caption; its display also carries the current PNG, which a viewer without widget
  support shows instead;
* while nbgrader executes a notebook (``NBGRADER_EXECUTION`` is set) every builder returns the note of
  :mod:`bpe_lab.charts.skipped` at once, without drawing.

It draws nothing itself and reads no data: each chart module gives it a ``draw(position) -> Figure`` and a
``caption(position) -> str``. It never calls ``display()``: the cell shows what the builder returns.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from .drawing import figure_png

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["Chart"]


class Chart(widgets.VBox):
    """A chart widget: a title, a play button and a slider, a PNG of the figure, and a sentence under it.

    Attributes:
        kind: ``"pair_explorer"``, ``"tie_break_comparison"``, ``"apply_stepper"`` or ``"byte_rounds"``.
        slider: the ``IntSlider`` over the rounds (or steps); set its ``value`` to move the chart.
        play: the ``Play`` button, linked to the slider in the browser.
        image: the ``Image`` widget holding the current PNG.
        caption: the ``HTML`` widget under the chart (what the current position shows, in words).
        header: the ``HTML`` widget above the controls.
        figure: a new ``matplotlib`` figure of the current position (drawn on demand, for tests and files).
    """

    def __init__(
        self,
        kind: str,
        *,
        header: str,
        label: str,
        count: int,
        value: int,
        draw: Callable[[int], Figure],
        caption: Callable[[int], str],
        minimum: int = 1,
        interval: int = 1500,
    ) -> None:
        self.kind = kind
        self._draw = draw
        self._caption = caption
        self._cache: dict[int, bytes] = {}
        self.header = widgets.HTML(value=header)
        self.slider = widgets.IntSlider(
            value=value,
            min=minimum,
            max=max(count, minimum),
            step=1,
            description=label,
            continuous_update=False,
            disabled=count < minimum,
            layout=widgets.Layout(width="420px"),
        )
        self.play = widgets.Play(
            value=value,
            min=minimum,
            max=max(count, minimum),
            step=1,
            interval=interval,
            description="Play",
            disabled=count <= minimum,
        )
        widgets.jslink((self.play, "value"), (self.slider, "value"))
        self.image = widgets.Image(format="png", layout=widgets.Layout(width="100%"))
        self.caption = widgets.HTML()
        self.slider.observe(self._on_change, names="value")
        super().__init__(
            children=[self.header, widgets.HBox([self.play, self.slider]), self.image, self.caption],
            layout=widgets.Layout(width="100%"),
        )
        self.add_class("bpe-chart")
        self.add_class(f"bpe-{kind.replace('_', '-')}")
        self._show(value)

    @property
    def value(self) -> int:
        return self.slider.value

    @property
    def figure(self) -> Figure:
        return self._draw(self.slider.value)

    def png(self, dpi: float | None = None) -> bytes:
        """The PNG of the current position (cached at the default resolution)."""
        if dpi is not None:
            return figure_png(self._draw(self.slider.value), dpi)
        value = self.slider.value
        if value not in self._cache:
            self._cache[value] = figure_png(self._draw(value))
        return self._cache[value]

    def _on_change(self, change: dict[str, Any]) -> None:
        self._show(change["new"])

    def _show(self, value: int) -> None:
        png = self.png()
        self.image.value = png
        self.image.layout.max_width = f"{int.from_bytes(png[16:20], 'big')}px"  # never wider than drawn
        self.caption.value = self._caption(value)

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any] | None:
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is not None:
            bundle["image/png"] = base64.b64encode(self.png()).decode("ascii")
        return bundle

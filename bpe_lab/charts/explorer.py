"""Charts of BPE for the notebooks: ipywidgets controls over matplotlib figures rendered to PNG.

Three builders, each returning an ``ipywidgets`` widget (they never call ``display()``: the cell shows what it
returns):

* :func:`pair_explorer`: a slider (with a play button) over the training rounds; at each round the top pair
  counts as bars, the merged pair and its tied rivals marked, the corpus words after the merge and the number
  of symbols per round. It draws the course's rounds (a trace, :mod:`bpe_lab.traces`); given the learner's
  ``count_pairs`` / ``merge_vocab`` / ``best_pair`` it calls them on each round's inputs and says where they
  first give another result (:func:`bpe_lab.chartdata.check_learner`);
* :func:`tie_break_comparison`: the three tie-break policies side by side, round by round (a trace);
* :func:`apply_stepper`: a word under a merge table, by rank (``apply_bpe``) and by replay (``encode``): a trace
  for the course's tables, the learner's own functions for any other table.

:func:`render_png` and :func:`save_png` write the same charts as PNG files, for a viewer with no kernel and for
documentation; a chart widget's own display also carries a PNG of its current state, which a viewer without
widget support shows instead.

Nothing here trains, chooses a pair or applies a table: the rounds come from traces the course ships as data
(written by ``python -m autograder release``), for the inputs the notebooks chart; another input raises
:class:`bpe_lab.traces.TraceMissing`, naming it. The figures are plain ``matplotlib.figure.Figure`` objects on the
Agg canvas (no pyplot, so a notebook's own matplotlib backend is left alone). While nbgrader executes a notebook
(``NBGRADER_EXECUTION`` is set), every builder returns a small HTML placeholder at once, without drawing.

Example (a notebook cell; the widget is the cell's value)::

    from bpe_lab.widgets import pair_explorer
    pair_explorer({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10, tie_break="first")
"""

from __future__ import annotations

import base64
import html
import io
import os
import textwrap
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from .. import traces
from ..traces import Pair, Round
from . import data as chartdata
from .data import END_OF_WORD

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.text import Text

__all__ = [
    "CHOSEN",
    "DIFFERENT",
    "OTHER",
    "TIED",
    "ApplyStepper",
    "Chart",
    "PairExplorer",
    "TieBreakChart",
    "apply_stepper",
    "grading",
    "pair_explorer",
    "render_png",
    "save_png",
    "tie_break_comparison",
]

# Okabe & Ito's colour-blind safe palette; every highlight also has a second cue (hatching, bold, a word).
CHOSEN = "#0072B2"  # blue: the pair merged, the symbol it makes
TIED = "#E69F00"  # orange, hatched: a rival with the same count
OTHER = "#BDBDBD"  # grey: every other pair
DIFFERENT = "#CC79A7"  # reddish purple: where the tie-break policies differ
_INK = "#222222"
_MUTED = "#6B6B6B"
_WARN = "#D55E00"  # vermillion: where a learner's run departs from the reference
_TOKEN_FILL = "#F2F2F2"
_TOKEN_EDGE = "#9A9A9A"
DPI = 110
_MONO = "DejaVu Sans Mono"


def grading() -> bool:
    """Whether nbgrader is executing the notebook (it sets ``NBGRADER_EXECUTION`` while it does)."""
    return bool(os.environ.get("NBGRADER_EXECUTION"))


def placeholder(what: str) -> widgets.HTML:
    return widgets.HTML(
        value=(
            f"<p><i>The {html.escape(what)} is skipped while nbgrader executes this notebook "
            "(NBGRADER_EXECUTION is set). Run the cell in Jupyter to see it.</i></p>"
        )
    )


# ---------------------------------------------------------------------------------------------------------------
# Drawing helpers
# ---------------------------------------------------------------------------------------------------------------


def new_figure(width: float, height: float) -> Figure:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=DPI)
    FigureCanvasAgg(figure)
    return figure


def figure_png(figure: Figure, dpi: float | None = None) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi or DPI, facecolor="white")
    return buffer.getvalue()


def _token_box(fill: str, edge: str) -> dict[str, Any]:
    return {"boxstyle": "round,pad=0.3", "facecolor": fill, "edgecolor": edge, "linewidth": 0.8}


def _draw_tokens(
    ax: Axes,
    x: float,
    y: float,
    symbols: Sequence[str],
    *,
    highlight: Sequence[int] = (),
    fontsize: float = 11,
    gid: str = "token",
) -> list[Text]:
    """Draw ``symbols`` as boxed tokens from axes point ``(x, y)`` rightwards; ``highlight`` in the chosen colour.

    Each token is placed right of the previous one by its rendered width (an annotation anchored on the previous
    text), so any font and any layout keep the tokens apart.
    """
    gap = _token_gap(fontsize)
    texts: list[Text] = []
    marked = set(highlight)
    for index, symbol in enumerate(symbols):
        new = index in marked
        style = {
            "fontsize": fontsize,
            "family": _MONO,
            "color": "white" if new else (_MUTED if symbol == END_OF_WORD else _INK),
            "fontweight": "bold" if new else "normal",
            "bbox": _token_box(CHOSEN, CHOSEN) if new else _token_box(_TOKEN_FILL, _TOKEN_EDGE),
            "ha": "left",
            "va": "center",
            "annotation_clip": False,
        }
        if texts:
            text = ax.annotate(
                _escape(chartdata.symbol_label(symbol)),
                xy=(1, 0.5),
                xycoords=texts[-1],
                xytext=(gap, 0),
                textcoords="offset points",
                **style,
            )
        else:
            text = ax.annotate(
                _escape(chartdata.symbol_label(symbol)),
                xy=(x, y),
                xycoords="axes fraction",
                xytext=(0.3 * fontsize, 0),
                textcoords="offset points",
                **style,
            )
        text.set_gid(f"{gid}:{'new' if new else 'plain'}")
        text.set_in_layout(False)
        texts.append(text)
    return texts


def _token_gap(fontsize: float) -> float:
    """Points between the text of two tokens: both box paddings (0.3 em each) and a visible space."""
    return 0.95 * fontsize


def _label_inches(labels: Sequence[str], fontsize: float) -> float:
    """The width of the longest label in the monospace font (0.6 em a character), in inches."""
    return max((len(label) for label in labels), default=1) * 0.602 * fontsize / 72


def _wrap(text: str, width: int) -> str:
    return "\n".join(textwrap.wrap(text, width)) if text else ""


def _escape(text: str) -> str:
    """Plain text for a matplotlib label: ``$`` would start mathtext."""
    return text.replace("$", r"\$")


def _html_pair(pair: Pair) -> str:
    return "<code>" + html.escape(f"{pair[0]} + {pair[1]} → {pair[0] + pair[1]}") + "</code>"


def style_axes(ax: Axes) -> None:
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def _draw_bars(ax: Axes, top: chartdata.TopPairs, *, xmax: float | None = None, fontsize: float = 10) -> None:
    """Horizontal bars, largest on top, labelled with the pair and its count; chosen and tied marked."""
    from matplotlib.patches import Patch

    bars = top.bars
    positions = list(range(len(bars)))
    fills = [CHOSEN if b.role == "chosen" else TIED if b.role == "tied" else OTHER for b in bars]
    drawn = ax.barh(positions, [b.count for b in bars], color=fills, edgecolor=_INK, linewidth=0.6, height=0.7)
    for patch, bar in zip(drawn.patches, bars):
        patch.set_gid(f"bar:{bar.role}")
        if bar.role == "tied":
            patch.set_hatch("///")
        if bar.role == "chosen":
            patch.set_linewidth(1.6)
    ax.set_yticks(positions, [_escape(b.label) for b in bars], fontsize=fontsize, family=_MONO)
    for tick, bar in zip(ax.get_yticklabels(), bars):
        if bar.role == "chosen":
            tick.set_fontweight("bold")
            tick.set_color(CHOSEN)
    room = 0.2 * len(bars) + 0.5  # an empty band under the last bar, for the legend: it never covers a bar
    ax.set_ylim(len(bars) - 0.5 + room, -0.5)  # largest on top
    top_count = max((b.count for b in bars), default=1)
    limit = xmax if xmax is not None else top_count
    ax.set_xlim(0, limit * 1.32)
    for position, bar in zip(positions, bars):
        note = {"chosen": "  merged", "tied": "  tie"}.get(bar.role, "")
        text = ax.text(
            bar.count + limit * 0.015,
            position,
            f"{bar.count}{note}",
            va="center",
            ha="left",
            fontsize=fontsize,
            color=_INK,
            fontweight="bold" if bar.role == "chosen" else "normal",
        )
        text.set_gid(f"count:{bar.role}")
    ax.xaxis.get_major_locator().set_params(integer=True)
    style_axes(ax)
    handles = [Patch(facecolor=CHOSEN, edgecolor=_INK, label="merged this round")]
    if any(b.role == "tied" for b in bars):
        handles.append(Patch(facecolor=TIED, edgecolor=_INK, hatch="///", label="tied rival (same count)"))
    handles.append(Patch(facecolor=OTHER, edgecolor=_INK, label="other pair"))
    ax.legend(handles=handles, loc="lower right", fontsize=fontsize - 1, framealpha=0.95)


# ---------------------------------------------------------------------------------------------------------------
# The chart widget
# ---------------------------------------------------------------------------------------------------------------


class Chart(widgets.VBox):
    """A chart widget: a title, a play button and a slider, a PNG of the figure, and a sentence under it.

    Attributes:
        kind: ``"pair_explorer"``, ``"tie_break_comparison"`` or ``"apply_stepper"``.
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


# ---------------------------------------------------------------------------------------------------------------
# 1. Pair-frequency explorer
# ---------------------------------------------------------------------------------------------------------------


class _Explorer:
    """The pair explorer's data and drawing, without widgets (used by the widget and by :func:`render_png`)."""

    def __init__(
        self,
        word_freqs: Mapping[str, int],
        num_merges: int,
        *,
        tie_break: str = "largest",
        top_k: int = 10,
        marker: bool = True,
        count_pairs: Callable | None = None,
        merge_vocab: Callable | None = None,
        best_pair: Callable | None = None,
        max_words: int = 10,
    ) -> None:
        if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
            raise ValueError(f"top_k must be an int >= 1, got {top_k!r}")
        if tie_break not in chartdata.TIE_BREAK_RULES:
            raise ValueError(
                f"tie_break must be one of {', '.join(map(repr, chartdata.TIE_BREAK_RULES))}; got {tie_break!r}"
            )
        self.trace: list[Round] = traces.explorer_rounds(word_freqs, num_merges, tie_break, marker=marker)
        self.start = traces.start_vocab(word_freqs, num_merges, tie_break, marker=marker)
        self.run = chartdata.check_learner(
            self.trace,
            self.start,
            tie_break,
            num_merges,
            count_pairs=count_pairs,
            merge_vocab=merge_vocab,
            best_pair=best_pair,
        )
        self.tie_break = tie_break
        self.top_k = top_k
        self.num_merges = num_merges
        self.max_words = max_words
        self.curve = [sum(len(w) * c for w, c in self.start.items()), *(step.num_symbols for step in self.trace)]

    @property
    def rounds(self) -> int:
        return len(self.trace)

    def top(self, number: int) -> chartdata.TopPairs:
        step = self.trace[number - 1]
        return chartdata.top_pairs(step.pair_counts, step.pair, self.top_k)

    def words(self, number: int) -> tuple[list[chartdata.SegmentRow], int]:
        if number == 0:
            return chartdata.segmentation(self.start, limit=self.max_words)
        step = self.trace[number - 1]
        return chartdata.segmentation(step.vocab, step.pair[0] + step.pair[1], limit=self.max_words)

    def sentence(self, number: int) -> str:
        if not self.trace:
            return "No merge: the corpus has no adjacent pair (or num_merges is 0)."
        step = self.trace[number - 1]
        text = f"Round {number} merges {_html_pair(step.pair)} (count {step.count})"
        if step.tied:
            rivals = ", ".join(_html_pair(p) for p in step.tied[:4]) + (" …" if len(step.tied) > 4 else "")
            text += (
                f"; tied with {rivals}. Tie-break <b>{html.escape(self.tie_break)}</b>: "
                f"{html.escape(chartdata.TIE_BREAK_RULES[self.tie_break])}"
            )
        text += f". The corpus now has {self.curve[number]} symbols (it had {self.curve[0]})."
        return text

    def status_html(self) -> str:
        run = self.run
        if run.status == "reference":
            return ""
        color = {"matches": "#1B7837", "departs": "#B2182B", "error": "#B2182B", "stub": "#8C510A"}[run.status]
        icon = {"matches": "✓", "departs": "✗", "error": "✗", "stub": "…"}[run.status]
        return (
            f'<div style="border-left: 4px solid {color}; padding: 2px 8px; margin: 4px 0">'
            f"<b>{icon}</b> {html.escape(run.message)}</div>"
        )

    def draw(self, number: int) -> Figure:
        figure = new_figure(11.5, 6.4)
        if not self.trace:
            figure.text(0.5, 0.5, "No merge to show: no adjacent pair in the corpus.", ha="center", fontsize=14)
            return figure
        step = self.trace[number - 1]
        top = self.top(number)
        left = (_label_inches([b.label for b in top.bars], 10) + 0.65) / figure.get_figwidth()
        lines = min(len(step.vocab), self.max_words) + (1 if len(step.vocab) > self.max_words else 0)
        grid = figure.add_gridspec(
            2,
            2,
            width_ratios=[1.15, 1],
            height_ratios=[max(lines, 3) + 1.5, 5.5],
            left=left,
            right=0.985,
            top=0.86,
            bottom=0.17 if self.run.status != "reference" else 0.1,
        )
        grid.update(wspace=0.2, hspace=0.5)
        bars_ax = figure.add_subplot(grid[:, 0], gid="bars")
        words_ax = figure.add_subplot(grid[0, 1], gid="words")
        curve_ax = figure.add_subplot(grid[1, 1], gid="curve")
        source = "the course's run; your functions agree" if self.run.status == "matches" else "the course's run"
        figure.suptitle(
            f"Round {number} of {self.rounds}: merge {_escape(chartdata.pair_label(step.pair))}",
            x=0.02,
            ha="left",
            fontsize=15,
            fontweight="bold",
        )
        figure.text(
            0.02,
            0.905,
            _escape(f"tie-break '{self.tie_break}': {chartdata.TIE_BREAK_RULES[self.tie_break]}   ({source})"),
            fontsize=10.5,
            color=_MUTED,
        )

        _draw_bars(bars_ax, top)
        departure = self.run.departure
        if departure is not None and departure.round == number:
            for position, bar in enumerate(top.bars):
                if departure.pair is not None and bar.pair == departure.pair:
                    bars_ax.set_xlim(0, bars_ax.get_xlim()[1] * 1.25)
                    note = bars_ax.annotate(
                        "◀ your choice",
                        xy=(1, 0.5),
                        xycoords=bars_ax.texts[position],
                        xytext=(6, 0),
                        textcoords="offset points",
                        va="center",
                        fontsize=10,
                        color=_WARN,
                        fontweight="bold",
                    )
                    note.set_gid("learner-choice")
            figure.text(
                0.985,
                0.905,
                f"✗ your {departure.function} differs here",
                fontsize=10.5,
                color=_WARN,
                fontweight="bold",
                ha="right",
                gid="departs-here",
            )
        shown = f"top {len(top.bars)} of {len(step.pair_counts)}" if top.hidden else f"all {len(top.bars)}"
        bars_ax.set_title(f"Pair counts before the merge ({shown} pairs)", loc="left", fontsize=12)
        bars_ax.set_xlabel("count in the corpus (each word weighted by its frequency)", fontsize=10)
        bars_ax.set_ylabel("adjacent pair  →  merged symbol", fontsize=10)
        if top.hidden_tied:
            bars_ax.text(
                0.99,
                0.01,
                f"+{top.hidden_tied} more tied pairs not shown",
                transform=bars_ax.transAxes,
                ha="right",
                va="bottom",
                fontsize=9,
                color=_MUTED,
            )
        self._draw_words(words_ax, number)
        self._draw_curve(curve_ax, number)
        if self.run.status != "reference":
            message = figure.text(
                0.02,
                0.012,
                _escape(_wrap(self.run.message, 150)),
                fontsize=10,
                color=_WARN if self.run.status in ("departs", "error") else _INK,
                va="bottom",
            )
            message.set_gid("status")
        return figure

    def _draw_words(self, ax: Axes, number: int) -> None:
        rows, hidden = self.words(number)
        ax.set_axis_off()
        ax.set_title(f"The corpus after merge {number}", loc="left", fontsize=12)
        height = 1 / max(len(rows) + (1 if hidden else 0) + 0.3, 3)
        labels = [f"{chartdata.symbol_label(row.word)} ×{row.count}" for row in rows]
        box = ax.get_position()
        axes_inches = box.width * ax.figure.get_figwidth()
        row_points = height * box.height * ax.figure.get_figheight() * 72
        # A token is its text plus 0.95 em of box and gap; a row needs about 1.9 em of height.
        ems = max((sum(len(s) * 0.602 + 0.95 for s in row.symbols) for row in rows), default=1)
        ems += max((len(label) for label in labels), default=1) * 0.602
        fontsize = max(min(11.5, row_points / 1.9, (axes_inches - 0.3) * 72 / ems), 6.5)
        column = min((_label_inches(labels, fontsize) + 0.2) / axes_inches, 0.45)
        for index, (row, label) in enumerate(zip(rows, labels)):
            y = 1 - (index + 0.5) * height
            ax.text(
                0.0,
                y,
                _escape(label),
                transform=ax.transAxes,
                ha="left",
                va="center",
                fontsize=fontsize,
                family=_MONO,
                color=_INK,
            )
            _draw_tokens(ax, column, y, row.symbols, highlight=row.new, fontsize=fontsize, gid="word")
        if hidden:
            y = 1 - (len(rows) + 0.5) * height
            ax.text(
                0.0,
                y,
                f"… and {hidden} less frequent words",
                transform=ax.transAxes,
                fontsize=9,
                color=_MUTED,
                va="center",
            )

    def _draw_curve(self, ax: Axes, number: int) -> None:
        xs = list(range(len(self.curve)))
        ax.plot(xs, self.curve, color=_MUTED, linewidth=1.5, marker="o", markersize=3.5, gid="curve")
        ax.plot([number], [self.curve[number]], marker="o", markersize=9, color=CHOSEN, gid="curve:now")
        ax.annotate(
            f"{self.curve[number]}",
            xy=(number, self.curve[number]),
            xytext=(6, 6),
            textcoords="offset points",
            fontsize=10,
            color=CHOSEN,
            fontweight="bold",
        )
        ax.set_title(f"Symbols in the corpus: {self.curve[0]} → {self.curve[-1]}", loc="left", fontsize=12)
        ax.set_xlabel("merges done", fontsize=10)
        ax.set_ylabel("symbols", fontsize=10)
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.set_xlim(-0.3, max(len(xs) - 0.7, 1))
        low, high = min(self.curve), max(self.curve)
        margin = max((high - low) * 0.15, 1)
        ax.set_ylim(low - margin, high + margin)
        ax.grid(alpha=0.3)
        style_axes(ax)


class PairExplorer(Chart):
    """The widget :func:`pair_explorer` returns. ``run`` is the :class:`bpe_lab.chartdata.LearnerRun` it draws."""

    def __init__(self, explorer: _Explorer) -> None:
        self.explorer = explorer
        self.run = explorer.run
        self.trace = explorer.trace
        header = (
            "<b>Pair counts, round by round</b> — move the slider or press play. "
            f"Tie-break: <code>{html.escape(explorer.tie_break)}</code>." + explorer.status_html()
        )
        super().__init__(
            "pair_explorer",
            header=header,
            label="round",
            count=explorer.rounds,
            value=1,
            draw=explorer.draw,
            caption=explorer.sentence,
        )

    @property
    def top(self) -> chartdata.TopPairs:
        """The bars of the current round."""
        return self.explorer.top(self.slider.value)


def pair_explorer(
    word_freqs: Mapping[str, int],
    num_merges: int,
    *,
    tie_break: str = "largest",
    top_k: int = 10,
    marker: bool = True,
    count_pairs: Callable | None = None,
    merge_vocab: Callable | None = None,
    best_pair: Callable | None = None,
) -> widgets.Widget:
    """A widget to step through training: the top pair counts of each round, the words, the shrinking corpus.

    Args:
        word_freqs: a dict mapping non-empty words to positive int counts.
        num_merges: the number of rounds, ``>= 0``.
        tie_break: ``"largest"`` (default, as ``train_bpe``), ``"smallest"`` or ``"first"``.
        top_k: the number of bars per round.
        marker: start words with ``"</w>"`` (default, as in 02).
        count_pairs / merge_vocab / best_pair: the learner's functions, called on each traced round's inputs and
            compared with its outputs. While one raises ``NotImplementedError`` the chart shows the course's run
            alone and says so; where one first gives another result it says at which round and how.

    Returns:
        A :class:`PairExplorer` (an ``ipywidgets.VBox``); while nbgrader executes the notebook, an ``HTML``
        placeholder.

    Raises:
        ValueError: a bad ``tie_break`` or ``top_k``. bpe_lab.traces.TraceMissing: no trace for these inputs.
    """
    if grading():
        return placeholder("pair-frequency explorer")
    return PairExplorer(
        _Explorer(
            word_freqs,
            num_merges,
            tie_break=tie_break,
            top_k=top_k,
            marker=marker,
            count_pairs=count_pairs,
            merge_vocab=merge_vocab,
            best_pair=best_pair,
        )
    )


# ---------------------------------------------------------------------------------------------------------------
# 2. Tie-break comparison
# ---------------------------------------------------------------------------------------------------------------


class _TieBreaks:
    def __init__(self, word_freqs: Mapping[str, int], num_merges: int, *, top_k: int = 6, marker: bool = True):
        if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
            raise ValueError(f"top_k must be an int >= 1, got {top_k!r}")
        self.comparison = traces.tie_break_comparison(word_freqs, num_merges, marker=marker)
        self.top_k = top_k

    @property
    def rounds(self) -> int:
        return len(self.comparison.rows)

    def step(self, policy: str, number: int) -> Round | None:
        trace = self.comparison.traces[policy]
        return trace[number - 1] if number <= len(trace) else None

    def top(self, policy: str, number: int) -> chartdata.TopPairs | None:
        step = self.step(policy, number)
        return None if step is None else chartdata.top_pairs(step.pair_counts, step.pair, self.top_k)

    def sentence(self, number: int) -> str:
        cmp = self.comparison
        if not cmp.rows:
            return "No merge: the corpus has no adjacent pair (or num_merges is 0)."
        row = cmp.rows[number - 1]
        if row.agree:
            text = f"Round {number}: all three merge {_html_pair(row.pairs[cmp.policies[0]])}"
            text += " (a tie, broken the same way by all)." if any(row.tied.values()) else "."
        else:
            parts = [
                f"<b>{html.escape(p)}</b> {_html_pair(row.pairs[p]) if row.pairs[p] else 'has stopped'}"
                for p in cmp.policies
            ]
            text = f"Round {number}: the policies differ: " + "; ".join(parts) + "."
        if cmp.first_difference is None:
            text += " The three runs never part."
        else:
            text += f" They first part at round {cmp.first_difference}."
            if not row.same_start:
                text += " From then on each works on its own corpus."
        return text

    def draw(self, number: int) -> Figure:
        cmp = self.comparison
        width = 12.5
        figure = new_figure(width, 8.4)
        if not cmp.rows:
            figure.text(0.5, 0.5, "No merge to show: no adjacent pair in the corpus.", ha="center", fontsize=14)
            return figure
        figure.suptitle(
            f"Three tie-breaks on one corpus: round {number} of {self.rounds}",
            x=0.02,
            ha="left",
            fontsize=15,
            fontweight="bold",
        )
        parted = (
            "the runs never part"
            if cmp.first_difference is None
            else f"the runs first part at round {cmp.first_difference}"
        )
        figure.text(
            0.02,
            0.925,
            f"Same counting and merging; only the choice between equal counts differs — {parted}.",
            fontsize=10.5,
            color=_MUTED,
        )
        tops = {policy: self.top(policy, number) for policy in cmp.policies}
        labels = [bar.label for top in tops.values() if top is not None for bar in top.bars]
        margin = _label_inches(labels, 9.5) + 0.25
        gap = 0.3
        panel = (width - 0.15 - len(cmp.policies) * (margin + gap)) / len(cmp.policies)
        lefts = [(0.15 + margin + i * (margin + gap + panel)) for i in range(len(cmp.policies))]
        xmax = max((top.bars[0].count for top in tops.values() if top is not None), default=1)
        for policy, left in zip(cmp.policies, lefts):
            ax = figure.add_axes((left / width, 0.5, panel / width, 0.3))
            ax.set_gid(f"panel:{policy}")
            step = self.step(policy, number)
            top = tops[policy]
            if step is None or top is None:
                ax.set_axis_off()
                ax.set_title(f"'{policy}': stopped", loc="left", fontsize=12)
                ax.text(0.5, 0.5, "no pair left", ha="center", transform=ax.transAxes, color=_MUTED)
                continue
            _draw_bars(ax, top, xmax=xmax, fontsize=9.5)
            ax.get_legend().remove()
            tie = f", a tie of {len(step.tied) + 1}" if step.tied else ""
            odd = policy in cmp.rows[number - 1].stand_out
            others = cmp.rows[number - 1].same_as(policy)
            if cmp.rows[number - 1].agree:
                relation = "all three agree"
            elif others:
                relation = "same as " + ", ".join(f"'{p}'" for p in others)
            else:
                relation = "differs from the others"
            title = ax.text(
                -(margin - 0.1) / panel,
                1.03,
                _escape(
                    f"{'≠ ' if odd else ''}'{policy}' merges {chartdata.pair_label(step.pair)}\n"
                    f"count {step.count}{tie}; {relation}"
                ),
                transform=ax.transAxes,
                ha="left",
                va="bottom",
                fontsize=11,
                color=DIFFERENT if odd else _INK,
                fontweight="bold" if odd else "normal",
                wrap=False,
            )
            title.set_gid(f"title:{policy}")
            ax.set_xlabel("count", fontsize=9.5)
            if odd:
                for spine in ("left", "bottom"):
                    ax.spines[spine].set_color(DIFFERENT)
                    ax.spines[spine].set_linewidth(2.5)
        handles_ax = figure.add_axes((0.0, 0.418, 1.0, 0.02))
        handles_ax.set_axis_off()
        self._legend(handles_ax)
        table = figure.add_axes((0.01, 0.01, 0.98, 0.39), gid="table")
        self._draw_table(table, number, [(left - margin) / width for left in lefts])
        return figure

    def _legend(self, ax: Axes) -> None:
        from matplotlib.patches import Patch

        handles = [
            Patch(facecolor=CHOSEN, edgecolor=_INK, label="merged this round"),
            Patch(facecolor=TIED, edgecolor=_INK, hatch="///", label="tied rival (same count)"),
            Patch(facecolor=OTHER, edgecolor=_INK, label="other pair"),
            Patch(facecolor="white", edgecolor=DIFFERENT, linewidth=2.5, label="≠  a policy that chose differently"),
        ]
        ax.legend(handles=handles, loc="center", ncol=4, fontsize=9.5, frameon=False)

    def _draw_table(self, ax: Axes, number: int, columns: Sequence[float]) -> None:
        from matplotlib.patches import Rectangle

        cmp = self.comparison
        ax.set_axis_off()
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        window = 11
        first = max(1, min(number - window // 2, self.rounds - window + 1))
        rows = cmp.rows[first - 1 : first - 1 + window]
        line = 1 / (window + 2.8)
        xs = [max((x - 0.01) / 0.98, 0.045 + 0.3 * i) for i, x in enumerate(columns)]
        ax.text(0, 1 - line / 2, "round", fontsize=10.5, fontweight="bold", va="center")
        for x, policy in zip(xs, cmp.policies):
            ax.text(x + 0.045, 1 - line / 2, f"'{policy}' merges", fontsize=10.5, fontweight="bold", va="center")
        ax.plot([0, 1], [1 - line, 1 - line], color=_INK, linewidth=0.8)
        for offset, row in enumerate(rows):
            y = 1 - line * (offset + 1.5)
            if not row.agree:
                rect = Rectangle((0, y - line / 2), 1, line, facecolor=DIFFERENT, alpha=0.18, linewidth=0)
                rect.set_gid(f"row-differs:{row.round}")
                ax.add_patch(rect)
            if row.round == number:
                ax.add_patch(
                    Rectangle((0, y - line / 2), 1, line, fill=False, edgecolor=CHOSEN, linewidth=2.2, gid="row-now")
                )
            ax.text(
                0.005,
                y,
                f"{row.round}",
                fontsize=10,
                va="center",
                fontweight="bold" if row.round == number else "normal",
            )
            for x, policy in zip(xs, cmp.policies):
                pair = row.pairs[policy]
                odd = policy in row.stand_out
                tie = "  (tie)" if row.tied[policy] else ""
                text = "stopped" if pair is None else f"{chartdata.pair_label(pair)}   {row.counts[policy]}{tie}"
                ax.text(x, y, "≠" if odd else "", fontsize=11, va="center", color=DIFFERENT, fontweight="bold")
                cell = ax.text(
                    x + 0.045,
                    y,
                    _escape(text),
                    fontsize=10,
                    va="center",
                    family=_MONO,
                    color=_MUTED if pair is None else _INK,
                    fontweight="bold" if odd else "normal",
                )
                cell.set_gid(f"cell:{row.round}:{policy}:{'odd' if odd else 'same'}")
            if row.round == cmp.first_difference:
                ax.text(
                    0.995,
                    y,
                    "← first parting",
                    fontsize=9.5,
                    ha="right",
                    va="center",
                    color=DIFFERENT,
                    fontweight="bold",
                )
        more = []
        if first > 1:
            more.append(f"rounds 1–{first - 1} above")
        if first - 1 + window < self.rounds:
            more.append(f"rounds {first + window}–{self.rounds} below")
        footer = "Shaded: the policies merge different pairs that round; ≠ and bold: the one(s) that stand out."
        if cmp.first_difference is not None:
            same = "the same merges in another order" if cmp.same_merges else "different sets of merges"
            footer += f" After the first parting each run works on its own corpus. In all: {same}."
        if more:
            footer += "  (" + ", ".join(more) + ": move the slider)"
        ax.text(0, 1 - line * (len(rows) + 1.2), _wrap(footer, 200), fontsize=9, color=_MUTED, va="top")


class TieBreakChart(Chart):
    """The widget :func:`tie_break_comparison` returns.

    ``comparison`` is the :class:`bpe_lab.traces.TieBreakComparison` it draws.
    """

    def __init__(self, model: _TieBreaks) -> None:
        self.model = model
        self.comparison = model.comparison
        super().__init__(
            "tie_break_comparison",
            header="<b>Three tie-breaks side by side</b> — the same corpus trained with each policy, round by round.",
            label="round",
            count=model.rounds,
            value=model.comparison.first_difference or 1,
            draw=model.draw,
            caption=model.sentence,
        )


def tie_break_comparison(
    word_freqs: Mapping[str, int], num_merges: int, *, top_k: int = 6, marker: bool = True
) -> widgets.Widget:
    """A widget with the three tie-break policies side by side on one corpus, round by round.

    Each round shows each policy's top pair counts with its merged pair and tied rivals, and a table of every
    round's merges in which the rounds where the policies differ are marked. It opens on the first round at
    which they part.

    Args:
        word_freqs: a dict mapping non-empty words to positive int counts.
        num_merges: the number of rounds, ``>= 0``.
        top_k: the number of bars per policy.
        marker: start words with ``"</w>"``.

    Returns:
        A :class:`TieBreakChart`; while nbgrader executes the notebook, an ``HTML`` placeholder.

    Raises:
        ValueError: a bad ``top_k``. bpe_lab.traces.TraceMissing: no trace for these inputs.
    """
    if grading():
        return placeholder("tie-break comparison")
    return TieBreakChart(_TieBreaks(word_freqs, num_merges, top_k=top_k, marker=marker))


# ---------------------------------------------------------------------------------------------------------------
# 3. apply_bpe stepper
# ---------------------------------------------------------------------------------------------------------------


class _Stepper:
    """The stepper on a traced table: the course's steps by rank and by replay."""

    source = "trace"
    names = ("by rank", "by replay")
    replay_text = (
        "By replay (as encode): every rule in learned order",
        "the symbols after each rule; highlighted: what it merged",
    )

    def __init__(self, word: str, merges: Sequence[Pair], *, marker: bool = True) -> None:
        self.comparison = traces.apply_comparison(word, merges, marker=marker)

    @property
    def rank_rows(self) -> int:
        return len(self.comparison.rank.steps) + 1

    @property
    def replay_rows(self) -> int:
        return len(self.comparison.replay.steps) + 1

    @property
    def count(self) -> int:
        return max(self.rank_rows, self.replay_rows)

    def sentence(self, number: int) -> str:
        cmp = self.comparison
        rank, replay = cmp.rank, cmp.replay
        if number <= len(rank.steps):
            step = rank.steps[number - 1]
            text = (
                f"Step {number} by rank: the adjacent pair with the lowest rank is {_html_pair(step.chosen)} "
                f"(rank {step.rank}); merged at {len(step.positions)} place(s)."
            )
        else:
            text = "By rank: no adjacent pair is in the table any more: done."
        joined = repr(list(rank.result))
        other = repr(list(replay.result))
        verdict = "they <b>differ</b>" if cmp.differ else "they agree"
        return (
            f"{text} Result by rank: <code>{html.escape(joined)}</code>; by replay: "
            f"<code>{html.escape(other)}</code>: {verdict}."
        )

    def draw(self, number: int) -> Figure:
        cmp = self.comparison
        rows = self.count
        figure = new_figure(12.5, 2.9 + 0.62 * rows)
        inch = 1 / figure.get_figheight()
        figure.suptitle(
            _escape(f"Applying a merge table to '{cmp.word}'"),
            x=0.02,
            y=1 - 0.2 * inch,
            ha="left",
            va="top",
            fontsize=15,
            fontweight="bold",
        )
        entries = [
            f"{rank}: {chartdata.symbol_label(a)} + {chartdata.symbol_label(b)}"
            for rank, (a, b) in enumerate(cmp.merges)
        ]
        table = "   ".join(entries[:10]) + ("   …" if len(entries) > 10 else "")
        figure.text(
            0.02,
            1 - 0.62 * inch,
            _escape(f"the table (rank: pair):   {table or '(empty)'}"),
            fontsize=11,
            va="top",
            family=_MONO,
            color=_INK,
        )
        marker = "with the end-of-word marker" if cmp.marker else "no end-of-word marker"
        result = (
            f"{self.names[0]}: {list(cmp.rank.result)!r}    {self.names[1]}: {list(cmp.replay.result)!r}"
            f"    → {'they differ' if cmp.differ else 'they agree'}"
        )
        figure.text(
            0.02,
            1 - 0.95 * inch,
            _escape(f"both start from {' '.join(map(chartdata.symbol_label, cmp.rank.start))} ({marker})"),
            fontsize=10.5,
            va="top",
            color=_MUTED,
        )
        verdict = figure.text(
            0.02,
            1 - 1.28 * inch,
            _escape(result),
            fontsize=11.5,
            va="top",
            family=_MONO,
            color=DIFFERENT if cmp.differ else _INK,
            fontweight="bold",
        )
        verdict.set_gid("verdict")
        top = 1 - 1.85 * inch
        left = figure.add_axes((0.02, 0.02, 0.5, top - 0.02), gid="rank")
        right = figure.add_axes((0.55, 0.02, 0.44, top - 0.02), gid="replay")
        self._draw_rank(left, number, rows)
        self._draw_replay(right, number, rows)
        return figure

    def _row_y(self, index: int, rows: int) -> float:
        return 1 - (index + 1.35) / (rows + 0.9)

    def _panel(self, ax: Axes, title: str, note: str, number: int, rows: int, limit: int) -> list[tuple[int, float]]:
        """Draw a panel's title and note; the ``(index, y)`` of each row to draw at step ``number``."""
        ax.set_axis_off()
        ax.set_title(title, loc="left", fontsize=12)
        ax.text(0, 1 - 0.45 / (rows + 0.9), note, transform=ax.transAxes, fontsize=9, color=_MUTED, va="center")
        return [(index, self._row_y(index, rows)) for index in range(min(number, limit))]

    @staticmethod
    def _row_label(ax: Axes, y: float, text: str, **style: Any) -> None:
        ax.text(0, y, text, transform=ax.transAxes, fontsize=10, va="center", **style)

    def _draw_rank(self, ax: Axes, number: int, rows: int) -> None:
        run = self.comparison.rank
        title = "By rank (as apply_bpe): merge the adjacent pair with the lowest rank"
        note = "small numbers: each adjacent pair's rank in the table (– = not in it)"
        shown = min(number, self.rank_rows)
        for index, y in self._panel(ax, title, note, number, rows, self.rank_rows):
            if index < len(run.steps):
                step = run.steps[index]
                highlight = sorted({p for start in step.positions for p in (start, start + 1)})
                label = f"step {index + 1}: rank {step.rank}"
                symbols, ranks, chosen = step.before, step.ranks, set(step.positions)
            else:
                highlight, label = [], "done"
                symbols, ranks, chosen = run.result, run.end_ranks, set()
            self._row_label(ax, y, label, color=_INK, fontweight="bold" if index == shown - 1 else "normal")
            tokens = _draw_tokens(ax, 0.2, y, symbols, highlight=highlight, fontsize=11, gid="rank")
            for gap, rank in enumerate(ranks):
                picked = gap in chosen
                text = ax.annotate(
                    "–" if rank is None else str(rank),
                    xy=(1, 0),
                    xycoords=tokens[gap],
                    xytext=(_token_gap(11) / 2, -6),
                    textcoords="offset points",
                    ha="center",
                    va="top",
                    fontsize=8.5 if not picked else 9.5,
                    color=CHOSEN if picked else _MUTED,
                    fontweight="bold" if picked else "normal",
                    annotation_clip=False,
                )
                text.set_gid("rank:chosen" if picked else "rank")
                text.set_in_layout(False)
            if index >= len(run.steps):
                ax.annotate(
                    "no pair left in the table",
                    xy=(1, 0.5),
                    xycoords=tokens[-1],
                    xytext=(14, 0),
                    textcoords="offset points",
                    va="center",
                    fontsize=9.5,
                    color=_MUTED,
                )

    def _draw_replay(self, ax: Axes, number: int, rows: int) -> None:
        run = self.comparison.replay
        title, note = self.replay_text
        for index, y in self._panel(ax, title, note, number, rows, self.replay_rows):
            if index == 0:
                label, symbols, highlight, found = "start", run.start, [], True
            else:
                step = run.steps[index - 1]
                first, second = (chartdata.symbol_label(symbol) for symbol in step.rule)
                label = f"rule {step.index}: {first} + {second}"
                symbols = step.after
                found = bool(step.positions)
                highlight = step.made
            self._row_label(ax, y, _escape(label), family=_MONO, color=_INK if found else _MUTED)
            if found:
                _draw_tokens(ax, 0.36, y, symbols, highlight=highlight, fontsize=11, gid="replay")
            else:
                ax.text(
                    0.36,
                    y,
                    "not found: nothing changes",
                    transform=ax.transAxes,
                    fontsize=9.5,
                    va="center",
                    color=_MUTED,
                    style="italic",
                )


class _LearnerStepper(_Stepper):
    """The stepper on a table with no trace, drawn from the learner's own ``apply_bpe`` and ``encode``.

    Replay, step by step: the word after rule ``k`` is ``encode(word, merges[:k + 1])`` (replay applies the rules in
    order, so each prefix of the table gives the next step). By rank, only the result: ``apply_bpe(word, merges)``
    with its final ``"</w>"`` dropped (the table must not mention the marker), as exercise 3 compares them.
    """

    source = "learner"
    names = ("your apply_bpe", "your encode")
    replay_text = (
        "By replay: your encode with the first rules of the table",
        "row k: encode(word, table[:k + 1]); highlighted: what rule k merged",
    )

    def __init__(
        self, word: str, merges: Sequence[Pair], *, apply_bpe: Callable[..., Any], encode: Callable[..., Any]
    ) -> None:
        table = tuple((a, b) for a, b in merges)
        for pair in table:
            if any(END_OF_WORD in symbol for symbol in pair):
                raise ValueError(
                    f"the rule {pair!r} mentions {END_OF_WORD!r}: with your own functions the stepper compares "
                    "without the marker, as exercise 3 does"
                )
        ranked = list(apply_bpe(word, list(table)))
        if ranked[-1:] != [END_OF_WORD]:
            raise ValueError(
                f"your apply_bpe({word!r}, ...) returned {ranked!r}, which does not end with {END_OF_WORD!r}"
            )
        states = [tuple(encode(word, list(table[:k]))) for k in range(len(table) + 1)]
        replay_steps = []
        for index, rule in enumerate(table):
            before, after = states[index], states[index + 1]
            made = tuple(i for i, symbol in enumerate(after) if symbol == rule[0] + rule[1]) if after != before else ()
            replay_steps.append(traces.ReplayStep(index, rule, before, made, after, made))
        result = tuple(ranked[:-1])
        rank = traces.RankRun(states[0], (), tuple(None for _ in result[1:]), result)
        replay = traces.ReplayRun(states[0], tuple(replay_steps), states[-1])
        self.comparison = traces.ApplyComparison(word, False, table, rank, replay, result != states[-1])

    def sentence(self, number: int) -> str:
        cmp = self.comparison
        if number <= 1:
            text = "Replay starts from the word's characters (your encode with no rule)."
        else:
            step = cmp.replay.steps[number - 2]
            found = "merged" if step.after != step.before else "not found: nothing changes"
            text = f"Rule {step.index} {_html_pair(step.rule)}: {found} (your encode, first {step.index + 1} rules)."
        verdict = "they <b>differ</b>" if cmp.differ else "they agree"
        return (
            f"{text} Your apply_bpe: <code>{html.escape(repr(list(cmp.rank.result)))}</code> (its final "
            "<code>&lt;/w&gt;</code> dropped); your encode: "
            f"<code>{html.escape(repr(list(cmp.replay.result)))}</code>: {verdict}."
        )

    def _draw_rank(self, ax: Axes, number: int, rows: int) -> None:
        title = "By rank: your apply_bpe (its result; the marker dropped)"
        note = "drawn from your own function: its steps are not shown, only what it returns"
        for _, y in self._panel(ax, title, note, number, rows, 1):
            self._row_label(ax, y, "result", color=_INK, fontweight="bold")
            _draw_tokens(ax, 0.2, y, self.comparison.rank.result, fontsize=11, gid="rank")


class ApplyStepper(Chart):
    """The widget :func:`apply_stepper` returns; ``comparison`` is the :class:`bpe_lab.traces.ApplyComparison`."""

    def __init__(self, model: _Stepper) -> None:
        self.model = model
        self.comparison = model.comparison
        super().__init__(
            "apply_stepper",
            header=(
                f"<b>Applying a merge table to <code>{html.escape(model.comparison.word)}</code></b> — "
                "step by step, by rank and by replay."
            ),
            label="step",
            count=model.count,
            value=1,
            draw=model.draw,
            caption=model.sentence,
        )


def apply_stepper(
    word: str,
    merges: Sequence[Pair],
    *,
    marker: bool = True,
    apply_bpe: Callable[..., Any] | None = None,
    encode: Callable[..., Any] | None = None,
) -> widgets.Widget:
    """A widget to step through applying ``merges`` to ``word``: by rank (``apply_bpe``) and by replay (``encode``).

    On a table the course ships a trace for, the rank side shows at each step every adjacent pair's rank, the
    lowest chosen and the result; the replay side shows the word after each rule of the table in order. Both start
    from the same symbols, so where the results differ it is the order of the merges alone that made them differ.

    On any other table (such as the learner's own counterexample) the chart is drawn from the learner's
    ``apply_bpe`` and ``encode`` (both must be given): replay step by step as ``encode(word, merges[:k])``, and by
    rank the result of ``apply_bpe(word, merges)`` without its marker (exercise 3's comparison; ``marker`` is then
    ignored).

    Args:
        word: a non-empty string.
        merges: a list of ``(str, str)`` pairs.
        marker: start from ``get_word_symbols(word)`` (with ``"</w>"``, as ``apply_bpe``; default) or from the bare
            characters (as ``encode``).
        apply_bpe / encode: the learner's functions, used when the table has no trace.

    Returns:
        An :class:`ApplyStepper`; while nbgrader executes the notebook, an ``HTML`` placeholder; on a table with no
        trace while the learner's functions are stubs, an ``HTML`` note saying so.

    Raises:
        bpe_lab.traces.TraceMissing: no trace for the table and no learner functions given (the message names
        the word and table). ValueError: a rule mentions ``"</w>"`` (learner mode).

    Example (04's counterexample, traced)::

        apply_stepper("abc", [("ab", "c"), ("a", "b")], marker=False)
    """
    if grading():
        return placeholder("apply_bpe stepper")
    try:
        model = _stepper(word, merges, marker=marker, apply_bpe=apply_bpe, encode=encode)
    except NotImplementedError:
        return widgets.HTML(
            value=(
                f"<p>The course ships no steps for this table on <code>{html.escape(word)}</code>, and your "
                "<code>apply_bpe</code> or <code>encode</code> is still a stub: finish exercises 1 and 2 to "
                "step through it.</p>"
            )
        )
    return ApplyStepper(model)


def _stepper(
    word: str,
    merges: Sequence[Pair],
    *,
    marker: bool = True,
    apply_bpe: Callable[..., Any] | None = None,
    encode: Callable[..., Any] | None = None,
) -> _Stepper:
    """The traced stepper, or else the one drawn from the learner's functions (which may raise NotImplementedError)."""
    try:
        return _Stepper(word, merges, marker=marker)
    except traces.TraceMissing:
        if apply_bpe is None or encode is None:
            raise
        return _LearnerStepper(word, merges, apply_bpe=apply_bpe, encode=encode)


# ---------------------------------------------------------------------------------------------------------------
# 4. Static PNGs
# ---------------------------------------------------------------------------------------------------------------

_KINDS = ("pair_explorer", "tie_break_comparison", "apply_stepper")


def _figure_of(kind: str, kwargs: dict[str, Any]) -> Figure:
    kwargs = dict(kwargs)
    if kind == "pair_explorer":
        number = kwargs.pop("round", None)
        model = _Explorer(**kwargs)
        return model.draw(max(model.rounds, 1) if number is None else number)
    if kind == "tie_break_comparison":
        number = kwargs.pop("round", None)
        cmp_model = _TieBreaks(**kwargs)
        default = cmp_model.comparison.first_difference or max(cmp_model.rounds, 1)
        return cmp_model.draw(default if number is None else number)
    if kind == "apply_stepper":
        number = kwargs.pop("step", None)
        stepper = _stepper(**kwargs)
        return stepper.draw(stepper.count if number is None else number)
    raise ValueError(f"kind must be a chart widget or one of {', '.join(map(repr, _KINDS))}; got {kind!r}")


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
        raise TypeError(f"save_png needs a chart widget from bpe_lab.widgets, got {type(widget).__name__}")
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

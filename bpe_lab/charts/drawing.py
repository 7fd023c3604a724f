"""What the charts draw with: the palette, a figure on the Agg canvas and its PNG, boxed tokens, pair-count bars.

* the palette (Okabe & Ito's colour-blind safe colours; every highlight also has a second cue: hatching, bold, a
  word): :data:`CHOSEN`, :data:`TIED`, :data:`OTHER`, :data:`DIFFERENT`, and the inks of text;
* :func:`new_figure`, :func:`figure_png`: a plain ``matplotlib.figure.Figure`` on the Agg canvas (no pyplot, so a
  notebook's own matplotlib backend is left alone) and its PNG;
* :func:`draw_tokens`: symbols as boxed tokens in a row (the explorer's words, the stepper's steps);
* :func:`draw_bars`: one round's top pair counts as bars, the merged pair and its tied rivals marked (the
  explorer's and the comparison's panels);
* :func:`plain_text`, :func:`wrap`, :func:`html_pair`, :func:`label_inches`, :func:`token_gap`,
  :func:`style_axes`: labels and layout.

It draws what it is given: it reads no trace, calls none of the learner's functions and makes no widget
(:mod:`bpe_lab.charts.widget` does).
"""

from __future__ import annotations

import html
import io
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..traces import Pair
from . import data
from .data import END_OF_WORD

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.text import Text

__all__ = [
    "CHOSEN",
    "DIFFERENT",
    "DPI",
    "INK",
    "MONO",
    "MUTED",
    "OTHER",
    "TIED",
    "WARN",
    "draw_bars",
    "draw_tokens",
    "figure_png",
    "html_pair",
    "label_inches",
    "new_figure",
    "plain_text",
    "style_axes",
    "token_gap",
    "wrap",
]

# Okabe & Ito's colour-blind safe palette; every highlight also has a second cue (hatching, bold, a word).
CHOSEN = "#0072B2"  # blue: the pair merged, the symbol it makes
TIED = "#E69F00"  # orange, hatched: a rival with the same count
OTHER = "#BDBDBD"  # grey: every other pair
DIFFERENT = "#CC79A7"  # reddish purple: where the tie-break policies differ
INK = "#222222"
MUTED = "#6B6B6B"
WARN = "#D55E00"  # vermillion: where a learner's run departs from the reference
_TOKEN_FILL = "#F2F2F2"
_TOKEN_EDGE = "#9A9A9A"
DPI = 110
MONO = "DejaVu Sans Mono"


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


def draw_tokens(
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
    gap = token_gap(fontsize)
    texts: list[Text] = []
    marked = set(highlight)
    for index, symbol in enumerate(symbols):
        new = index in marked
        style: dict[str, Any] = {
            "fontsize": fontsize,
            "family": MONO,
            "color": "white" if new else (MUTED if symbol == END_OF_WORD else INK),
            "fontweight": "bold" if new else "normal",
            "bbox": _token_box(CHOSEN, CHOSEN) if new else _token_box(_TOKEN_FILL, _TOKEN_EDGE),
            "ha": "left",
            "va": "center",
            "annotation_clip": False,
        }
        if texts:
            text = ax.annotate(
                plain_text(data.symbol_label(symbol)),
                xy=(1, 0.5),
                xycoords=texts[-1],
                xytext=(gap, 0),
                textcoords="offset points",
                **style,
            )
        else:
            text = ax.annotate(
                plain_text(data.symbol_label(symbol)),
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


def token_gap(fontsize: float) -> float:
    """Points between the text of two tokens: both box paddings (0.3 em each) and a visible space."""
    return 0.95 * fontsize


def label_inches(labels: Sequence[str], fontsize: float) -> float:
    """The width of the longest label in the monospace font (0.6 em a character), in inches."""
    return max((len(label) for label in labels), default=1) * 0.602 * fontsize / 72


def wrap(text: str, width: int) -> str:
    return "\n".join(textwrap.wrap(text, width)) if text else ""


def plain_text(text: str) -> str:
    """Plain text for a matplotlib label: ``$`` would start mathtext."""
    return text.replace("$", r"\$")


def html_pair(pair: Pair) -> str:
    return "<code>" + html.escape(f"{pair[0]} + {pair[1]} → {pair[0] + pair[1]}") + "</code>"


def whole_numbers(axis: Any) -> None:
    """Ticks at whole numbers only on ``axis`` (an ``ax.xaxis``): its locator, matplotlib's default ``AutoLocator``
    (a ``MaxNLocator``), keeps its other settings."""
    from matplotlib.ticker import MaxNLocator

    locator = axis.get_major_locator()
    if isinstance(locator, MaxNLocator):
        locator.set_params(integer=True)


def style_axes(ax: Axes) -> None:
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def draw_bars(ax: Axes, top: data.TopPairs, *, xmax: float | None = None, fontsize: float = 10) -> None:
    """Horizontal bars, largest on top, labelled with the pair and its count; chosen and tied marked."""
    from matplotlib.patches import Patch

    bars = top.bars
    positions = list(range(len(bars)))
    fills = [CHOSEN if b.role == "chosen" else TIED if b.role == "tied" else OTHER for b in bars]
    drawn = ax.barh(positions, [b.count for b in bars], color=fills, edgecolor=INK, linewidth=0.6, height=0.7)
    for patch, bar in zip(drawn.patches, bars):
        patch.set_gid(f"bar:{bar.role}")
        if bar.role == "tied":
            patch.set_hatch("///")
        if bar.role == "chosen":
            patch.set_linewidth(1.6)
    ax.set_yticks(positions, [plain_text(b.label) for b in bars], fontsize=fontsize, family=MONO)
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
            color=INK,
            fontweight="bold" if bar.role == "chosen" else "normal",
        )
        text.set_gid(f"count:{bar.role}")
    whole_numbers(ax.xaxis)
    style_axes(ax)
    handles = [Patch(facecolor=CHOSEN, edgecolor=INK, label="merged this round")]
    if any(b.role == "tied" for b in bars):
        handles.append(Patch(facecolor=TIED, edgecolor=INK, hatch="///", label="tied rival (same count)"))
    handles.append(Patch(facecolor=OTHER, edgecolor=INK, label="other pair"))
    ax.legend(handles=handles, loc="lower right", fontsize=fontsize - 1, framealpha=0.95)

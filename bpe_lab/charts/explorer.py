"""The pair explorer of 01-03: training round by round, the pair counts, the words and the shrinking corpus.

:func:`pair_explorer` returns a slider (with a play button) over the training rounds. At each round it draws the
top pair counts as bars (the merged pair blue, its tied rivals orange and hatched, the tie-break named), the
corpus words after the merge with the new symbol marked, and the number of symbols in the corpus per round.

From which data: the course's own run on these inputs, a trace shipped in ``bpe_lab/data/traces/training.json``
(:func:`bpe_lab.traces.explorer_rounds`). Given the learner's ``count_pairs`` / ``merge_vocab`` /
``best_pair``, it calls them on each traced round's inputs and says where they first give another result
(:func:`bpe_lab.charts.data.check_learner`), marking the learner's choice on the bars of that round.

What it does not do: train or choose a pair (an input with no trace raises :class:`bpe_lab.traces.TraceMissing`,
naming it); draw the learner's own run (the chart stays on the course's, and says where the learner's departs);
draw anything while nbgrader executes the notebook (a placeholder instead).

Example (a notebook cell; the widget is the cell's value)::

    from bpe_lab.charts import pair_explorer
    pair_explorer({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10, tie_break="first")
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from .. import traces
from ..traces import Round
from . import data
from .drawing import (
    CHOSEN,
    INK,
    MONO,
    MUTED,
    WARN,
    draw_bars,
    draw_tokens,
    html_pair,
    label_inches,
    new_figure,
    plain_text,
    style_axes,
    whole_numbers,
    wrap,
)
from .skipped import grading, placeholder
from .widget import Chart

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["PairExplorer", "figure_at", "pair_explorer"]


class _Explorer:
    """The pair explorer's data and drawing, without widgets (used by the widget and by :func:`figure_at`)."""

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
        if tie_break not in data.TIE_BREAK_RULES:
            raise ValueError(
                f"tie_break must be one of {', '.join(map(repr, data.TIE_BREAK_RULES))}; got {tie_break!r}"
            )
        self.trace: list[Round] = traces.explorer_rounds(word_freqs, num_merges, tie_break, marker=marker)
        self.start = traces.start_vocab(word_freqs, num_merges, tie_break, marker=marker)
        self.run = data.check_learner(
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

    def top(self, number: int) -> data.TopPairs:
        step = self.trace[number - 1]
        return data.top_pairs(step.pair_counts, step.pair, self.top_k)

    def words(self, number: int) -> tuple[list[data.SegmentRow], int]:
        if number == 0:
            return data.segmentation(self.start, limit=self.max_words)
        step = self.trace[number - 1]
        return data.segmentation(step.vocab, step.pair[0] + step.pair[1], limit=self.max_words)

    def sentence(self, number: int) -> str:
        if not self.trace:
            return "No merge: the corpus has no adjacent pair (or num_merges is 0)."
        step = self.trace[number - 1]
        text = f"Round {number} merges {html_pair(step.pair)} (count {step.count})"
        if step.tied:
            rivals = ", ".join(html_pair(p) for p in step.tied[:4]) + (" …" if len(step.tied) > 4 else "")
            text += (
                f"; tied with {rivals}. Tie-break <b>{html.escape(self.tie_break)}</b>: "
                f"{html.escape(data.TIE_BREAK_RULES[self.tie_break])}"
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
        left = (label_inches([b.label for b in top.bars], 10) + 0.65) / figure.get_figwidth()
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
            f"Round {number} of {self.rounds}: merge {plain_text(data.pair_label(step.pair))}",
            x=0.02,
            ha="left",
            fontsize=15,
            fontweight="bold",
        )
        figure.text(
            0.02,
            0.905,
            plain_text(f"tie-break '{self.tie_break}': {data.TIE_BREAK_RULES[self.tie_break]}   ({source})"),
            fontsize=10.5,
            color=MUTED,
        )

        draw_bars(bars_ax, top)
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
                        color=WARN,
                        fontweight="bold",
                    )
                    note.set_gid("learner-choice")
            figure.text(
                0.985,
                0.905,
                f"✗ your {departure.function} differs here",
                fontsize=10.5,
                color=WARN,
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
                color=MUTED,
            )
        self._draw_words(words_ax, number)
        self._draw_curve(curve_ax, number)
        if self.run.status != "reference":
            message = figure.text(
                0.02,
                0.012,
                plain_text(wrap(self.run.message, 150)),
                fontsize=10,
                color=WARN if self.run.status in ("departs", "error") else INK,
                va="bottom",
            )
            message.set_gid("status")
        return figure

    def _draw_words(self, ax: Axes, number: int) -> None:
        rows, hidden = self.words(number)
        ax.set_axis_off()
        ax.set_title(f"The corpus after merge {number}", loc="left", fontsize=12)
        height = 1 / max(len(rows) + (1 if hidden else 0) + 0.3, 3)
        labels = [f"{data.symbol_label(row.word)} ×{row.count}" for row in rows]
        box = ax.get_position()
        import matplotlib.figure

        figure = ax.get_figure()
        if not isinstance(
            figure, matplotlib.figure.Figure
        ):  # the chart draws in a figure of its own, never a subfigure
            raise TypeError(f"the words panel needs a whole figure, not a {type(figure).__name__}")
        axes_inches = box.width * figure.get_figwidth()
        row_points = height * box.height * figure.get_figheight() * 72
        # A token is its text plus 0.95 em of box and gap; a row needs about 1.9 em of height.
        ems = max((sum(len(s) * 0.602 + 0.95 for s in row.symbols) for row in rows), default=1)
        ems += max((len(label) for label in labels), default=1) * 0.602
        fontsize = max(min(11.5, row_points / 1.9, (axes_inches - 0.3) * 72 / ems), 6.5)
        column = min((label_inches(labels, fontsize) + 0.2) / axes_inches, 0.45)
        for index, (row, label) in enumerate(zip(rows, labels)):
            y = 1 - (index + 0.5) * height
            ax.text(
                0.0,
                y,
                plain_text(label),
                transform=ax.transAxes,
                ha="left",
                va="center",
                fontsize=fontsize,
                family=MONO,
                color=INK,
            )
            draw_tokens(ax, column, y, row.symbols, highlight=row.new, fontsize=fontsize, gid="word")
        if hidden:
            y = 1 - (len(rows) + 0.5) * height
            ax.text(
                0.0,
                y,
                f"… and {hidden} less frequent words",
                transform=ax.transAxes,
                fontsize=9,
                color=MUTED,
                va="center",
            )

    def _draw_curve(self, ax: Axes, number: int) -> None:
        xs = list(range(len(self.curve)))
        ax.plot(xs, self.curve, color=MUTED, linewidth=1.5, marker="o", markersize=3.5, gid="curve")
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
        whole_numbers(ax.xaxis)
        ax.set_xlim(-0.3, max(len(xs) - 0.7, 1))
        low, high = min(self.curve), max(self.curve)
        margin = max((high - low) * 0.15, 1)
        ax.set_ylim(low - margin, high + margin)
        ax.grid(alpha=0.3)
        style_axes(ax)


class PairExplorer(Chart):
    """The widget :func:`pair_explorer` returns. ``run`` is the :class:`bpe_lab.charts.data.LearnerRun` it draws."""

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
    def top(self) -> data.TopPairs:
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
        return placeholder("pair_explorer")
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


def figure_at(*, round: int | None = None, **arguments: Any) -> Figure:
    """The explorer's figure at ``round`` (default: the last round), without a widget.

    Args:
        round: the round to draw.
        **arguments: :func:`pair_explorer`'s arguments.

    Raises:
        TypeError / ValueError: bad arguments (as :func:`pair_explorer`). bpe_lab.traces.TraceMissing: no trace.
    """
    model = _Explorer(**arguments)
    return model.draw(max(model.rounds, 1) if round is None else round)

"""The tie-break comparison of 03: the three tie-break policies trained side by side on one corpus, round by round.

:func:`tie_break_comparison` returns a slider over the rounds. At each round it draws, for each policy
(``"largest"``, ``"smallest"``, ``"first"``), the top pair counts as bars with the merged pair and its tied
rivals, the policy that chose differently marked (≠, colour, bold); under them a table of every round's merges,
the rounds where the policies differ shaded and the first parting named. It opens on that first parting.

From which data: the course's three runs on these inputs, a trace shipped in
``bpe_lab/data/traces/tie_breaks.json`` (:func:`bpe_lab.traces.tie_break_comparison`).

What it does not do: train, or call any of the learner's functions (the explorer compares those); chart an input
with no trace (:class:`bpe_lab.traces.TraceMissing`, naming it); draw while nbgrader executes the notebook.

Example (a notebook cell)::

    from bpe_lab.charts import tie_break_comparison
    tie_break_comparison({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 8)
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from .. import traces
from ..traces import Round
from . import data
from .drawing import (
    CHOSEN,
    DIFFERENT,
    INK,
    MONO,
    MUTED,
    OTHER,
    TIED,
    draw_bars,
    html_pair,
    label_inches,
    new_figure,
    plain_text,
    wrap,
)
from .skipped import grading, placeholder
from .widget import Chart

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["TieBreakChart", "figure_at", "tie_break_comparison"]


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

    def top(self, policy: str, number: int) -> data.TopPairs | None:
        step = self.step(policy, number)
        return None if step is None else data.top_pairs(step.pair_counts, step.pair, self.top_k)

    def sentence(self, number: int) -> str:
        cmp = self.comparison
        if not cmp.rows:
            return "No merge: the corpus has no adjacent pair (or num_merges is 0)."
        row = cmp.rows[number - 1]
        shown = {p: "has stopped" if pair is None else html_pair(pair) for p, pair in row.pairs.items()}
        if row.agree:
            text = f"Round {number}: all three merge {shown[cmp.policies[0]]}"
            text += " (a tie, broken the same way by all)." if any(row.tied.values()) else "."
        else:
            parts = [f"<b>{html.escape(p)}</b> {shown[p]}" for p in cmp.policies]
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
            color=MUTED,
        )
        tops = {policy: self.top(policy, number) for policy in cmp.policies}
        labels = [bar.label for top in tops.values() if top is not None for bar in top.bars]
        margin = label_inches(labels, 9.5) + 0.25
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
                ax.text(0.5, 0.5, "no pair left", ha="center", transform=ax.transAxes, color=MUTED)
                continue
            draw_bars(ax, top, xmax=xmax, fontsize=9.5)
            legend = ax.get_legend()
            if legend is not None:
                legend.remove()
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
                plain_text(
                    f"{'≠ ' if odd else ''}'{policy}' merges {data.pair_label(step.pair)}\n"
                    f"count {step.count}{tie}; {relation}"
                ),
                transform=ax.transAxes,
                ha="left",
                va="bottom",
                fontsize=11,
                color=DIFFERENT if odd else INK,
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
            Patch(facecolor=CHOSEN, edgecolor=INK, label="merged this round"),
            Patch(facecolor=TIED, edgecolor=INK, hatch="///", label="tied rival (same count)"),
            Patch(facecolor=OTHER, edgecolor=INK, label="other pair"),
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
        ax.plot([0, 1], [1 - line, 1 - line], color=INK, linewidth=0.8)
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
                text = "stopped" if pair is None else f"{data.pair_label(pair)}   {row.counts[policy]}{tie}"
                ax.text(x, y, "≠" if odd else "", fontsize=11, va="center", color=DIFFERENT, fontweight="bold")
                cell = ax.text(
                    x + 0.045,
                    y,
                    plain_text(text),
                    fontsize=10,
                    va="center",
                    family=MONO,
                    color=MUTED if pair is None else INK,
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
        ax.text(0, 1 - line * (len(rows) + 1.2), wrap(footer, 200), fontsize=9, color=MUTED, va="top")


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
        return placeholder("tie_break_comparison")
    return TieBreakChart(_TieBreaks(word_freqs, num_merges, top_k=top_k, marker=marker))


def figure_at(*, round: int | None = None, **arguments: Any) -> Figure:
    """The comparison's figure at ``round`` (default: the first round at which the policies part, else the last),
    without a widget.

    Args:
        round: the round to draw.
        **arguments: :func:`tie_break_comparison`'s arguments.

    Raises:
        TypeError / ValueError: bad arguments. bpe_lab.traces.TraceMissing: no trace for these inputs.
    """
    model = _TieBreaks(**arguments)
    default = model.comparison.first_difference or max(model.rounds, 1)
    return model.draw(default if round is None else round)

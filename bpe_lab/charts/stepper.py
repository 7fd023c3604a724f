"""The apply stepper of 04: a word under a merge table, step by step, by rank (``apply_bpe``) and by replay.

:func:`apply_stepper` returns a slider over the steps. By rank, each step shows every adjacent pair's rank in the
table, the lowest chosen and merged, until no pair of the word is in the table; by replay, the word after each
rule of the table in learned order (a rule that finds nothing changes nothing). Both start from the same symbols,
so where the results differ the order of the merges alone made them differ; the verdict says whether they do.

From which data: for the tables the notebooks chart, the course's steps, a trace shipped in
``bpe_lab/data/traces/apply.json`` (:func:`bpe_lab.traces.apply_comparison`); for any other table (such as the
learner's own counterexample) the learner's ``apply_bpe`` and ``encode``: replay step by step as
``encode(word, merges[:k])``, by rank only the result of ``apply_bpe(word, merges)`` without its marker.

What it does not do: apply a table itself (no trace and no learner functions raises
:class:`bpe_lab.traces.TraceMissing`, naming the word and table); show the steps inside the learner's
``apply_bpe`` (only what it returns); draw while nbgrader executes the notebook.

Example (a notebook cell: 04's counterexample, traced)::

    from bpe_lab.charts import apply_stepper
    apply_stepper("abc", [("ab", "c"), ("a", "b")], marker=False)
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from .. import traces
from ..traces import Pair
from . import data
from .data import END_OF_WORD
from .drawing import CHOSEN, DIFFERENT, INK, MONO, MUTED, draw_tokens, html_pair, new_figure, plain_text, token_gap
from .skipped import grading, placeholder
from .widget import Chart

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["ApplyStepper", "apply_stepper", "figure_at"]


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
                f"Step {number} by rank: the adjacent pair with the lowest rank is {html_pair(step.chosen)} "
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
            plain_text(f"Applying a merge table to '{cmp.word}'"),
            x=0.02,
            y=1 - 0.2 * inch,
            ha="left",
            va="top",
            fontsize=15,
            fontweight="bold",
        )
        entries = [f"{rank}: {data.symbol_label(a)} + {data.symbol_label(b)}" for rank, (a, b) in enumerate(cmp.merges)]
        table = "   ".join(entries[:10]) + ("   …" if len(entries) > 10 else "")
        figure.text(
            0.02,
            1 - 0.62 * inch,
            plain_text(f"the table (rank: pair):   {table or '(empty)'}"),
            fontsize=11,
            va="top",
            family=MONO,
            color=INK,
        )
        marker = "with the end-of-word marker" if cmp.marker else "no end-of-word marker"
        result = (
            f"{self.names[0]}: {list(cmp.rank.result)!r}    {self.names[1]}: {list(cmp.replay.result)!r}"
            f"    → {'they differ' if cmp.differ else 'they agree'}"
        )
        figure.text(
            0.02,
            1 - 0.95 * inch,
            plain_text(f"both start from {' '.join(map(data.symbol_label, cmp.rank.start))} ({marker})"),
            fontsize=10.5,
            va="top",
            color=MUTED,
        )
        verdict = figure.text(
            0.02,
            1 - 1.28 * inch,
            plain_text(result),
            fontsize=11.5,
            va="top",
            family=MONO,
            color=DIFFERENT if cmp.differ else INK,
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
        ax.text(0, 1 - 0.45 / (rows + 0.9), note, transform=ax.transAxes, fontsize=9, color=MUTED, va="center")
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
            self._row_label(ax, y, label, color=INK, fontweight="bold" if index == shown - 1 else "normal")
            tokens = draw_tokens(ax, 0.2, y, symbols, highlight=highlight, fontsize=11, gid="rank")
            for gap, rank in enumerate(ranks):
                picked = gap in chosen
                text = ax.annotate(
                    "–" if rank is None else str(rank),
                    xy=(1, 0),
                    xycoords=tokens[gap],
                    xytext=(token_gap(11) / 2, -6),
                    textcoords="offset points",
                    ha="center",
                    va="top",
                    fontsize=8.5 if not picked else 9.5,
                    color=CHOSEN if picked else MUTED,
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
                    color=MUTED,
                )

    def _draw_replay(self, ax: Axes, number: int, rows: int) -> None:
        run = self.comparison.replay
        title, note = self.replay_text
        for index, y in self._panel(ax, title, note, number, rows, self.replay_rows):
            if index == 0:
                highlight: Sequence[int] = ()
                label, symbols, found = "start", run.start, True
            else:
                step = run.steps[index - 1]
                first, second = (data.symbol_label(symbol) for symbol in step.rule)
                label = f"rule {step.index}: {first} + {second}"
                symbols = step.after
                found = bool(step.positions)
                highlight = step.made
            self._row_label(ax, y, plain_text(label), family=MONO, color=INK if found else MUTED)
            if found:
                draw_tokens(ax, 0.36, y, symbols, highlight=highlight, fontsize=11, gid="replay")
            else:
                ax.text(
                    0.36,
                    y,
                    "not found: nothing changes",
                    transform=ax.transAxes,
                    fontsize=9.5,
                    va="center",
                    color=MUTED,
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
            text = f"Rule {step.index} {html_pair(step.rule)}: {found} (your encode, first {step.index + 1} rules)."
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
            self._row_label(ax, y, "result", color=INK, fontweight="bold")
            draw_tokens(ax, 0.2, y, self.comparison.rank.result, fontsize=11, gid="rank")


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
        return placeholder("apply_stepper")
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


def figure_at(*, step: int | None = None, **arguments: Any) -> Figure:
    """The stepper's figure at ``step`` (default: every step), without a widget.

    Args:
        step: the step to draw.
        **arguments: :func:`apply_stepper`'s arguments.

    Raises:
        TypeError / ValueError: bad arguments. bpe_lab.traces.TraceMissing: no trace and no learner functions.
    """
    model = _stepper(**arguments)
    return model.draw(model.count if step is None else step)

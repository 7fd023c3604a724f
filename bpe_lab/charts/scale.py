"""Charts of assignment 06 (training at scale): the learner's trainer against the plain loop, and compression.

* :func:`time_per_merge`: CPU milliseconds per merge of two trainers (the learner's ``train_fast`` and the
  notebook's plain loop) on the same chunk counts as the number of merges grows, on a log scale, with the ratio;
* :func:`compression`: bytes per token of a held-out text as the vocabulary grows, with the learner's own merges
  and streaming encoder (every smaller vocabulary is the first merges of the largest).

Both run the learner's functions, so they take a few seconds; each returns a widget holding a PNG (``png=`` also
writes it to a file, for viewers without widgets). While nbgrader executes a notebook (``NBGRADER_EXECUTION`` is
set) each returns a small placeholder at once. Unlike the other charts, these draw no trace of the course's: they
time and run the learner's own functions (and the notebook's plain loop), which is what they are about.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import ipywidgets as widgets
from matplotlib.ticker import FuncFormatter, NullFormatter

from .. import cputime
from .drawing import CHOSEN, DPI, OTHER, TIED, figure_png, new_figure, style_axes
from .skipped import grading, placeholder

__all__ = ["compression", "time_per_merge"]


CALL_LIMIT = 30.0
"""CPU seconds one run of the learner's trainer may take in a chart: past it the chart stops with a
:class:`TimeoutError` that names the trainer and the size (an endless loop costs seconds, not a frozen notebook)."""


def _cpu(fn: Callable[..., Any], *args: Any, what: str = "", limit: float | None = None) -> tuple[Any, float]:
    def stopped(kind: str, seconds: float) -> TimeoutError:
        name = getattr(fn, "__name__", "the trainer")
        return TimeoutError(f"{name} used more than {seconds:g} s of CPU time{what} (an endless loop?)")

    start = time.process_time()
    with cputime.limited(CALL_LIMIT if limit is None else limit, 0, stopped):
        value = fn(*args)
    return value, time.process_time() - start


def measure_trainers(
    fast: Callable[..., Any],
    plain: Callable[..., Any],
    chunk_counts: Mapping[bytes, int],
    merges: Sequence[int],
    plain_up_to: int,
) -> dict[str, Any]:
    """CPU seconds of ``fast`` and ``plain`` for each number of ``merges`` (``plain`` only up to ``plain_up_to``).

    Returns:
        ``{"merges": [...], "fast": [seconds...], "plain": [seconds or None...], "same": bool}``; ``same`` says
        whether the two gave the same merges at every size both ran.

    Raises:
        TimeoutError: a run of ``fast`` took more than :data:`CALL_LIMIT` seconds of CPU time (named: the trainer
            and the size).
    """
    out: dict[str, Any] = {"merges": list(merges), "fast": [], "plain": [], "same": True}
    for n in merges:
        made, seconds = _cpu(fast, dict(chunk_counts), 256 + n, what=f" for {n:,} merges")
        out["fast"].append(seconds)
        if n <= plain_up_to:
            expected, plain_seconds = _cpu(plain, dict(chunk_counts), 256 + n, limit=0)  # the course's loop
            out["plain"].append(plain_seconds)
            out["same"] = out["same"] and [tuple(p) for p in made] == [tuple(p) for p in expected]
        else:
            out["plain"].append(None)
    return out


def _plain_numbers(ax: Any, *, y: bool) -> None:
    """Tick labels of a log axis as plain numbers (800, 0.2), not powers."""
    plain = FuncFormatter(lambda value, _: f"{value:g}")
    ax.xaxis.set_major_formatter(plain)
    ax.xaxis.set_minor_formatter(NullFormatter())
    if y:
        ax.yaxis.set_major_formatter(plain)
        ax.yaxis.set_minor_formatter(FuncFormatter(lambda value, _: f"{value:g}" if f"{value:e}"[0] in "25" else ""))


def _save(image: bytes, png: str | Path | None) -> None:
    if png is not None:
        Path(png).write_bytes(image)


def time_per_merge(
    fast: Callable[..., Any],
    plain: Callable[..., Any],
    chunk_counts: Mapping[bytes, int],
    merges: Sequence[int] = (100, 200, 400, 800, 1600),
    *,
    plain_up_to: int = 800,
    required: float = 12.0,
    png: str | Path | None = None,
) -> widgets.Widget:
    """Milliseconds of CPU per merge of ``fast`` (yours) and ``plain`` as the number of merges grows (log scale).

    Args:
        fast, plain: ``trainer(chunk_counts, vocab_size)`` functions.
        chunk_counts: the counts both train on.
        merges: the numbers of merges measured.
        plain_up_to: the plain loop runs up to this many merges (its time per merge stays flat: it recounts every
            pair every round).
        required: the ratio the course's speed check asks for, drawn in the caption.
        png: also write the chart to this file.

    Example:
        >>> import os; os.environ["NBGRADER_EXECUTION"] = "autograde"
        >>> type(time_per_merge(None, None, {})).__name__
        'Skipped'
        >>> del os.environ["NBGRADER_EXECUTION"]
    """
    if grading():
        return placeholder("time_per_merge")
    data = measure_trainers(fast, plain, chunk_counts, merges, plain_up_to)
    figure = new_figure(7.0, 3.8)
    ax = figure.add_subplot(1, 1, 1)
    ns = data["merges"]
    ax.plot(ns, [1000 * s / n for s, n in zip(data["fast"], ns)], marker="o", color=CHOSEN, label="your train_fast")
    ran = [(n, s) for n, s in zip(ns, data["plain"]) if s is not None]
    ax.plot([n for n, _ in ran], [1000 * s / n for n, s in ran], marker="s", color=TIED, label="the plain loop")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(ns)
    ax.set_xlabel("merges")
    ax.set_ylabel("CPU milliseconds per merge (log)")
    _plain_numbers(ax, y=True)
    ax.legend(loc="upper right", fontsize=9)
    style_axes(ax)
    figure.tight_layout()
    image = figure_png(figure, DPI)
    _save(image, png)
    last, plain_last = ran[-1]
    ratio = plain_last / max(data["fast"][ns.index(last)], 1e-3)
    verdict = "enough" if ratio >= required else f"not yet the {required:g}x the course's speed check asks"
    same = "the same merges as the plain loop" if data["same"] else "OTHER MERGES than the plain loop"
    yours = data["fast"][ns.index(last)]
    text = (
        f"<small>At {last:,} merges on {len(chunk_counts):,} chunks: your trainer took {yours:.2f} s of CPU, "
        f"the plain loop {plain_last:.2f} s: <b>{ratio:.0f}x</b> faster ({verdict}); {same}.</small>"
    )
    return widgets.VBox([widgets.Image(value=image, format="png"), widgets.HTML(value=text)])


def bytes_per_token(
    merges: Sequence[tuple[bytes, bytes]],
    encode: Callable[..., Iterable[int]],
    lines: Sequence[str],
    pattern: str,
    sizes: Sequence[int],
) -> list[float]:
    """Bytes per token of ``lines`` (held out) encoded by ``encode(lines, merges[:size - 256], pattern, {})``."""
    total = sum(len(line.encode("utf-8")) for line in lines)
    return [
        total / max(1, sum(1 for _ in encode(iter(lines), list(merges[: size - 256]), pattern, {}))) for size in sizes
    ]


def compression(
    merges: Sequence[tuple[bytes, bytes]],
    encode: Callable[..., Iterable[int]],
    lines: Sequence[str],
    pattern: str,
    sizes: Sequence[int] = (256, 320, 384, 512, 768, 1024, 1536, 2048),
    *,
    png: str | Path | None = None,
) -> widgets.Widget:
    """Bytes per token of held-out ``lines`` as the vocabulary grows, with your merges and your streaming encoder.

    Example:
        >>> import os; os.environ["NBGRADER_EXECUTION"] = "autograde"
        >>> type(compression([], None, [], "")).__name__
        'Skipped'
        >>> del os.environ["NBGRADER_EXECUTION"]
    """
    if grading():
        return placeholder("compression")
    sizes = [s for s in sizes if s - 256 <= len(merges)]
    ratios = bytes_per_token(merges, encode, lines, pattern, sizes)
    figure = new_figure(7.0, 3.6)
    ax = figure.add_subplot(1, 1, 1)
    ax.plot(sizes, ratios, marker="o", color=CHOSEN, label="your merges, held-out text")
    for size, ratio in zip(sizes, ratios):
        ax.annotate(f"{ratio:.2f}", (size, ratio), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=8)
    ax.axhline(1.0, color=OTHER, linestyle=":", label="bytes alone")
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes)
    ax.set_xlabel("vocabulary size (256 bytes + merges)")
    ax.set_ylabel("bytes per token")
    _plain_numbers(ax, y=False)
    ax.legend(loc="lower right", fontsize=9)
    style_axes(ax)
    figure.tight_layout()
    image = figure_png(figure, DPI)
    _save(image, png)
    total = sum(len(line.encode("utf-8")) for line in lines)
    text = f"<small>{total:,} bytes held out; {', '.join(f'{s}: {r:.2f}' for s, r in zip(sizes, ratios))}.</small>"
    return widgets.VBox([widgets.Image(value=image, format="png"), widgets.HTML(value=text)])

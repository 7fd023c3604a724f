"""Reading a chart's figure: its axes by gid, the bars and texts drawn, a PNG's size, and the bars a round must show.

The charts are matplotlib figures on the Agg canvas; the tests read the artists of the figure (bars, labels,
colours, hatches, texts) and compare them with bpe_ref.core / bpe_ref.steps.
"""

from __future__ import annotations

import struct

from matplotlib.colors import to_hex

from bpe_lab.charts import data
from bpe_lab.charts.drawing import CHOSEN, OTHER, TIED

SEED_000 = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
COUNTEREXAMPLE = [("ab", "c"), ("a", "b")]


def axes_by_gid(figure, gid):
    found = [ax for ax in figure.axes if ax.get_gid() == gid]
    assert len(found) == 1, [ax.get_gid() for ax in figure.axes]
    return found[0]


def bars_of(ax):
    return [patch for patch in ax.patches if (patch.get_gid() or "").startswith("bar:")]


def texts_of(ax, prefix):
    return [text for text in ax.texts if (text.get_gid() or "").startswith(prefix)]


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def expected_bars(step, k):
    """The top-k bars, computed here from the trace round independently of steps.top_pairs."""
    order = list(step.pair_counts)
    ranked = sorted(order, key=lambda p: (p != step.pair, -step.pair_counts[p], p not in step.tied, order.index(p)))
    picked = sorted(ranked[:k], key=lambda p: (-step.pair_counts[p], order.index(p)))
    return [
        (p, step.pair_counts[p], "chosen" if p == step.pair else "tied" if p in step.tied else "other") for p in picked
    ]


def check_bars(ax, step, k):
    expected = expected_bars(step, k)
    bars = bars_of(ax)
    assert [round(bar.get_width()) for bar in bars] == [count for _, count, _ in expected]
    labels = [label.get_text() for label in ax.get_yticklabels()]
    assert labels == [data.pair_label(pair) for pair, _, _ in expected]
    for bar, label, (_, _, role) in zip(bars, ax.get_yticklabels(), expected):
        assert bar.get_gid() == f"bar:{role}"
        colour = {"chosen": CHOSEN, "tied": TIED, "other": OTHER}[role]
        assert to_hex(bar.get_facecolor()) == colour.lower()
        assert bool(bar.get_hatch()) == (role == "tied")  # a second cue besides colour
        assert (label.get_fontweight() == "bold") == (role == "chosen")
    counts = texts_of(ax, "count:")
    assert [text.get_text().split()[0] for text in counts] == [str(count) for _, count, _ in expected]
    assert [text.get_gid() for text in counts] == [f"count:{role}" for _, _, role in expected]
    assert sum(text.get_text().endswith("merged") for text in counts) == 1

"""The charts of the notebooks, one per module; import them from here.

* :mod:`~bpe_lab.charts.explorer`: :func:`pair_explorer`, the pair counts of each training round (01-03);
* :mod:`~bpe_lab.charts.comparison`: :func:`tie_break_comparison`, the three tie-breaks side by side (03);
* :mod:`~bpe_lab.charts.stepper`: :func:`apply_stepper`, a merge table applied by rank and by replay (04);
* :mod:`~bpe_lab.charts.bytes`: :func:`byte_rounds`, :func:`token_boundaries`, :func:`bytes_per_token` and
  :func:`genesis_text`, the charts of byte-level BPE (05);
* :mod:`~bpe_lab.charts.scale`: :func:`time_per_merge` and :func:`compression`, the learner's trainer against the
  plain loop and bytes per token as the vocabulary grows (06; they run the learner's functions, no trace);
* :func:`save_png` and :func:`render_png` (:mod:`~bpe_lab.charts.png`): a chart as a PNG file.

What they share: :mod:`~bpe_lab.charts.data` (what a chart shows of a trace, as plain records, and the learner's
functions checked against it), :mod:`~bpe_lab.charts.drawing` (the palette and the matplotlib helpers) and
:mod:`~bpe_lab.charts.widget` (the slider-and-picture widget, and the placeholder shown while nbgrader executes).

No chart trains, chooses a pair or applies a table: they draw the course's own runs, shipped as traces in
``bpe_lab/data/traces`` (:mod:`bpe_lab.traces`), and call the learner's functions only to compare them with those.

Example (a notebook cell; the widget is the cell's value)::

    from bpe_lab.charts import pair_explorer
    pair_explorer({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10, tie_break="first")
"""

from .bytes import byte_rounds, bytes_per_token, genesis_text, token_boundaries
from .comparison import TieBreakChart, tie_break_comparison
from .explorer import PairExplorer, pair_explorer
from .png import render_png, save_png
from .scale import compression, time_per_merge
from .stepper import ApplyStepper, apply_stepper
from .widget import Chart, grading

__all__ = [
    "ApplyStepper",
    "Chart",
    "PairExplorer",
    "TieBreakChart",
    "apply_stepper",
    "byte_rounds",
    "bytes_per_token",
    "compression",
    "genesis_text",
    "grading",
    "pair_explorer",
    "render_png",
    "save_png",
    "tie_break_comparison",
    "time_per_merge",
    "token_boundaries",
]

"""Tests of bpe_lab.charts.skipped: while nbgrader executes, the chart builders are notes and load no chart."""

import json
import os
import subprocess
import sys

from bpe_lab import charts
from bpe_lab.charts.skipped import CHARTS


def test_a_graded_kernel_loads_no_chart_and_gets_every_note(tmp_path):
    """While nbgrader executes, the notebooks' chart imports and calls load neither ipywidgets nor matplotlib (half
    a second of CPU per graded notebook) and every builder returns its note; outside grading the real builder."""
    script = (
        "import json, sys\n"
        "import bpe_lab.charts as charts\n"
        "from bpe_lab.charts import genesis_text\n"
        f"notes = {{name: getattr(charts, name)({{}}, 1).value for name in {sorted(CHARTS)!r}}}\n"
        "loaded = [m for m in ('ipywidgets', 'matplotlib') if m in sys.modules]\n"
        "print(json.dumps([notes, genesis_text(), loaded]))\n"
    )
    env = {**os.environ, "NBGRADER_EXECUTION": "autograde"}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    notes, text, loaded = json.loads(done.stdout)
    assert loaded == []
    assert text == ""
    assert notes == {name: charts.skipped.placeholder(name).value for name in CHARTS}
    assert all(CHARTS[name] in note for name, note in notes.items())
    env.pop("NBGRADER_EXECUTION")
    real = subprocess.run(
        [sys.executable, "-c", "import sys\nfrom bpe_lab.charts import genesis_text, pair_explorer\n"
         "print(len(genesis_text()), pair_explorer.__module__, 'ipywidgets' in sys.modules)"],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert real.stdout.split() == ["196818", "bpe_lab.charts.explorer", "True"]

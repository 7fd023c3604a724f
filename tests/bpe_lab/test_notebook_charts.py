"""Every chart cell of every notebook runs with the learner's toolkit alone: ``bpe_ref`` (the answer key) and
``tiktoken`` made unimportable in the kernel by an import hook, as in a learner's install.

Each notebook runs top to bottom in a fresh kernel (nbclient), errors allowed: the release notebooks' test cells
fail on the stubs, and the solutions' hidden tests need the grader. The chart and demo cells (``grade_id``
``chart_*`` / ``demo_*``) must have no error, and the charts must be widgets, not the grading placeholder. The
release notebooks show the charts on stubs (the course's traces alone); the solutions show them on working
functions (compared with the traces).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import nbformat
import pytest

from . import learner_env

nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*/*.ipynb")) + sorted((ROOT / "solutions").glob("*/*.ipynb"))
BLOCKED = ("bpe_ref", "tiktoken")
WIDGET = "application/vnd.jupyter.widget-view+json"

BLOCK = f"""
import importlib.abc, sys

class _Blocked(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {BLOCKED!r}:
            raise ModuleNotFoundError(f"{{name}} is not installed (blocked by the test)", name=name)
        return None

sys.meta_path.insert(0, _Blocked())
assert not any(name.split(".")[0] in {BLOCKED!r} for name in sys.modules)
"""
AFTER = f"""
import sys
print(sorted(name for name in sys.modules if name.split(".")[0] in {BLOCKED!r}))
"""


def grade_id(cell) -> str:
    return cell.metadata.get("nbgrader", {}).get("grade_id", "")


def errors(cell) -> list[str]:
    return [f"{out.get('ename')}: {out.get('evalue')}" for out in cell.get("outputs", []) if out.output_type == "error"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}")
def test_chart_cells_run_without_the_answer_key(path, tmp_path, monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    shutil.copytree(path.parent, tmp_path / "work")
    nb = nbformat.read(path, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(BLOCK))
    nb.cells.append(nbformat.v4.new_code_cell(AFTER))
    client = nbclient.NotebookClient(
        nb,
        timeout=600,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(tmp_path / "work")}},
    )
    client.execute()
    assert not errors(nb.cells[0]), errors(nb.cells[0])
    charts = [cell for cell in nb.cells if cell.cell_type == "code" and grade_id(cell).startswith(("chart", "demo"))]
    assert charts, "no chart cell found"
    for cell in charts:
        assert not errors(cell), f"{grade_id(cell)}: {errors(cell)}"
        text = "".join(out.get("text", "") for out in cell.outputs if out.output_type == "stream")
        assert "skipped while nbgrader executes" not in text
        if grade_id(cell).startswith("chart"):
            shown = [out for out in cell.outputs if out.output_type in ("execute_result", "display_data")]
            if not shown and path.is_relative_to(ROOT / "notebooks") and learner_env.runs_the_learners_own(cell):
                assert "not done yet" in text, f"{grade_id(cell)} says nothing on the stubs: {cell.outputs}"
                continue
            assert shown and WIDGET in shown[-1]["data"], f"{grade_id(cell)} shows no widget: {cell.outputs}"
    blocked_imported = "".join(out.get("text", "") for out in nb.cells[-1].outputs)
    assert blocked_imported.strip() == "[]", blocked_imported
    # the explorers given the learner's functions: stubs in the release, the solutions match the course's run
    state = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    html = [model["state"].get("value") for model in state.values() if model.get("model_name") == "HTMLModel"]
    given = sum(
        "count_pairs=" in c.source or "best_pair=" in c.source for c in charts if grade_id(c) == "chart_explorer"
    )
    expected = "the course&#x27;s run in every round" if path.is_relative_to(ROOT / "solutions") else "still a stub"
    assert sum(expected in value for value in html if isinstance(value, str)) == given, html

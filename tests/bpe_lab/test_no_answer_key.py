"""The charts of the learner's toolkit hold no answer key: no graded function defined, no import of the reference,
the grader or tiktoken, and every chart module imports with those made unimportable."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# every module of the charts and the data they read (harness/selfcheck: tested on their own)
CHART_FILES = [
    ROOT / "bpe_lab" / "traces.py",
    ROOT / "bpe_lab" / "gpt4.py",
    *sorted((ROOT / "bpe_lab" / "charts").glob("*.py")),
]
CHART_MODULES = [
    ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__") for path in CHART_FILES
]
GRADED = {
    "get_pair_counts", "merge", "count_pairs", "merge_vocab", "train_bpe", "best_pair", "learn_bpe", "bpe_train",
    "apply_bpe", "encode", "disagreeing_merges", "pretokenize", "train_bytes", "encode_bytes", "decode_bytes",
    "encode_ranks",
}  # fmt: skip
FORBIDDEN = ("bpe_ref", "autograder", "tiktoken")


@pytest.mark.parametrize("path", CHART_FILES, ids=CHART_MODULES)
def test_no_graded_function_and_no_forbidden_import(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    defined = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}
    assert not defined & GRADED
    imported = [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    imported += [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    assert not [module for module in imported if module.split(".")[0] in FORBIDDEN]


def test_the_chart_modules_import_and_draw_with_the_answer_key_unimportable():
    code = f"""
import importlib.abc, sys
class Blocked(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {FORBIDDEN!r}:
            raise ModuleNotFoundError(name)
sys.meta_path.insert(0, Blocked())
import importlib
for name in {CHART_MODULES!r}:
    importlib.import_module(name)
from bpe_lab.charts import pair_explorer
chart = pair_explorer({{"low": 5, "lower": 2, "newest": 6, "widest": 3}}, 10, tie_break="first")
assert chart.png()[:4] == b"\\x89PNG"
print(sorted(m for m in sys.modules if m.split(".")[0] in {FORBIDDEN!r}))
"""
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "MPLBACKEND": "Agg"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"

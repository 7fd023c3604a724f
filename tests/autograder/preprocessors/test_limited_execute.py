"""autograder.preprocessors.limited_execute: a kernel that dies after the notebook's time is up costs no replay."""

import tempfile
import time

import nbformat
import pytest

from autograder.isolation.sandbox import bubblewrap
from autograder.preprocessors.limited_execute import LimitedExecute

pytestmark = pytest.mark.slow
NOTEBOOK_S = 20


def test_a_kernel_death_at_the_deadline_is_not_followed_by_a_replay_of_every_cell():
    """Nineteen cells of just under a second, then one that kills the kernel as the notebook's 20 s run out:
    replaying the nineteen (as the grader did) would cost another 18 s; the notebook must end near its deadline."""
    cells = [nbformat.v4.new_code_cell("import time\ntime.sleep(0.95)") for _ in range(19)]
    cells.append(nbformat.v4.new_code_cell("import os, time\ntime.sleep(0.9)\nos._exit(1)"))
    cells.append(nbformat.v4.new_code_cell("print('after')"))
    nb = nbformat.v4.new_notebook(cells=cells)
    execute = LimitedExecute(timeout=15, notebook_timeout=NOTEBOOK_S)
    if bubblewrap() is None:
        from traitlets.config import Config

        config = Config()
        config.LimitedKernelManager.sandbox = "off"
        execute = LimitedExecute(timeout=15, notebook_timeout=NOTEBOOK_S, config=config)
    start = time.monotonic()
    nb, _ = execute.preprocess(nb, {"metadata": {"path": tempfile.mkdtemp()}})
    spent = time.monotonic() - start
    assert spent < NOTEBOOK_S + 12, spent  # generous: kernel start and load; a replay would add 18 s
    assert any(o.get("ename") == "NotebookTimeout" for o in nb.cells[-1].outputs), nb.cells[-1].outputs

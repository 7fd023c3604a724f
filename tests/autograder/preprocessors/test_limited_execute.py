"""The grading kernel's time limits (LimitedExecute): CPU time per cell and per notebook, the wall clock only as a
backstop, a cell past a limit costs only itself, and a kernel that dies after the notebook's time is up costs no
replay."""

import tempfile
import time

from nbformat.v4 import new_code_cell, new_notebook
from traitlets.config import Config

from autograder.preprocessors.limited_execute import LimitedExecute


def executed(sources: list[str], **limits: float):
    """The notebook of ``sources`` run by LimitedExecute (sandbox when it works) under ``limits``; its cells'
    outputs as ``[(ename or None, evalue or printed text)]`` per cell."""
    config = Config()
    config.LimitedKernelManager.sandbox = "auto"
    for name, value in limits.items():
        section, _, trait = name.partition(".")
        config[section][trait] = value
    nb = new_notebook(cells=[new_code_cell(source) for source in sources])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    done, _ = LimitedExecute(config=config).preprocess(nb, {"metadata": {"path": None}})
    return [[(o.get("ename"), o.get("evalue", o.get("text"))) for o in cell.outputs] for cell in done.cells]


SPIN_IGNORING_INTERRUPTS = """
try:
    while True:
        pass
except KeyboardInterrupt:
    while True:
        pass
"""


def test_a_cell_is_stopped_by_its_cpu_time_and_the_rest_runs_on():
    outputs = executed(
        ["x = 1", "while True:\n    pass", "print(x + 1)", SPIN_IGNORING_INTERRUPTS, "print(x)"],
        **{"LimitedExecute.cell_timeout": 1.0},  # the wall clock: 600 s a cell; 5 s to end once interrupted
    )
    assert outputs[1] == [
        ("KeyboardInterrupt", ""),
        ("CellTimeout", "this cell used more than 1 s of CPU time (an endless loop?); it was interrupted"),
    ]
    assert outputs[2] == [(None, "2\n")]  # the kernel kept its state
    assert outputs[3] == [  # it ignored the interrupt: its kernel was killed, and the cells above run again
        ("CellTimeout", "this cell used more than 1 s of CPU time (an endless loop?); the kernel was restarted")
    ]
    assert outputs[4] == [(None, "1\n")]


def test_a_cell_that_sleeps_is_stopped_by_the_wall_clock_and_says_so():
    outputs = executed(["import time\ntime.sleep(600)", "print('next')"], **{"Execute.timeout": 2})
    assert outputs[0][-1] == (
        "CellTimeout",
        "this cell did not finish within 2 s of wall time while using little CPU (sleeping or waiting?); it was "
        "interrupted",
    )
    assert outputs[1] == [(None, "next\n")]


THREADS = """
import threading
stop = False
def spin():
    while not stop:
        pass
threads = [threading.Thread(target=spin, daemon=True) for _ in range(2)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
"""


def test_the_notebook_cpu_budget_counts_the_threads_of_its_cells_and_stops_the_cells_after_it():
    outputs = executed(
        ["x = 1", THREADS, "print(x)"],
        **{"LimitedExecute.cell_timeout": 60.0, "LimitedExecute.notebook_timeout": 4.0, "Execute.timeout": 120},
    )
    assert outputs[1][-1][0] == "NotebookTimeout"
    assert outputs[1][-1][1].startswith("the notebook used up its 4 s of CPU time; ")
    assert outputs[2] == [("NotebookTimeout", "not run: the notebook used up its 4 s of CPU time")]


NOTEBOOK_S = 20


def test_a_kernel_death_at_the_deadline_is_not_followed_by_a_replay_of_every_cell():
    """Nineteen cells of just under a second of sleep, then one that kills the kernel as the notebook's 20 s of wall
    time run out: replaying the nineteen (as the grader did) would cost another 18 s; the notebook ends near its
    deadline."""
    cells = [new_code_cell("import time\ntime.sleep(0.95)") for _ in range(19)]
    cells.append(new_code_cell("import os, time\ntime.sleep(0.9)\nos._exit(1)"))
    cells.append(new_code_cell("print('after')"))
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    config = Config()
    config.LimitedKernelManager.sandbox = "auto"
    execute = LimitedExecute(timeout=15, notebook_wall_timeout=NOTEBOOK_S, config=config)
    start = time.monotonic()
    nb, _ = execute.preprocess(nb, {"metadata": {"path": tempfile.mkdtemp()}})
    spent = time.monotonic() - start
    assert spent < NOTEBOOK_S + 30, spent  # a backstop for a loaded machine: a replay would add 18 s of sleep
    assert any(o.get("ename") == "NotebookTimeout" for o in nb.cells[-1].outputs), nb.cells[-1].outputs

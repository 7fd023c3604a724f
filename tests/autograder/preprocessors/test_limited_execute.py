"""The grading kernel's time limits (LimitedExecute): CPU time per cell and per notebook, the wall clock only as a
backstop, a cell past a limit costs only itself, and the replay after a kernel's death stops at the notebook's
deadline."""

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


NOTEBOOK_S = 30
SLOW_REPLAY_S = 3.0


def test_a_kernel_death_near_the_deadline_is_followed_by_a_replay_that_stops_at_the_deadline(monkeypatch):
    """Ten cells that take half a second when first run and three seconds when replayed, then one that kills the
    kernel six seconds before the notebook's wall time runs out (the cells read the deadline, so the kernel's start
    time does not matter): replaying all ten would take 30 s past the deadline. Counted, not timed: the replay
    starts at most the cells that fit in those six seconds, and the rest of the notebook is not run."""
    from nbclient import NotebookClient

    replayed: list[int] = []
    original = NotebookClient.async_execute_cell

    async def spy(self, cell, cell_index, execution_count=None, store_history=True):
        if not store_history:  # the replay runs the cells above without storing their history
            replayed.append(cell_index)
        return await original(self, cell, cell_index, execution_count, store_history)

    monkeypatch.setattr(NotebookClient, "async_execute_cell", spy)
    deadline = time.time() + NOTEBOOK_S
    above = f"import time\ntime.sleep(0.5 if time.time() < {deadline - 6} else {SLOW_REPLAY_S})"
    death = f"import os, time\ntime.sleep(max(0.0, {deadline - 6} - time.time()))\nos._exit(1)"
    cells = [new_code_cell(above) for _ in range(10)] + [new_code_cell(death), new_code_cell("print('after')")]
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    config = Config()
    config.LimitedKernelManager.sandbox = "auto"
    execute = LimitedExecute(timeout=60, notebook_wall_timeout=NOTEBOOK_S, config=config)
    start = time.monotonic()
    nb, _ = execute.preprocess(nb, {"metadata": {"path": tempfile.mkdtemp()}})
    spent = time.monotonic() - start
    assert [o.get("ename") for o in nb.cells[10].outputs] == ["KernelDied"], nb.cells[10].outputs
    assert len(replayed) <= 6 / SLOW_REPLAY_S + 1, replayed  # an unbounded replay starts all ten
    assert [o.get("ename") for o in nb.cells[11].outputs] == ["NotebookTimeout"], nb.cells[11].outputs
    assert spent < NOTEBOOK_S + 20, spent  # a backstop: an unbounded replay adds 30 s of sleep


def test_a_grading_kernel_keeps_no_input_history_and_runs_cells_as_usual():
    """KERNEL_OPTIONS: IPython's history database is off in the grading kernel (nothing written, no thread); cells
    still get their numbers and ``In`` still holds them."""
    outputs = executed(
        [
            "x = 2",
            "ip = get_ipython()\nprint(ip.history_manager.enabled, ip.execution_count > 1, 'x = 2' in In, x * 21)",
        ]
    )
    assert outputs[1] == [(None, "False True True 42\n")]

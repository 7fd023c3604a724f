"""bpe_lab.remote and bpe_lab.worker: the learner's code in a second process, each call limited by its CPU time."""

import pytest

from bpe_lab import harness
from bpe_lab.remote import Session

CODE = """
import threading, time
def spin(x):
    while True:
        pass
def in_threads(x):
    threads = [threading.Thread(target=spin, args=(x,), daemon=True) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
def nap(x):
    time.sleep(600)
def slow_but_right(x):
    time.sleep(0.5)
    return x + 1
"""


@pytest.fixture
def functions(tmp_path):
    with Session(tmp_path) as session:
        assert session.run([("cell 1", CODE)]) == []
        yield session.functions(["spin", "in_threads", "nap", "slow_but_right"])


@pytest.mark.parametrize("name", ["spin", "in_threads"])
def test_an_endless_call_is_stopped_by_its_cpu_time_in_the_worker_threads_and_all(functions, name):
    outcome = harness.call(functions[name], (1,), 0.3)
    assert (outcome.timeout.kind, outcome.timeout.seconds) == ("cpu", 0.3)  # the wall clock's backstop says "wall"


def test_a_call_that_sleeps_is_stopped_by_the_wall_clock_and_one_that_waits_a_while_returns(functions):
    outcome = harness.call(functions["nap"], (1,), 0.2)
    assert (outcome.timeout.kind, outcome.timeout.seconds) == ("wall", 0.2 * 10)
    assert harness.call(functions["slow_but_right"], (1,), 0.2).value == 2  # 0.5 s of wall time, little CPU

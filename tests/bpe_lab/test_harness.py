"""bpe_lab.harness's time limits: each call is limited by the CPU time it uses, the wall clock only as a backstop."""

import contextlib
import copy
import threading
import time

import pytest

from bpe_lab import harness


def spin(*args):
    while True:
        pass


@pytest.fixture(autouse=True)
def _no_timeouts_recorded():
    harness.forget_timeouts()
    yield
    harness.forget_timeouts()


def test_a_call_that_waits_longer_than_its_cpu_limit_returns_its_value():
    def slow_but_right(x):
        time.sleep(0.5)  # the wall clock runs on, the CPU time hardly
        return x + 1

    outcome = harness.call(slow_but_right, (1,), 0.2, name="slow_but_right")
    assert (outcome.value, outcome.timeout, outcome.error) == (2, None, None)


def test_an_endless_loop_is_stopped_by_its_cpu_time_and_not_called_again():
    first = harness.call(spin, (1,), 0.2, name="spin", expected=2)
    assert first.timeout is not None and first.timeout.kind == "cpu" and first.timeout.seconds == 0.2
    again = harness.call(spin, (3,), 30, name="spin")  # not called: it would loop for 30 s
    assert again.earlier == ("spin(1)", "2") and again.timed_out
    failure = harness.verdict("spin", (1,), (1,), first, 2, harness.judge_pair, time_limit=0.2)
    assert str(failure).splitlines()[2] == "  returned: nothing: it used more than 0.2 s of CPU time (an endless loop?)"


def test_a_call_that_sleeps_is_stopped_by_the_wall_clock_says_so_and_may_be_called_again():
    def nap(x):
        if x:
            time.sleep(60)
        return x

    outcome = harness.call(nap, (1,), 2, name="nap", wall_limit=0.3)
    assert outcome.timeout is not None and outcome.timeout.kind == "wall"
    failure = harness.verdict("nap", (1,), (1,), outcome, 1, harness.judge_pair)
    assert str(failure).splitlines()[2] == (
        "  returned: nothing: it did not return within 0.3 s of wall time while using little CPU (sleeping or waiting?)"
    )
    assert harness.timed_out_before(nap) is None
    assert harness.call(nap, (0,), 2, name="nap").value == 0


def test_the_cpu_time_of_the_threads_a_call_starts_counts():
    stop = threading.Event()

    def work():
        while not stop.is_set():
            pass

    threads = [threading.Thread(target=work, daemon=True) for _ in range(2)]

    def in_threads(x):
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    try:
        outcome = harness.call(in_threads, (1,), 0.3)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert outcome.timeout is not None and outcome.timeout.kind == "cpu"


def test_a_limit_is_visible_to_what_the_call_runs_and_gone_after_it():
    seen = harness.call(lambda: harness.active_limit(), (), 1.5, wall_limit=9).value
    assert seen == harness.TimeLimit(1.5, 9) and harness.active_limit() is None


def test_a_call_inside_a_limited_call_keeps_the_outer_limit():
    inner = harness.call(lambda: harness.call(harness.active_limit, (), 50).value, (), 0.5).value
    assert inner == harness.TimeLimit(0.5, harness.DEFAULT_WALL_LIMIT)


def test_the_offset_of_a_bad_byte_must_be_named_by_the_message_not_by_the_file_s_path():
    """The file is written in a temporary folder with a random name: digits there never pass for the offset."""
    from bpe_lab.codec import FileBytes

    args = (FileBytes("corpus.txt", b"one<|endoftext|>two<|endoftext|>thr\xe9e"), "", {}, 3)  # bad byte at 35
    expected = harness.Raised(ValueError("at offset 35"))

    def judged(message: str) -> str | None:
        return harness.judge_counts_or_error(harness.Raised(ValueError(message)), expected, args)

    assert judged("/tmp/bpe-files-35q_x/corpus.txt: the byte at offset 16 is not UTF-8") is not None
    assert judged("'C:\\Temp\\bpe-files-35\\corpus.txt': offset 16") is not None
    assert judged("/tmp/bpe-files-35q_x/corpus.txt: the byte at offset 35 is not UTF-8") is None
    assert judged("/tmp/bpe-files-q/corpus.txt:35: not UTF-8") is None


def _shape(value, originals: set[int]):
    """``value``'s types and contents, all the way down; a mutable part that is one of ``originals`` shows as such."""
    if isinstance(value, (list, dict, set, bytearray)) and id(value) in originals:
        return ("SHARED WITH THE ORIGINAL", type(value).__name__)
    if isinstance(value, dict):
        return (type(value), [(_shape(k, originals), _shape(v, originals)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return (type(value), [_shape(v, originals) for v in value])
    if isinstance(value, (set, frozenset)):
        return (type(value), sorted(map(repr, value)))
    return (type(value), repr(value))


def _mutable_ids(value, found: set[int]) -> set[int]:
    if isinstance(value, (list, dict, set, bytearray)):
        found.add(id(value))
    if isinstance(value, dict):
        for k, v in value.items():
            _mutable_ids(k, found), _mutable_ids(v, found)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for v in value:
            _mutable_ids(v, found)
    return found


def test_fresh_copy_of_every_checks_inputs_and_answers_is_what_a_deep_copy_gives_and_shares_nothing():
    """Every case of every check (the fixed ones and one seed's generated ones) and the reference's answer to it."""
    from autograder.checks import a01, a02, a03, a04, a05, a06

    specs = [s for module in (a01, a02, a03, a04, a05, a06) for s in module.SPECS.values()]
    seen = 0
    for spec in specs:
        for part in spec.parts:
            for case in spec.parts[part].cases()[:40]:
                values = [case.args]
                with contextlib.suppress(Exception):  # a case whose answer is an error: its inputs alone
                    values.append(spec.reference_of(part)(*harness.fresh_copy(case.args)))
                for value in values:
                    try:
                        deep = copy.deepcopy(value)
                    except TypeError:  # a generator (the streaming encoder's answer): neither copies it
                        with pytest.raises(TypeError):
                            harness.fresh_copy(value)
                        continue
                    copied = harness.fresh_copy(value)
                    assert _shape(copied, _mutable_ids(value, set())) == _shape(deep, set()), (
                        spec.function, part, case.args)  # fmt: skip
                    seen += 1
    assert seen > 1000


def test_fresh_copy_deep_copies_what_pickle_cannot_copy():
    inner = [1, 2]
    value = (lambda: 0, inner, {"k": inner})
    copied = harness.fresh_copy(value)
    assert copied[0] is value[0] and copied[1] == inner and copied[1] is not inner
    assert copied[2]["k"] is copied[1]  # shared inside the value: shared inside the copy, as deepcopy keeps it

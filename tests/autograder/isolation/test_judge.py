"""The out-of-kernel judge: a worker runs the student's code, the grader runs the test cells on plain data."""

import collections
import contextlib
import os
import shutil
import signal
import tempfile
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from nbformat.v4 import new_code_cell

from autograder.course import sample_class
from autograder.isolation.judge import (
    Opaque,
    OutOfTime,
    ProcessDied,
    Session,
    StudentError,
    decode_answer,
    free_names,
    judge_cells,
    run_test_cell,
    student_exception,
    worker_command,
)
from autograder.isolation.sandbox import bubblewrap, sandbox_argv
from bpe_lab import harness
from bpe_lab.codec import pack, unpack

COURSE = Path(__file__).resolve().parents[3]
GOOD_MERGE = sample_class.students()["01_pair_counts_and_merge"]["correct-loops"]["merge"]


def session(**kwargs):
    kwargs.setdefault("call_timeout", 3.0)
    kwargs.setdefault("cell_timeout", 5.0)
    return Session(worker_command(1024**3, 60, None), **kwargs)


def loaded(*sources, **kwargs):
    s = session(**kwargs)
    for index, source in enumerate(sources):
        s.run(f"cell-{index}", source)
    return s


plain = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5) | st.floats(allow_nan=False),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=3) | st.tuples(st.text(max_size=2), st.integers()), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(plain)
def test_plain_data_survives_the_trip(value):
    for back in (unpack(pack(value)), decode_answer(pack(value))):  # to the worker, and back to the grader
        assert back == value and type(back) is type(value)
        if isinstance(value, dict):
            assert list(back) == list(value)  # order kept


@pytest.mark.parametrize(
    "answer",
    [
        {"d": [[k * (2**61 - 1), 0] for k in range(1, 5000)]},  # keys built to share one hash
        {"s": [k * (2**61 - 1) for k in range(1, 5000)]},
        {"s": [k * (2**61 - 1) for k in range(1, 100)] + list(range(100, 300))},  # only some collide
        [0] * 300_000,  # more values than an answer may hold
        {"d": [[[1], 2]]},  # a list as a key
        {"x": []},
        {"t": [1], "d": []},
    ],
)
def test_an_answer_built_to_stall_or_confuse_the_grader_is_refused(answer):
    with pytest.raises(ValueError):
        decode_answer(answer)


def test_mappings_arrive_as_dicts_and_odd_values_are_refused():
    counter = collections.Counter({("a", "b"): 2, ("b", "c"): 1})
    assert unpack(pack(counter)) == {("a", "b"): 2, ("b", "c"): 1}
    assert type(unpack(pack(counter))) is dict
    with pytest.raises(Exception, match="generator"):
        pack(x for x in [])


def test_free_names_are_what_the_cell_reads_before_binding():
    assert free_names("counts = count_pairs(vocab)\nassert counts == {}") == ["count_pairs", "vocab"]
    assert free_names("from autograder.checks import check_merge\ncheck_merge(merge)") == ["merge"]
    assert free_names("x = f(x)") == ["f", "x"]
    assert free_names("print(len([1]))") == []


def test_built_in_exceptions_come_back_as_themselves_and_others_by_name():
    assert type(student_exception({"type": "ValueError", "message": "bad"})) is ValueError
    exit_ = student_exception({"type": "SystemExit", "message": "1"})
    assert isinstance(exit_, StudentError) and type(exit_).__name__ == "SystemExit"
    assert type(student_exception({"type": "not a name!", "message": ""})).__name__ == "Error"


def test_a_correct_function_passes_a_hidden_check():
    with loaded(GOOD_MERGE) as s:
        assert run_test_cell(s, "from autograder.checks import check_merge\ncheck_merge(merge, 'overlaps')") == []


def test_a_wrong_function_fails_with_the_smallest_input():
    wrong = GOOD_MERGE.replace("i += 2", "i += 1")
    with loaded(wrong) as s:
        (error,) = run_test_cell(s, "from autograder.checks import check_merge\ncheck_merge(merge, 'overlaps')")
    assert error.ename == "CheckFailed" and "merge(" in error.evalue and "expected" in error.evalue


def test_an_object_with_a_lying_eq_arrives_as_plain_data():
    lying = (
        GOOD_MERGE + "\nclass Yes(list):\n    def __eq__(self, o):\n        return True\nmerge2 = lambda *a: Yes([0])"
    )
    with loaded(lying) as s:
        (error,) = run_test_cell(s, "assert merge2([1, 2], (1, 2), 9) == [9]")
    assert error.ename == "AssertionError"


def test_a_value_that_is_not_plain_data_is_opaque():
    with loaded("def gen(ids):\n    return (i for i in ids)") as s:
        got = s.call("gen", ([1],), {})
    assert isinstance(got, Opaque) and type(got).__name__ == "generator" and got != [1]


def test_tampering_in_the_worker_cannot_reach_the_grader():
    tricks = """
import builtins, sys
builtins.sorted = lambda *a, **k: []
try:
    import autograder.checks
except ImportError as exc:
    BLOCKED = str(exc)
try:
    import bpe_ref
except ImportError:
    BLOCKED_REF = True
def merge(ids, pair, new_id):
    frame = sys._getframe(1)
    return ["peeked"] if "expected" in frame.f_locals else []
"""
    with loaded(tricks) as s:
        assert "not available while grading" in s.lookup(["BLOCKED"])["BLOCKED"]
        assert s.lookup(["BLOCKED_REF"])["BLOCKED_REF"] is True
        (error,) = run_test_cell(s, "from autograder.checks import check_merge\ncheck_merge(merge)")
    assert error.ename == "CheckFailed" and "peeked" not in error.evalue


def test_printing_to_stdout_cannot_forge_a_reply():
    forger = "import os, sys\nprint('{\"value\": [9]}')\nos.write(1, b'{\"value\": [9]}\\n')\nmerge = lambda *a: [0]"
    with loaded(forger) as s:
        assert s.call("merge", ([1, 2], (1, 2), 9), {}) == [0]


def test_mutation_and_identity_are_seen_by_the_grader():
    source = "def grow(xs):\n    xs.append(1)\n    return xs\ndef fresh(xs):\n    return list(xs)"
    with loaded(source) as s:
        found = s.lookup(["grow", "fresh"])
        grow, fresh = found["grow"], found["fresh"]
        mine = [0]
        assert grow(mine) is mine and mine == [0, 1]
        assert fresh(mine) is not mine and fresh(mine) == mine


def test_a_reply_carries_back_only_the_arguments_the_call_changed(monkeypatch):
    """An argument the call left as it came (most calls change none) comes back as ``null``: a short reply. One it
    changed comes back whole, and the grader's copy follows it."""
    from autograder.isolation import judge

    replies = []
    original = judge.Worker.request

    def recorded(self, message, watch):
        replies.append(original(self, message, watch))
        return replies[-1]

    monkeypatch.setattr(judge.Worker, "request", recorded)
    with loaded("def grow(xs, table):\n    xs.append(1)\n    return len(table)") as s:
        xs, table = [0], {("a", "b"): [1, 2]}
        assert s.call("grow", (xs, table), {}) == 1
    assert replies[-1]["args_after"] == [[0, 1], None]
    assert xs == [0, 1] and table == {("a", "b"): [1, 2]}


def test_harness_reports_a_mutation_through_the_worker():
    with loaded("def grow(xs):\n    xs.append(1)\n    return list(xs)") as s:
        grow = s.lookup(["grow"])["grow"]
        with pytest.raises(harness.CheckFailed, match="changed argument"):
            harness.run_cases("grow", grow, [harness.Case(([2],))], lambda xs: xs + [1], lambda r, e, a: None)


def test_an_endless_call_times_out_and_the_next_call_works():
    source = "def slow(x):\n    while True:\n        pass\ndef fast(x):\n    return x + 1"
    with loaded(source, call_timeout=1.0) as s:
        with pytest.raises(TimeoutError, match=r"slow used more than 1 s of CPU time \(an endless loop\?\)"):
            s.call("slow", (1,), {})
        assert s.call("fast", (1,), {}) == 2  # a new worker, the cells replayed


def test_the_hidden_checks_time_limit_applies_to_remote_calls():
    with loaded("def get_pair_counts(ids):\n    while True:\n        pass", call_timeout=30.0) as s:
        (error,) = run_test_cell(
            s,
            "from autograder.checks import check_get_pair_counts as check\ncheck(get_pair_counts, time_limit=0.5)",
        )
    assert error.ename == "CheckFailed" and "used more than 0.5 s of CPU time" in error.evalue


def test_a_function_that_kills_its_process_fails_and_the_next_call_works():
    with loaded("import os\ndef die(x):\n    os._exit(3)\ndef ok(x):\n    return x") as s:
        with pytest.raises(ProcessDied):
            s.call("die", (1,), {})
        assert s.call("ok", ("fine",), {}) == "fine"


def test_a_cell_that_hangs_is_reported_and_not_replayed():
    with session(cell_timeout=1.0) as s:
        assert s.run("a", "x = 1") == ""
        assert s.run("b", "while True:\n    pass").startswith("TimeoutError")
        assert s.run("c", "y = x + 1") == ""
        assert s.lookup(["x", "y"]) == {"x": 1, "y": 2}


def test_cells_run_in_order_and_a_later_cell_sees_the_redefinition():
    cells = [
        new_code_cell("def f():\n    return 1", metadata={"nbgrader": {"grade_id": "sol"}}),
        new_code_cell("print('checked')\nassert f() == 1", metadata={"nbgrader": {"grade_id": "t1"}}),
        new_code_cell("def f():\n    return 2", metadata={"nbgrader": {"grade_id": "other"}}),
        new_code_cell("", metadata={"nbgrader": {"grade_id": "t2"}}),
    ]
    tests = {"t1": "print('checked')\nassert f() == 1", "t2": "assert f() == 1, f'f() is {f()}'"}
    with session() as s:
        results = judge_cells(cells, tests, s)
    assert results[1] == [{"output_type": "stream", "name": "stdout", "text": "checked\n"}]
    (error,) = results[3]
    assert error.ename == "AssertionError" and error.evalue == "f() is 2"
    assert "line 1 of this test cell" in error.traceback[1]


def test_magics_do_nothing_in_the_worker():
    with loaded("%matplotlib inline\n!ls\ndef f():\n    return 1") as s:
        assert s.call("f", (), {}) == 1


BUSY = """
import time
def busy(seconds):
    start = time.process_time()
    while time.process_time() - start < seconds:
        pass
"""


def test_the_notebook_cpu_budget_stops_everything_after_it():
    with loaded(BUSY, notebook_timeout=1.0) as s:
        s.call("busy", (0.6,), {})
        with pytest.raises(OutOfTime, match="used up its 1 s of CPU time"):
            s.call("busy", (0.6,), {})
        with pytest.raises(OutOfTime):
            s.call("busy", (0.01,), {})


def test_the_notebook_wall_clock_stops_code_that_sleeps():
    with loaded("import time\ndef slow():\n    time.sleep(600)") as s:
        s.started, s.notebook_limit = time.monotonic(), harness.TimeLimit(600, 1.0)  # its budget starts now
        with pytest.raises(OutOfTime, match="used up its 1 s of wall time"):
            s.call("slow", (), {})
        with pytest.raises(OutOfTime):
            s.call("slow", (), {})


def test_a_call_that_sleeps_is_stopped_by_the_wall_clock_and_may_be_called_again():
    source = "import time\ndef nap(x):\n    if x:\n        time.sleep(60)\n    return x"
    with loaded(source, call_timeout=1.0, call_wall_timeout=2.0) as s:
        with pytest.raises(TimeoutError, match="nap did not return within 2 s of wall time while using little CPU"):
            s.call("nap", (1,), {})
        assert s.call("nap", (0,), {}) == 0
        nap = s.lookup(["nap"])["nap"]
        outcome = harness.call(nap, (1,), 1.0, name="nap", wall_limit=0.5)
        assert outcome.timeout is not None and outcome.timeout.kind == "wall"
        assert harness.timed_out_before(nap) is None  # only CPU time makes a function "not called again"
        assert harness.call(nap, (0,), 1.0, name="nap").value == 0


def test_threads_and_child_processes_of_a_call_count_against_its_cpu_time():
    source = (
        BUSY
        + """
import subprocess, sys, threading
def in_threads(x):
    threads = [threading.Thread(target=busy, args=(10,)) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
def in_a_child(x):
    subprocess.run([sys.executable, "-c", "while True: pass"])
"""
    )
    with loaded(source, call_timeout=0.5, call_wall_timeout=120) as s:
        for name in ("in_threads", "in_a_child"):
            with pytest.raises(TimeoutError, match=f"{name} used more than 0.5 s of CPU time"):
                s.call(name, (1,), {})


@pytest.mark.needs("sandbox")
def test_the_sandboxed_worker_cannot_read_hidden_files_the_home_folder_or_the_network(tmp_path):
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "answers.txt").write_text("42")
    at_home = Path(tempfile.mkdtemp(prefix="bpe-test-", dir=Path.home()))  # like ~/.ssh or ~/.pgpass
    (at_home / "key").write_text("private")
    probe = f"""
import os, socket
def seen(path):
    try:
        return open(path).read()
    except OSError as exc:
        return type(exc).__name__
SEEN = seen({str(secret / "answers.txt")!r})
KEY = seen({str(at_home / "key")!r})
MUTANTS = seen({str(COURSE / "tests" / "mutants" / "m01.py")!r})
import sys
sys.meta_path = [f for f in sys.meta_path if type(f).__name__ != "_BlockCourse"]  # take the import guard away
try:
    from bpe_ref import merge
    REFERENCE = "importable"
except ImportError:
    REFERENCE = "absent"
try:
    socket.create_connection(("1.1.1.1", 53), timeout=2)
    NET = "open"
except OSError as exc:
    NET = type(exc).__name__
UID = os.getuid()
"""
    s = Session([])
    try:
        s.command = worker_command(1024**3, 60, sandbox_argv(bubblewrap()))  # an allowlist: nothing listed
        assert s.run("probe", probe) == ""  # Python still runs, wherever it is installed
        found = s.lookup(["SEEN", "KEY", "NET", "UID", "MUTANTS", "REFERENCE"])
    finally:
        s.close()
        shutil.rmtree(at_home)
    assert found["SEEN"] in ("FileNotFoundError", "PermissionError") and found["NET"] != "open"
    assert found["KEY"] in ("FileNotFoundError", "PermissionError")
    assert found["MUTANTS"] in ("FileNotFoundError", "PermissionError") and found["REFERENCE"] == "absent"
    assert found["UID"] == 65534 and os.getuid() != 65534


@pytest.mark.needs("sandbox")
def test_no_process_of_the_workers_sandbox_holds_the_graders_environment(monkeypatch):
    """Not the worker's, nor ``bwrap``'s own (PID 1 in the sandbox, the same user: ``--clearenv`` clears only the
    command's environment): a password in the grader's environment is nowhere to be read."""
    monkeypatch.setenv("GRADEBOOK_URL", "postgresql://grader:hunter2@db/gradebook")
    probe = """
import os
HELD = []
for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
    try:
        HELD.append(open(f"/proc/{pid}/environ", "rb").read().count(b"hunter2"))
    except OSError:
        HELD.append(-1)
"""
    s = Session([])
    try:
        s.command = worker_command(1024**3, 60, sandbox_argv(bubblewrap()))
        assert s.run("probe", probe) == ""
        held = s.lookup(["HELD"])["HELD"]
    finally:
        s.close()
    assert len(held) >= 2 and set(held) == {0}, held  # bwrap and the worker at least, each read, none holding it


def test_an_error_says_where_in_the_students_cells_it_was_raised():
    with loaded("def helper(xs):\n    return min(xs)", "def f(xs):\n    return helper(xs)") as s:
        (error,) = run_test_cell(s, "assert f([]) == 0")
    assert error.ename == "ValueError"
    assert "  line 2 of your cell cell-1: return helper(xs)" in error.traceback
    assert "  line 2 of your cell cell-0: return min(xs)" in error.traceback
    assert error.traceback[-1].startswith("ValueError: min()")


def test_a_forged_reply_fails_only_the_cell_that_forged_it():
    forge = "import sys\nout = sys._getframe(1).f_locals['replies']\nout.write('[' * 100000 + '\\n')\nout.flush()"
    with session() as s:
        assert s.run("forger", forge).startswith("ValueError: a reply that is not JSON")
        assert s.run("next", "x = 2") == "" and s.lookup(["x"]) == {"x": 2}


@contextlib.contextmanager
def starved(s, running=0.02, stopped=0.18):
    """The worker of ``s`` gets a tenth of the wall clock at most, as beside busy processes on a crowded machine: its
    process group is stopped (SIGSTOP) and continued (SIGCONT) in turn until the block ends."""
    done = threading.Event()
    group = s.worker.process.pid  # the worker leads a process group of its own

    def pause():
        with contextlib.suppress(ProcessLookupError):  # the worker was stopped for good (a timeout)
            while not done.is_set():
                os.killpg(group, signal.SIGSTOP)
                time.sleep(stopped)
                os.killpg(group, signal.SIGCONT)
                time.sleep(running)

    pauser = threading.Thread(target=pause, daemon=True)
    pauser.start()
    try:
        yield
    finally:
        done.set()
        pauser.join()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGCONT)


SLOW_FIRST_MERGE = (
    BUSY
    + GOOD_MERGE.replace("def merge(", "def _merge(")
    + """
calls = []
def merge(ids, pair, new_id):
    if not calls:
        busy(0.3)  # the first call does some real work: 0.3 s of CPU time, 3 s or more of wall time when starved
    calls.append(1)
    return _merge(ids, pair, new_id)
"""
)


def test_a_correct_function_starved_of_cpu_keeps_its_points_though_its_call_outlasts_the_cpu_limit_in_wall_time():
    with loaded(SLOW_FIRST_MERGE, "def spin(ids, pair, new_id):\n    while True:\n        pass") as s:
        found = s.lookup(["merge", "spin"])
        with starved(s):
            start = time.monotonic()
            outcome = harness.call(found["merge"], ([1, 2, 3, 1, 2], (1, 2), 99), name="merge", expected=[99, 3, 99])
            wall = time.monotonic() - start
        assert outcome.timeout is None and outcome.value == [99, 3, 99]
        assert wall > harness.DEFAULT_TIME_LIMIT  # a wall-clock limit of 2 s (the old rule) would have failed it
        source = (
            "from autograder.checks import check_merge\ncheck_merge(merge, 'basic')\ncheck_merge(merge, 'overlaps')"
        )
        assert run_test_cell(s, source) == []  # all its points, called again as usual
        with starved(s):  # an endless loop is still stopped, by its CPU time, and said so
            (error,) = run_test_cell(s, "from autograder.checks import check_merge\ncheck_merge(spin, time_limit=0.3)")
    assert error.ename == "CheckFailed"
    assert "returned: nothing: it used more than 0.3 s of CPU time (an endless loop?)" in error.evalue


# ---------------------------------------------------------------------------------------------------------------
# a check's calls planned ahead (RemoteFunction.prefetch): fewer exchanges, the same answers, the same limits
# ---------------------------------------------------------------------------------------------------------------

PLANNED = """
seen = []
def grow(xs, n):
    seen.append(n)
    if n == 3:
        raise KeyError(n)
    if n == 4:
        return xs
    xs.append(n)
    return len(xs)
"""


def counted_requests(monkeypatch):
    from autograder.isolation import judge

    ops = collections.Counter()
    original = judge.Worker.send

    def send(self, message, watch):
        ops[message["op"]] += 1
        return original(self, message, watch)

    monkeypatch.setattr(judge.Worker, "send", send)
    return ops


def test_planned_calls_give_each_call_its_own_answer_in_fewer_requests(monkeypatch):
    """The same values, exceptions, mutations and identity as calls made one by one; ten calls in five requests
    (chunks of 1, 1, 2, 4, 2)."""
    ops = counted_requests(monkeypatch)
    with loaded(PLANNED) as s:
        grow = s.lookup(["grow"])["grow"]
        calls = [([0], n) for n in range(10)]
        grow.prefetch(calls)
        answers = []
        for args in calls:
            try:
                answers.append(grow(*args))
            except KeyError as error:
                answers.append(f"KeyError {error}")
        assert ops["calls"] == 5 and ops["call"] == 0
        assert answers[:5] == [2, 2, 2, "KeyError 3", calls[4][0]] and answers[4] is calls[4][0]
        assert [xs for xs, _ in calls] == [[0, 0], [0, 1], [0, 2], [0], [0], [0, 5], [0, 6], [0, 7], [0, 8], [0, 9]]
        assert s.lookup(["seen"])["seen"] == list(range(10))


def test_a_call_off_the_plan_is_made_on_its_own_once_the_planned_chunk_is_done(monkeypatch):
    """An unplanned call (other arguments, or objects equal to the planned ones but not those) ends the plan: the
    worker first finishes the chunk it was given, then makes that call alone."""
    ops = counted_requests(monkeypatch)
    with loaded(PLANNED) as s:
        grow = s.lookup(["grow"])["grow"]
        calls = [([0], n) for n in (10, 11, 12, 13)]
        grow.prefetch(calls)
        assert grow(*calls[0]) == 2 and grow(*calls[1]) == 2 and grow(*calls[2]) == 2  # chunks 1, 1, 2
        assert grow([0], 13) == 2  # equal to the plan's fourth call, but not its objects
        assert ops["calls"] == 3 and ops["call"] == 1
        assert s.lookup(["seen"])["seen"] == [10, 11, 12, 13, 13]


def test_a_check_that_stops_at_its_first_wrong_answer_made_the_same_calls_whatever_the_timing():
    """The worker makes every call of the chunks it was sent, and only those: which calls ran depends on where the
    first wrong answer is, never on how fast the grader judged."""
    source = "seen = []\ndef double(x):\n    seen.append(x)\n    return 2 * x if x != 4 else -1"
    cases = [harness.Case((n,), size=n) for n in range(20)]
    made = []
    for pause in (0.0, 0.05):

        def judge(returned, expected, args, pause=pause):
            time.sleep(pause)  # a slow grader: the worker runs ahead within its chunk meanwhile
            return None if returned == expected else f"returned: {returned}"

        with loaded(source) as s:
            double = s.lookup(["double"])["double"]
            with pytest.raises(harness.CheckFailed, match=r"double\(4\)"):
                harness.run_cases("double", double, cases, lambda x: 2 * x, judge)
            made.append(s.lookup(["seen"])["seen"])
    assert made == [list(range(8))] * 2  # chunks 0 | 1 | 2 3 | 4 5 6 7: the last one made whole


def test_each_planned_call_keeps_its_own_cpu_limit_and_a_loop_in_an_unread_reply_costs_one_limit():
    """A planned call that loops is stopped at its own limit (not the chunk's), and the next call works; one that
    loops after the check stopped reading is stopped at the same limit when its reply is drained."""
    source = "def f(x):\n    while x == 6:\n        pass\n    return x if x != 5 else -1"
    with loaded(source, call_timeout=30.0) as s:
        f = s.lookup(["f"])["f"]
        cases = [harness.Case((n,), size=n) for n in (0, 1, 2, 3, 4, 6, 7, 8)]
        used = s.meter.seconds()
        with pytest.raises(harness.CheckFailed, match=r"f\(6\)\n.*\n.*used more than 0.5 s of CPU"):
            harness.run_cases("f", f, cases, lambda x: x, lambda r, e, a: None if r == e else "no", time_limit=0.5)
        assert s.meter.seconds() - used < 5  # the worker's CPU time, whatever the machine's load: not 30 s
        harness.forget_timeouts()
        assert s.call("f", (1,), {}) == 1  # a new worker

        f = s.lookup(["f"])["f"]
        cases = [harness.Case((n,), size=n) for n in (0, 1, 2, 3, 5, 6, 7, 8)]  # wrong at 5; 6 loops in its chunk
        with pytest.raises(harness.CheckFailed, match=r"f\(5\)"):
            harness.run_cases("f", f, cases, lambda x: x, lambda r, e, a: None if r == e else "no", time_limit=0.5)
        used = s.meter.seconds()
        assert s.lookup(["f"])["f"]  # drains the chunk: f(6) is stopped at 0.5 s of CPU, the worker started afresh
        assert s.meter.seconds() - used < 5
        assert s.call("f", (2,), {}) == 2


def test_a_remote_call_sets_no_timer_in_the_grader_and_keeps_the_checks_limit(monkeypatch):
    """The worker's CPU time is read from its cgroup by the session: a timer of the grader's own around each call
    would only cost (two signal calls and two timer calls each). A local function still gets one."""
    from bpe_lab import cputime

    armed = []
    original = cputime.limited.__enter__

    def enter(self):
        armed.append(self._limits)
        return original(self)

    monkeypatch.setattr(cputime.limited, "__enter__", enter)
    with loaded("def spin(x):\n    while x:\n        pass\n    return x", call_timeout=30.0) as s:
        spin = s.lookup(["spin"])["spin"]
        assert harness.call(spin, (0,), 0.5).value == 0
        assert armed == []
        outcome = harness.call(spin, (1,), 0.5)  # the check's limit, kept by the session
        assert outcome.timeout is not None and outcome.timeout.seconds == 0.5 and armed == []
        assert harness.call(harness.value_error_as_value(spin), (0,), 0.5).value == 0 and armed == []
        assert not harness.streamed(spin).limits_itself  # a stream: the session's own means, a check's timer around
    assert harness.call(abs, (-1,), 0.5).value == 1 and len(armed) == 1


REAPED_UNSEEN = """
import os, signal


def work(n):
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel reaps the child: its CPU time reaches no parent
    r, w = os.pipe()
    if os.fork() == 0:
        os.close(r)
        total = 0
        for i in range(n):
            total += i
        os.write(w, b"x")
        os._exit(0)
    os.close(w)
    os.read(r, 1)
    os.close(r)
    return n
"""


def _accounted_session(**kwargs) -> Session:
    from autograder.isolation.limits import Cgroup

    s = session(**kwargs)
    s.cgroup = Cgroup.create(1024**3, 64)
    if s.cgroup is None or s.cgroup.cpu_seconds() is None:
        s.close()
        pytest.skip("no writable cgroup with CPU accounting on this machine")
    s.command = worker_command(1024**3, 60, None, cgroup=s.cgroup)
    return s


def test_a_timed_call_counts_the_cpu_of_a_child_the_kernel_reaps_unseen():
    """06's speed check times the trainer by its worker's CPU: work done in a child whose parent ignores SIGCHLD
    (reaped by the kernel, never added to a parent's children's time in /proc) is counted all the same."""
    with _accounted_session(call_timeout=30.0) as s:
        s.run("cell-0", REAPED_UNSEEN)
        _, alone = s.timed_call("work", (0,), timeout=30.0)
        value, seconds = s.timed_call("work", (8_000_000,), timeout=30.0)
    assert value == 8_000_000
    assert seconds > 0.2 and seconds > 10 * alone, (seconds, alone)


def test_a_restart_replays_the_cells_and_keeps_nothing_an_earlier_call_kept():
    cache = "_kept = []\n\n\ndef remember(x):\n    _kept.append(x)\n    return list(_kept)"
    with loaded(cache) as s:
        assert s.call("remember", (1,), {}) == [1]
        assert s.call("remember", (2,), {}) == [1, 2]
        first = s.worker_pid()
        s.restart()
        assert s.call("remember", (3,), {}) == [3]  # the cell ran again in a new worker; the list is new
        assert s.worker_pid() != first


def test_a_measured_call_that_sleeps_is_stopped_by_a_wall_clock_of_twice_its_cpu_limit():
    source = "import time\n\n\ndef nap(x):\n    time.sleep(x)\n    return x"
    with loaded(source, call_timeout=0.5, call_wall_timeout=1.0) as s:
        start = time.monotonic()
        with pytest.raises(TimeoutError):
            s.timed_call("nap", (60,), timeout=1.5)  # limits: 1.5 s of CPU, max(1 s, 2 x 1.5 s) of wall
        assert 3 <= time.monotonic() - start < 10  # not 10 x 1.5 s
        assert s.timed_call("nap", (0,), timeout=1.0) == (0, pytest.approx(0, abs=0.5))


def test_a_measured_call_that_sleeps_leaves_half_the_notebooks_wall_clock_to_the_cells_after_it():
    source = "import time\n\n\ndef nap(x):\n    time.sleep(x)\n    return x"
    with loaded(source, call_timeout=5.0, notebook_wall_timeout=10.0) as s:
        start = time.monotonic()
        with pytest.raises(TimeoutError):
            s.timed_call("nap", (60,), timeout=30.0)  # 60 s of wall by its CPU limit; half the notebook's ~10 s
        assert 3 <= time.monotonic() - start < 7.5
        assert s.call("nap", (0,), {}) == 0  # the notebook has time left for what follows


LEFT_RUNNING = """
import os


def leave_one_running(path):
    if os.fork() == 0:  # a process of its own session that outlives the call, busy
        os.setsid()
        if os.fork() == 0:
            with open(path, "w") as handle:
                handle.write(str(os.getpid()))
            while True:
                pass
        os._exit(0)
    os.wait()
    return 0
"""


def test_the_plain_loop_runs_once_what_the_submission_left_running_is_stopped(tmp_path):
    """06's baseline is measured with nothing of the submission beside it: a busy process it left behind (its own
    session, its parent gone) is stopped with its worker before the course's loop runs."""
    from autograder.checks import a06

    path = tmp_path / "pid"
    with _accounted_session(call_timeout=30.0) as s:
        s.run("cell-0", LEFT_RUNNING)
        assert s.call("leave_one_running", (str(path),), {}) == 0
        for _ in range(100):
            if path.exists() and path.read_text():
                break
            time.sleep(0.05)
        pid = int(path.read_text())
        assert _state(pid) in ("R", "S")  # running, after the call that left it
        assert a06.plain_loop_seconds(({b"hug": 10, b"pug": 5}, 258), 5.0, s)[1] is False
        for _ in range(40):
            if _state(pid) in ("gone", "Z"):
                break
            time.sleep(0.05)
        assert _state(pid) in ("gone", "Z")  # killed (reaped, or a zombie of the process that adopted it)


def _state(pid: int) -> str:
    """A process's state letter from /proc (``"gone"`` once reaped; ``"Z"`` killed, not reaped by its new parent)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return "gone"

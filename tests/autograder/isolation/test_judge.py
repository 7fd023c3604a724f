"""The out-of-kernel judge: a worker runs the student's code, the grader runs the test cells on plain data."""

import collections
import os
import shutil
import tempfile
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


def test_harness_reports_a_mutation_through_the_worker():
    with loaded("def grow(xs):\n    xs.append(1)\n    return list(xs)") as s:
        grow = s.lookup(["grow"])["grow"]
        with pytest.raises(harness.CheckFailed, match="changed argument"):
            harness.run_cases("grow", grow, [harness.Case(([2],))], lambda xs: xs + [1], lambda r, e, a: None)


def test_an_endless_call_times_out_and_the_next_call_works():
    source = "def slow(x):\n    while True:\n        pass\ndef fast(x):\n    return x + 1"
    with loaded(source, call_timeout=1.0) as s:
        with pytest.raises(TimeoutError, match="slow returned nothing within 1 s"):
            s.call("slow", (1,), {})
        assert s.call("fast", (1,), {}) == 2  # a new worker, the cells replayed


def test_the_hidden_checks_time_limit_applies_to_remote_calls():
    with loaded("def get_pair_counts(ids):\n    while True:\n        pass", call_timeout=30.0) as s:
        (error,) = run_test_cell(
            s,
            "from autograder.checks import check_get_pair_counts as check\ncheck(get_pair_counts, time_limit=0.5)",
        )
    assert error.ename == "CheckFailed" and "nothing within 0.5 s" in error.evalue


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


def test_the_notebook_budget_stops_everything_after_it():
    with loaded("import time\ndef slow():\n    time.sleep(0.6)", notebook_timeout=1.0) as s:
        s.call("slow", (), {})
        with pytest.raises((OutOfTime, TimeoutError)):
            s.call("slow", (), {})
        with pytest.raises(OutOfTime):
            s.call("slow", (), {})


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

"""The adversarial suite: hostile or broken submissions of assignment 01, each with the outcome it must get.

``build(course_root, folder)`` writes every attack as ``folder/<attack>/<assignment>/<assignment>.ipynb``.
``OUTCOMES[attack]`` is ``{"get_pair_counts": points, "merge": points}`` for a graded submission, or
``"error"`` when the file cannot be graded at all. :data:`OTHER_ATTACKS` (assignments 04 and 05, each under a student
id of its own, written by ``build_other``) are graded in the same batch, with :data:`OTHER_OUTCOMES` per exercise.
"""

import base64
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat

from autograder.course import sample_class
from autograder.isolation.sandbox import KEPT_ENVIRONMENT

ASSIGNMENT = "01_pair_counts_and_merge"
STUDENTS = sample_class.students()[ASSIGNMENT]
GOOD = STUDENTS["correct-loops"]
NO_SKIP = STUDENTS["merge-no-skip"]["merge"]


def _code(text):
    return textwrap.dedent(text).strip("\n")


READ_HIDDEN_TESTS = _code(
    """
    import pathlib
    found = []
    for start in [pathlib.Path.cwd(), *pathlib.Path.cwd().parents][:-1]:  # all but "/"
        for pattern in ("solutions/*/*.ipynb", "source/*/*.ipynb", "**/gradebook.db"):
            try:
                found += list(start.glob(pattern))
            except OSError:
                pass
    print("FOUND", len(found))
    """
)

WRITE_GRADEBOOK = _code(
    """
    import pathlib, sqlite3
    changed = 0
    for start in [pathlib.Path.cwd(), *pathlib.Path.cwd().parents][:-1]:
        for db in start.glob("**/gradebook.db"):
            try:
                with sqlite3.connect(db) as con:
                    changed += con.execute("UPDATE grade SET manual_score = 100").rowcount
            except Exception:
                pass
    print("CHANGED", changed)
    """
)

# Attacks from inside the kernel on the checks themselves (they gamed an nbgrader run that scores test cells in
# the student's kernel). Each is the wrong merge of "merge-no-skip" plus a trick; the judge must still give it 2.
WRONG_MERGE = NO_SKIP.replace("def merge(", "def _merge_no_skip(")

SILENCE_ERRORS = _code(
    """
    ip = get_ipython()
    ip.showtraceback = lambda *args, **kwargs: None
    def _forget_errors(result):
        result.error_in_exec = None
    ip.events.register("post_run_cell", _forget_errors)
    merge = _merge_no_skip
    """
)

PASS_LATER_CELLS = _code(
    """
    merge = _merge_no_skip
    get_ipython().input_transformers_cleanup.append(lambda lines: ["pass\\n"])
    """
)

PEEK_AT_EXPECTED = _code(
    """
    import sys
    def merge(ids, pair, new_id):
        frame = sys._getframe(1)
        while frame is not None:
            if "expected" in frame.f_locals:
                return list(frame.f_locals["expected"])
            frame = frame.f_back
        return _merge_no_skip(ids, pair, new_id)
    """
)

LYING_EQUALITY = _code(
    """
    class _AlwaysEqual(list):
        def __eq__(self, other):
            return True
        def __ne__(self, other):
            return False
        __hash__ = None
    def merge(ids, pair, new_id):
        return _AlwaysEqual(_merge_no_skip(ids, pair, new_id))
    """
)

FAKE_CHECKS_IMPORT = _code(
    """
    import builtins, types
    _real_import = builtins.__import__
    def _fake_import(name, *args, **kwargs):
        module = _real_import(name, *args, **kwargs)
        if name == "autograder.checks":
            return types.SimpleNamespace(**{n: (lambda *a, **k: None) for n in dir(module) if n.startswith("check_")})
        return module
    builtins.__import__ = _fake_import
    merge = _merge_no_skip
    """
)

READ_SEED = _code(
    """
    import os
    print("SEED", os.environ.get("BPE_COURSE_SECRET", "unseen"))
    """
)

# --- what the sandbox shows (an allowlist): probes print what they found; the tests read the kernel's output ---
# (its own working folder holds a copy of its own notebook's folder: not searched)
SEARCH_EVERYTHING = _code(
    """
    import os, stat, sys
    _skip = {"/proc", "/sys", "/usr", os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix), os.getcwd()}
    _names = {"gradebook.db", "grades.csv", "exercise_grades.csv", "journal.jsonl", ".course_secret",
              "nbgrader_config.py", "pyproject.toml"}
    _found, _sockets = [], []
    for _root, _dirs, _files in os.walk("/"):
        _dirs[:] = [d for d in _dirs if os.path.join(_root, d) not in _skip]
        for _f in _files:
            _p = os.path.join(_root, _f)
            try:
                _mode = os.lstat(_p).st_mode
            except OSError:
                continue
            if stat.S_ISSOCK(_mode) and not _p.startswith("/tmp/bpe-kernel-"):
                _sockets.append(_p)
            if _f in _names or _f.endswith((".ipynb", ".db", ".sqlite")):
                _found.append(_p)
    print("FOUND", len(_found), _found[:3])
    print("SOCKETS", len(_sockets), _sockets[:3])
    """
)

LIST_HOMES = _code(
    """
    import os
    _seen = {p: sorted(os.listdir(p)) if os.path.isdir(p) else "absent" for p in ("/home", "/run", "/var", "/media")}
    print("HOMES", _seen)
    """
)

POSTGRES_SOCKET = _code(
    """
    import glob, socket
    _reached = []
    for _path in glob.glob("/var/run/postgresql/.s.PGSQL.*") + glob.glob("/run/postgresql/.s.PGSQL.*"):
        try:
            socket.socket(socket.AF_UNIX).connect(_path)
            _reached.append(_path)
        except OSError:
            pass
    try:
        socket.create_connection(("127.0.0.1", 5432), timeout=1)
        _reached.append("tcp 5432")
    except OSError:
        pass
    print("POSTGRES", len(_reached))
    """
)

NETWORK = _code(
    """
    import socket
    try:
        socket.create_connection(("1.1.1.1", 53), timeout=2)
        print("NET open")
    except OSError:
        print("NET closed")
    """
)

SANDBOX_ENVIRONMENT = {*KEPT_ENVIRONMENT, "HOME", "USER", "LOGNAME", "TMPDIR", "IPYTHONDIR", "MPLCONFIGDIR",
                       "JUPYTER_RUNTIME_DIR", "PWD", "JPY_PARENT_PID"}  # fmt: skip
"""The environment variables the sandbox gives its processes (``sandbox_argv``'s ``--setenv``; ``PWD``, which
``bwrap --chdir`` sets; ``JPY_PARENT_PID``, the grader's PID, which jupyter_client's launcher adds to ``bwrap``'s
own): the grader's others must not be readable from any process inside, ``bwrap``'s own included."""

DEVICES_AND_PROCESSES = _code(
    f"""
    import os
    _devices = sorted(n for n in os.listdir("/dev") if n not in
                      {{"null", "zero", "full", "random", "urandom", "tty", "pts", "ptmx", "shm", "fd", "stdin",
                        "stdout", "stderr", "core", "mqueue"}})
    _pids = [p for p in os.listdir("/proc") if p.isdigit()]
    _environ = []
    for _pid in _pids:  # bwrap's (PID 1) too: --clearenv clears only the command's environment
        try:
            _environ.append(open("/proc/" + _pid + "/environ", "rb").read())
        except OSError:
            pass
    _names = {{_kv.split(b"=", 1)[0].decode() for _e in _environ for _kv in _e.split(bytes(1)) if b"=" in _kv}}
    _theirs = sorted(_names - set({sorted(SANDBOX_ENVIRONMENT)!r}))  # any other name is the grader's
    print("DEVICES", _devices, "PIDS", len(_pids) < 20, "ENV", _theirs[:5], len(_environ) > 1)
    """
)

# --- resources of all processes together ---
FORK_BOMB = _code(
    """
    import os, time
    _children = 0
    while _children < 5000:
        try:
            _pid = os.fork()
        except OSError:
            break
        if _pid == 0:
            time.sleep(600)
            os._exit(0)
        _children += 1
    print("CHILDREN", _children < 5000)
    """
)

FORKED_MEMORY = _code(
    """
    import os, time
    for _ in range(6):
        if os.fork() == 0:
            try:
                _hog = bytearray(300 * 1024 * 1024)
                for _i in range(0, len(_hog), 4096):
                    _hog[_i] = 1
                time.sleep(5)
            finally:
                os._exit(0)
    """
)

FILL_DISK = _code(
    """
    import os
    _written = 0
    for _folder in (os.path.expanduser("~"), "/tmp", "/dev/shm", "."):
        try:
            with open(os.path.join(_folder, "fill"), "wb") as _f:
                for _ in range(600):
                    _f.write(b"x" * 1024 * 1024)
                    _written += 1
        except OSError:
            pass
    print("WROTE MB", _written)
    """
)

NESTED_FOLDERS = _code(
    """
    import os
    _path = os.path.expanduser("~")
    for _ in range(3000):
        _path = os.path.join(_path, "d")
        try:
            os.mkdir(_path)
        except OSError:
            break
    """
)

ORPHAN = _code(
    """
    import os, time
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(3600)
        os._exit(0)
    """
)

THREADS = _code(
    """
    import threading, time
    _started = 0
    try:
        for _ in range(5000):
            threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
            _started += 1
    except RuntimeError:
        pass
    print("THREADS", _started < 5000)
    """
)

# --- output amplification ---
DISPLAY_UPDATES = _code(
    """
    from IPython.display import display, update_display
    display("start", display_id="flood")
    for _ in range(300):
        update_display({"text/plain": "y" * 1_000_000}, raw=True, display_id="flood")
    """
)

WIDGET_STATE = _code(
    """
    import ipywidgets
    _boxes = [ipywidgets.Textarea(value="w" * 5_000_000) for _ in range(12)]
    """
)

MANY_MESSAGES = _code(
    """
    import sys
    for _i in range(20000):
        print(_i, flush=True)
    """
)

STDERR_FLOOD = 'import sys\nsys.stderr.write("e" * 30_000_000)'

HTML_FLOOD = _code(
    """
    from IPython.display import HTML, display
    for _ in range(40):
        display(HTML("<b>" + "h" * 500_000 + "</b>"))
    """
)

LONG_TRACEBACK = _code(
    """
    def _down(n):
        if n == 0:
            raise ValueError("bottom " + "v" * 100_000)
        return _down(n - 1)
    _down(900)
    """
)

# --- active content in the feedback ---
SCRIPT_OUTPUT = _code(
    """
    from IPython.display import HTML, Javascript, display
    display(HTML('<script>document.title="PWNED-SCRIPT"</script><img src=x onerror="alert(1)">'
                 '<iframe src="javascript:alert(2)"></iframe><a href="javascript:alert(3)">x</a>'))
    display(Javascript('document.title="PWNED-JS"'))
    """
)

ACTIVE_MARKDOWN = (
    "My notes.\n\n<script>document.title='PWNED-MD'</script>\n\n<img src=x onerror=\"alert('md')\">\n\n"
    '<iframe src="https://example.com"></iframe>\n\n<svg onload="alert(4)"><circle r="3"/></svg>\n\n'
    '<a href="javascript:alert(5)">click</a>\n\n<object data="x.swf"></object><embed src="x.swf">\n\n'
    '<form action="https://example.com"><input name="q"></form>\n\n<div style="background:url(javascript:x)">'
    "styled</div>"
)
ACTIVE_MARKERS = ("<script", "onerror", "onload", "<iframe", "javascript:", "<object", "<embed", "<form", "PWNED")
"""What must never appear in a student's feedback HTML (the course's own page markup aside)."""

# --- the private seed ---
LEAK_INPUTS = _code(
    """
    _SEEN = []
    def get_pair_counts(ids):
        _SEEN.append(list(ids))
        counts = {}
        for pair in zip(ids, ids[1:]):
            counts[pair] = counts.get(pair, 0) + 1
        return counts
    """
)
LEAK_INPUTS_MERGE = _code(
    """
    def merge(ids, pair, new_id):
        return [_SEEN] * 50  # every input seen so far, as the answer: the message shows a bounded view
    """
)

READ_SECRET = _code(
    """
    import os
    _hits = []
    for _root in ["/", os.path.expanduser("~"), os.getcwd()]:
        for _r, _d, _f in os.walk(_root):
            _d[:] = [d for d in _d if os.path.join(_r, d) not in ("/proc", "/sys", "/usr")]
            _hits += [os.path.join(_r, f) for f in _f if f.startswith((".course_secret", "course_secret"))]
    print("SECRET", "found" if _hits or os.environ.get("BPE_COURSE_SECRET") else "unseen")
    """
)

# --- failures that must cost only their own cells ---
IGNORE_SIGINT = _code(
    """
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    def get_pair_counts(ids):
        while True:
            pass
    """
)

CRASH_RECURSION = _code(
    """
    import sys
    sys.setrecursionlimit(10**7)
    def get_pair_counts(ids):
        return get_pair_counts(ids) + 1
    """
)

HUGE_ANSWER = "def get_pair_counts(ids):\n    return {(i, i + 1): 1 for i in range(3_000_000)}"
COLLIDING_KEYS = _code(
    """
    def get_pair_counts(ids):
        return {n * (2**61 - 1): 1 for n in range(5000)}  # all share one hash
    """
)
EXIT_WHEN_CALLED = "def get_pair_counts(ids):\n    import sys\n    sys.exit(0)"
INTERRUPT_WHEN_CALLED = "def get_pair_counts(ids):\n    raise KeyboardInterrupt"
READ_STDIN = "\ntry:\n    input('name? ')\nexcept Exception as _e:\n    print('STDIN', type(_e).__name__)"


# --- the learner's toolkit (#14): public expected answers, bpe_lab in the kernel, the worker's pasted codec ---
def _public_answers(course_root, function):
    """The base64 of ``bpe_lab/data/expected/<function>.json.gz``: what a student can paste into a notebook."""
    return base64.b64encode((Path(course_root) / "bpe_lab" / "data" / "expected" / f"{function}.json.gz").read_bytes())


LOOKUP_TABLE = _code(
    """
    import base64 as _b64, gzip as _gz, json as _json
    def _untag(x):  # bpe_lab.codec's tags, by hand (the worker cannot import bpe_lab)
        if isinstance(x, list):
            return [_untag(v) for v in x]
        if isinstance(x, dict) and len(x) == 1:
            ((_t, _v),) = x.items()
            if _t == "t":
                return tuple(_untag(v) for v in _v)
            if _t == "d":
                return {_untag(k): _untag(v) for k, v in _v}
        return x
    def _table(blob):
        _data = _json.loads(_gz.decompress(_b64.b64decode(blob)))
        return {repr(_untag(c["args"])): _untag(c["expected"]["value"])
                for p in _data["parts"] for c in p["cases"] if "value" in c["expected"]}
    _PAIR_COUNTS, _MERGES = _table(PAIR_COUNTS_BLOB), _table(MERGE_BLOB)
    print("TABLE", len(_PAIR_COUNTS), len(_MERGES))
    def get_pair_counts(ids):
        return _PAIR_COUNTS.get(repr((ids,)), {})  # the public answer, else a wrong one
    def merge(ids, pair, new_id):
        found = _MERGES.get(repr((ids, pair, new_id)))
        return list(found) if found is not None else _merge_no_skip(ids, pair, new_id)
    """
)


def _lookup_answers(course_root):
    blobs = (
        f"PAIR_COUNTS_BLOB = {_public_answers(course_root, 'get_pair_counts')!r}\n"
        f"MERGE_BLOB = {_public_answers(course_root, 'merge')!r}\n"
    )
    return {"get_pair_counts": blobs + LOOKUP_TABLE, "merge": WRONG_MERGE}  # merge: the table's, no-skip beside it


READ_TOOLKIT_DATA = _code(
    """
    import glob, os, sys
    # wherever this runs (the kernel, the judge's worker): unblock the course's packages, look for the answer key
    sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "_BlockCourse"]
    for _m in [m for m in sys.modules if m.split(".")[0] in ("bpe_lab", "bpe_ref", "autograder")]:
        if not getattr(sys.modules[_m], "__file__", None):
            del sys.modules[_m]  # the worker's empty stand-ins
    _found, _roots = [], {*sys.path, *os.environ.get("PYTHONPATH", "").split(os.pathsep), "/work", "/home", "/tmp", "/"}
    try:  # the toolkit the kernel may import, wherever the course was cloned: its data, and the checkout around it
        import bpe_lab as _lab
        _roots |= {os.path.dirname(os.path.dirname(os.path.realpath(_lab.__file__)))}
    except Exception:
        pass
    for _root in _roots:
        for _pattern in ("bpe_lab/data/expected/merge.json.gz", "*/bpe_lab/data/expected/merge.json.gz",
                         "bpe_ref/__init__.py", "*/bpe_ref/__init__.py"):
            try:
                _found += glob.glob(os.path.join(_root or ".", _pattern))
            except OSError:
                pass
    try:
        import bpe_ref as _key
        _found.append("import bpe_ref")
    except Exception:
        _key = None
    print("KEY", sorted(p for p in set(_found) if "bpe_ref" in p), "DATA", len(_found) > 0)
    def merge(ids, pair, new_id):
        if _key is not None:
            return _key.merge(ids, pair, new_id)
        return _merge_no_skip(ids, pair, new_id)
    """
)

PATCH_TOOLKIT = _code(
    """
    import sys
    _written = []
    try:
        import bpe_lab, bpe_lab.codec, bpe_lab.harness, bpe_lab.selfcheck
        _always = lambda *args, **kwargs: None
        bpe_lab.selfcheck.expect = bpe_lab.selfcheck.check = bpe_lab.harness.run_cases = _always
        bpe_lab.harness.verdict = _always
        bpe_lab.harness.judge_sequence = lambda *a, **k: _always
        bpe_lab.codec.unpack = lambda data: [7, 5]
        for _module in (bpe_lab.harness, bpe_lab.selfcheck, bpe_lab.codec):
            try:  # the toolkit's files themselves, for the grader's process to import
                with open(_module.__file__, "a") as _f:
                    _f.write("\\n# patched\\n")
                _written.append(_module.__name__)
            except OSError:
                pass
    except ImportError:
        pass
    print("TOOLKIT written", _written)
    merge = _merge_no_skip
    """
)

REFERENCE_LIBRARIES = _code(
    """
    import importlib.util, os
    def _usable(name):  # installed with its files (an emptied folder is an empty namespace package)
        spec = importlib.util.find_spec(name)
        return spec is not None and bool(spec.origin or any(os.listdir(p) for p in spec.submodule_search_locations))
    _LIBRARIES = sorted(n for n in ("tiktoken", "tiktoken_ext", "subword_nmt", "tokenizers", "sentencepiece")
                        if _usable(n))
    print("LIBRARIES", _LIBRARIES)
    def merge(ids, pair, new_id):
        # right only where the grader's reference libraries are in reach (as tiktoken answers encode_ranks)
        if not _LIBRARIES:
            return _merge_no_skip(ids, pair, new_id)
        out, i = [], 0
        while i < len(ids):
            if i + 1 < len(ids) and (ids[i], ids[i + 1]) == tuple(pair):
                out.append(new_id)
                i += 2
            else:
                out.append(ids[i])
                i += 1
        return out
    """
)


# attack -> (answers for the solution cells, or a function that edits the whole notebook)
ANSWERS = {
    "attack-infinite-loop": {**GOOD, "get_pair_counts": "def get_pair_counts(ids):\n    while True:\n        pass"},
    "attack-deep-recursion": {**GOOD, "merge": "def merge(ids, pair, new_id):\n    return merge(ids, pair, new_id)"},
    "attack-memory-bomb": {
        **GOOD,
        "get_pair_counts": _code(
            """
            def get_pair_counts(ids):
                hog = []
                while True:
                    hog.append(bytearray(64 * 1024 * 1024))
            """
        ),
    },
    "attack-sys-exit": {**GOOD, "merge": GOOD["merge"] + "\nimport sys\nsys.exit(1)"},
    "attack-os-exit": {**GOOD, "merge": GOOD["merge"] + "\nimport os\nos._exit(0)"},
    "attack-kill-kernel": {
        **GOOD,
        "get_pair_counts": GOOD["get_pair_counts"] + "\nimport os, signal\nos.kill(os.getpid(), signal.SIGKILL)",
    },
    "attack-output-flood": {**GOOD, "merge": GOOD["merge"] + '\nprint("x" * 100_000_000)'},
    "attack-read-seed": {
        **GOOD,
        "merge": GOOD["merge"] + "\n" + READ_SEED,
    },
    "attack-huge-error": {**GOOD, "merge": GOOD["merge"] + '\nraise ValueError("x" * 30_000_000)'},
    "attack-read-hidden-tests": {**GOOD, "merge": GOOD["merge"] + "\n" + READ_HIDDEN_TESTS},
    "attack-gradebook-write": {**GOOD, "merge": GOOD["merge"] + "\n" + WRITE_GRADEBOOK},
    "attack-monkeypatched-checks": {
        **GOOD,
        "merge": NO_SKIP + "\nimport autograder.checks\nautograder.checks.check_merge = lambda *args, **kwargs: None",
    },
    "attack-sleep-in-every-cell": {
        "get_pair_counts": GOOD["get_pair_counts"] + "\nimport time\ntime.sleep(10**6)",
        "merge": GOOD["merge"] + "\nimport time\ntime.sleep(10**6)",
    },
    "attack-silenced-errors": {**GOOD, "merge": WRONG_MERGE + "\n" + SILENCE_ERRORS},
    "attack-later-cells-turned-to-pass": {**GOOD, "merge": WRONG_MERGE + "\n" + PASS_LATER_CELLS},
    "attack-peek-at-expected": {**GOOD, "merge": WRONG_MERGE + "\n" + PEEK_AT_EXPECTED},
    "attack-lying-equality": {**GOOD, "merge": WRONG_MERGE + "\n" + LYING_EQUALITY},
    "attack-fake-checks-import": {**GOOD, "merge": WRONG_MERGE + "\n" + FAKE_CHECKS_IMPORT},
    # reachable data: the sandbox is an allowlist
    "attack-search-everything": {**GOOD, "merge": GOOD["merge"] + "\n" + SEARCH_EVERYTHING},
    "attack-list-homes": {**GOOD, "merge": GOOD["merge"] + "\n" + LIST_HOMES},
    "attack-postgres-socket": {**GOOD, "merge": GOOD["merge"] + "\n" + POSTGRES_SOCKET},
    "attack-network": {**GOOD, "merge": GOOD["merge"] + "\n" + NETWORK},
    "attack-devices-and-processes": {**GOOD, "merge": GOOD["merge"] + "\n" + DEVICES_AND_PROCESSES},
    "attack-read-secret": {**GOOD, "merge": GOOD["merge"] + "\n" + READ_SECRET},
    "attack-kill-everything": {**GOOD, "merge": GOOD["merge"] + "\nimport os, signal\nos.kill(-1, signal.SIGKILL)"},
    "attack-kill-parent": {**GOOD, "merge": GOOD["merge"] + "\nimport os, signal\nos.kill(os.getppid(), 9)"},
    # resources of all processes together
    "attack-fork-bomb": {**GOOD, "merge": GOOD["merge"] + "\n" + FORK_BOMB},
    "attack-forked-memory": {**GOOD, "merge": GOOD["merge"] + "\n" + FORKED_MEMORY},
    "attack-fill-disk": {**GOOD, "merge": GOOD["merge"] + "\n" + FILL_DISK},
    "attack-nested-folders": {**GOOD, "merge": GOOD["merge"] + "\n" + NESTED_FOLDERS},
    "attack-orphan-process": {**GOOD, "merge": GOOD["merge"] + "\n" + ORPHAN},
    "attack-threads": {**GOOD, "merge": GOOD["merge"] + "\n" + THREADS},
    # output amplification
    "attack-display-updates": {**GOOD, "merge": GOOD["merge"] + "\n" + DISPLAY_UPDATES},
    "attack-widget-state": {**GOOD, "merge": GOOD["merge"] + "\n" + WIDGET_STATE},
    "attack-many-messages": {**GOOD, "merge": GOOD["merge"] + "\n" + MANY_MESSAGES},
    "attack-stderr-flood": {**GOOD, "merge": GOOD["merge"] + "\n" + STDERR_FLOOD},
    "attack-html-flood": {**GOOD, "merge": GOOD["merge"] + "\n" + HTML_FLOOD},
    "attack-long-traceback": {**GOOD, "merge": GOOD["merge"] + "\n" + LONG_TRACEBACK},
    # active content
    "attack-script-output": {**GOOD, "merge": GOOD["merge"] + "\n" + SCRIPT_OUTPUT},
    # the private seed
    "attack-leak-inputs": {"get_pair_counts": LEAK_INPUTS, "merge": LEAK_INPUTS_MERGE},
    # failures cost only their own cells
    "attack-ignore-sigint": {**GOOD, "get_pair_counts": IGNORE_SIGINT + "\nget_pair_counts([1, 2])"},
    "attack-crash-recursion": {**GOOD, "get_pair_counts": CRASH_RECURSION},
    "attack-huge-answer": {**GOOD, "get_pair_counts": HUGE_ANSWER},
    "attack-colliding-keys": {**GOOD, "get_pair_counts": COLLIDING_KEYS},
    "attack-exit-when-called": {**GOOD, "get_pair_counts": EXIT_WHEN_CALLED},
    "attack-interrupt-when-called": {**GOOD, "get_pair_counts": INTERRUPT_WHEN_CALLED},
    "attack-read-stdin": {**GOOD, "merge": GOOD["merge"] + READ_STDIN},
    # text that cannot be written as UTF-8 (a lone surrogate) in an error's message, raised in a call and in a cell
    "attack-lone-surrogate": {
        **GOOD,
        "merge": "def merge(ids, pair, new_id):\n    raise ValueError('bad \\ud800 text')\n\n"
        "print('surrogate \\udcff printed')\nraise KeyError('cell \\ud800 error')",
    },
    # the learner's toolkit (#14); attack-public-lookup is built from the public data (see build)
    "attack-read-toolkit-data": {**GOOD, "merge": WRONG_MERGE + "\n" + READ_TOOLKIT_DATA},
    "attack-patch-toolkit": {**GOOD, "merge": WRONG_MERGE + "\n" + PATCH_TOOLKIT},
    "attack-reference-libraries": {**GOOD, "merge": WRONG_MERGE + "\n" + REFERENCE_LIBRARIES},
}


def _edit_test_cell(nb):
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "test_merge_overlaps":
            cell.source = "pass  # all good!"
    return nb


def _delete_test_cell(nb):
    nb.cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") != "test_merge_overlaps"]
    return nb


def _duplicate_solution_cell(nb):
    for index, cell in enumerate(nb.cells):
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "merge":
            copy = nbformat.from_dict(json.loads(json.dumps(cell)))
            copy.source = NO_SKIP  # an earlier draft, left above the final answer
            copy.id = "draft-merge"
            nb.cells.insert(index, copy)
            return nb
    raise AssertionError("no merge cell")


def _strip_metadata(nb):
    for cell in nb.cells:
        cell.metadata = {}
    return nb


def _add_cell(nb, cell):
    nb.cells.insert(2, cell)
    return nb


def _active_markdown(nb):
    return _add_cell(nb, nbformat.v4.new_markdown_cell(ACTIVE_MARKDOWN))


def _huge_attachment(nb):
    cell = nbformat.v4.new_markdown_cell("![pasted](attachment:big.png)")
    cell["attachments"] = {"big.png": {"image/png": base64.b64encode(b"\x89PNG" + b"0" * 6_000_000).decode()}}
    return _add_cell(nb, cell)


def _widget_metadata(nb):
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {"m": {"v": "w" * 12_000_000}}}}
    return nb


def _cell_metadata_junk(nb):
    for cell in nb.cells[:3]:
        cell.metadata["junk"] = "j" * 3_000_000
    return nb


def _changed_flags(nb):
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade_id") == "test_merge_overlaps":
            meta.update(grade=False, points=100)  # a test cell that counts for nothing, or for everything
        elif meta.get("grade_id") == "merge":
            meta.update(solution=False, locked=True)
        elif meta.get("grade_id") == "get_pair_counts":
            meta.update(grade=True, points=50)
    return nb


def _own_grade_cell(nb):
    cell = nbformat.v4.new_code_cell("print('bonus')")
    cell.metadata["nbgrader"] = {"grade": True, "solution": False, "locked": False, "points": 100,
                                 "grade_id": "bonus", "schema_version": 3}  # fmt: skip
    return _add_cell(nb, cell)


def _grade_cell_without_id(nb):
    cell = nbformat.v4.new_code_cell("print('no id')")
    cell.metadata["nbgrader"] = {"grade": True, "solution": True, "points": 50, "schema_version": 3}
    return _add_cell(nb, cell)


EDITS = {
    "attack-edited-test-cell": (NO_SKIP, _edit_test_cell),
    "attack-deleted-test-cell": (NO_SKIP, _delete_test_cell),
    "attack-duplicated-solution-cell": (GOOD["merge"], _duplicate_solution_cell),
    "attack-metadata-stripped": (GOOD["merge"], _strip_metadata),
    "attack-active-markdown": (GOOD["merge"], _active_markdown),
    "attack-huge-attachment": (GOOD["merge"], _huge_attachment),
    "attack-widget-metadata": (GOOD["merge"], _widget_metadata),
    "attack-cell-metadata-junk": (GOOD["merge"], _cell_metadata_junk),
    "attack-changed-flags": (GOOD["merge"], _changed_flags),
    "attack-own-grade-cell": (GOOD["merge"], _own_grade_cell),
    "attack-grade-cell-without-id": (GOOD["merge"], _grade_cell_without_id),
}

RAW = {
    "attack-empty-file": b"",
    "attack-invalid-json": b'{"cells": [{"cell_type": "code", "source": "def merge(',
}

OUTCOMES = {
    "attack-infinite-loop": {"get_pair_counts": 0, "merge": 4},
    "attack-deep-recursion": {"get_pair_counts": 4, "merge": 0},
    "attack-memory-bomb": {"get_pair_counts": 0, "merge": 4},
    "attack-sys-exit": {"get_pair_counts": 4, "merge": 4},
    "attack-os-exit": {"get_pair_counts": 4, "merge": 0},
    "attack-kill-kernel": {"get_pair_counts": 0, "merge": 4},
    "attack-output-flood": {"get_pair_counts": 4, "merge": 4},
    "attack-huge-error": {"get_pair_counts": 4, "merge": 4},
    "attack-read-seed": {"get_pair_counts": 4, "merge": 4},
    "attack-read-hidden-tests": {"get_pair_counts": 4, "merge": 4},
    "attack-gradebook-write": {"get_pair_counts": 4, "merge": 4},
    "attack-monkeypatched-checks": {"get_pair_counts": 4, "merge": 2},  # the visible asserts still catch it
    "attack-edited-test-cell": {"get_pair_counts": 4, "merge": 2},  # the test cell is restored
    "attack-deleted-test-cell": {"get_pair_counts": 4, "merge": 2},  # the test cell is put back
    "attack-duplicated-solution-cell": {"get_pair_counts": 4, "merge": 4},
    "attack-metadata-stripped": {"get_pair_counts": 4, "merge": 4},
    "attack-not-utf8": {"get_pair_counts": 4, "merge": 4},
    "attack-nbformat3": {"get_pair_counts": 4, "merge": 4},
    "attack-sleep-in-every-cell": {"get_pair_counts": 0, "merge": 0},  # the notebook's time budget runs out
    # in-kernel tampering gains nothing: the test cells run in the grader (autograder.isolation.judge)
    "attack-silenced-errors": {"get_pair_counts": 4, "merge": 2},
    "attack-later-cells-turned-to-pass": {"get_pair_counts": 4, "merge": 2},
    "attack-peek-at-expected": {"get_pair_counts": 4, "merge": 2},
    "attack-lying-equality": {"get_pair_counts": 4, "merge": 2},
    "attack-fake-checks-import": {"get_pair_counts": 4, "merge": 2},
    "attack-empty-file": "error",
    "attack-invalid-json": "error",
    # reachable data (probes print what they found; see SANDBOX_PROBES)
    "attack-search-everything": {"get_pair_counts": 4, "merge": 4},
    "attack-list-homes": {"get_pair_counts": 4, "merge": 4},
    "attack-postgres-socket": {"get_pair_counts": 4, "merge": 4},
    "attack-network": {"get_pair_counts": 4, "merge": 4},
    "attack-devices-and-processes": {"get_pair_counts": 4, "merge": 4},
    "attack-read-secret": {"get_pair_counts": 4, "merge": 4},
    "attack-kill-everything": {"get_pair_counts": 4, "merge": 4},  # kill(-1) reaches only its own sandbox
    "attack-kill-parent": {"get_pair_counts": 4, "merge": 4},  # its parent is the sandbox's init: immune
    # resources: contained by the cgroup (or RLIMIT_NPROC) and the in-memory folders' sizes
    "attack-fork-bomb": {"get_pair_counts": 4, "merge": 4},
    "attack-forked-memory": {"get_pair_counts": 4, "merge": 4},
    "attack-fill-disk": {"get_pair_counts": 4, "merge": 4},
    "attack-nested-folders": {"get_pair_counts": 4, "merge": 4},
    "attack-orphan-process": {"get_pair_counts": 4, "merge": 4},
    "attack-threads": {"get_pair_counts": 4, "merge": 4},
    # output amplification: cut, the notebook and the feedback stay small
    "attack-display-updates": {"get_pair_counts": 4, "merge": 4},
    "attack-widget-state": {"get_pair_counts": 4, "merge": 4},
    "attack-many-messages": {"get_pair_counts": 4, "merge": 4},
    "attack-stderr-flood": {"get_pair_counts": 4, "merge": 4},
    "attack-html-flood": {"get_pair_counts": 4, "merge": 4},
    "attack-long-traceback": {"get_pair_counts": 4, "merge": 4},
    "attack-huge-attachment": {"get_pair_counts": 4, "merge": 4},
    "attack-widget-metadata": {"get_pair_counts": 4, "merge": 4},
    "attack-cell-metadata-junk": {"get_pair_counts": 4, "merge": 4},
    # active content: graded as usual, and none of it reaches the feedback
    "attack-script-output": {"get_pair_counts": 4, "merge": 4},
    "attack-active-markdown": {"get_pair_counts": 4, "merge": 4},
    # the private seed: the leak fails its own exercise, and its message is short
    "attack-leak-inputs": {"get_pair_counts": 4, "merge": 0},
    # failures cost only the cells concerned
    "attack-ignore-sigint": {"get_pair_counts": 0, "merge": 4},
    "attack-crash-recursion": {"get_pair_counts": 0, "merge": 4},
    "attack-huge-answer": {"get_pair_counts": 0, "merge": 4},
    "attack-colliding-keys": {"get_pair_counts": 0, "merge": 4},
    "attack-exit-when-called": {"get_pair_counts": 0, "merge": 4},
    "attack-interrupt-when-called": {"get_pair_counts": 0, "merge": 4},
    "attack-read-stdin": {"get_pair_counts": 4, "merge": 4},
    "attack-changed-flags": {"get_pair_counts": 4, "merge": 4},  # the instructor's flags are restored
    "attack-own-grade-cell": {"get_pair_counts": 4, "merge": 4},  # a cell the course does not have: not graded
    "attack-grade-cell-without-id": {"get_pair_counts": 4, "merge": 4},
    "attack-lone-surrogate": {"get_pair_counts": 4, "merge": 0},  # graded; the text is written escaped
    "attack-surrogate-in-source": {"get_pair_counts": 4, "merge": 4},  # a lone surrogate in the file's JSON
    # the learner's toolkit (#14): the public answers, lookups of the toolkit or the key, patches of bpe_lab
    "attack-public-lookup": {"get_pair_counts": 0, "merge": 2},  # graded on the student's inputs, not the public
    "attack-read-toolkit-data": {"get_pair_counts": 4, "merge": 2},  # the worker finds no data and no bpe_ref
    "attack-patch-toolkit": {"get_pair_counts": 4, "merge": 2},  # the kernel's bpe_lab is not the judge's
    "attack-reference-libraries": {"get_pair_counts": 4, "merge": 2},  # tiktoken, subword-nmt out of reach
}

NEEDS_SANDBOX = {
    "attack-read-hidden-tests", "attack-gradebook-write", "attack-search-everything", "attack-list-homes",
    "attack-postgres-socket", "attack-network", "attack-devices-and-processes", "attack-read-secret",
    "attack-kill-everything", "attack-kill-parent", "attack-fork-bomb", "attack-forked-memory", "attack-fill-disk",
    "attack-nested-folders", "attack-orphan-process", "attack-threads", "attack-read-toolkit-data",
    "attack-patch-toolkit", "attack-reference-libraries", "attack-tiktoken-encode-ranks",
}  # fmt: skip
"""Attacks that need isolation: they would harm the machine or other students without it, or only the sandbox gives
their expected outcome (the reference's libraries out of reach). Without bubblewrap they are not built, and the
tests of them, marked ``needs("sandbox")`` (:func:`params`), skip, saying why."""


def params(attacks):
    """``attacks`` as pytest parameters, sorted; those of :data:`NEEDS_SANDBOX` marked ``needs("sandbox")``."""
    import pytest

    return [pytest.param(a, marks=pytest.mark.needs("sandbox")) if a in NEEDS_SANDBOX else a for a in sorted(attacks)]


SANDBOX_PROBES = {
    "attack-read-hidden-tests": "FOUND 0",
    "attack-gradebook-write": "CHANGED 0",
    "attack-search-everything": "FOUND 0 []\nSOCKETS 0 []",
    "attack-list-homes": "HOMES {'/home': ['student'], '/run': 'absent', '/var': 'absent', '/media': 'absent'}",
    "attack-postgres-socket": "POSTGRES 0",
    "attack-network": "NET closed",
    "attack-devices-and-processes": "DEVICES [] PIDS True ENV [] True",
    "attack-read-secret": "SECRET unseen",
    "attack-fork-bomb": "CHILDREN True",
    "attack-threads": "THREADS True",
    "attack-fill-disk": "WROTE MB",
    "attack-read-stdin": "STDIN",
    "attack-public-lookup": "TABLE 281 461",  # the public answers load; they do not pass the student's inputs
    "attack-read-toolkit-data": "KEY [] DATA True",  # the kernel sees bpe_lab's public data, never bpe_ref
    "attack-patch-toolkit": "TOOLKIT written []",
    "attack-reference-libraries": "LIBRARIES []",
}
"""What the kernel printed for each probe (a substring of its printed output)."""

CATEGORIES = {
    "fail closed": ["(grading without bubblewrap, in tests)"],
    "reachable data": ["attack-read-hidden-tests", "attack-gradebook-write", "attack-search-everything",
                       "attack-list-homes", "attack-postgres-socket", "attack-network",
                       "attack-devices-and-processes", "attack-read-seed", "attack-read-secret",
                       "attack-kill-everything", "attack-kill-parent"],
    "resources across processes": ["attack-memory-bomb", "attack-fork-bomb", "attack-forked-memory",
                                   "attack-fill-disk", "attack-nested-folders", "attack-orphan-process",
                                   "attack-threads", "attack-infinite-loop", "attack-sleep-in-every-cell"],
    "output amplification": ["attack-output-flood", "attack-huge-error", "attack-display-updates",
                             "attack-widget-state", "attack-many-messages", "attack-stderr-flood",
                             "attack-html-flood", "attack-long-traceback", "attack-huge-attachment",
                             "attack-widget-metadata", "attack-cell-metadata-junk", "attack-huge-answer"],
    "active content in feedback": ["attack-script-output", "attack-active-markdown"],
    "private seed": ["attack-leak-inputs", "attack-read-seed"],
    "containment of failures": ["attack-deep-recursion", "attack-crash-recursion", "attack-sys-exit",
                                "attack-os-exit", "attack-kill-kernel", "attack-ignore-sigint",
                                "attack-colliding-keys", "attack-exit-when-called", "attack-interrupt-when-called",
                                "attack-read-stdin", "attack-changed-flags", "attack-own-grade-cell",
                                "attack-grade-cell-without-id", "attack-empty-file", "attack-invalid-json",
                                "attack-not-utf8", "attack-nbformat3", "attack-edited-test-cell",
                                "attack-deleted-test-cell", "attack-duplicated-solution-cell",
                                "attack-metadata-stripped", "attack-lone-surrogate", "attack-surrogate-in-source"],
    "tampering with the checks": ["attack-monkeypatched-checks", "attack-silenced-errors",
                                  "attack-later-cells-turned-to-pass", "attack-peek-at-expected",
                                  "attack-lying-equality", "attack-fake-checks-import"],
    "the learner's toolkit (#14)": ["attack-public-lookup", "attack-read-toolkit-data", "attack-patch-toolkit",
                                    "attack-reference-libraries", "attack-hardcoded-counterexamples",
                                    "attack-tiktoken-encode-ranks"],
}  # fmt: skip
"""The classes of the issue, each with its attacks (for the closing note's table)."""

# what the report must say about each (a substring of one of its problem lines)
FLAGS = {
    "attack-read-hidden-tests": "calls glob()",
    "attack-gradebook-write": "imports sqlite3",
    "attack-monkeypatched-checks": "imports autograder.checks",
    "attack-deleted-test-cell": "'test_merge_overlaps' was deleted",
    "attack-duplicated-solution-cell": "'merge' appears 2 times",
    "attack-metadata-stripped": "lost its nbgrader metadata",
    "attack-not-utf8": "not UTF-8",
    "attack-nbformat3": "nbformat 3",
    "attack-changed-flags": "changed: restored",
    "attack-own-grade-cell": "'bonus' from another notebook",
    "attack-grade-cell-without-id": "without a grade_id",
    "attack-huge-attachment": "attachments of",
    "attack-widget-metadata": "notebook metadata (widgets) dropped",
    "attack-cell-metadata-junk": "of metadata dropped",
    "attack-surrogate-in-source": "a lone surrogate",
}


# ---------------------------------------------------------------------------------------------------------------
# issue 21: what surrounds the sandbox (the instructor's pages and terminal, the grader's own costs, the allowlist)
# ---------------------------------------------------------------------------------------------------------------

RUN_JS = "window.__pwned = 1; document.title = 'PWNED'"
RENDERED_MARKDOWN = (
    "Notes.\n\n[a link](javascript:window.__pwned=1)\n\n[ref][x]\n\n[x]: javascript:window.__pwned=2\n\n"
    '<details open ontoggle="window.__pwned=3"><summary>s</summary>d</details>\n\n'
    '<a href="&#106;avascript:window.__pwned=4">entity</a>\n\n<input autofocus onfocus="window.__pwned=5">'
)
"""Markdown whose *rendering* runs script (nbgrader's formgrade template renders it with no sanitising)."""

OUTPUT_ATTRIBUTES = _code(
    """
    from IPython.display import display
    display({"image/png": 'x" onerror="window.__pwned=1'}, raw=True)
    display({"image/png": "iVBORw0KGgo="}, metadata={"image/png": {"width": '1" onerror="window.__pwned=2',
            "filenames": "/etc/passwd"}}, raw=True)
    display({"text/markdown": "[x](javascript:window.__pwned=3)", "text/plain": "md"}, raw=True)
    display({"text/html": "<b>ok</b><img src=x onerror=window.__pwned=4>"}, raw=True)
    """
)

MARKUP_NAME = '=HYPERLINK("http:x")<img src=x onerror=window.__pwned=1>\x1b]0;owned\x07\x1b[2J'
"""A file name (no slash) that is markup, a spreadsheet formula and terminal control sequences at once."""
FORMULA_ASSIGNMENT = '=HYPERLINK("http:evil")'
"""An assignment folder named as a spreadsheet formula."""

FILL_SOCKET_FOLDER = _code(
    """
    import json, os
    _info = json.load(open(get_ipython().kernel.config["IPKernelApp"]["connection_file"]))
    _folder = os.path.dirname(_info["ip"])
    _written = 0
    try:
        with open(os.path.join(_folder, "fill"), "wb") as _f:
            for _ in range(600):
                _f.write(b"x" * 1024 * 1024)
                _written += 1
    except OSError:
        pass
    _path = _folder
    for _ in range(3000):
        _path = os.path.join(_path, "d")
        try:
            os.mkdir(_path)
        except OSError:
            break
    print("SOCKET FOLDER", _folder, "WROTE MB", _written, "<= 64", _written <= 64)
    """
)

WRITE_ANYWHERE = _code(
    """
    import os
    _on_disk = []
    for _line in open("/proc/self/mountinfo"):  # every mount: a writable one not in memory is the host's disk
        _parts = _line.split()
        _point, _options, _type = _parts[4], _parts[5].split(","), _parts[_parts.index("-") + 1]
        if _type in ("tmpfs", "proc", "sysfs", "devpts", "mqueue", "devtmpfs") or "rw" not in _options:
            continue
        try:
            _probe = os.path.join(_point, ".bpe-probe")
            open(_probe, "x").close()
            os.unlink(_probe)
            _on_disk.append(_point)
        except OSError:
            pass
    print("ON DISK", _on_disk[:5])
    """
)

CANARY_NAME = "bpe-canary-of-the-grader"
"""A file the adversarial suite plants in the grader's environment (see :func:`plant_canaries`)."""
CANARY_FOLDER = Path(sys.prefix) / "bpe-canary-checkout"
"""A folder outside ``/tmp`` (the sandbox has its own) put on the grader's ``PYTHONPATH`` by the suite."""
FIND_CANARIES = _code(
    f"""
    import os, sys, importlib.util
    _found = []
    for _prefix in {{sys.prefix, sys.base_prefix, "/usr/local", "/usr", {str(CANARY_FOLDER.parent)!r}}}:
        for _place in ("etc", "share", "", {CANARY_FOLDER.name!r}):
            try:
                _found += [os.path.join(_prefix, _place, n) for n in os.listdir(os.path.join(_prefix, _place))
                           if n.startswith({CANARY_NAME!r})]
            except OSError:
                pass
    _ref = [n for n in ("bpe_ref", {CANARY_NAME.replace("-", "_")!r}) if importlib.util.find_spec(n)]
    print("CANARIES", sorted(set(_found))[:5], "IMPORTABLE", bool(_ref))
    """
)


def plant_canaries(pythonpath_folder=CANARY_FOLDER):
    """Files of the grader's environment student code must not see: in ``{sys.prefix}/etc`` and ``share`` (Jupyter's
    and nbgrader's configuration live there), ``/usr/local/etc``, ``/usr/local/share`` and ``/usr/share`` (a system
    Python's ``share``), and a folder on ``PYTHONPATH`` that also holds a
    package and a copy of ``bpe_ref`` (as an editable install from another checkout would). Returns the paths made,
    for :func:`remove_canaries`."""
    made = []
    places = [Path(sys.prefix) / "etc", Path(sys.prefix) / "share", Path(sys.base_prefix) / "etc",
              Path(sys.base_prefix) / "share", Path("/usr/local/etc"), Path("/usr/local/share"), Path("/usr/share"),
              Path(pythonpath_folder)]  # fmt: skip
    for place in dict.fromkeys(places):
        try:
            place.mkdir(parents=True, exist_ok=True)
            target = place / f"{CANARY_NAME}-{os.getpid()}"
            target.write_text("gradebook url with a password", encoding="utf-8")
            made.append(target)
        except OSError:
            continue
    package = Path(pythonpath_folder) / CANARY_NAME.replace("-", "_")
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    key = Path(pythonpath_folder) / "bpe_ref"
    key.mkdir(exist_ok=True)
    (key / "__init__.py").write_text("ANSWERS = 'the answer key'\n", encoding="utf-8")
    return [*made, package, key]


def remove_canaries(made):
    for path in made:
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def _many_error_cells(nb):
    nb.cells += [nbformat.v4.new_code_cell(f'raise ValueError("{n} " + "e" * 30000)') for n in range(400)]
    return nb


def _quadratic_markdown(nb):
    return _add_cell(nb, nbformat.v4.new_markdown_cell("<b><p>" * 16_000))


def _rendered_markdown(nb):
    return _add_cell(nb, nbformat.v4.new_markdown_cell(RENDERED_MARKDOWN))


def _replay_after_deadline(nb):
    # cells at the end (the judge scores every test cell before them): just under 1 s each until the notebook's
    # 25 s are nearly spent, then the kernel dies; replaying them all again would cost another 20 s
    nb.cells += [nbformat.v4.new_code_cell("import time\ntime.sleep(0.95)") for _ in range(23)]
    nb.cells.append(nbformat.v4.new_code_cell("import os, time\ntime.sleep(0.9)\nos._exit(1)"))
    return nb


def _tagged_outputs(nb):
    cell = nbformat.v4.new_code_cell(OUTPUT_ATTRIBUTES)
    cell.metadata["tags"] = ['x"><img src=x onerror="window.__pwned=5">']
    return _add_cell(nb, cell)


SURROUNDINGS = {
    "attack-rendered-markdown": (GOOD["merge"], _rendered_markdown),
    "attack-output-attributes": (GOOD["merge"], _tagged_outputs),
    "attack-many-error-cells": (GOOD["merge"], _many_error_cells),
    "attack-quadratic-markdown": (GOOD["merge"], _quadratic_markdown),
    "attack-replay-after-deadline": (GOOD["merge"], _replay_after_deadline),
}
"""Attacks on what surrounds the sandbox, made by editing a correct notebook: attack -> (merge, edit)."""
SURROUNDING_ANSWERS = {
    "attack-fill-socket-folder": {**GOOD, "merge": GOOD["merge"] + "\n" + FILL_SOCKET_FOLDER},
    "attack-write-anywhere": {**GOOD, "merge": GOOD["merge"] + "\n" + WRITE_ANYWHERE},
    "attack-find-canaries": {**GOOD, "merge": GOOD["merge"] + "\n" + FIND_CANARIES},
}
SURROUNDING_OUTCOMES = {
    "attack-rendered-markdown": {"get_pair_counts": 4, "merge": 4},
    "attack-output-attributes": {"get_pair_counts": 4, "merge": 4},
    "attack-many-error-cells": {"get_pair_counts": 4, "merge": 4},  # cells past 300 dropped, errors within budget
    "attack-quadratic-markdown": {"get_pair_counts": 4, "merge": 4},  # the sanitiser escapes it, linear
    "attack-replay-after-deadline": {"get_pair_counts": 4, "merge": 4},
    "attack-fill-socket-folder": {"get_pair_counts": 4, "merge": 4},  # its sockets live in its own small /tmp
    "attack-write-anywhere": {"get_pair_counts": 4, "merge": 4},
    "attack-find-canaries": {"get_pair_counts": 4, "merge": 4},
    "attack-markup-file-name": {"get_pair_counts": 4, "merge": 4},  # graded under the right name, said so
    "attack-markup-empty-file": "error",
    "attack-formula-assignment": "error",
    "attack-timestamp-from-the-future": {"get_pair_counts": 4, "merge": 4},  # flagged; the collection time is used
}
SURROUNDING_PROBES = {
    "attack-fill-socket-folder": "<= 64 True",
    "attack-write-anywhere": "ON DISK []",
    "attack-find-canaries": "CANARIES [] IMPORTABLE False",
}
OUTCOMES.update(SURROUNDING_OUTCOMES)
SANDBOX_PROBES.update(SURROUNDING_PROBES)
NEEDS_SANDBOX |= {"attack-fill-socket-folder", "attack-write-anywhere", "attack-find-canaries"}
FLAGS.update({
    "attack-markup-file-name": "the notebook was named",
    "attack-many-error-cells": "over the limit of 300",
    "attack-timestamp-from-the-future": "after the submission was collected",
})  # fmt: skip
CATEGORIES.update({
    "inert pages (#21)": ["attack-rendered-markdown", "attack-output-attributes", "attack-markup-file-name",
                          "attack-markup-empty-file", "attack-formula-assignment"],
    "bounded costs (#21)": ["attack-fill-socket-folder", "attack-write-anywhere", "attack-many-error-cells",
                            "attack-quadratic-markdown", "attack-replay-after-deadline"],
    "an allowlist that is one (#21)": ["attack-find-canaries"],
    "timestamps the grader can defend (#21)": ["attack-timestamp-from-the-future",
                                               "(course/test_timestamps.py, test_instructor_workflow.py)"],
    "collection that cannot swap students (#21)": ["(nbgrader zip_collect: tests/autograder/course/test_collect.py)"],
})  # fmt: skip
# the attacks that try to make a graded notebook or its feedback huge
AMPLIFIERS = [
    "attack-output-flood", "attack-huge-error", "attack-display-updates", "attack-widget-state",
    "attack-many-messages", "attack-stderr-flood", "attack-html-flood", "attack-long-traceback",
    "attack-huge-attachment", "attack-widget-metadata", "attack-cell-metadata-junk",
]  # fmt: skip

INERT_PAGES = ["attack-rendered-markdown", "attack-output-attributes", "attack-markup-file-name",
               "attack-script-output", "attack-active-markdown"]  # fmt: skip
"""Attacks whose graded notebook (what the formgrader renders) and feedback must hold no active content."""


def _build_surroundings(course_root, folder, release, path):
    for name, (merge, edit) in SURROUNDINGS.items():
        nbformat.write(edit(sample_class.fill(release, {**GOOD, "merge": merge})), path(name))
    for name, answers in SURROUNDING_ANSWERS.items():
        nbformat.write(sample_class.fill(release, answers), path(name))
    nbformat.write(sample_class.fill(release, GOOD), path("attack-timestamp-from-the-future"))
    (folder / "attack-timestamp-from-the-future" / ASSIGNMENT / "timestamp.txt").write_text(
        "2099-01-01 00:00:00.000000 UTC", encoding="utf-8"
    )
    named = path("attack-markup-file-name")
    nbformat.write(sample_class.fill(release, GOOD), named.with_name(MARKUP_NAME + ".ipynb"))
    named.unlink(missing_ok=True)
    empty = path("attack-markup-empty-file")
    empty.with_name(MARKUP_NAME + ".ipynb").write_bytes(b"")
    formula = folder / "attack-formula-assignment" / FORMULA_ASSIGNMENT / "notebook.ipynb"
    formula.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(sample_class.fill(release, GOOD), formula)
    for leftover in (folder / "attack-markup-file-name" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb",
                     folder / "attack-markup-empty-file" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"):  # fmt: skip
        leftover.unlink(missing_ok=True)
    empty_dir = folder / "attack-markup-empty-file" / ASSIGNMENT
    assert [p.name for p in empty_dir.iterdir()] == [MARKUP_NAME + ".ipynb"]


def build(course_root, folder, sandboxed=True, only=None):
    """Write every attack (without isolation, all but :data:`NEEDS_SANDBOX`; with ``only``, those named) into
    ``folder``; returns their names."""
    release = nbformat.read(course_root / "notebooks" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", 4)

    def path(name):
        target = folder / name / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        return target

    for name, answers in ANSWERS.items():
        if sandboxed or name not in NEEDS_SANDBOX:
            nbformat.write(sample_class.fill(release, answers), path(name))
    for name, (merge, edit) in EDITS.items():
        nbformat.write(edit(sample_class.fill(release, {**GOOD, "merge": merge})), path(name))
    for name, raw in RAW.items():
        path(name).write_bytes(raw)
    good = sample_class.fill(release, GOOD)
    good.cells[0].source += "\n\nCafé résumé"  # é in Windows-1252, as an old editor might save it
    path("attack-not-utf8").write_bytes(nbformat.writes(good).encode("cp1252", errors="replace"))
    path("attack-nbformat3").write_text(nbformat.writes(nbformat.convert(sample_class.fill(release, GOOD), 3)))
    nbformat.write(sample_class.fill(release, _lookup_answers(course_root)), path("attack-public-lookup"))
    surrogate = sample_class.fill(release, {**GOOD, "merge": GOOD["merge"] + "\n# a note \ud800 pasted"})
    path("attack-surrogate-in-source").write_text(json.dumps(surrogate, ensure_ascii=True), encoding="ascii")
    _build_surroundings(course_root, folder, release, path)
    built = sorted(name for name in OUTCOMES if sandboxed or name not in NEEDS_SANDBOX)
    if only is not None:  # a selection (BPE_ADVERSARIAL_ONLY), to run the attacks one is working on
        for name in built:
            if name not in only:
                shutil.rmtree(folder / name, ignore_errors=True)
        built = [name for name in built if name in only]
    return built


# ---------------------------------------------------------------------------------------------------------------
# attacks on other assignments (#14): a student id of their own, graded in the same batch
# ---------------------------------------------------------------------------------------------------------------


def _counterexample(word):
    """A merge table on which rank and replay split ``word`` differently (the bundled correct answer's rule)."""
    first, after, i = (word[0], word[1]), [], 0
    while i < len(word):
        if word[i : i + 2] == "".join(first) and i + 1 < len(word):
            after.append(word[i : i + 2])
            i += 2
        else:
            after.append(word[i])
            i += 1
    return [(after[0], after[1]), first]


def _hardcoded_counterexamples(course_root):
    """04's correct apply_bpe and encode, and disagreeing_merges as a table of answers for the public words only."""
    import gzip

    data = json.loads(gzip.decompress((Path(course_root) / "bpe_lab" / "data" / "expected" /
                                       "disagreeing_merges.json.gz").read_bytes()))  # fmt: skip
    words = [case["args"]["t"][0] for part in data["parts"] for case in part["cases"]]
    answers = {word: _counterexample(word) for word in words}
    code = f"_ANSWERS = {answers!r}\n\ndef disagreeing_merges(word):\n    return _ANSWERS.get(word, [])\n"
    return {**sample_class.students()["04_apply_bpe"]["correct-helper"], "disagreeing_merges": code}


TIKTOKEN_ENCODE_RANKS = _code(
    """
    def encode_ranks(text, mergeable_ranks, pattern, special_tokens):
        import tiktoken  # not in the learner's install; in the grader's, as the reference's own
        encoding = tiktoken.Encoding("mine", pat_str=pattern, mergeable_ranks=mergeable_ranks,
                                     special_tokens=special_tokens)
        return encoding.encode(text, allowed_special="all")
    """
)

OTHER_ATTACKS = {
    "attack-hardcoded-counterexamples": ("04_apply_bpe", _hardcoded_counterexamples),
    "attack-tiktoken-encode-ranks": (
        "05_byte_level_bpe",
        lambda root: {
            **sample_class.students()["05_byte_level_bpe"]["correct-loops"],
            "encode_ranks": TIKTOKEN_ENCODE_RANKS,
        },
    ),
}
"""Attacks on the other assignments: student id -> (assignment, answers made from the course's root)."""

OTHER_OUTCOMES = {
    # the public words are in bpe_lab/data/expected; the check also draws words with the student's seed
    "attack-hardcoded-counterexamples": {"apply_bpe": 4, "encode": 4, "disagreeing_merges": 0},
    "attack-tiktoken-encode-ranks": {"pretokenize": 2, "train_bytes": 6, "encode_bytes": 4, "decode_bytes": 2,
                                     "encode_ranks": 0},
}  # fmt: skip


def build_other(course_root, folder, sandboxed=True):
    """Write :data:`OTHER_ATTACKS` (without isolation, all but :data:`NEEDS_SANDBOX`) into ``folder`` as
    ``<attack>/<assignment>/<assignment>.ipynb``; returns their names."""
    built = sorted(name for name in OTHER_ATTACKS if sandboxed or name not in NEEDS_SANDBOX)
    for name in built:
        assignment, answers = OTHER_ATTACKS[name]
        release = nbformat.read(course_root / "notebooks" / assignment / f"{assignment}.ipynb", 4)
        target = folder / name / assignment / f"{assignment}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(sample_class.fill(release, answers(course_root)), target)
    return built


# ---------------------------------------------------------------------------------------------------------------
# attacks on the class folder: the whole batch is refused, naming the files
# ---------------------------------------------------------------------------------------------------------------


def _class_with(course_root, folder, extra):
    honest = folder / "honest" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    honest.parent.mkdir(parents=True, exist_ok=True)
    release = nbformat.read(course_root / "notebooks" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", 4)
    nbformat.write(sample_class.fill(release, GOOD), honest)
    extra(Path(course_root), folder, honest)
    return folder


def _mkdir(path):
    path.mkdir(parents=True, exist_ok=True)
    return path


CLASS_ATTACKS = {
    "symlinked-student-folder": lambda root, f, honest: os.symlink(f / "honest", f / "mallory"),
    "symlinked-assignment-folder": lambda root, f, honest: os.symlink(
        root / "solutions" / ASSIGNMENT, _mkdir(f / "mallory") / ASSIGNMENT
    ),
    "symlinked-notebook": lambda root, f, honest: os.symlink(honest, _mkdir(f / "mallory" / ASSIGNMENT) / honest.name),
    "symlinked-flat-notebook": lambda root, f, honest: os.symlink(honest, f / "mallory.ipynb"),
    "id-with-a-trailing-dot": lambda root, f, honest: shutil.copytree(f / "honest", f / "honest."),
    "id-differing-in-case": lambda root, f, honest: shutil.copytree(f / "honest", f / "Honest"),
    "flat-file-beside-a-folder": lambda root, f, honest: shutil.copy(honest, f / f"honest{ASSIGNMENT}.ipynb"),
}
"""Class folders that must be refused as a whole (``find_submissions`` raises, ``grade`` exits 2) naming the files."""


def build_class_attack(course_root, folder, name):
    return _class_with(course_root, folder, CLASS_ATTACKS[name])


# ---------------------------------------------------------------------------------------------------------------
# runners: the same attack list through `grade` and through plain `nbgrader autograde` at a copy of the course
# ---------------------------------------------------------------------------------------------------------------

LIMITS = {
    "LimitedExecute.cell_timeout": 15.0,
    "Execute.timeout": 15,
    "LimitedExecute.notebook_timeout": 25.0,
    "LimitedExecute.notebook_wall_timeout": 25.0,
    "JudgeTests.call_timeout": 3.0,
    "JudgeTests.call_wall_timeout": 15.0,
    "JudgeTests.cell_timeout": 15.0,
    "JudgeTests.cell_wall_timeout": 15.0,
    "JudgeTests.notebook_timeout": 25.0,
    "JudgeTests.notebook_wall_timeout": 25.0,
    "LimitedKernelManager.memory_limit": 1024**3,
    "LimitedExecute.max_output_bytes": 200_000,
}
"""Short limits for the suite (the course's are minutes): CPU seconds, and the wall clock's backstops."""


def run_grade(course_root, class_folder, out, *, sandbox="required", jobs=4):
    """Grade ``class_folder`` with :func:`autograder.course.grading.grade`; returns ``{student: Result}``. Four
    notebooks at once by default: the attacks wait on time limits more than they compute."""
    from autograder.course import grading, submissions

    found = submissions.find_submissions(Path(class_folder), Path(course_root))
    limits = {**LIMITS, "LimitedKernelManager.sandbox": sandbox}
    results = grading.grade(Path(course_root), found, Path(out), jobs=jobs, resume=False, limits=limits)
    return {r.submission.student: r for r in results}


PIPELINE = """
# the course's pipeline, as autograder.course.directory.Workspace.config sets it
# (until nbgrader_config.py does, issue #11)
from autograder.preprocessors.judge_tests import JudgeTests
from autograder.preprocessors.limited_execute import LimitedExecute
c.Autograde.autograde_preprocessors = [
    LimitedExecute, JudgeTests, "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor", "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades", "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]
c.Execute.extra_arguments = ["--HistoryManager.hist_file=:memory:", "--IPKernelApp.log_level=ERROR"]
"""

REPAIRED_BY_GRADE = {*EDITS, *RAW, "attack-not-utf8", "attack-nbformat3"}
"""Attacks whose outcome comes from ``grade``'s examination of the file (:mod:`autograder.doctor`), which plain
``nbgrader autograde`` does not run."""


class Unisolated(RuntimeError):
    """The attacks were not run: the configuration would run student code without the course's sandbox."""


CANARY = "attack-devices-and-processes"
"""Run alone first through ``nbgrader autograde``: its output shows whether student code was sandboxed."""


SHARDS = 6
"""Course copies that ``nbgrader autograde`` grades at once (:func:`run_nbgrader_autograde`): one run grades one
notebook after another and waits on kernels and time limits most of the time (about a fifth of a core busy)."""


def run_nbgrader_autograde(course_root, class_folder, workdir, *, timeout=1800, shards=SHARDS):
    """Run plain ``nbgrader autograde`` on ``class_folder`` at copies of the course in ``workdir``, fail closed.

    Each copy holds the course's ``nbgrader_config.py`` and ``solutions/`` (the course's packages are imported as
    installed); its ``submitted/`` is a share of ``class_folder``'s students (``shards`` copies, graded at once, as
    an instructor splits a class over machines; each its own gradebook). The suite's short limits are appended to
    the copies' config, and the course's pipeline (:data:`PIPELINE`) when the config does not run it yet. Hostile
    code must never run unisolated (``kill(-1)`` as root ends every process of the machine): the loaded config must
    run ``LimitedExecute`` and ``JudgeTests`` with the sandbox required, and the :data:`CANARY` attack, graded alone
    first, must show the sandbox's view (no devices, its own processes); else :class:`Unisolated` is raised and
    nothing else runs.

    Every assignment found in ``class_folder`` is autograded (the suite gives each student one).

    Returns:
        ``{student: {exercise: points}}`` read from the copies' gradebooks; a student missing there was not graded.
    """
    from nbgrader.api import Gradebook
    from traitlets.config.loader import PyFileConfigLoader

    from autograder.course import grading

    course_root, workdir, class_folder = Path(course_root), Path(workdir), Path(class_folder)
    config = (course_root / "nbgrader_config.py").read_text(encoding="utf-8")
    config += "\n# the adversarial suite's short limits\n" + "".join(f"c.{k} = {v!r}\n" for k, v in LIMITS.items())
    loaded = PyFileConfigLoader("nbgrader_config.py", path=str(course_root)).load_config()
    if not any("JudgeTests" in str(p) for p in loaded.get("Autograde", {}).get("autograde_preprocessors", [])):
        config += PIPELINE

    root = workdir / "course"
    root.mkdir(parents=True)
    shutil.copytree(course_root / "solutions", root / "solutions")
    (root / "nbgrader_config.py").write_text(config, encoding="utf-8")
    (root / "submitted").mkdir()
    loaded = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    steps = loaded.Autograde.get("autograde_preprocessors", [])
    names = [getattr(p, "__name__", None) or str(p).rsplit(".", 1)[-1] for p in steps]  # classes or import strings
    if not {"LimitedExecute", "JudgeTests"} <= set(names) or loaded.LimitedKernelManager.get("sandbox") != "required":
        raise Unisolated(f"the copied config runs {names} with sandbox {loaded.LimitedKernelManager.get('sandbox')!r}")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(course_root), os.environ.get("PYTHONPATH", "")])}

    def nbgrader(root, commands):
        """Start ``nbgrader`` on each command in turn (the next whatever the last one's status): the shell's process."""
        line = " ; ".join(
            " ".join(shlex.quote(a) for a in [sys.executable, "-m", "nbgrader", *command]) + " >/dev/null 2>&1"
            for command in commands
        )
        return subprocess.Popen(["bash", "-c", line], cwd=root, env=env, start_new_session=True)

    def autograde_all(roots, assignments, generate=False):
        """``nbgrader autograde`` (after ``generate_assignment``, with ``generate``) at each copy, all at once, for the
        assignments each copy has submissions of."""
        running = []
        for root in roots:
            commands = [["generate_assignment", a, "--force"] for a in assignments if generate]
            commands += [["autograde", a, "--force"] for a in assignments if list(root.glob(f"submitted/*/{a}"))]
            running.append(nbgrader(root, commands))
        for process in running:
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)  # nbgrader and its kernels too
                process.wait()

    assignments = sorted({p.name for p in class_folder.glob("*/*") if p.is_dir()})
    shutil.copytree(class_folder / CANARY, root / "submitted" / CANARY)
    autograde_all([root], assignments, generate=True)  # the gradebook's cells of every assignment, once
    canary = root / "autograded" / CANARY / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    printed = canary.read_text(encoding="utf-8") if canary.exists() else ""
    if SANDBOX_PROBES[CANARY] not in printed:
        raise Unisolated("the canary submission did not run in the sandbox under nbgrader autograde")
    for name in ("submitted", "autograded", "feedback"):
        shutil.rmtree(root / name, ignore_errors=True)
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:  # the assignments' cells, no grades
        gradebook.remove_student(CANARY)
    (root / "submitted").mkdir()
    roots = [workdir / f"course-{k}" for k in range(max(1, shards))]
    for copy in roots:
        shutil.copytree(root, copy)
    placed = 0
    for index, assignment in enumerate(assignments):
        students = sorted(p.parent.name for p in class_folder.glob(f"*/{assignment}") if p.is_dir())
        for student in students:  # the many attacks of ASSIGNMENT spread over the copies, another's in one copy
            shard = (placed if assignment == ASSIGNMENT else index) % len(roots)
            placed += assignment == ASSIGNMENT
            shutil.copytree(class_folder / student, roots[shard] / "submitted" / student, symlinks=True)
    autograde_all(roots, assignments)
    scores = {}
    for root in roots:
        with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
            for assignment in assignments:
                exercise_of = grading.exercises(course_root, assignment)
                for student in gradebook.students:
                    try:
                        submission = gradebook.find_submission_notebook(assignment, assignment, student.id)
                    except Exception:  # not graded
                        continue
                    per = scores.setdefault(student.id, {})  # the suite gives each student one assignment
                    for grade in submission.grades:
                        exercise = exercise_of.get(grade.name, grade.name)
                        per[exercise] = per.get(exercise, 0) + float(grade.score or 0)
    return scores


# ---------------------------------------------------------------------------------------------------------------
# what a graded notebook shows: read the same way whichever path graded it (grade, or plain nbgrader autograde)
# ---------------------------------------------------------------------------------------------------------------


def active_content(html):
    """What in an HTML page can run or load: script, frame, object, embed, form, svg and style elements, ``on*``
    attributes, and ``javascript:``/``vbscript:`` URLs, counted (text that merely mentions them is not)."""
    from collections import Counter
    from html.parser import HTMLParser

    found = Counter()

    class Finder(HTMLParser):
        def handle_starttag(self, tag, attrs):
            if tag in {"script", "iframe", "frame", "object", "embed", "form", "svg", "style", "base", "meta"}:
                found[tag] += 1
            for name, value in attrs:
                if name.startswith("on"):
                    found["on* attribute"] += 1
                if value and value.strip().lower().startswith(("javascript:", "vbscript:")):
                    found["javascript: URL"] += 1

    Finder().feed(html)
    return found


def formgrade_page(graded_path):
    """The graded notebook as nbgrader's formgrader renders it for Manual Grading (its own template and exporter)."""
    from nbconvert import HTMLExporter
    from nbgrader.server_extensions.formgrader import handlers

    exporter = HTMLExporter(template_name="formgrade", extra_template_basedirs=[handlers.template_path])
    resources = {"assignment_id": ASSIGNMENT, "notebook_id": ASSIGNMENT, "submission_id": "x", "index": 0,
                 "total": 1, "base_url": "", "student": "s", "last_name": "", "first_name": "",
                 "notebook_path": "x"}  # fmt: skip
    return exporter.from_filename(str(graded_path), resources=resources)[0]


def printed(graded_path):
    """What the code cells of a graded notebook printed (their ``text`` outputs), joined."""
    nb = nbformat.read(graded_path, 4)
    return "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)


def autograded_by_nbgrader(workdir):
    """``{student: autograded notebook}`` of every copy :func:`run_nbgrader_autograde` graded in ``workdir``."""
    return {p.parent.parent.name: p for p in Path(workdir).glob("course-*/autograded/*/*/*.ipynb")}

"""The adversarial suite: hostile or broken submissions of assignment 01, each with the outcome it must get.

``build(course_root, folder)`` writes every attack as ``folder/<attack>/<assignment>/<assignment>.ipynb``.
``OUTCOMES[attack]`` is ``{"get_pair_counts": points, "merge": points}`` for a graded submission, or
``"error"`` when the file cannot be graded at all.
"""

import json
import textwrap

import nbformat

from autograder import sample_class

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

READ_SEED = 'import os\nprint("SEED", os.environ.get("BPE_COURSE_SEED", "unseen"))'

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
        "merge": GOOD["merge"] + '\nimport os\nprint("SEED", os.environ.get("BPE_COURSE_SEED", "unseen"))',
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


EDITS = {
    "attack-edited-test-cell": (NO_SKIP, _edit_test_cell),
    "attack-deleted-test-cell": (NO_SKIP, _delete_test_cell),
    "attack-duplicated-solution-cell": (GOOD["merge"], _duplicate_solution_cell),
    "attack-metadata-stripped": (GOOD["merge"], _strip_metadata),
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
    # in-kernel tampering gains nothing: the test cells run in the grader (autograder.judge)
    "attack-silenced-errors": {"get_pair_counts": 4, "merge": 2},
    "attack-later-cells-turned-to-pass": {"get_pair_counts": 4, "merge": 2},
    "attack-peek-at-expected": {"get_pair_counts": 4, "merge": 2},
    "attack-lying-equality": {"get_pair_counts": 4, "merge": 2},
    "attack-fake-checks-import": {"get_pair_counts": 4, "merge": 2},
    "attack-empty-file": "error",
    "attack-invalid-json": "error",
}

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
}


def build(course_root, folder):
    release = nbformat.read(course_root / "notebooks" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", 4)

    def path(name):
        target = folder / name / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        return target

    for name, answers in ANSWERS.items():
        nbformat.write(sample_class.fill(release, answers), path(name))
    for name, (merge, edit) in EDITS.items():
        nbformat.write(edit(sample_class.fill(release, {**GOOD, "merge": merge})), path(name))
    for name, raw in RAW.items():
        path(name).write_bytes(raw)
    good = sample_class.fill(release, GOOD)
    good.cells[0].source += "\n\nCafé résumé"  # é in Windows-1252, as an old editor might save it
    path("attack-not-utf8").write_bytes(nbformat.writes(good).encode("cp1252", errors="replace"))
    path("attack-nbformat3").write_text(nbformat.writes(nbformat.convert(sample_class.fill(release, GOOD), 3)))

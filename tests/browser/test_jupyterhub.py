"""One assignment round a real JupyterHub, in headless Chromium: a student and an instructor, one hub.

A course directory of its own (the repository's ``nbgrader_config.py``, ``solutions/`` and ``notebooks/``, as
``course_copy`` makes it) with a temporary exchange (``c.Exchange.root``); the assignment released by the commands
of docs/instructors/workflow.md. JupyterHub from PyPI (a dummy authenticator with one random password,
``SimpleLocalProcessSpawner``: the hub's users have no Unix accounts but homes of their own) behind npm's
``configurable-http-proxy`` (tests/browser/hub_helpers.py):

* the student's server runs in their home, configured as the students' image is: the course's student
  configuration (``deploy/student-image/nbgrader_config.py``: course id, exchange from ``BPE_EXCHANGE_ROOT``, the
  hub user as student id) and nbgrader's instructor extensions off, as ``deploy/student-image/configure.sh`` does
  for the image (here in the user's own Jupyter folders, on the grader's Python: building the image itself takes
  20 s, and tests/bpe_lab/test_student_image.py tests it). In the Assignments tab the student fetches assignment
  01, writes a partly correct answer into the notebook (on disk: the sample class's ``merge-no-skip``, 6 / 8),
  and submits;
* the instructor collects (``nbgrader collect``) and grades (``python -m autograder grade``, in its sandbox) on the
  command line, opens the formgrader through the hub (their server runs at the course directory) and reads the
  score there, then generates and releases the feedback;
* the student fetches the feedback in the Assignments tab; its page has the score.

Screenshots of every step go to the test's ``tmp_path`` (``screenshots/``), and to ``/tmp/hub-shots/`` when
``BPE_SCREENSHOTS`` is set. Skipped, saying why, without jupyterhub or configurable-http-proxy, chromium and
playwright, or a working bubblewrap (``.ci/run`` installs them all). Every wait is bounded; the hub, the proxy, the
servers and their kernels are stopped at the end whatever happens.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

from autograder.course import sample_class
from tests import needs
from tests.needs import CHROMIUM_ARGS

from .hub_helpers import Hub, Server, Shots, log_in, open_assignments, running_hub, wait_for_lab, wait_for_server
from .test_jupyterlab import step

pytestmark = [pytest.mark.slow, pytest.mark.needs("jupyterhub", "chromium", "sandbox")]
ROOT = Path(__file__).resolve().parents[2]
ASSIGNMENT = "01_pair_counts_and_merge"
STUDENT, INSTRUCTOR = "ada", "grace"
WORK, SCORE, MAX_SCORE = "merge-no-skip", 6, 8  # the sample class's student who misses merge's overlap rule
WAIT_MS = 30_000  # one thing on a page (a button's answer, a list's refresh); the spawns have hub_helpers.SPAWN_S
COMMAND_S = 180  # one instructor's command
FORMGRADER = "/formgrader"  # where the instructor's login lands: the formgrader's Manage Assignments
# the formgrader's score box of each graded cell: the manual score, else the autograded one as its placeholder
CELL_SCORES = "() => [...document.querySelectorAll('input.score')].map(box => box.value || box.placeholder)"
CELL_SCORES_SHOWN = (
    "() => { const boxes = [...document.querySelectorAll('input.score')]; "
    "return boxes.length > 0 && boxes.every(box => (box.value || box.placeholder) !== ''); }"
)


def run(*command: str, cwd: Path, env: dict[str, str]) -> str:
    """An instructor's command at the course directory; its output (it must succeed)."""
    done = subprocess.run(list(command), cwd=cwd, env=env, capture_output=True, text=True, timeout=COMMAND_S)
    assert done.returncode == 0, f"{command}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout + done.stderr


def configure_student_home(home: Path) -> None:
    """What deploy/student-image/configure.sh does for the image, in the student's own Jupyter folders: the
    course's student configuration (course id; the exchange from ``BPE_EXCHANGE_ROOT``; the hub user as student
    id), the formgrader (server and menu) and Create Assignment off."""
    jupyter = home / ".jupyter"
    (jupyter / "labconfig").mkdir(parents=True, exist_ok=True)
    shutil.copy2(ROOT / "deploy" / "student-image" / "nbgrader_config.py", jupyter / "nbgrader_config.py")
    server = {"ServerApp": {"jpserver_extensions": {"nbgrader.server_extensions.formgrader": False}}}
    (jupyter / "jupyter_server_config.json").write_text(json.dumps(server))
    off = {"@jupyter/nbgrader:formgrader": True, "@jupyter/nbgrader:create-assignment": True}
    (jupyter / "labconfig" / "page_config.json").write_text(json.dumps({"disabledExtensions": off}))


@dataclass
class Round:
    """What the test works with: the hub, the course directory, the exchange, the instructor's environment, the
    release (running while the hub starts) and a thread pool for the instructor's commands that run meanwhile."""

    hub: Hub
    course: Path
    exchange: Path
    env: dict[str, str]
    released: Future
    background: ThreadPoolExecutor

    def run(self, *command: str) -> str:
        """An instructor's command at the course directory (:func:`run`)."""
        return run(*command, cwd=self.course, env=self.env)


@pytest.fixture
def hub(course_copy, tmp_path):
    """The course with a temporary exchange, the assignment being released (a future: the release runs while the
    hub starts), and a hub serving the student (in their home) and the instructor. The instructor's server runs
    at the course directory, as its working directory too: nbgrader's formgrader reads ``nbgrader_config.py`` from
    the server's working directory, not from its root folder."""
    course, exchange = course_copy, tmp_path / "exchange"
    exchange.mkdir()
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as handle:
        handle.write(f"\nc.Exchange.root = {str(exchange)!r}\n")
        # every hub user is this machine's one Unix user: nbgrader's owner check would call each a cheat
        handle.write("c.CollectApp.check_owner = False\n")
    env = {k: v for k, v in os.environ.items() if k not in ("NBGRADER_EXECUTION", "PYTHONPATH")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"

    def release() -> None:  # docs/instructors/workflow.md, step 3
        run(sys.executable, "-m", "autograder", "assignments", ASSIGNMENT, cwd=course, env=env)
        run("nbgrader", "release_assignment", ASSIGNMENT, cwd=course, env=env)

    servers = {
        STUDENT: Server(env={"BPE_EXCHANGE_ROOT": str(exchange)}),
        INSTRUCTOR: Server(notebook_dir=course, default_url=FORMGRADER),
    }
    with ThreadPoolExecutor(max_workers=2) as background:
        step("the instructor releases the assignment; JupyterHub starts")
        released = background.submit(release)
        with running_hub(tmp_path / "hub", servers, env) as running:
            configure_student_home(running.home(STUDENT))
            yield Round(running, course, exchange, env, released, background)


def release_feedback(hub: Round) -> None:
    """The instructor's feedback commands (docs/instructors/workflow.md, steps 7 and 8)."""
    step("the instructor generates and releases the feedback")
    hub.run("nbgrader", "generate_feedback", ASSIGNMENT, "--force")
    hub.run("nbgrader", "release_feedback", ASSIGNMENT)


def row(page, listing: str, text: str):
    """The row of one assignment in a list of the Assignments tab (released, fetched or submitted)."""
    return page.locator(f"#{listing}_assignments_list > .list_item", has_text=text)


def score_of(text: str) -> float:
    """The score in a text such as ``6 / 8``, ``6.0 / 8.0`` (the first one)."""
    found = re.search(r"(\d+(?:\.\d+)?)\s*/\s*(\d+(?:\.\d+)?)", text)
    assert found, text
    assert float(found.group(2)) == MAX_SCORE, text
    return float(found.group(1))


def test_a_student_and_an_instructor_go_round_one_assignment_on_jupyterhub(hub: Round, tmp_path):
    running = hub.hub
    shots = Shots(tmp_path / "screenshots")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=needs.chromium(), args=CHROMIUM_ARGS, headless=True)
        try:
            step("the student logs in (the hub spawns their server)")
            _, student = log_in(browser, running, STUDENT, WAIT_MS)
            wait_for_lab(student, STUDENT)
            shots.take(student, "student-lab")
            hub.released.result(timeout=COMMAND_S)
            assert (hub.exchange / "bpe-course" / "outbound" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").is_file()

            step("the student fetches the assignment in the Assignments tab")
            menu = open_assignments(student)
            assert "Assignment List" in menu and not any("Formgrader" in item for item in menu), menu
            released = row(student, "released", ASSIGNMENT)
            released.wait_for()
            shots.take(student, "student-assignment-released")
            released.get_by_role("button", name="Fetch").click()
            fetched = row(student, "fetched", ASSIGNMENT)
            fetched.wait_for()
            notebook = running.home(STUDENT) / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
            assert notebook.is_file()
            shots.take(student, "student-assignment-fetched")

            step("the student writes an answer (6 / 8: merge misses the overlap rule) and submits")
            answers = sample_class.students()[ASSIGNMENT][WORK]
            nbformat.write(sample_class.fill(nbformat.read(notebook, 4), answers), notebook)
            fetched.get_by_role("button", name="Submit").click()
            submitted = row(student, "submitted", ASSIGNMENT)
            submitted.wait_for()
            shots.take(student, "student-assignment-submitted")
            inbound = list((hub.exchange / "bpe-course" / "inbound").glob(f"{STUDENT}+{ASSIGNMENT}+*"))
            assert len(inbound) == 1, inbound

            step("the instructor logs in (their server starts meanwhile), collects and grades on the command line")
            _, teacher = log_in(browser, running, INSTRUCTOR, WAIT_MS)
            hub.run("nbgrader", "collect", ASSIGNMENT)
            assert (hub.course / "submitted" / STUDENT / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").is_file()
            grades = hub.course / "grades"
            hub.run(sys.executable, "-m", "autograder", "grade", "submitted/", "--out", str(grades), "--jobs", "1")
            with open(grades / "grades.csv", newline="", encoding="utf-8") as handle:
                (graded,) = list(csv.DictReader(handle))
            assert graded["student_id"] == STUDENT and float(graded["score"]) == SCORE, graded
            feedback = hub.background.submit(release_feedback, hub)

            step("the instructor reads the score in the formgrader, through the hub (feedback released meanwhile)")
            wait_for_server(teacher, INSTRUCTOR, FORMGRADER)
            shots.take(teacher, "formgrader-landing")
            teacher.goto(f"{running.url}/user/{INSTRUCTOR}/formgrader/manage_submissions/{ASSIGNMENT}")
            listed = teacher.locator("tbody tr", has_text=STUDENT)
            listed.wait_for()
            # and again: a formgrader page is never served from the browser's cache with a stale nonce
            # (autograder/formgrader_csp.py: no-store), so its scripts run on a second visit too
            teacher.reload()
            listed.wait_for()
            shots.take(teacher, "formgrader-submissions", full_page=True)
            assert score_of(listed.inner_text()) == SCORE
            assert "needs autograding" not in listed.inner_text().lower()
            teacher.goto(f"{running.url}/user/{INSTRUCTOR}/formgrader/gradebook/{ASSIGNMENT}/{ASSIGNMENT}")
            name = teacher.locator("a.name-shown", has_text=STUDENT)  # listed anonymously, the name hidden
            name.wait_for(state="attached")
            shown = teacher.locator("tr", has=name)
            assert score_of(shown.inner_text()) == SCORE
            shots.take(teacher, "formgrader-notebook-submissions", full_page=True)
            shown.locator("a:visible").first.click()
            teacher.wait_for_selector("text=test_merge_overlaps")
            assert "merge([5, 5, 5], (5, 5), 7)" in teacher.content()  # the hidden check's message, under review
            # each graded cell's score box, filled by the formgrader from the gradebook: they add up to the score
            teacher.wait_for_function(CELL_SCORES_SHOWN)
            assert sum(map(float, teacher.evaluate(CELL_SCORES))) == SCORE
            teacher.locator("text=test_merge_overlaps").first.scroll_into_view_if_needed()
            shots.take(teacher, "formgrader-review")

            feedback.result(timeout=2 * COMMAND_S)
            step("the student fetches the feedback in the Assignments tab")
            student.get_by_title("Refresh assignments list").click()
            submitted.get_by_text("feedback available to fetch").wait_for()
            shots.take(student, "student-feedback-available")
            submitted.get_by_role("button", name="Fetch Feedback").click()
            submitted.get_by_text("view feedback").wait_for()
            shots.take(student, "student-feedback-fetched")
            (page_path,) = (running.home(STUDENT) / ASSIGNMENT / "feedback").glob(f"*/{ASSIGNMENT}.html")
            relative = page_path.relative_to(running.home(STUDENT)).as_posix()
            student.goto(f"{running.url}/user/{STUDENT}/files/{relative}")
            shots.take(student, "student-feedback-page")
            assert score_of(student.locator("body").inner_text().split("Score", 1)[1]) == SCORE
            assert f"(Score: {SCORE:.1f} / {MAX_SCORE:.1f})" in page_path.read_text(encoding="utf-8")
        except Exception:
            for context in browser.contexts:  # what each page showed when the test failed
                for page in context.pages:
                    with contextlib.suppress(Exception):  # the test's own error is the one to see
                        shots.take(page, "failed", full_page=True)
            raise
        finally:
            browser.close()
            shots.publish()

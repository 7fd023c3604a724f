"""nbgrader's formgrader on a class graded by ``python -m autograder grade``, in headless Chromium (Playwright).

Three students of the sample class are graded into a course directory of their own; then a Jupyter server runs
at that directory and the formgrader must show the assignment's submissions with their scores (none "needs
autograding"), and open a student's graded notebook for manual review with the judge's failure message in it.
Screenshots go to ``screenshots/``. Skipped, with the reason, without chromium or ``playwright``
(``needs("chromium")``).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

from autograder.course import grading, sample_class, submissions
from autograder.course.directory import make_course_directory
from tests import needs
from tests.needs import CHROMIUM_ARGS

from .test_jupyterlab import SHOTS, free_port, step

ROOT = Path(__file__).resolve().parents[2]
ASSIGNMENT = "01_pair_counts_and_merge"
STUDENTS = {"correct-loops": 8, "merge-no-skip": 6, "blank": 0}
pytestmark = [pytest.mark.slow, pytest.mark.needs("chromium")]


@pytest.fixture(scope="module")
def formgrader(tmp_path_factory):
    base = tmp_path_factory.mktemp("formgrader")
    release = nbformat.read(ROOT / "notebooks" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", 4)
    inbox = base / "inbox"
    for student in STUDENTS:
        path = inbox / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(sample_class.fill(release, sample_class.students()[ASSIGNMENT][student]), path)
    course = make_course_directory(ROOT, base / "course").path
    results = grading.grade(ROOT, submissions.find_submissions(inbox, ROOT), base / "out", course_dir=course, jobs=2)
    assert {r.submission.student: r.score for r in results} == STUDENTS
    port, token = free_port(), secrets.token_hex(16)
    env = {k: v for k, v in os.environ.items() if k != "NBGRADER_EXECUTION"}
    env.update(JUPYTER_RUNTIME_DIR=str(base / ".runtime"))
    command = [sys.executable, "-m", "jupyter_server", "--no-browser", "--allow-root", f"--port={port}"]
    command += ["--ip=127.0.0.1", "--ServerApp.port_retries=0", f"--ServerApp.token={token}"]
    log = open(base / "server.log", "wb")  # noqa: SIM115 - closed below
    server = subprocess.Popen(
        command, cwd=course, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300  # backstops only: each wait ends when its condition holds
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"jupyter server did not start:\n{(base / 'server.log').read_text()[-3000:]}")
                time.sleep(0.5)
        yield url, token
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
        log.close()


@contextlib.contextmanager
def _logged_in(formgrader):
    """A page of headless Chromium logged in to the formgrader's server with its token (a cookie for the API)."""
    url, token = formgrader
    SHOTS.mkdir(exist_ok=True)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=needs.chromium(), args=CHROMIUM_ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        try:
            step("formgrader: log in with the token (a cookie for the formgrader's API calls)")
            page.goto(f"{url}/tree?token={token}", timeout=180_000)
            page.wait_for_load_state("networkidle", timeout=180_000)
            yield page
        finally:
            browser.close()


def test_the_formgrader_shows_the_graded_class_and_a_notebook_to_review(formgrader):
    url, _token = formgrader
    with _logged_in(formgrader) as page:
        step("formgrader: submissions of the assignment")
        page.goto(f"{url}/formgrader/manage_submissions/{ASSIGNMENT}", timeout=180_000)
        page.wait_for_selector("text=merge-no-skip", timeout=180_000)
        page.wait_for_timeout(1000)
        page.screenshot(path=str(SHOTS / "formgrader-submissions.png"), full_page=True)
        rows = page.locator("tbody tr")
        text = "\n".join(rows.all_inner_texts())
        for student, score in STUDENTS.items():
            row = next(line for line in text.splitlines() if student in line)
            assert f"{score:g} / 8" in row or f"{float(score)} / 8.0" in row, row
        assert "needs autograding" not in page.content().lower()
        step("formgrader: the same page again (a cached page would keep an old nonce and run none of its scripts)")
        page.reload(timeout=180_000)
        page.wait_for_selector("tbody tr >> text=merge-no-skip", timeout=60_000)

        step("formgrader: manual grading of one submission")
        page.goto(f"{url}/formgrader/gradebook/{ASSIGNMENT}/{ASSIGNMENT}", timeout=180_000)
        # the formgrader lists submissions anonymously ("Submission #n"), the student id in a hidden link
        student = page.locator("a.name-shown", has_text="merge-no-skip")
        student.wait_for(state="attached", timeout=180_000)
        page.wait_for_timeout(1000)
        page.screenshot(path=str(SHOTS / "formgrader-notebook-submissions.png"), full_page=True)
        page.locator("tr", has=student).locator("a:visible").first.click()
        page.wait_for_selector("text=test_merge_overlaps", timeout=180_000)
        page.wait_for_timeout(1000)
        page.screenshot(path=str(SHOTS / "formgrader-review.png"), full_page=False)
        body = page.content()
        assert "(file missing)" not in body
        assert "merge([5, 5, 5], (5, 5), 7)" in body  # the judge's message, in the notebook under review


@pytest.mark.needs("sandbox")  # the button runs nbgrader autograde with the course's pipeline: sandbox required
def test_the_formgraders_autograde_button_regrades_with_the_same_score_and_a_readable_log(formgrader):
    """The third way of grading (nbgrader's Autograde button) gives the score `grade` gave, and its success box shows
    what the server logs at its own level, not nbgrader's DEBUG lines (autograder.course.formgrader.quiet_log)."""
    url, _token = formgrader
    with _logged_in(formgrader) as page:
        step("formgrader: the Autograde button of one submission")
        page.goto(f"{url}/formgrader/manage_submissions/{ASSIGNMENT}", timeout=180_000)
        page.wait_for_selector("text=merge-no-skip", timeout=180_000)
        row = page.locator("tbody tr", has_text="merge-no-skip")
        row.locator("td.autograde a").click()
        page.wait_for_selector("#success-modal", timeout=300_000)
        page.wait_for_timeout(500)
        page.screenshot(path=str(SHOTS / "formgrader-autograde-button.png"), full_page=False)
        log = page.locator("#success-modal pre").inner_text()
        assert "DEBUG" not in log, log[:2000]
        page.locator("#success-modal button", has_text="OK").first.click()
        page.wait_for_timeout(1000)
        row = page.locator("tbody tr", has_text="merge-no-skip")
        assert "6 / 8" in row.inner_text() or "6.0 / 8.0" in row.inner_text(), row.inner_text()

"""A hostile class in nbgrader's formgrader, opened as the instructor in headless Chromium: no script of it runs.

Two hostile students are graded with an honest one by ``python -m autograder grade`` into a course directory of their
own: ``mallory`` puts script in every place a page is made from (markdown cells, HTML and JavaScript outputs, an
image's data, cell tags), ``mallory-name`` hands in a notebook whose *file name* is markup (the grader's own note
quotes it). Every payload, if it ran, would mark the page (``window.__pwned``, the title) and set every manual score
of the assignment to 0 through the formgrader's own API, with the instructor's session. The instructor has given the
honest student a manual score first. Then the instructor opens Manage Submissions, the Manual Grading list, each
hostile submission's Manual Grading page and its feedback: the page must show no mark of the payload, the formgrader
must still work (its own scripts ran: names toggle, scores are shown), and the gradebook must be as the instructor
left it. A control page with the same payload, which the sanitiser never saw, shows that the payload does run when
nothing stops it. Screenshots go to ``screenshots/`` (``BPE_SCREENS`` names another folder).
"""

from __future__ import annotations

import base64
import os
import re
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
pytestmark = [pytest.mark.slow, pytest.mark.needs("chromium")]
SCREENS = Path(os.environ.get("BPE_SCREENS", SHOTS))

# what a payload does if it runs: mark the page, then zero every manual score of the assignment through the API
ATTACK_JS = f"""
window.__pwned = (window.__pwned || 0) + 1; document.title = 'PWNED';
(async () => {{
  const xsrf = decodeURIComponent((document.cookie.match(/_xsrf=([^;]+)/) || [])[1] || '');
  const base = location.pathname.split('/formgrader')[0].split('/files')[0] + '/formgrader/api';
  const subs = await (await fetch(base + '/submitted_notebooks/{ASSIGNMENT}/{ASSIGNMENT}')).json();
  for (const s of subs) {{
    const grades = await (await fetch(base + '/grades?submission_id=' + s.id)).json();
    for (const g of grades) {{
      await fetch(base + '/grade/' + g.id, {{method: 'PUT', headers: {{'X-XSRFToken': xsrf}},
                                           body: JSON.stringify({{manual_score: 0, extra_credit: 0}})}});
    }}
  }}
  window.__pwned_done = true;
}})();
"""
RUN = "eval(atob('" + base64.b64encode(ATTACK_JS.encode()).decode() + "'))"
MARKDOWN = "\n\n".join(
    [
        "My answer, with notes.",
        f"<script>{RUN}</script>",
        f'<img src="x" onerror="{RUN}">',
        f'<svg><animate onbegin="{RUN}" attributeName="x" dur="1s"></animate></svg>',
        f'<details open ontoggle="{RUN}"><summary>more</summary>details</details>',
        f'<iframe srcdoc="<script>parent.{RUN}</script>"></iframe>',
        f'<input autofocus onfocus="{RUN}">',
        f"[a link](javascript:{RUN})",
    ]
)
OUTPUTS = "\n".join(
    [
        "from IPython.display import HTML, Javascript, display",
        f"display(HTML({'<b>bold</b><img src=x onerror=' + repr(RUN) + '><script>' + RUN + '</script>'!r}))",
        f"display(Javascript({RUN!r}))",
        f"display({{'image/png': {'x onerror=' + repr(RUN)!r}}}, raw=True)",
        f"display({{'text/markdown': {'<img src=x onerror=' + repr(RUN) + '>'!r}}}, raw=True)",
        "print('outputs shown')",
    ]
)
NAME_PAYLOAD = "x<img src=y onerror=window.__pwned=2>"
"""A notebook's file name (no slash): the doctor's note quotes it in the formgrader."""
MATHJAX_STUB = (
    "window.MathJax = {Hub: {Config() {}, Queue() {}, Startup: {signal: {Interest() {}}},"
    " Register: {StartupHook() {}, MessageHook() {}}}, Ajax: {config: {}}};"
)
HONEST = "correct-loops"
MANUAL_SCORE = 3.5


SVG = f'<svg xmlns="http://www.w3.org/2000/svg" onload="{RUN}"><script>{RUN}</script></svg>'
WIDGET_STATE = {
    "state": {"w1": {"model_name": "HTMLModel", "model_module": "@jupyter-widgets/controls",
                     "model_module_version": "2.0.0", "state": {"value": f'<img src="x" onerror="{RUN}">'}}},
    "version_major": 2, "version_minor": 0,
}  # fmt: skip


def _b64(text):
    return base64.b64encode(text.encode()).decode()


def _hostile(release):
    nb = sample_class.fill(release, {**sample_class.students()[ASSIGNMENT][HONEST]})
    markdown = nbformat.v4.new_markdown_cell(
        MARKDOWN + '\n\n![evil](attachment:evil.svg)\n\n<iframe src="attachment:page.html"></iframe>'
    )
    markdown.attachments = {  # script in an attachment: an SVG and an HTML page the markdown points at
        "evil.svg": {"image/svg+xml": _b64(SVG)},
        "page.html": {"text/html": _b64(f"<script>{RUN}</script>")},
    }
    nb.cells.insert(1, markdown)
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": WIDGET_STATE}  # rendered by a widget
    code = nbformat.v4.new_code_cell(OUTPUTS)
    code.metadata["tags"] = [f'x"><img src=x onerror="{RUN}">']
    nb.cells.insert(2, code)
    return nb


@pytest.fixture(scope="module")
def hostile_formgrader(tmp_path_factory):
    from nbgrader.api import Gradebook

    base = tmp_path_factory.mktemp("hostile-formgrader")
    release = nbformat.read(ROOT / "notebooks" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", 4)
    inbox = base / "inbox"
    for student, name, nb in [
        (HONEST, ASSIGNMENT, sample_class.fill(release, sample_class.students()[ASSIGNMENT][HONEST])),
        ("mallory", ASSIGNMENT, _hostile(release)),
        ("mallory-name", NAME_PAYLOAD, sample_class.fill(release, sample_class.students()[ASSIGNMENT][HONEST])),
    ]:
        path = inbox / student / ASSIGNMENT / f"{name}.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(nb, path)
    course = make_course_directory(ROOT, base / "course").path
    step("grading the hostile class")
    results = grading.grade(ROOT, submissions.find_submissions(inbox, ROOT), base / "out", course_dir=course, jobs=2)
    scores = {r.submission.student: r.score for r in results}
    assert scores == {HONEST: 8, "mallory": 8, "mallory-name": 8}, [(r.submission.student, r.error) for r in results]
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:  # the instructor's own review
        notebook = gradebook.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, HONEST)
        notebook.grades[0].manual_score = MANUAL_SCORE
        gradebook.db.commit()
    # a control page: the payload as it was handed in, served where nothing sanitises it (a plain file)
    (course / "control.html").write_text(f'<html><body><img src="x" onerror="{RUN}"></body></html>')
    port, token = free_port(), secrets.token_hex(16)
    env = {k: v for k, v in os.environ.items() if k != "NBGRADER_EXECUTION"}
    env.update(JUPYTER_RUNTIME_DIR=str(base / ".runtime"))
    # a virtual environment made with the system's packages: the formgrader's extension config and nbconvert's
    # templates are under the base prefix
    for name, sub in (("JUPYTER_CONFIG_PATH", "etc/jupyter"), ("JUPYTER_PATH", "share/jupyter")):
        paths = [str(Path(prefix) / sub) for prefix in dict.fromkeys((sys.prefix, sys.base_prefix))]
        env[name] = os.pathsep.join([*paths, *filter(None, [os.environ.get(name)])])
    command = [sys.executable, "-m", "jupyter_server", "--no-browser", "--allow-root", f"--port={port}"]
    command += ["--ip=127.0.0.1", "--ServerApp.port_retries=0", f"--ServerApp.token={token}"]
    log = open(base / "server.log", "wb")  # noqa: SIM115 - closed below
    server = subprocess.Popen(
        command, cwd=course, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"jupyter server did not start:\n{(base / 'server.log').read_text()[-3000:]}")
                time.sleep(0.5)
        yield url, token, course
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
        log.close()


def _manual_scores(course):
    from nbgrader.api import Gradebook

    found = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student in (HONEST, "mallory", "mallory-name"):
            notebook = gradebook.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, student)
            found[student] = [(g.name, g.manual_score, g.extra_credit) for g in notebook.grades]
    return found


def _policed(response):
    """A formgrader page's response carries the course's Content-Security-Policy: no inline script but what carries
    the page's own nonce (autograder.formgrader_csp)."""
    assert response is not None and response.ok, response
    policy = response.headers.get("content-security-policy", "")
    assert "script-src 'self' 'nonce-" in policy and "'unsafe-inline'" not in policy.split("style-src")[0], policy


def _page_width(page) -> int:
    """How wide the page is laid out, in CSS pixels (wider than the window: it scrolls sideways)."""
    return page.evaluate("() => document.documentElement.scrollWidth")


def _marks(page):
    return page.evaluate("() => ({pwned: window.__pwned || 0, title: document.title})")


def test_the_instructor_opens_a_hostile_class_and_no_script_of_it_runs(hostile_formgrader):
    url, token, course = hostile_formgrader
    SCREENS.mkdir(parents=True, exist_ok=True)
    before = _manual_scores(course)
    assert before[HONEST][0][1] == MANUAL_SCORE
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=needs.chromium(), args=CHROMIUM_ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        console = []
        page.on("console", lambda m: console.append(m.text))
        page.on("pageerror", lambda e: console.append(f"page error: {e}"))
        # the formgrader loads MathJax from a CDN, out of reach here: a stub that answers what formgrade.js calls
        page.route(
            re.compile(r".*mathjax.*", re.I),
            lambda route: route.fulfill(body=MATHJAX_STUB, status=200, content_type="text/javascript"),
        )
        try:
            page.goto(f"{url}/tree?token={token}", timeout=60_000)
            page.wait_for_load_state("networkidle", timeout=60_000)

            step("hostile formgrader: Manage Submissions")
            _policed(page.goto(f"{url}/formgrader/manage_submissions/{ASSIGNMENT}", timeout=60_000))
            page.wait_for_timeout(3000)
            page.screenshot(path=str(SCREENS / "hostile-manage-submissions.png"), full_page=True)
            page.wait_for_selector("text=mallory-name", timeout=60_000)
            page.wait_for_timeout(1500)
            page.screenshot(path=str(SCREENS / "hostile-manage-submissions.png"), full_page=True)
            assert _marks(page)["pwned"] == 0 and _marks(page)["title"] != "PWNED"

            step("hostile formgrader: Manual Grading, the list of submissions")
            _policed(page.goto(f"{url}/formgrader/gradebook/{ASSIGNMENT}/{ASSIGNMENT}", timeout=60_000))
            page.locator("a.name-shown", has_text="mallory-name").wait_for(state="attached", timeout=60_000)
            page.wait_for_timeout(1000)
            assert _marks(page)["pwned"] == 0
            links = {}
            for student in ("mallory", "mallory-name"):
                name = page.locator("a.name-shown").filter(has_text=re.compile(rf"^\s*{student}\s*$"))
                row = page.locator("tr", has=name)
                links[student] = row.locator("a").first.get_attribute("href")
            for student, href in links.items():
                step(f"hostile formgrader: Manual Grading of {student}")
                _policed(page.goto(href if href.startswith("http") else f"{url}{href}", timeout=60_000))
                page.wait_for_selector("text=test_merge_overlaps", timeout=60_000)
                page.wait_for_timeout(2000)
                page.screenshot(path=str(SCREENS / f"hostile-manual-grading-{student}.png"), full_page=True)
                assert _marks(page) == {"pwned": 0, "title": ASSIGNMENT}, student
                # the payload's long base64 word, shown as text, wraps: the page is as wide as the window
                assert _page_width(page) <= 1300, (student, _page_width(page))
                # the formgrader itself still works: its own scripts ran and showed the automatic scores
                assert page.evaluate("() => typeof window.toggle_name === 'function' && !!window.submission_id")
                page.wait_for_function("() => document.querySelector('input.score').placeholder !== ''", timeout=30_000)
                text = page.inner_text("#notebook")
                if student == "mallory":  # the attacker's text is shown, as text; its code ran (for outputs)
                    assert "My answer, with notes." in text and "outputs shown" in text
            assert NAME_PAYLOAD in page.inner_text("#notebook")  # the note quotes the name as text

            step("hostile formgrader: the feedback of mallory")
            feedback = course / "feedback" / "mallory" / ASSIGNMENT / f"{ASSIGNMENT}.html"
            page.goto(feedback.as_uri(), timeout=60_000)  # as the student opens it, from disk
            page.wait_for_timeout(2000)
            page.screenshot(path=str(SCREENS / "hostile-feedback-mallory.png"), full_page=True)
            assert "My answer, with notes." in page.inner_text("body")
            assert _page_width(page) <= 1300, _page_width(page)
            assert _marks(page)["pwned"] == 0
            for link in page.locator("a", has_text="a link").all():  # a javascript: link that survived would run
                link.click(no_wait_after=True)
            page.wait_for_timeout(500)
            assert _marks(page)["pwned"] == 0

            step("hostile formgrader: the feedback's own policy, behind the sanitiser")
            html = feedback.read_text(encoding="utf-8")
            missed = html.replace("</body>", f'<script>{RUN}</script><img src="x" onerror="{RUN}"></body>')
            assert missed != html
            (course / "missed.html").write_text(missed, encoding="utf-8")  # as if the sanitiser had missed both
            page.goto((course / "missed.html").as_uri(), timeout=60_000)
            page.wait_for_timeout(1500)
            assert _marks(page)["pwned"] == 0, "the feedback page's Content-Security-Policy let script run"

            after = _manual_scores(course)
            assert after == before, "a page of the hostile class changed the instructor's grades"

            step("control: the same payload where nothing sanitises it")
            page.goto((course / "control.html").as_uri(), timeout=60_000)
            page.wait_for_timeout(1500)
            assert _marks(page)["pwned"] >= 1, "the payload does not run even unsanitised: the test proves nothing"
        finally:
            violations = [line for line in console if "Content Security Policy" in line]
            step(f"console: {console[:10]}")
            browser.close()
    step(f"what the policy blocked: {violations[:5]}")

"""The instructor's workflow on a real JupyterHub, in headless Chromium: one hub, one student, one assignment.

A fresh course directory (the repository's ``nbgrader_config.py``, ``solutions/`` and ``notebooks/`` copied) and a
temporary exchange; the assignment put in the gradebook with a due date and released through the exchange by the
commands the instructors' workflow gives. Then JupyterHub from PyPI (its dummy authenticator,
``SimpleLocalProcessSpawner``: the hub's users without Unix accounts) behind npm's ``configurable-http-proxy``:

* the student's server runs from the students' image exactly as documented (``pip install './learner[student]'``
  and ``deploy/student-image/configure.sh``, built by :mod:`tests.bpe_lab.test_student_image`): no grader, no
  reference; the student fetches the assignment in the Assignments tab, writes the two functions in JupyterLab,
  saves and submits;
* the instructor's server runs from the grader's environment at the course directory: the formgrader collects,
  ``python -m autograder grade`` grades, the formgrader opens the submission for review (a comment typed there),
  generates and releases the feedback;
* the student fetches the feedback and opens it: the score and the instructor's comment are there.

Screenshots go to ``screenshots/jupyterhub/`` (ignored by git). Skipped, with the reason, without jupyterhub,
configurable-http-proxy, chromium or playwright (``.ci/run`` installs them all).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.bpe_lab import test_student_image

from .test_jupyterlab import CHROMIUM, CHROMIUM_ARGS, SHOTS, free_port, playwright_api, step

pytest.importorskip("jupyterhub", reason="jupyterhub is not installed (pip install -e '.[dev]')")
PROXY = shutil.which("configurable-http-proxy")
if PROXY is None:
    pytest.skip(
        "no configurable-http-proxy on PATH (npm install -g configurable-http-proxy; .ci/run does)",
        allow_module_level=True,
    )

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
ASSIGNMENT = "01_pair_counts_and_merge"
STUDENT, INSTRUCTOR = "ada", "grace"
HUB_START_S = 60
SPAWN_S = 120
WAIT_MS = 60_000
SCREENS = SHOTS / "jupyterhub"
COMMENT = "Well done: both functions pass every hidden case."

# What the student writes, cell by cell, in place of the stubs (correct: 8 / 8).
SOLUTIONS = {
    "get_pair_counts": (
        "def get_pair_counts(ids):\n"
        "    counts = {}\n"
        "    for pair in zip(ids, ids[1:]):\n"
        "        counts[pair] = counts.get(pair, 0) + 1\n"
        "    return counts\n"
    ),
    "merge": (
        "def merge(ids, pair, new_id):\n"
        "    out, i = [], 0\n"
        "    while i < len(ids):\n"
        "        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:\n"
        "            out.append(new_id)\n"
        "            i += 2\n"
        "        else:\n"
        "            out.append(ids[i])\n"
        "            i += 1\n"
        "    return out\n"
    ),
}

HUB_CONFIG = """
c = get_config()  # noqa: F821
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {port}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_port}"
c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.JupyterHub.db_url = "sqlite:///{base}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = "{base}/jupyterhub_cookie_secret"
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = {password!r}
c.Authenticator.allowed_users = {{{student!r}, {instructor!r}}}
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = "{base}/home/{{username}}"
c.Spawner.default_url = "/lab"
c.Spawner.start_timeout = {spawn_s}
c.Spawner.http_timeout = {spawn_s}
if {root!r}:
    c.Spawner.args = ["--allow-root"]  # this machine's tests run as root (CI's container)
c.Spawner.env_keep = ["PATH", "LANG", "LC_ALL"]  # never PYTHONPATH: the student's server imports its own image only

SERVERS = {servers!r}


def pre_spawn_hook(spawner):
    server = SERVERS[spawner.user.name]
    spawner.cmd = server["cmd"]
    spawner.environment = server["env"]
    if server.get("notebook_dir"):
        spawner.notebook_dir = server["notebook_dir"]


c.Spawner.pre_spawn_hook = pre_spawn_hook
"""


def grader_jupyter_paths() -> dict[str, str]:
    """The Jupyter folders of the grader's environment for a server started from it: in a venv made with
    ``--system-site-packages`` the packages come from the base Python, and so must their data (templates, JupyterLab's
    assets) and switches (the server extensions), which Jupyter looks for under ``sys.prefix`` only."""
    if sys.prefix == sys.base_prefix:
        return {}
    base = Path(sys.base_prefix)
    return {"JUPYTER_PATH": str(base / "share" / "jupyter"), "JUPYTER_CONFIG_PATH": str(base / "etc" / "jupyter")}


def run(*command: str, cwd: Path, env: dict[str, str]) -> str:
    """Run an instructor's command at the course directory; its output (it must succeed)."""
    done = subprocess.run(list(command), cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{command}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout + done.stderr


def _wait_http(url: str, process: subprocess.Popen, log: Path, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{url} did not answer:\n{log.read_text(errors='replace')[-4000:]}") from None
            time.sleep(0.5)


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """A course directory with the assignment released, and a JupyterHub serving the student and the instructor."""
    with running_hub(tmp_path_factory.mktemp("jupyterhub")) as running:
        yield running


@contextlib.contextmanager
def running_hub(base: Path):
    """:func:`hub` in the empty folder ``base``."""
    course, exchange = base / "course", base / "exchange"
    course.mkdir()
    shutil.copy2(ROOT / "nbgrader_config.py", course / "nbgrader_config.py")
    for name in ("solutions", "notebooks"):
        shutil.copytree(ROOT / name, course / name)
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as handle:
        handle.write(f"\nc.Exchange.root = {str(exchange)!r}\n")
        handle.write("c.CollectApp.check_owner = False  # every hub user is the same Unix user here\n")
    env = {k: v for k, v in os.environ.items() if k not in ("NBGRADER_EXECUTION", "PYTHONPATH")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    step("the instructor puts the assignment in the gradebook and releases it")
    run("nbgrader", "db", "assignment", "add", ASSIGNMENT, "--duedate=2099-01-01 00:00:00 UTC", cwd=course, env=env)
    run("nbgrader", "generate_assignment", ASSIGNMENT, "--force", cwd=course, env=env)
    run("nbgrader", "release_assignment", ASSIGNMENT, cwd=course, env=env)

    step("the students' image: the learner's wheel with its student extra, then configure.sh")
    student_python = test_student_image.build(base / "student-image", also=("jupyterhub",))
    password = secrets.token_hex(8)
    port, hub_port, proxy_port = free_port(), free_port(), free_port()
    servers = {
        STUDENT: {
            "cmd": [str(student_python), "-m", "jupyterhub.singleuser"],
            "env": {"BPE_EXCHANGE_ROOT": str(exchange), "JUPYTER_PLATFORM_DIRS": "1"},
        },
        INSTRUCTOR: {
            "cmd": [sys.executable, "-m", "jupyterhub.singleuser"],
            "env": {**grader_jupyter_paths(), "JUPYTER_PLATFORM_DIRS": "1"},
            "notebook_dir": str(course),
        },
    }
    config = HUB_CONFIG.format(
        port=port,
        hub_port=hub_port,
        proxy_port=proxy_port,
        proxy=PROXY,
        base=base,
        password=password,
        student=STUDENT,
        instructor=INSTRUCTOR,
        spawn_s=SPAWN_S,
        servers=servers,
        root=os.geteuid() == 0,
    )
    (base / "jupyterhub_config.py").write_text(config, encoding="utf-8")
    step("JupyterHub starts")
    log_path = base / "jupyterhub.log"
    log = open(log_path, "wb")  # noqa: SIM115 - closed below
    hub_process = subprocess.Popen(
        [sys.executable, "-m", "jupyterhub", "-f", str(base / "jupyterhub_config.py")],
        cwd=base,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_http(f"{url}/hub/health", hub_process, log_path, HUB_START_S)
        yield {"url": url, "password": password, "course": course, "exchange": exchange, "env": env, "log": log_path}
    finally:
        os.killpg(hub_process.pid, signal.SIGTERM)  # the hub stops the servers it spawned
        try:
            hub_process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(hub_process.pid, signal.SIGKILL)
        log.close()
        _stop_servers(base)


def _stop_servers(base: Path) -> None:
    """Single-user servers left behind by a hub that died (they run in sessions of their own): stopped by the pid
    files of their runtime folders."""
    for pid_file in (base / "home").glob("*/.local/share/jupyter/runtime/jpserver-*.json"):
        try:
            pid = json.loads(pid_file.read_text())["pid"]
            os.kill(pid, signal.SIGTERM)
        except (OSError, ValueError, KeyError):
            continue


def shot(page, name: str) -> None:
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(500)
    page.screenshot(path=str(SCREENS / f"{name}.png"))


def login(browser, hub: dict, user: str):
    """A browser context logged in to the hub as ``user``, on their started JupyterLab."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(f"{hub['url']}/hub/login")
    page.fill("input#username_input", user)
    page.fill("input#password_input", hub["password"])
    page.click("#login_submit")
    page.wait_for_url(f"**/user/{user}/lab**", timeout=SPAWN_S * 1000)
    page.wait_for_selector("li.lm-MenuBar-item:has-text('Nbgrader')")  # JupyterLab and nbgrader's extension loaded
    return context, page


def open_assignments(page) -> None:
    """The Assignments tab, from nbgrader's menu in JupyterLab's menu bar."""
    page.click("li.lm-MenuBar-item:has-text('Nbgrader')")
    page.click("li.lm-Menu-item:has-text('Assignment List')")
    page.wait_for_selector("text=Released assignments")


def test_a_student_and_an_instructor_go_round_the_course_on_jupyterhub(hub):
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            step("the student logs in; JupyterLab from the students' image")
            context, page = login(browser, hub, STUDENT)
            shot(page, "01-student-lab")
            open_assignments(page)
            shot(page, "02-student-assignments")
        finally:
            browser.close()

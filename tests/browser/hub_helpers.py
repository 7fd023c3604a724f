"""A JupyterHub of its own for a test: the hub from PyPI behind npm's ``configurable-http-proxy``, on loopback.

:func:`running_hub` writes the hub's configuration into a folder of the test's, starts the hub there and stops
everything it started when the ``with`` block ends, whatever happened: the hub (which stops the proxy and the
single-user servers), then any process still running from one of the test's folders (the hub's, the servers'),
each by its process id: the proxy and the kernels run in sessions of their own, and a hub that dies leaves its
servers behind. Users log in with one random password (:class:`Hub`); each user's single-user server runs as this
machine's user (``SimpleLocalProcessSpawner``: no Unix accounts) with a home of its own under ``home/<user>``, its
own environment, folder and landing page (:class:`Server`).

Also here: logging a browser in, nbgrader's Assignments tab in JupyterLab, and the screenshots of a run.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tests import needs

HUB_START_S = 40
SPAWN_S = 60
STOP_S = 15

HUB_CONFIG = """\
# JupyterHub's configuration for a test (tests/browser/hub_helpers.py); its settings are in hub_settings.json.
import json

import os

from jupyterhub.auth import DummyAuthenticator
from jupyterhub.spawner import SimpleLocalProcessSpawner

c = get_config()  # noqa: F821 - provided by JupyterHub's config loader
with open({settings!r}, encoding="utf-8") as handle:
    settings = json.load(handle)


class OnePasswordAuthenticator(DummyAuthenticator):
    \"\"\"The allowed users, with this run's random password only.\"\"\"

    async def authenticate(self, handler, data):
        return data["username"] if data.get("password") == settings["password"] else None


class FolderSpawner(SimpleLocalProcessSpawner):
    \"\"\"SimpleLocalProcessSpawner whose server starts in its own folder (notebook_dir) when it has one, as
    `jupyter lab` started there: nbgrader's formgrader reads nbgrader_config.py from the working directory.\"\"\"

    def make_preexec_fn(self, name):
        in_home = super().make_preexec_fn(name)
        folder = self.notebook_dir

        def preexec():
            in_home()
            if folder:
                os.chdir(folder)

        return preexec


def pre_spawn_hook(spawner):
    server = settings["servers"][spawner.user.name]
    spawner.environment = server["env"]
    if server["notebook_dir"]:
        spawner.notebook_dir = server["notebook_dir"]
    spawner.default_url = server["default_url"]


c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = settings["port"]
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = settings["hub_port"]
c.JupyterHub.db_url = "sqlite:///" + settings["base"] + "/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = settings["base"] + "/jupyterhub_cookie_secret"
c.ConfigurableHTTPProxy.command = [settings["proxy"]]
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:%d" % settings["proxy_port"]
c.ConfigurableHTTPProxy.pid_file = settings["base"] + "/proxy.pid"
c.JupyterHub.authenticator_class = OnePasswordAuthenticator
c.Authenticator.allowed_users = set(settings["servers"])
c.JupyterHub.spawner_class = FolderSpawner
c.FolderSpawner.home_dir_template = settings["base"] + "/home/{{username}}"
c.Spawner.cmd = [settings["python"], "-m", "jupyterhub.singleuser"]
c.Spawner.args = settings["args"]
c.Spawner.start_timeout = settings["spawn_s"]
c.Spawner.http_timeout = settings["spawn_s"]
c.Spawner.env_keep = ["PATH", "LANG", "LC_ALL"]
c.Spawner.pre_spawn_hook = pre_spawn_hook
"""


@dataclass
class Server:
    """A hub user's single-user server: its environment (added to the hub's), folder (``None``: its home) and the
    page a login lands on."""

    env: dict[str, str] = field(default_factory=dict)
    notebook_dir: Path | None = None
    default_url: str = "/lab"


@dataclass
class Hub:
    url: str
    password: str
    base: Path
    log: Path

    def home(self, user: str) -> Path:
        """The user's home (``HOME`` and, unless their :class:`Server` says otherwise, their server's folder)."""
        return self.base / "home" / user


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def prepare_home(home: Path) -> None:
    """A new user's JupyterLab settings: no news toast over the page (JupyterLab asks whether to fetch news)."""
    settings = home / ".jupyter" / "lab" / "user-settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True, exist_ok=True)
    (settings / "notification.jupyterlab-settings").write_text(json.dumps({"fetchNews": "false"}))


@contextlib.contextmanager
def running_hub(base: Path, servers: dict[str, Server], env: dict[str, str]) -> Iterator[Hub]:
    """A JupyterHub in the empty folder ``base`` for the users of ``servers``, started from this Python with
    ``env``; everything it started is stopped when the block ends.

    Raises:
        RuntimeError: the hub did not answer within ``HUB_START_S`` (its log's end in the message).
    """
    proxy = needs.configurable_http_proxy()
    assert proxy is not None, "no configurable-http-proxy on PATH"  # the test is marked needs("jupyterhub")
    hub = Hub(f"http://127.0.0.1:{free_port()}", secrets.token_urlsafe(12), base, base / "jupyterhub.log")
    for user in servers:
        prepare_home(hub.home(user))
    settings = {
        "base": str(base),
        "port": int(hub.url.rsplit(":", 1)[1]),
        "hub_port": free_port(),
        "proxy_port": free_port(),
        "proxy": proxy,
        "password": hub.password,
        "python": sys.executable,
        "args": ["--allow-root"] if os.geteuid() == 0 else [],  # CI's container runs the tests as root
        "spawn_s": SPAWN_S,
        "servers": {
            user: {
                "env": server.env,
                "notebook_dir": str(server.notebook_dir) if server.notebook_dir else None,
                "default_url": server.default_url,
            }
            for user, server in servers.items()
        },
    }
    (base / "hub_settings.json").write_text(json.dumps(settings, indent=1), encoding="utf-8")
    config = base / "jupyterhub_config.py"
    config.write_text(HUB_CONFIG.format(settings=str(base / "hub_settings.json")), encoding="utf-8")
    log = open(hub.log, "wb")  # noqa: SIM115 - closed below
    process = subprocess.Popen(
        [sys.executable, "-m", "jupyterhub", "-f", str(config)],
        cwd=base,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        _wait_http(f"{hub.url}/hub/health", process, hub.log, HUB_START_S)
        yield hub
    finally:
        _stop(process)
        log.close()
        stop_processes_under([base, *(server.notebook_dir for server in servers.values() if server.notebook_dir)])


def _wait_http(url: str, process: subprocess.Popen, log: Path, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                why = "exited" if process.poll() is not None else f"did not answer within {seconds} s"
                raise RuntimeError(f"{url}: the hub {why}:\n{log.read_text(errors='replace')[-4000:]}") from None
            time.sleep(0.3)


def _stop(process: subprocess.Popen) -> None:
    """The hub: SIGTERM (it stops the proxy and the servers it spawned), SIGKILL when it takes too long."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=STOP_S)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=STOP_S)


def processes_under(folders: list[Path]) -> list[int]:
    """The ids of this machine's processes (but this one) whose working folder is one of ``folders`` or under one
    (Linux's ``/proc``)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cwd = Path(os.readlink(entry / "cwd"))
        except OSError:
            continue
        if any(cwd == folder or folder in cwd.parents for folder in folders):
            found.append(int(entry.name))
    return found


def stop_processes_under(folders: list[Path]) -> list[int]:
    """Stop what still runs from the test's own ``folders`` (the hub's, the servers'): SIGTERM, then SIGKILL after
    ``STOP_S``. Returns the ids it found."""
    left = processes_under(folders)
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_S
    while time.monotonic() < deadline and any(Path(f"/proc/{pid}").exists() for pid in left):
        time.sleep(0.2)
        for pid in left:  # reap our own children, if any (a zombie keeps its /proc entry)
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, os.WNOHANG)
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return left


class Shots:
    """Numbered screenshots of one run in ``folder``; with ``BPE_SCREENSHOTS`` set, also copied to ``copy_to``."""

    def __init__(self, folder: Path, copy_to: Path = Path("/tmp/hub-shots")):
        self.folder, self.copy_to, self.taken = folder, copy_to, []
        folder.mkdir(parents=True, exist_ok=True)

    def take(self, page, name: str, full_page: bool = False) -> Path:
        page.wait_for_timeout(300)  # the last repaint
        path = self.folder / f"{len(self.taken) + 1:02d}-{name}.png"
        page.screenshot(path=str(path), full_page=full_page)
        self.taken.append(path)
        return path

    def publish(self) -> None:
        if os.environ.get("BPE_SCREENSHOTS") and self.taken:
            shutil.rmtree(self.copy_to, ignore_errors=True)
            self.copy_to.mkdir(parents=True)
            for path in self.taken:
                shutil.copy2(path, self.copy_to / path.name)


def log_in(browser, hub: Hub, user: str, timeout_ms: int):
    """A new browser context on the hub's login page, the form sent as ``user``; returns (context, page) without
    waiting for the server (the hub spawns it meanwhile: :func:`wait_for_lab`)."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(timeout_ms)
    page.goto(f"{hub.url}/hub/login")
    page.fill("input#username_input", user)
    page.fill("input#password_input", hub.password)
    page.click("#login_submit")
    return context, page


def wait_for_server(page, user: str, default_url: str = "/lab") -> None:
    """The user's server is up, the page on its ``default_url``."""
    page.wait_for_url(f"**/user/{user}{default_url}**", timeout=SPAWN_S * 1000)


def wait_for_lab(page, user: str) -> None:
    """The user's JupyterLab is up, with nbgrader's menu in its menu bar."""
    wait_for_server(page, user)
    page.wait_for_selector("li.lm-MenuBar-item:has-text('Nbgrader')", timeout=SPAWN_S * 1000)


def open_assignments(page) -> list[str]:
    """The Assignments tab, from nbgrader's menu in JupyterLab's menu bar; returns that menu's items."""
    page.click("li.lm-MenuBar-item:has-text('Nbgrader')")
    labels = page.locator(".lm-Menu-content > li.lm-Menu-item .lm-Menu-itemLabel")
    labels.first.wait_for()
    items = labels.all_inner_texts()
    page.click("li.lm-Menu-item:has-text('Assignment List')")
    page.wait_for_selector("text=Released assignments")
    return items

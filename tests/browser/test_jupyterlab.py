"""The chart widgets in a real browser: JupyterLab on loopback, driven by headless Chromium through Playwright.

The test writes its own small notebook (one cell per builder) into a temporary folder, starts ``jupyter lab`` on
127.0.0.1 with a random token, opens the notebook in Debian's Chromium, runs every cell, checks that each widget
rendered (its chart is a loaded image inside the widget, not the PNG fallback), moves the explorer's slider and
checks that the chart and its caption changed. Screenshots go to ``screenshots/`` at the repository root (ignored
by git). It is skipped, with the reason, where chromium or the ``playwright`` package is missing (``needs("chromium")``,
tests/needs.py).

Every wait is bounded; the server and its kernels are stopped at the end whatever happens.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests import needs
from tests.needs import CHROMIUM_ARGS

pytestmark = pytest.mark.needs("chromium")
ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "screenshots"
SERVER_START_S = 300  # backstops only: a wait ends as soon as its condition holds; a loaded machine is slow
KERNEL_RUN_S = 600
UPDATE_S = 180


CELLS = [
    "from bpe_lab.charts import apply_stepper, pair_explorer, tie_break_comparison\n"
    "freqs = {'low': 5, 'lower': 2, 'newest': 6, 'widest': 3}",
    "pair_explorer(freqs, 8, tie_break='smallest')",  # the inputs of 03's charts, which ship traces
    "tie_break_comparison(freqs, 8)",
    "apply_stepper('abc', [('ab', 'c'), ('a', 'b')], marker=False)",
]
KINDS = ["bpe-pair-explorer", "bpe-tie-break-comparison", "bpe-apply-stepper"]
# the notebook's kernel is connected and idle (JupyterLab is started with the app exposed as window.jupyterapp)
KERNEL_READY = """() => {
    const widget = window.jupyterapp.shell.currentWidget;
    const kernel = widget?.sessionContext?.session?.kernel;
    return !!kernel && kernel.connectionStatus === 'connected' && kernel.status === 'idle';
}"""


_START = time.monotonic()


def step(message: str) -> None:
    """Progress on stderr (shown by pytest when the test fails), with the seconds since the module started."""
    print(f"[browser test {time.monotonic() - _START:6.1f}s] {message}", file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def write_notebook(path: Path) -> None:
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    nbformat.write(notebook, path)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server on 127.0.0.1 serving a temporary folder; yields (base url, token, folder)."""
    folder = tmp_path_factory.mktemp("lab")
    write_notebook(folder / "demo.ipynb")
    port = free_port()
    token = secrets.token_hex(16)
    env = dict(os.environ)
    env.pop("NBGRADER_EXECUTION", None)
    env.update(
        JUPYTERLAB_SETTINGS_DIR=str(folder / ".lab-settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(folder / ".lab-workspaces"),
        JUPYTER_RUNTIME_DIR=str(folder / ".runtime"),
        MPLBACKEND="Agg",
    )
    # JupyterLab asks whether to fetch news: answer no in the settings so that no toast covers the page.
    settings = folder / ".lab-settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(json.dumps({"fetchNews": "false"}))
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--allow-root",
        f"--ServerApp.token={token}",
        f"--port={port}",
        "--ip=127.0.0.1",
        "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={folder}",
        "--LabApp.expose_app_in_browser=True",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]
    log = open(folder / "server.log", "wb")  # noqa: SIM115 - closed below
    step(f"starting jupyter lab on 127.0.0.1:{port}")
    server = subprocess.Popen(
        command, cwd=folder, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + SERVER_START_S
        while True:
            if server.poll() is not None:
                pytest.fail(
                    f"jupyter lab exited with {server.returncode}:\n{(folder / 'server.log').read_text()[-3000:]}"
                )
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"jupyter lab did not answer within {SERVER_START_S} s")
            time.sleep(0.5)
        step("jupyter lab answers")
        yield base, token, folder
    finally:
        step("stopping jupyter lab")
        shut_down_kernels(base, token)  # kernels run in sessions of their own: ask the server to end them
        try:
            os.killpg(server.pid, signal.SIGTERM)  # the server (it also shuts down any kernel left)
            server.wait(timeout=20)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(server.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            server.wait(timeout=10)
        log.close()


def shut_down_kernels(base: str, token: str) -> None:
    try:
        with urllib.request.urlopen(f"{base}/api/kernels?token={token}", timeout=5) as response:
            kernels = json.load(response)
        for kernel in kernels:
            request = urllib.request.Request(f"{base}/api/kernels/{kernel['id']}?token={token}", method="DELETE")
            urllib.request.urlopen(request, timeout=15).close()
    except OSError as error:
        step(f"could not shut the kernels down through the server: {error}")


def chart_state(page, kind: str) -> dict:
    """The explorer's image (its blob URL, whether it loaded, its size), slider readout and caption."""
    return page.evaluate(
        """(kind) => {
            const box = document.querySelector('.jp-OutputArea-output .' + kind);
            const img = box.querySelector('img.widget-image');
            const readout = box.querySelector('.widget-readout');
            const html = box.querySelectorAll('.widget-html-content');
            return {src: img.src, loaded: img.complete && img.naturalWidth > 0, width: img.naturalWidth,
                    shown: img.getBoundingClientRect().width, readout: readout.textContent.trim(),
                    caption: html[html.length - 1].textContent};
        }""",
        kind,
    )


def test_widgets_render_and_follow_the_slider_in_jupyterlab(lab):
    base, token, folder = lab
    SHOTS.mkdir(exist_ok=True)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=needs.chromium(), args=CHROMIUM_ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        try:
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            step("opening the notebook")
            page.goto(f"{base}/lab/tree/demo.ipynb?reset&token={token}", timeout=SERVER_START_S * 1000)
            page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=SERVER_START_S * 1000)
            page.wait_for_function("window.jupyterapp !== undefined", timeout=SERVER_START_S * 1000)
            step("waiting for the kernel")
            page.wait_for_function(KERNEL_READY, timeout=KERNEL_RUN_S * 1000)
            step("running every cell")
            page.locator(".jp-Notebook .jp-Cell .jp-InputPrompt").first.click()  # the notebook is the current widget
            page.evaluate("() => { void window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
            page.wait_for_function(
                """(kinds) => kinds.every(kind => {
                    const img = document.querySelector('.jp-OutputArea-output .' + kind + ' img.widget-image');
                    return img && img.complete && img.naturalWidth > 0;
                })""",
                arg=KINDS,
                timeout=KERNEL_RUN_S * 1000,
            )
            step("every widget rendered")
            page.screenshot(path=str(SHOTS / "browser_01_run.png"))

            # every builder rendered as a live widget: its image loaded, no fallback PNG, no error output
            for kind in KINDS:
                state = chart_state(page, kind)
                assert state["loaded"] and state["width"] >= 1000, (kind, state)
                assert state["shown"] > 500, (kind, state)
            assert page.locator(".jp-OutputArea-output .jp-RenderedImage").count() == 0
            assert page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']").count() == 0
            assert page.locator("text=Error displaying widget").count() == 0

            explorer = page.locator(".jp-OutputArea-output .bpe-pair-explorer")
            explorer.scroll_into_view_if_needed()
            explorer.screenshot(path=str(SHOTS / "browser_02_explorer_round1.png"))
            before = chart_state(page, "bpe-pair-explorer")
            assert before["readout"] == "1" and "Round 1 merges" in before["caption"]
            pixels_before = explorer.locator("img.widget-image").screenshot()

            # move the slider two rounds with the keyboard, as a learner would
            step("moving the explorer's slider")
            handle = explorer.locator(".noUi-handle")
            handle.focus()
            handle.press("ArrowRight")
            handle.press("ArrowRight")
            page.wait_for_function(
                """([kind, src]) => {
                    const box = document.querySelector('.jp-OutputArea-output .' + kind);
                    const img = box.querySelector('img.widget-image');
                    return img.src !== src && img.complete && img.naturalWidth > 0
                        && box.textContent.includes('Round 3 merges');
                }""",
                arg=["bpe-pair-explorer", before["src"]],
                timeout=UPDATE_S * 1000,
            )
            step("the explorer redrew")
            after = chart_state(page, "bpe-pair-explorer")
            assert after["readout"] == "3" and after["src"] != before["src"]
            assert "Round 3 merges" in after["caption"]
            assert explorer.locator("img.widget-image").screenshot() != pixels_before  # the chart itself changed
            explorer.screenshot(path=str(SHOTS / "browser_03_explorer_round3.png"))

            for kind, name in [("bpe-tie-break-comparison", "04_tie_breaks"), ("bpe-apply-stepper", "05_stepper")]:
                widget = page.locator(f".jp-OutputArea-output .{kind}")
                widget.scroll_into_view_if_needed()
                widget.screenshot(path=str(SHOTS / f"browser_{name}.png"))
            assert not errors, errors
        except Exception:
            page.screenshot(path=str(SHOTS / "browser_failure.png"))
            step(f"failed: screenshot in {SHOTS / 'browser_failure.png'}")
            raise
        finally:
            browser.close()

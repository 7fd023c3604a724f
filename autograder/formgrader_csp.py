"""The formgrader served with a Content-Security-Policy that forbids inline script it did not write itself.

nbgrader's formgrader renders submissions inside the instructor's Jupyter session: script that ran there could set
every student's manual score through the formgrader's own API. The pipeline makes the notebooks it renders inert
(:mod:`autograder.inert`); this is the second wall, in the browser. What the formgrader needs to keep working,
read off its templates (nbgrader 0.9): its own inline ``<script>`` blocks, in each page's ``<head>`` (the
variables its scripts read, such as ``submission_id``) and, written as they are, in the body (a tooltip's set-up),
three inline ``onclick`` handlers (show and hide names),
its static scripts and styles, inline ``style`` attributes, and ``data:`` images. A static policy (nbgrader's
``tornado_settings`` headers) cannot allow the first without allowing every inline script; so:

* every HTML page under ``/formgrader/`` gets a policy with a fresh nonce, and the nonce is given to the
  ``<script>`` elements of the page's ``<head>`` only (the submission is rendered in the body; the head holds
  nothing of it: :data:`SAFE_SEGMENT` refuses a URL whose parts could be reflected into it);
* the formgrader's own inline handlers and constant inline scripts are allowed by their hashes
  (``'unsafe-hashes'``, read from its templates at start), no other;
* a student's own files served by the formgrader (``/formgrader/submissions/<id>/<file>``) get a ``sandbox``
  policy: no script, an origin of their own;
* a page is never cached (``Cache-Control: no-store``, no ``Etag``): a cached page would keep its old nonce.
* a page's outputs wrap at its width (:func:`autograder.inert.with_wrapped_outputs`, as on the feedback page):
  a student's long word never widens the Manual Grading page.

:class:`FormgraderCSP` is a tornado output transform. ``nbgrader_config.py`` installs it in the running Jupyter
server when the formgrader loads the course's configuration (:func:`install_in_running_server`, called by
:func:`autograder.preprocessors.pipeline.configure`); it is also a Jupyter server extension (``jupyter server
extension enable autograder.formgrader_csp``) for a server that should have it whatever course it serves.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import re
import secrets
from pathlib import Path
from typing import Any

from tornado.web import OutputTransform

from .inert import with_wrapped_outputs

POLICY = (
    "default-src 'self'; script-src 'self' 'nonce-{nonce}' 'unsafe-hashes' {hashes}; style-src 'self' "
    "'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; object-src 'none'; "
    "frame-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'"
)
"""The policy of the formgrader's pages: scripts from the server itself or carrying the page's nonce."""
FILES_POLICY = "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'"
"""The policy of a student's files served by the formgrader: shown, never run."""
SAFE_SEGMENT = re.compile(r"[A-Za-z0-9_.@+%-]*\Z")
"""What each part of a formgrader URL may be made of (ids of assignments, notebooks, students, submissions)."""
_FORMGRADER = re.compile(r"/formgrader(?:/|\Z)")
_FILES = re.compile(
    r"/formgrader/submissions/(?!components/)[^/]+/(?!(?:next_incorrect|prev_incorrect|next|prev)/?\Z)."
)
"""A student's own file, as nbgrader's ``SubmissionFilesHandler`` serves it (``submissions/<id>/<path>``)."""
_HEAD_SCRIPT = re.compile(rb"<script(?=[\s>])", re.I)


@functools.cache
def handler_hashes() -> tuple[str, ...]:
    """The CSP hashes (``'sha256-...'``) of the inline event handlers in nbgrader's formgrader templates, and of
    the inline scripts those templates write with no template expression in them (a tooltip set-up in the body)."""
    try:
        import nbgrader.server_extensions.formgrader as formgrader
    except ImportError:
        return ()
    found = set()
    for template in Path(formgrader.__file__).parent.joinpath("templates").rglob("*"):
        if template.is_file():
            text = template.read_text(encoding="utf-8", errors="replace")
            values = re.findall(r'\son[a-z]+="([^"]*)"', text)
            # the body's inline scripts that the template writes as they are (no template expression in them)
            values += [body for body in re.findall(r"<script[^>]*>(.*?)</script>", text, re.S)
                       if body.strip() and "{{" not in body and "{%" not in body]  # fmt: skip
            for value in values:
                digest = base64.b64encode(hashlib.sha256(value.encode("utf-8")).digest()).decode()
                found.add(f"'sha256-{digest}'")
    return tuple(sorted(found))


def with_nonce(page: bytes, nonce: str) -> bytes:
    """``page`` with ``nonce`` given to each ``<script>`` of its ``<head>`` (none of the body's).

    Example:
        >>> with_nonce(b"<head><script>a()</script></head><body><script>b()</script></body>", "N")
        b'<head><script nonce="N">a()</script></head><body><script>b()</script></body>'
    """
    end = page.lower().find(b"</head>")
    if end < 0:
        return page
    head = _HEAD_SCRIPT.sub(b'<script nonce="' + nonce.encode() + b'"', page[:end])
    return head + page[end:]


class FormgraderCSP(OutputTransform):
    """Tornado output transform: the formgrader's responses get their Content-Security-Policy (module docstring)."""

    def __init__(self, request: Any) -> None:
        path = getattr(request, "path", "") or ""
        found = _FORMGRADER.search(path)
        self.formgrader = found is not None
        self.files = bool(_FILES.search(path))
        parts = path[found.end() :].split("/") if found is not None else []
        self.refused = self.formgrader and not self.files and not all(SAFE_SEGMENT.match(p) for p in parts)

    def transform_first_chunk(self, status_code: int, headers: Any, chunk: bytes, finishing: bool):
        if not self.formgrader:
            return status_code, headers, chunk
        if self.refused:  # a URL part that a template would reflect into a page: not served
            headers["Content-Type"] = "text/plain; charset=UTF-8"
            headers.pop("Content-Length", None)
            chunk = b"refused: a part of this formgrader URL is not a plain name"
            headers["Content-Length"] = str(len(chunk))
            headers["Content-Security-Policy"] = "default-src 'none'"
            return 400, headers, chunk
        if self.files:
            headers["Content-Security-Policy"] = FILES_POLICY
            return status_code, headers, chunk
        if status_code == 304:  # never for a page (below); a policy here would replace the cached page's own
            return status_code, headers, chunk
        if "html" not in headers.get("Content-Type", "") or headers.get("Content-Encoding"):
            headers["Content-Security-Policy"] = POLICY.format(nonce=secrets.token_urlsafe(16), hashes="")
            return status_code, headers, chunk
        nonce = secrets.token_urlsafe(16)
        if finishing:
            chunk = with_nonce(chunk, nonce)
            # a submission's long word (its HTML shown as text) wraps, as on the feedback page, never widens the page
            chunk = with_wrapped_outputs(chunk.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")
            if "Content-Length" in headers:
                headers["Content-Length"] = str(len(chunk))
        headers["Content-Security-Policy"] = POLICY.format(nonce=nonce, hashes=" ".join(handler_hashes()))
        # a page and its nonce go together: never kept or revalidated (tornado's Etag is of the page before its
        # nonce, so a browser's second visit got "304 Not Modified" with a new policy that blocked every script of
        # the cached page, which then stuck at "Loading, please wait...")
        headers.pop("Etag", None)
        headers["Cache-Control"] = "no-store"
        return status_code, headers, chunk


def install(web_app: Any) -> bool:
    """Put :class:`FormgraderCSP` first among ``web_app``'s output transforms (before compression), once."""
    transforms = getattr(web_app, "transforms", None)
    if transforms is None:
        return False
    if FormgraderCSP not in transforms:
        transforms.insert(0, FormgraderCSP)
    return True


def install_in_running_server() -> bool:
    """:func:`install` in the Jupyter server of this process, if one is running (the formgrader's); else nothing.

    Example:
        >>> install_in_running_server()  # no Jupyter server in a plain Python process
        False
    """
    try:
        from jupyter_server.serverapp import ServerApp
    except ImportError:
        return False
    if not ServerApp.initialized():
        return False
    web_app = getattr(ServerApp.instance(), "web_app", None)
    return install(web_app) if web_app is not None else False


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "autograder.formgrader_csp"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    install(serverapp.web_app)

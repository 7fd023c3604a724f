"""autograder.formgrader_csp: each formgrader page with its own nonce, never cached, never revalidated."""

from __future__ import annotations

from types import SimpleNamespace

from tornado.httputil import HTTPHeaders

from autograder.formgrader_csp import FormgraderCSP

PAGE = b"<html><head><script>var base_url = '';</script></head><body>ok</body></html>"


def _served(path: str, status: int, headers: dict[str, str], chunk: bytes = PAGE):
    transform = FormgraderCSP(SimpleNamespace(path=path))
    return transform.transform_first_chunk(status, HTTPHeaders(headers), chunk, True)


def test_a_page_gets_a_nonce_and_is_never_kept_or_revalidated():
    headers = {"Content-Type": "text/html; charset=UTF-8", "Etag": '"abc"', "Content-Length": str(len(PAGE))}
    status, sent, chunk = _served("/formgrader/manage_submissions/01", 200, headers)
    nonce = sent["Content-Security-Policy"].split("'nonce-")[1].split("'")[0]
    assert f'<script nonce="{nonce}">'.encode() in chunk
    assert "Etag" not in sent and sent["Cache-Control"] == "no-store"


def test_a_not_modified_answer_keeps_the_policy_of_the_page_it_revalidates():
    # a browser that cached a page before (with the nonce its policy named) must not get a new policy for it
    status, sent, chunk = _served("/formgrader/manage_submissions/01", 304, {}, b"")
    assert status == 304 and "Content-Security-Policy" not in sent

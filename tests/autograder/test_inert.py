"""autograder.inert: what nbconvert renders from a sanitised notebook holds nothing outside the allowlist.

Each hostile part of a submission (markdown, raw cells, attachments, outputs and their metadata, cell and notebook
metadata) is cleaned by ``SanitizeGraded``, then the notebook is rendered with nbconvert's HTML exporter as the
feedback is (the formgrader's own page is checked in a browser: tests/browser/test_hostile_formgrader.py), and the
page's active parts are counted against those of a harmless notebook.
"""

import base64
import time
from pathlib import Path

import nbformat
import pytest
from nbconvert.filters.markdown import markdown2html

from autograder import inert as sanitize
from autograder.preprocessors.sanitize_graded import SanitizeGraded

MARKDOWN_ATTACKS = [
    "<script>document.title='PWNED'</script>",
    '<img src=x onerror="document.title=1">',
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[click](&#106;avascript:alert(1))",
    "[ref][a]\n\n[a]: javascript:alert(1)",
    "<javascript:alert(1)>",
    "![img](javascript:alert(1))",
    "[x](data:text/html,<script>alert(1)</script>)",
    '<a href="java\tscript:alert(1)">x</a>',
    "<svg onload=alert(1)>",
    '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
    "<style>body{background:url(javascript:x)}</style>",
    '<div style="x" onmouseover="alert(1)">hover</div>',
    "<!--[if]><script>alert(1)</script><![endif]-->",
]


@pytest.mark.parametrize("attack", MARKDOWN_ATTACKS)
def test_a_markdown_cell_renders_inert_and_keeps_its_text(attack):
    cleaned = sanitize.clean_markdown("My notes. " + attack)
    assert sanitize.active_parts(markdown2html(cleaned)) == []
    assert "My notes." in markdown2html(cleaned)


def test_harmless_markdown_is_left_as_written():
    text = "# Notes\n\nSome **bold**, a [link](https://example.com), `code` and <b>html</b>.\n\n> a quote"
    assert sanitize.clean_markdown(text) == text


def _png():
    return base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"0" * 20).decode()


def _hostile_notebook():
    nb = nbformat.v4.new_notebook()
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    nb.metadata["title"] = "<script>alert(1)</script>"
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": 'x"><script>alert(1)</script>', "language": "py"}
    md = nbformat.v4.new_markdown_cell("![a](attachment:evil.html) " + " ".join(MARKDOWN_ATTACKS))
    md["attachments"] = {"evil.html": {"text/html": "<script>alert(1)</script>"}, "ok.png": {"image/png": _png()}}
    md.metadata["tags"] = ['x"><script>alert(1)</script>', "fine-tag"]
    raw = nbformat.v4.new_raw_cell("<script>alert('raw')</script>", metadata={"format": "text/html"})
    code = nbformat.v4.new_code_cell("print(1)", execution_count=1)
    code.metadata["nbgrader"] = {"grade_id": 'x" autofocus onfocus="alert(1)', "grade": True, "points": 1}
    code.outputs = [
        nbformat.v4.new_output("display_data", {"text/html": "<b>ok</b><script>alert(1)</script>"}),
        nbformat.v4.new_output("display_data", {"application/javascript": "alert(1)", "text/plain": "js"}),
        nbformat.v4.new_output("display_data", {"image/png": 'x" onerror="alert(1)'}),
        nbformat.v4.new_output(
            "display_data",
            {"image/png": _png()},
            metadata={"image/png": {"width": '1" onerror="alert(1)', "filenames": "/etc/passwd"}, "isolated": True},
        ),
        nbformat.v4.new_output("display_data", {"text/markdown": "[x](javascript:alert(1))"}),
        nbformat.v4.new_output("display_data", {"image/svg+xml": "<svg onload=alert(1)>"}),
        nbformat.v4.new_output("stream", name='stdout"><script>', text="<script>alert(1)</script>"),
    ]
    nb.cells = [md, raw, code]
    return nb


@pytest.fixture(autouse=True)
def _templates(monkeypatch):
    """A virtual environment made with the system's packages finds nbconvert's templates under the base prefix."""
    import os
    import sys

    shared = [str(Path(p) / "share" / "jupyter") for p in (sys.prefix, sys.base_prefix)]
    monkeypatch.setenv("JUPYTER_PATH", os.pathsep.join([*shared, os.environ.get("JUPYTER_PATH", "")]))


def _page(nb):
    from nbconvert import HTMLExporter

    return HTMLExporter(template_name="classic").from_notebook_node(nb)[0]


def runnable(page):
    """What in a page can run script or load another page: script, frame, object, embed, form, svg, base and meta
    elements, ``on*`` attributes, ``javascript:``/``vbscript:``/``data:`` URLs outside images, counted."""
    from collections import Counter
    from html.parser import HTMLParser

    found = Counter()

    class Finder(HTMLParser):
        def handle_starttag(self, tag, attrs):
            if tag in {"script", "iframe", "frame", "object", "embed", "form", "svg", "base", "meta", "link"}:
                found[tag] += 1
            for name, value in attrs:
                url = "".join((value or "").split()).lower()
                if name.startswith("on"):
                    found["on*"] += 1
                if url.startswith(("javascript:", "vbscript:")) or (url.startswith("data:") and tag != "img"):
                    found["url"] += 1

    Finder().feed(page)
    return found


def test_a_hostile_notebook_renders_with_no_more_active_parts_than_an_empty_one():
    nb = _hostile_notebook()
    SanitizeGraded().preprocess(nb, {})
    assert runnable(_page(nb)) == runnable(_page(nbformat.v4.new_notebook()))
    assert "alert" not in nb.metadata.get("kernelspec", {}).get("display_name", "")
    assert "widgets" not in nb.metadata and "title" not in nb.metadata
    assert list(nb.cells[0].attachments) == ["ok.png"]
    assert nb.cells[0].metadata.tags == ["fine-tag"]
    assert "nbgrader" not in nb.cells[2].metadata
    assert [o.get("name") for o in nb.cells[2].outputs if o.output_type == "stream"] == ["stdout"]
    assert nb.cells[2].outputs[3].metadata == {}  # no filename, no attribute text, no iframe


def test_the_unsanitised_notebook_is_not_inert():
    """The check above can fail: the same notebook, not sanitised, renders active parts."""
    baseline = runnable(_page(nbformat.v4.new_notebook()))
    assert runnable(_page(_hostile_notebook())) - baseline


@pytest.mark.parametrize("unit", ["<b><p>", "<table><b>", "<a>x", "<b>" * 1000 + "</b>" * 1000])
def test_quadratic_html_costs_seconds_not_minutes(unit):
    """html5lib is quadratic on unclosed formatting elements: such a field is escaped whole, linear in its size."""
    payload = unit * (200_000 // len(unit))
    nb = nbformat.v4.new_notebook()
    code = nbformat.v4.new_code_cell("x")
    code.outputs = [nbformat.v4.new_output("display_data", {"text/html": payload}) for _ in range(5)]
    nb.cells = [nbformat.v4.new_markdown_cell(payload) for _ in range(5)] + [code]
    start = time.monotonic()
    SanitizeGraded().preprocess(nb, {})
    assert time.monotonic() - start < 60  # generous: the quadratic parse of one such field takes minutes
    assert sanitize.active_parts(markdown2html(nb.cells[0].source)) == []


def test_markdown_cleaned_once_per_process_is_what_cleaning_it_again_gives_and_the_budget_still_pays():
    inert = sanitize
    hostile = "**ok** <img src=x onerror=alert(1)> [c](javascript:alert(2)) <b>bold</b>"
    assert (
        inert.clean_markdown(hostile) == inert._cleaned_markdown.__wrapped__(hostile) == inert.as_preformatted(hostile)
    )
    assert inert.clean_markdown("<b>fine</b> <script>x</script>") == "<b>fine</b> &lt;script&gt;x&lt;/script&gt;"
    before = inert._cleaned_markdown.cache_info().hits
    assert inert.clean_markdown("<b>fine</b> <script>x</script>") == "<b>fine</b> &lt;script&gt;x&lt;/script&gt;"
    assert inert._cleaned_markdown.cache_info().hits == before + 1
    long = "x " * inert.CACHED_CHARS + "<script>y</script>"  # longer than the cache takes: cleaned each time
    misses = inert._cleaned_markdown.cache_info().misses
    assert "&lt;script&gt;" in inert.clean_markdown(long)
    assert inert._cleaned_markdown.cache_info().misses == misses
    budget = inert.Budget()  # a cached cell still costs its notebook's budget
    inert.clean_markdown("<b>fine</b> <script>x</script>", budget)
    assert (budget.tags, budget.chars) == (inert.NOTEBOOK_TAGS - 4, inert.NOTEBOOK_CHARS - 30)


def test_a_tag_written_in_a_code_span_is_shown_as_written_and_a_live_one_beside_it_is_not():
    marker = "A word ends with the marker `</w>`, as in `('t', '</w>')`."
    assert sanitize.clean_markdown(marker) == marker
    assert "<code>&lt;/w&gt;</code>" in markdown2html(sanitize.clean_markdown(marker))  # shown as </w>, not &lt;/w&gt;
    live = marker + " <img src=x onerror=alert(1)>"
    assert sanitize.inert_html(markdown2html(sanitize.clean_markdown(live)))
    assert "onerror" not in markdown2html(sanitize.clean_markdown(live))

"""The feedback page's exporter: the policy in its head, its templates compiled once per process, and a student's page
(made by the demo's grading) opened in Chromium: a failed check's long message wraps at the page's width."""

from pathlib import Path

import jinja2
import nbconvert.exporters.html
import nbformat
import pytest
from bs4 import BeautifulSoup
from nbconvert.exporters import HTMLExporter
from nbformat.v4 import new_code_cell, new_notebook, new_output

from autograder.preprocessors import sanitize_feedback
from autograder.preprocessors.sanitize_feedback import FEEDBACK_POLICY, InertFeedbackExporter
from tests import needs
from tests.needs import CHROMIUM_ARGS


def _compilations(monkeypatch) -> list[str]:
    compiled: list[str] = []
    original = jinja2.Environment.compile

    def counting(self, source, name=None, filename=None, raw=False, defer_init=False):
        compiled.append(str(name))
        return original(self, source, name, filename, raw, defer_init)

    monkeypatch.setattr(jinja2.Environment, "compile", counting)
    return compiled


def test_a_second_page_compiles_no_template_and_is_the_same(monkeypatch):
    notebook = new_notebook(cells=[new_code_cell("print('hi')")])
    compiled = _compilations(monkeypatch)
    first, _ = InertFeedbackExporter().from_notebook_node(notebook)
    made = len(compiled)
    second, _ = InertFeedbackExporter().from_notebook_node(notebook)  # a new exporter, as nbgrader makes per page
    assert made > 0 and len(compiled) == made
    assert first == second and FEEDBACK_POLICY in first


def test_an_edited_template_is_compiled_again(monkeypatch, tmp_path):
    template = tmp_path / "page.j2"
    template.write_text("first {{ nb.cells | length }}")
    notebook = nbformat.v4.new_notebook(cells=[new_code_cell("1")])
    compiled = _compilations(monkeypatch)
    page, _ = InertFeedbackExporter(template_file=str(template)).from_notebook_node(notebook)
    assert page.endswith("first 1")
    template.write_text("second {{ nb.cells | length }}")
    page, _ = InertFeedbackExporter(template_file=str(template)).from_notebook_node(notebook)
    assert page.endswith("second 1") and compiled.count("page.j2") == 2


ROOT = Path(__file__).resolve().parents[3]


def _graded_notebook() -> nbformat.NotebookNode:
    """A notebook of the course as a graded one looks: every kind of cell, and a passed and a failed check's output."""
    notebook = nbformat.read(ROOT / "notebooks" / "06_training_at_scale" / "06_training_at_scale.ipynb", 4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    code[0].outputs = [new_output("stream", name="stdout", text="merges: [(b'h', b'u')] <b>&</b>\n")]
    code[1].outputs = [new_output("error", ename="CheckFailed", evalue="train_fast(<x>, 300)", traceback=["\x1b[31mx"])]
    return notebook


def _soups(monkeypatch) -> list[int]:
    made: list[int] = []
    original = nbconvert.exporters.html.BeautifulSoup

    def counting(markup, *args, **kwargs):
        made.append(len(markup))
        return original(markup, *args, **kwargs)

    monkeypatch.setattr(nbconvert.exporters.html, "BeautifulSoup", counting)
    return made


def test_a_page_without_an_image_is_nbconverts_document_made_without_parsing_it_again(monkeypatch):
    notebook = _graded_notebook()
    slow, _ = HTMLExporter(template_name="classic").from_notebook_node(notebook)
    soups = _soups(monkeypatch)
    fast, _ = InertFeedbackExporter(template_name="classic").page(notebook)
    assert soups == [] and fast != slow  # not parsed, so not written out again
    assert str(BeautifulSoup(fast, features="html.parser")) == slow  # the same document


@pytest.mark.parametrize("template", ["classic", "lab"])
def test_a_page_the_parsing_can_change_is_nbconverts_own(monkeypatch, template):
    """An image without ``alt`` (any template), JupyterLab's cells (its template): nbconvert's page, byte for byte."""
    notebook = _graded_notebook()
    if template == "classic":
        notebook.cells[-1] = new_code_cell(
            "chart()", outputs=[new_output("display_data", {"image/png": "iVBORw0KGgo="})]
        )
    expected, _ = HTMLExporter(template_name=template).from_notebook_node(notebook)
    soups = _soups(monkeypatch)
    page, _ = InertFeedbackExporter(template_name=template).page(notebook)
    assert len(soups) == 1 and page == expected
    assert ('alt="No description' in page) if template == "classic" else ('tabindex="0"' in page)


def test_a_code_cell_is_highlighted_once_for_all_the_pages_that_show_it(monkeypatch):
    import pygments

    highlighted: list[str] = []
    original = pygments.highlight

    def counting(code, lexer, formatter, outfile=None):
        highlighted.append(code)
        return original(code, lexer, formatter, outfile)

    monkeypatch.setattr(pygments, "highlight", counting)
    monkeypatch.setattr(sanitize_feedback, "_HIGHLIGHTED", sanitize_feedback._Highlights())
    notebook = _graded_notebook()
    sources = {cell.source or " " for cell in notebook.cells if cell.cell_type == "code"}
    first, _ = InertFeedbackExporter(template_name="classic").page(notebook)
    assert sorted(highlighted) == sorted(sources)
    second, _ = InertFeedbackExporter(template_name="classic").page(notebook)  # another student's page
    assert len(highlighted) == len(sources) and second == first
    [cell for cell in notebook.cells if cell.cell_type == "code"][-1].source = "answer = 42"  # only on this page
    InertFeedbackExporter(template_name="classic").page(notebook)
    assert highlighted[len(sources) :] == ["answer = 42"]


def _markdown_renders(monkeypatch) -> list[str]:
    """The Markdown sources nbconvert renders from now on (a fresh memory of rendered cells)."""
    rendered: list[str] = []
    original = nbconvert.exporters.html.MarkdownWithMath

    class Counting(original):
        def render(self, source):
            rendered.append(source)
            return super().render(source)

    monkeypatch.setattr(nbconvert.exporters.html, "MarkdownWithMath", Counting)
    monkeypatch.setattr(sanitize_feedback, "_MARKDOWN", sanitize_feedback._Highlights())
    return rendered


def test_a_markdown_cell_is_rendered_once_for_all_the_pages_that_show_it(monkeypatch):
    rendered = _markdown_renders(monkeypatch)
    notebook = _graded_notebook()
    sources = [cell.source for cell in notebook.cells if cell.cell_type == "markdown"]
    plain, _ = HTMLExporter(template_name="classic").from_notebook_node(notebook)
    assert len(rendered) == len(sources)
    first, _ = InertFeedbackExporter(template_name="classic").page(notebook)
    assert sorted(rendered[len(sources) :]) == sorted(set(sources))
    assert str(BeautifulSoup(first, features="html.parser")) == plain  # nbconvert's document
    second, _ = InertFeedbackExporter(template_name="classic").page(notebook)  # another student's page
    assert len(rendered) == len(sources) + len(set(sources)) and second == first  # none rendered again
    [cell for cell in notebook.cells if cell.cell_type == "markdown"][-1].source = "**my own note**"
    third, _ = InertFeedbackExporter(template_name="classic").page(notebook)
    assert rendered[len(sources) + len(set(sources)) :] == ["**my own note**"]
    assert "<strong>my own note</strong>" in third


def test_a_markdown_cell_whose_html_depends_on_more_than_its_source_is_rendered_every_time(monkeypatch):
    """Attachments (named in the source, their data in the cell) and images embedded from the notebook's folder make
    the HTML of one source differ between two notebooks: such a cell is never taken from memory."""
    rendered = _markdown_renders(monkeypatch)
    source = "![chart](attachment:chart.png)"

    def page(data: str, **settings) -> str:
        cell = nbformat.v4.new_markdown_cell(source, attachments={"chart.png": {"image/png": data}})
        return InertFeedbackExporter(template_name="classic", **settings).page(new_notebook(cells=[cell]))[0]

    assert "data:image/png;base64,AAAA" in page("AAAA") and "data:image/png;base64,BBBB" in page("BBBB")
    exporter = InertFeedbackExporter(template_name="classic", embed_images=True)
    exporter.markdown2html({}, "![x](x.png)")
    exporter.markdown2html({}, "![x](x.png)")
    # each page renders its cell (a page with an image is made on nbconvert's own path, so twice), none from memory
    assert rendered.count(source) >= 2 and rendered[-2:] == ["![x](x.png)"] * 2
    assert len(sanitize_feedback._MARKDOWN) == 0


def test_the_markdown_kept_stays_within_its_characters(monkeypatch):
    _markdown_renders(monkeypatch)
    monkeypatch.setattr(sanitize_feedback, "HIGHLIGHT_MEMORY", 20_000)
    monkeypatch.setattr(sanitize_feedback, "HIGHLIGHT_KEPT_CHARS", 5_000)
    exporter = InertFeedbackExporter(template_name="classic")
    kept = sanitize_feedback._MARKDOWN
    for i in range(60):
        exporter.markdown2html({}, f"# Part {i}\n\n" + "*word* " * 150)  # about 3,000 characters of HTML each
        assert kept.chars <= 20_000
    assert 0 < len(kept) < 60
    exporter.markdown2html({}, "x" * 6_000)  # too long to keep
    assert all(len(key[0]) < 6_000 for key in kept._kept)


def test_the_highlighting_kept_stays_within_its_characters_whatever_the_cells(monkeypatch):
    """A class of cells whose HTML is many times their length (one span a token) fills the memory only to its bound,
    the least recently used dropped first; a cell too long to keep is highlighted and not kept."""
    monkeypatch.setattr(sanitize_feedback, "_HIGHLIGHTED", sanitize_feedback._Highlights())
    monkeypatch.setattr(sanitize_feedback, "HIGHLIGHT_MEMORY", 60_000)
    monkeypatch.setattr(sanitize_feedback, "HIGHLIGHT_KEPT_CHARS", 30_000)
    highlight = sanitize_feedback.RememberedHighlight(pygments_lexer="ipython3")
    kept = sanitize_feedback._HIGHLIGHTED
    cells = [f"x{i} = " + "a+" * 200 + "1" for i in range(40)]  # about 10,000 characters of HTML each
    first = highlight(cells[0])
    for cell in cells[1:]:
        highlight(cell)
        highlight(cells[0])  # used again and again: never the least recently used
        assert kept.chars <= 60_000
    assert 0 < len(kept) < len(cells) and highlight(cells[0]) is first
    assert kept.get(next(k for k in kept._kept if k[0] == cells[-1])) is not None  # the newest is kept
    assert not any(k[0] == cells[1] for k in kept._kept)  # the oldest unused one is not
    long_cell = "a+" * 2_000  # its HTML alone is over the bound of one cell
    before = len(kept)
    assert "a" in highlight(long_cell) and len(kept) == before and not any(k[0] == long_cell for k in kept._kept)


ASSIGNMENT = "06_training_at_scale"
HINT = "update the pair counts of the chunks a merge changes"
"""The end of the speed check's long ``returned: ...`` line, in the max-scan student's feedback."""


@pytest.mark.needs("chromium")
def test_a_long_message_wraps_at_the_page_s_width_in_chromium(graded_sample_class):
    from playwright.sync_api import sync_playwright

    out, _ = graded_sample_class
    path = out / "course" / "feedback" / "max-scan" / ASSIGNMENT / f"{ASSIGNMENT}.html"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=needs.chromium(), args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 800})
            page.goto(path.as_uri())
            shown = page.locator("pre", has_text="slower than required").first
            box = shown.evaluate(
                "e => { const r = document.createRange(); r.selectNodeContents(e);"
                " const tops = Array.from(r.getClientRects()).map(q => Math.round(q.top));"
                " return {scroll: e.scrollWidth, client: e.clientWidth, text: e.innerText,"
                " rows: new Set(tops).size}; }"
            )
        finally:
            browser.close()
    assert box["scroll"] <= box["client"], box  # nothing runs off the right edge
    assert HINT in box["text"], box["text"]  # whole: wrapped between words, none cut in two
    assert box["rows"] > len(box["text"].splitlines()), box  # the long line took more than one row of the page


@pytest.mark.needs("chromium")
def test_an_output_with_a_word_longer_than_the_page_does_not_widen_it_in_chromium():
    """A submission's HTML shown as text (its script escaped by the sanitiser) with a 12,000-character word in it, a
    printed line and a value of the same: the page stays as wide as the window, on nbgrader's feedback template."""
    import nbgrader
    from playwright.sync_api import sync_playwright

    word = "QUJD" * 3_000
    html = f"<b>bold</b><script>eval(atob('{word}'))</script>"
    nb = new_notebook(
        cells=[
            new_code_cell(
                "show()",
                outputs=[
                    new_output("display_data", {"text/html": html}),
                    new_output("stream", name="stdout", text=word + "\n"),
                    new_output("execute_result", {"text/plain": repr(word)}, execution_count=1),
                ],
            )
        ]
    )
    nb, _ = sanitize_feedback.SanitizeFeedback().preprocess(nb, {})
    formgrader = Path(nbgrader.__file__).parent / "server_extensions" / "formgrader"
    exporter = InertFeedbackExporter(  # as nbgrader's GenerateFeedback sets it up
        template_name="feedback",
        extra_template_basedirs=[str(formgrader / "templates")],
        extra_template_paths=[str(formgrader / "static" / "node_modules" / "bootstrap" / "dist" / "css")],
    )
    grades = {"score": 0, "max_score": 1, "late_penalty": 0, "student": "s", "assignment": "a", "notebook": "n",
              "timestamp": "now"}  # fmt: skip
    page_html, _ = exporter.from_notebook_node(nb, {"nbgrader": grades})
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=needs.chromium(), args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 800})
            page.set_content(page_html)
            widths = page.evaluate(
                "() => ({page: document.documentElement.scrollWidth, window: document.documentElement.clientWidth,"
                " shown: document.body.innerText.includes('QUJDQUJD')})"
            )
        finally:
            browser.close()
    assert widths["shown"] and widths["page"] <= widths["window"], widths

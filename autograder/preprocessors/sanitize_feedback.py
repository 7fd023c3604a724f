"""``SanitizeFeedback``: ``GenerateFeedback``'s last step, the feedback page made inert whatever notebook it is
made from (one graded before the pipeline sanitised it); what inert means is :mod:`autograder.inert`'s. And
``InertFeedbackExporter``: the page carries a Content-Security-Policy that runs no script at all, a second wall
behind the sanitiser wherever the page is opened (from disk, from the exchange, from an LMS).
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from typing import Any

import jinja2
from nbconvert.exporters import HTMLExporter, TemplateExporter
from nbconvert.filters.highlight import Highlight2HTML
from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter
from nbconvert.preprocessors import Preprocessor
from nbformat.notebooknode import NotebookNode
from traitlets import Bool

from ..doctor import REPORT_METADATA
from ..inert import Budget, clean_cell, clean_notebook_metadata, with_wrapped_outputs


class SanitizeFeedback(Preprocessor):
    """nbconvert preprocessor of ``generate_feedback``: every cell of the page made inert as ``SanitizeGraded``
    does (:func:`autograder.inert.clean_cell`; the feedback may be made from a notebook graded before the pipeline
    sanitised it)."""

    enabled = Bool(True, help="clean the submission's HTML before the feedback page is made").tag(config=True)

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        budget = Budget()
        for index, cell in enumerate(nb.cells):
            nb.cells[index] = clean_cell(cell, budget, (REPORT_METADATA,))
            if cell.get("cell_type") == "raw":
                cell.metadata.pop("format", None)
                cell.metadata.pop("raw_mimetype", None)
        nb.metadata = clean_notebook_metadata(nb.metadata)
        return nb, resources


FEEDBACK_POLICY = (
    "default-src 'none'; script-src 'none'; object-src 'none'; style-src 'unsafe-inline'; img-src data:; "
    "font-src data:; form-action 'none'; base-uri 'none'"
)
"""The feedback page's policy: its styles (inlined by nbgrader's template) and ``data:`` images (the notebook's
charts), nothing else: no script, not even the template's own (MathJax from a CDN: the course's notebooks hold no
mathematics), no request to any server (an image of a submission cannot tell anyone the page was opened)."""
_HEAD = re.compile(r"<head(?:\s[^>]*)?>", re.I)
_CHARSET = re.compile(r"<meta\s+charset=[^>]*>", re.I)
_IMAGE = re.compile(r"<img", re.I)


def with_policy(html: str, policy: str = FEEDBACK_POLICY) -> str:
    """``html`` with a ``<meta http-equiv="Content-Security-Policy">`` of ``policy`` before anything that the policy
    governs: after the ``<meta charset>`` of its head, else first in its head, else at its very start.

    Args:
        html: a page (nbgrader's feedback page).
        policy: the policy's text (no double quote in it).

    Returns:
        str: the page with the policy.

    Example:
        >>> print(with_policy('<head><meta charset="utf-8"><title>', "script-src 'none'"))
        <head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="script-src 'none'"><title>
    """
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
    head = _HEAD.search(html)
    if head is None:
        return meta + html
    charset = _CHARSET.search(html, head.end())
    at = charset.end() if charset is not None and not html[head.end() : charset.start()].strip() else head.end()
    return html[:at] + meta + html[at:]


class CompiledTemplates(jinja2.BytecodeCache):
    """Jinja's bytecode cache, in this process's memory: each template of the feedback page is compiled once, not
    once per page (nbgrader makes a new exporter, so a new Jinja environment, for every notebook: compiling the nine
    templates of the page was a third of its cost). Jinja keys a template by its file and checks its source's
    checksum, so an edited template is compiled again."""

    def __init__(self) -> None:
        self._code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        code = self._code.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self._code[bucket.key] = bucket.bytecode_to_string()


HIGHLIGHT_MEMORY = 16_000_000
"""The characters (sources and their HTML together) of the highlighted code cells a process keeps
(:class:`RememberedHighlight`), and of the rendered Markdown cells (:meth:`InertFeedbackExporter.markdown2html`),
each, the least recently used dropped first: about 16 MB of text each whatever a class submits."""
HIGHLIGHT_KEPT_CHARS = 200_000
"""A cell whose source and HTML are longer is rendered every time, never kept (a cell of many one-character tokens
makes HTML 25 times its length)."""


class _Highlights:
    """Rendered cells (highlighted code, or Markdown as HTML) by key, least recently used first, within
    :data:`HIGHLIGHT_MEMORY` characters; one lock (the formgrader makes pages in threads)."""

    def __init__(self) -> None:
        self._kept: OrderedDict[tuple, str] = OrderedDict()
        self.chars = 0
        self._lock = threading.Lock()

    @staticmethod
    def _size(key: tuple, html: str) -> int:
        return len(key[0]) + len(html)

    def get(self, key: tuple) -> str | None:
        with self._lock:
            html = self._kept.get(key)
            if html is not None:
                self._kept.move_to_end(key)
            return html

    def put(self, key: tuple, html: str) -> None:
        size = self._size(key, html)
        if size > HIGHLIGHT_KEPT_CHARS:
            return
        with self._lock:
            if key in self._kept:
                return
            self._kept[key] = html
            self.chars += size
            while self.chars > HIGHLIGHT_MEMORY:
                old_key, old_html = self._kept.popitem(last=False)
                self.chars -= self._size(old_key, old_html)

    def __len__(self) -> int:
        return len(self._kept)


_HIGHLIGHTED = _Highlights()
_MARKDOWN = _Highlights()


class RememberedHighlight(Highlight2HTML):
    """nbconvert's highlighting of a code cell (Pygments), remembered for the next page: every student's page of an
    assignment shows the same given and test cells, and highlighting them was a third of a page's cost once the
    page was no longer parsed again (:meth:`InertFeedbackExporter.page`). A cell is highlighted again when its
    source, its language or the formatter's options differ. What is kept is bounded (:data:`HIGHLIGHT_MEMORY`).

    Example:
        >>> highlight = RememberedHighlight(pygments_lexer="ipython3")
        >>> highlight("x = 1") is highlight("x = 1")  # the second time, from memory
        True
    """

    def __call__(self, source: str, language: str | None = None, metadata: Any = None) -> str:
        if len(source) > HIGHLIGHT_KEPT_CHARS:
            return super().__call__(source, language, metadata)
        magics = metadata.get("magics_language") if metadata else None  # the only metadata nbconvert reads
        key = (source, language or self.pygments_lexer, magics, repr(sorted(self.extra_formatter_options.items())))
        html = _HIGHLIGHTED.get(key)
        if html is None:
            html = super().__call__(source, language, metadata)
            _HIGHLIGHTED.put(key, html)
        return html


_COMPILED: dict[tuple, CompiledTemplates] = {}
"""One :class:`CompiledTemplates` per kind of environment (the code Jinja makes depends on its settings)."""


class InertFeedbackExporter(HTMLExporter):
    """``GenerateFeedback``'s exporter (``c.GenerateFeedback.exporter_class``): nbgrader's feedback page, with
    :data:`FEEDBACK_POLICY` in its head (:func:`with_policy`). The ``HTMLExporter`` configuration applies to it, and
    nbgrader's API (the formgrader's feedback button) uses it too. Its templates are compiled once per process
    (:class:`CompiledTemplates`), its page is parsed again only where that can change it (:meth:`page`), and long
    lines of outputs wrap (:func:`autograder.inert.with_wrapped_outputs`)."""

    def _create_environment(self) -> jinja2.Environment:
        environment = super()._create_environment()
        settings = (environment.is_async, environment.autoescape, tuple(sorted(environment.extensions)))
        environment.bytecode_cache = _COMPILED.setdefault(settings, CompiledTemplates())
        return environment

    @jinja2.pass_context
    def markdown2html(self, context: Any, source: str) -> str:
        """nbconvert's filter of a Markdown cell, remembered by source and settings (the course's Markdown is the same
        in every student's page: rendering it was about a third of a feedback page's cost), within
        :data:`HIGHLIGHT_MEMORY`. A cell with attachments, or rendered with images embedded from the notebook's
        folder (``embed_images``), or longer than :data:`HIGHLIGHT_KEPT_CHARS`, is rendered every time: its HTML
        depends on more than its source.

        Example:
            >>> exporter = InertFeedbackExporter(template_name="classic")
            >>> exporter.markdown2html({}, "**Hint** 1") is exporter.markdown2html({}, "**Hint** 1")
            True
        """
        if self.embed_images or context.get("cell", {}).get("attachments") or len(source) > HIGHLIGHT_KEPT_CHARS:
            return super().markdown2html(context, source)
        options = repr(sorted(self.lexer_options.items()))
        key = (source, self.anchor_link_text, self.exclude_anchor_links, options)
        html = _MARKDOWN.get(key)
        if html is None:
            html = super().markdown2html(context, source)
            _MARKDOWN.put(key, html)
        return html

    def page(self, nb: NotebookNode, resources: dict | None = None, **kw: Any) -> tuple[str, dict]:
        """``HTMLExporter.from_notebook_node``'s page (nbconvert 7), made without its last step where that step
        changes nothing.

        That step parses the rendered page with BeautifulSoup to give each ``<img>`` without one an ``alt`` and
        JupyterLab's cells a ``tabindex``, then writes the page out again: well over half the cost of a feedback page
        (thousands of tags: one per highlighted token). nbgrader's feedback template is the classic one, with no
        JupyterLab cell, and a graded notebook rarely shows an image; a page with neither is returned as rendered:
        the document nbconvert's page is, written out without BeautifulSoup's re-writing (spaces, the order of
        attributes, ``/>``), which tests/autograder/preprocessors/test_sanitize_feedback.py holds to. Any other page
        is made again on nbconvert's own path, step included (rendered twice: rare, and bounded).

        Args:
            nb: the notebook; resources, kw: as for ``from_notebook_node``.

        Returns:
            ``(page, resources)``: the page without the feedback's own additions (policy, wrapping).

        Example:
            >>> from nbformat.v4 import new_code_cell, new_notebook, new_output
            >>> chart = new_output("display_data", {"image/png": "iVBORw0KGgo="})
            >>> page, _ = InertFeedbackExporter(template_name="classic").page(new_notebook(cells=[
            ...     new_code_cell("show_chart()", outputs=[chart])]))
            >>> 'alt="No description has been provided for this image"' in page  # nbconvert's path: an image
            True
        """
        given = resources
        langinfo = nb.metadata.get("language_info", {})
        lexer = langinfo.get("pygments_lexer", langinfo.get("name", None))
        self.register_filter(
            "highlight_code", self.filters.get("highlight_code", RememberedHighlight(pygments_lexer=lexer, parent=self))
        )
        resources = self._init_resources(resources)
        data_types = WidgetsDataTypeFilter(notebook_metadata=self._nb_metadata, parent=self, resources=resources)
        self.register_filter("filter_data_type", data_types)
        output, resources = TemplateExporter.from_notebook_node(self, nb, resources, **kw)
        if _IMAGE.search(output) is None and "jp-Notebook" not in output:
            return output, resources
        return super().from_notebook_node(nb, given, **kw)

    def from_notebook_node(self, nb: NotebookNode, resources: dict | None = None, **kw: Any) -> tuple[Any, dict]:
        output, resources = self.page(nb, resources, **kw)
        return with_policy(with_wrapped_outputs(output)), resources

"""Feedback HTML carries no active content from a submission: no scripts, event handlers, frames, forms or styles.

nbgrader's feedback template renders a student's markdown, raw cells and the outputs of their code as HTML, and
passes the HTML in them through. :class:`SanitizeFeedback` is an nbconvert preprocessor, run by ``generate_feedback``
before the page is made, that cleans each of them with bleach (nbconvert's own HTML sanitiser) against an
allowlist of inert tags and attributes (:data:`TAGS`, :data:`ATTRIBUTES`, :data:`PROTOCOLS`), and drops output
types that are code by nature (JavaScript, widget views, SVG). Text stays readable: a removed tag shows as text.
"""

from __future__ import annotations

import re
from typing import Any

import bleach
from nbconvert.preprocessors import Preprocessor
from nbformat.notebooknode import NotebookNode
from traitlets import Bool

TAGS = frozenset(
    {"a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "details", "div", "dl", "dt", "em", "h1", "h2",
     "h3", "h4", "h5", "h6", "hr", "i", "img", "ins", "kbd", "li", "mark", "ol", "p", "pre", "q", "s", "samp",
     "small", "span", "strong", "sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr",
     "tt", "u", "ul", "var"}
)  # fmt: skip
"""Tags kept (no script, style, iframe, frame, object, embed, form, input, link, meta, base, svg, math)."""
ATTRIBUTES = {"a": ["href", "title"], "img": ["src", "alt", "title", "width", "height"], "*": ["class", "title"]}
"""Attributes kept (no ``on*`` handler, no ``style``, no ``srcdoc``)."""
PROTOCOLS = frozenset({"http", "https", "mailto", "data", "attachment"})
"""URL schemes kept in ``href`` and ``src`` (no ``javascript:``, no ``vbscript:``)."""
ACTIVE_TYPES = frozenset(
    {"application/javascript", "text/javascript", "application/vnd.jupyter.widget-view+json",
     "application/vnd.jupyter.widget-state+json", "image/svg+xml", "application/x-shockwave-flash"}
)  # fmt: skip
"""Output types dropped from the feedback (code by nature)."""
HTML_TYPES = frozenset({"text/html", "text/markdown"})


def clean_html(text: str) -> str:
    """``text`` with every tag, attribute and URL scheme outside the allowlist made inert (escaped or removed).

    Example:
        >>> clean_html('<b>ok</b><script>alert(1)</script><img src=x onerror="alert(2)">')
        '<b>ok</b>&lt;script&gt;alert(1)&lt;/script&gt;<img src="x">'
    """
    cleaned = bleach.clean(str(text), tags=TAGS, attributes=ATTRIBUTES, protocols=PROTOCOLS, strip=False)
    # a markdown quote (">" starting a line) cannot open a tag: give it back
    return _QUOTE.sub(lambda m: m.group(0).replace("&gt;", ">"), cleaned)


_QUOTE = re.compile(r"(?m)^[ \t]*(?:&gt;[ \t]?)+")


def _text(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


class SanitizeFeedback(Preprocessor):
    """nbconvert preprocessor: clean markdown cells, raw cells and HTML outputs with :func:`clean_html`; drop
    active output types (:data:`ACTIVE_TYPES`), keeping a plain-text view when there is one."""

    enabled = Bool(True, help="clean the submission's HTML before the feedback page is made").tag(config=True)

    def preprocess_cell(self, cell: NotebookNode, resources: dict, index: int) -> tuple[NotebookNode, dict]:
        if cell.cell_type in ("markdown", "raw"):
            cell.source = clean_html(_text(cell.source))
            if cell.cell_type == "raw":
                cell.metadata.pop("format", None)
                cell.metadata.pop("raw_mimetype", None)
        for output in cell.get("outputs", []):
            data = output.get("data")
            if not isinstance(data, dict):
                continue
            for mime in list(data):
                if mime in ACTIVE_TYPES or "javascript" in mime or "ecmascript" in mime:
                    del data[mime]
                elif mime in HTML_TYPES:
                    data[mime] = clean_html(_text(data[mime]))
            if not data:
                data["text/plain"] = "[active content removed from the feedback]"
        return cell, resources

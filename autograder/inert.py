"""What a submission put in a page, a terminal or a spreadsheet made inert, at a bounded cost: one home for all of it.

A student chooses file and folder names, printed text, error messages, markdown, outputs and metadata; the grader
shows them where a person looks. Each place has its own way of turning text into action, and its function here:

* a terminal (``grade``'s summary): :func:`terminal_text` shows control characters (ANSI escape sequences,
  carriage returns, bidirectional overrides) as escapes, so a name cannot move the cursor, retitle the window or
  hide a line; nbgrader's own log lines (which quote paths inside archives and folders) go through
  :class:`TerminalFormatter`;
* a spreadsheet: :func:`csv_text` and :func:`csv_writer` apply OWASP's rule for CSV injection, a field that starts
  with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a leading ``'``, shown as text, not a formula;
* the grader's own notes, rendered as markdown in the formgrader and the feedback: :func:`markdown_text` escapes
  every character markdown or HTML would read as markup, so a quoted file name renders as those very characters;
* a page made from the graded notebook (the formgrader's Manual Grading page, whose ``formgrade`` template renders
  a student's markdown with ``markdown2html`` and no sanitising; the feedback; the report): :func:`clean_cell` and
  :func:`clean_notebook_metadata` clean every part a template turns into HTML. HTML goes through bleach (the
  sanitiser nbconvert uses) against an allowlist of inert tags, attributes and URL schemes (:data:`TAGS`,
  :data:`ATTRIBUTES`, :data:`PROTOCOLS`); markdown is cleaned, then *rendered as the formgrader renders it* and
  checked (:func:`active_parts`), and a cell that still renders anything outside the allowlist (a ``javascript:``
  link written in markdown) is shown as preformatted text instead; output types that are code by nature are dropped
  (:data:`ACTIVE_TYPES`); images are kept only as valid base64; output, cell and notebook metadata are reduced to
  an allowlist of plain values; and the page gets one style (:func:`with_wrapped_outputs`): its outputs wrap at its
  width, so a long word cannot widen it.

Costs are bounded: html5lib, under bleach, takes time quadratic in the number of unclosed formatting elements
(``"<b><p>" * 5000`` costs seconds, a 100 KB cell minutes), and parses about 100,000 characters a second at best.
A field with more than :data:`MAX_TAGS` tags, over :data:`MAX_FIELD_CHARS` characters, or past the notebook's
:class:`Budget` (:data:`NOTEBOOK_TAGS`, :data:`NOTEBOOK_CHARS`) is not parsed at all: it is escaped whole
(linear) and shows as text (markdown as preformatted text).

A module, not a room (like :mod:`autograder.doctor`): it imports nothing of the package, and every room may use it.
The nbgrader steps that apply it to notebooks are :mod:`autograder.preprocessors.sanitize_graded` (the autograded
notebook) and :mod:`autograder.preprocessors.sanitize_feedback` (the feedback page).
"""

from __future__ import annotations

import base64
import binascii
import csv
import functools
import html
import logging
import re
import unicodedata
from html.parser import HTMLParser
from typing import Any, TextIO

import bleach
from nbformat.notebooknode import NotebookNode
from tornado.log import LogFormatter

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What a spreadsheet reads as the start of a formula (OWASP, "CSV Injection")."""
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[+-]?\d+)?\Z", re.I)


WRAPPED_OUTPUTS = (
    "<style>.output_area pre, .jp-OutputArea-output pre "
    "{ white-space: pre-wrap; word-break: normal; overflow-wrap: break-word; } "
    ".output_subarea, .jp-OutputArea-output { overflow-wrap: anywhere; min-width: 0; }</style>"
)
"""The style a page made from a graded notebook gets (the feedback page, the formgrader's Manual Grading page): an
output's long lines (a failed check's ``returned: ...``, which ends with the hint) wrap at the page's width, between
words, instead of running off its right edge (nbgrader's templates, and nbconvert's own); a word longer than a line
(a submission's HTML shown as text, with a script's base64 in it) is cut where the line ends, so no output widens
the page (a 12,000-character word made nbgrader's feedback page 108,791 px wide)."""
_HEAD_END = re.compile(r"</head\s*>", re.I)


def with_wrapped_outputs(page: str) -> str:
    """``page`` with :data:`WRAPPED_OUTPUTS` at the end of its ``<head>``, after the template's own styles, so that
    it wins over theirs; a page without a ``</head>`` as it is.

    Example:
        >>> with_wrapped_outputs("<head><style>a {}</style></head><body></body>").count("<style>")
        2
        >>> with_wrapped_outputs("<p>no head</p>")
        '<p>no head</p>'
    """
    end = _HEAD_END.search(page)
    if end is None:
        return page
    return page[: end.start()] + WRAPPED_OUTPUTS + page[end.start() :]


def terminal_text(value: object) -> str:
    r"""``value`` as text safe to print on a terminal: control and format characters as ``\x1b``-style escapes.

    Tabs are kept only as ``\t`` escapes too: nothing can move the cursor. Printable text (accented letters, CJK)
    is kept as it is.

    Example:
        >>> terminal_text("alice\x1b[2J\x1b]0;owned\x07")
        'alice\\x1b[2J\\x1b]0;owned\\x07'
        >>> terminal_text("Café \u202eevil")
        'Café \\u202eevil'
    """
    text = str(value)
    if text.isprintable():
        return text
    out = []
    for char in text:
        if char.isprintable() and unicodedata.category(char) not in ("Cf", "Cc", "Zl", "Zp"):
            out.append(char)
        else:
            code = ord(char)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    return "".join(out)


class TerminalFormatter(LogFormatter):
    r"""The log formatter of nbgrader's commands under the course's configuration (``c.Application.logging_config``,
    set by :func:`autograder.preprocessors.pipeline.configure`): nbgrader's own (tornado's ``LogFormatter``, colours
    included), with the record's message and traceback shown line by line with :func:`terminal_text`. A line
    break stays a line break; nothing in a quoted name reaches the terminal as a control sequence.

    Example:
        >>> import logging
        >>> record = logging.LogRecord("nbgrader", logging.INFO, "", 0, "Extracting %s", ("x\x1b[2J.zip",), None)
        >>> TerminalFormatter("[%(levelname)s] %(message)s", color=False).format(record)
        '[INFO] Extracting x\\x1b[2J.zip'
    """

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        shown = _lines_shown(message)
        if shown != message or record.args:
            record = logging.makeLogRecord({**record.__dict__, "msg": shown, "args": None})
        return super().format(record)

    def formatException(self, ei: Any) -> str:  # noqa: N802 (logging's name)
        return _lines_shown(super().formatException(ei))


def _lines_shown(text: str) -> str:
    return "\n".join(terminal_text(line) for line in text.split("\n"))


def csv_text(value: object) -> str:
    """A CSV field a spreadsheet shows as text: one that starts like a formula (:data:`FORMULA_STARTS`) gets a
    leading ``'`` (OWASP's rule); a plain number (``-2.5``) is left as it is, since it cannot be a formula.

    Example:
        >>> csv_text("=HYPERLINK(\\"http://x\\")"), csv_text("alice"), csv_text("-2.5"), csv_text("-1+1")
        ('\\'=HYPERLINK("http://x")', 'alice', '-2.5', "'-1+1")
    """
    text = "" if value is None else str(value)
    if text.startswith(FORMULA_STARTS) and not _NUMBER.match(text):
        return "'" + text
    return text


class _SafeWriter:
    """A ``csv.writer`` whose every field goes through :func:`csv_text`."""

    def __init__(self, handle: TextIO, **kwargs: Any) -> None:
        self._writer = csv.writer(handle, **kwargs)

    def writerow(self, row: list[Any]) -> Any:
        return self._writer.writerow([v if isinstance(v, (int, float)) else csv_text(v) for v in row])

    def writerows(self, rows: list[list[Any]]) -> None:
        for row in rows:
            self.writerow(row)


def csv_writer(handle: TextIO, **kwargs: Any) -> _SafeWriter:
    """``csv.writer(handle)`` with every text field neutralised (:func:`csv_text`): the one way the course writes
    CSV, so no column can be forgotten (headers and assignment names included).

    Example:
        >>> import io
        >>> out = io.StringIO()
        >>> _ = csv_writer(out).writerow(["=1+1", "ok", 3])
        >>> out.getvalue()
        "'=1+1,ok,3\\r\\n"
    """
    return _SafeWriter(handle, **kwargs)


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~=:$])")  # < > & " ' become entities below


def markdown_text(value: object, limit: int = 500) -> str:
    r"""``value`` as one line of markdown that renders as exactly its characters: HTML's ``< > & " '`` as entities,
    markdown's punctuation backslash-escaped (no link, image, emphasis, heading or math), control characters
    escaped, line breaks as spaces; cut to ``limit`` characters.

    Example:
        >>> markdown_text('<img src=x onerror="alert(1)">[a](javascript:x)')
        '&lt;img src\\=x onerror\\=&quot;alert\\(1\\)&quot;&gt;\\[a\\]\\(javascript\\:x\\)'
    """
    text = terminal_text(" ".join(str(value).split()) if "\n" in str(value) else str(value))[:limit]
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", text)
    return html.escape(escaped, quote=True)


TAGS = frozenset(
    {"a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "details", "div", "dl", "dt", "em", "h1", "h2",
     "h3", "h4", "h5", "h6", "hr", "i", "img", "ins", "kbd", "li", "mark", "ol", "p", "pre", "q", "s", "samp",
     "small", "span", "strong", "sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr",
     "tt", "u", "ul", "var"}
)  # fmt: skip
"""Tags kept (no script, style, iframe, frame, object, embed, form, input, link, meta, base, svg, math)."""
ATTRIBUTES = {
    "a": ["href", "title"],
    "img": ["src", "alt", "title", "width", "height"],
    "td": ["align"],
    "th": ["align"],
    "ol": ["start"],
    "*": ["class", "title"],
}
"""Attributes kept (no ``on*`` handler, no ``style``, no ``srcdoc``, no ``id``)."""
RENDERED_ATTRIBUTES = {f"h{n}": ["id"] for n in range(1, 7)}
"""Attributes markdown's renderer adds itself (a heading's anchor), allowed in what it renders, never in raw HTML."""
PROTOCOLS = frozenset({"http", "https", "mailto", "data", "attachment"})
"""URL schemes bleach keeps in ``href`` and ``src``; :func:`inert_html` is stricter about ``data:``."""
ACTIVE_TYPES = frozenset(
    {"application/javascript", "text/javascript", "application/vnd.jupyter.widget-view+json",
     "application/vnd.jupyter.widget-state+json", "image/svg+xml", "application/x-shockwave-flash"}
)  # fmt: skip
"""Output types dropped (code by nature)."""
HTML_TYPES = frozenset({"text/html", "text/markdown"})
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif"})
TEXT_TYPES = frozenset({"text/plain", "text/latex", "application/json"})
"""Output types kept as they are: the templates escape them."""
MAX_TAGS = 2_000
"""Tags parsed in one field (a cell's markdown, one HTML output); past it the field is escaped whole."""
MAX_FIELD_CHARS = 200_000
"""Characters of one field that are cleaned; the rest is cut."""
NOTEBOOK_TAGS = 20_000
"""Tags parsed in one notebook, all fields together; past it every further field is escaped whole."""
NOTEBOOK_CHARS = 1_000_000
"""Characters parsed in one notebook, all fields together (html5lib parses about 100,000 a second)."""
SAFE_NAME = re.compile(r"[A-Za-z0-9_.:+-]{1,100}\Z")
"""What a value that a template puts in an HTML attribute (a tag, a grade id, a language name) may be made of."""


class Budget:
    """How many more tags and characters one notebook may have parsed (:data:`NOTEBOOK_TAGS`,
    :data:`NOTEBOOK_CHARS`)."""

    def __init__(self, tags: int = NOTEBOOK_TAGS, chars: int = NOTEBOOK_CHARS) -> None:
        self.tags, self.chars = tags, chars

    def take(self, text: str) -> bool:
        """Spend what parsing ``text`` costs; ``False`` (nothing spent) when that is more than one field or the
        rest of the notebook may have."""
        count = text.count("<")
        if count > MAX_TAGS or count > self.tags or len(text) > self.chars:
            return False
        self.tags, self.chars = self.tags - count, self.chars - len(text)
        return True


def clean_html(text: str, budget: Budget | None = None) -> str:
    """``text`` with every tag, attribute and URL scheme outside the allowlist made inert (escaped or removed).

    A field over the bounds (:data:`MAX_TAGS`, :data:`MAX_FIELD_CHARS`, the notebook's ``budget``) is escaped whole
    instead of parsed: linear in its length, shown as text.

    Example:
        >>> clean_html('<b>ok</b><script>alert(1)</script><img src=x onerror="alert(2)">')
        '<b>ok</b>&lt;script&gt;alert(1)&lt;/script&gt;<img src="x">'
        >>> clean_html("<b>" * 3000).startswith("&lt;b&gt;&lt;b&gt;")  # over MAX_TAGS: escaped, not parsed
        True
    """
    text = str(text)[:MAX_FIELD_CHARS]
    if not (budget or Budget()).take(text):
        return html.escape(text, quote=False)
    cleaned = bleach.clean(text, tags=TAGS, attributes=ATTRIBUTES, protocols=PROTOCOLS, strip=False)
    # a markdown quote (">" starting a line) cannot open a tag: give it back
    return _QUOTE.sub(lambda m: m.group(0).replace("&gt;", ">"), cleaned)


_QUOTE = re.compile(r"(?m)^[ \t]*(?:&gt;[ \t]?)+")
_URL_ATTRIBUTES = {"href", "src"}
_DATA_IMAGE = re.compile(r"data:image/(?:png|jpeg|gif);base64,", re.I)
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")


def _safe_url(tag: str, name: str, value: str) -> bool:
    url = "".join(ch for ch in value if ch > " " and ch != "\x7f")  # browsers ignore these inside a scheme
    match = _SCHEME.match(url)
    if match is None or any(c in url[: match.end()] for c in "/?#"):
        return True  # relative
    scheme = match.group(1).lower()
    if scheme in ("http", "https") or (scheme == "mailto" and tag == "a"):
        return True
    if tag == "img" and name == "src":
        return scheme == "attachment" or bool(_DATA_IMAGE.match(url))
    return False


class _Inspector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.active: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in TAGS:
            self.active.append(f"<{tag}>")
        allowed = {*ATTRIBUTES.get(tag, []), *ATTRIBUTES["*"], *RENDERED_ATTRIBUTES.get(tag, [])}
        for name, value in attrs:
            if name not in allowed:
                self.active.append(f"{tag}[{name}]")
            elif name in _URL_ATTRIBUTES and not _safe_url(tag, name, value or ""):
                self.active.append(f"{tag}[{name}={(value or '')[:30]}]")

    handle_startendtag = handle_starttag

    def handle_pi(self, data: str) -> None:
        self.active.append("<?...>")

    def unknown_decl(self, data: str) -> None:
        self.active.append("<![...]>")


def active_parts(page: str) -> list[str]:
    """What in an HTML fragment is outside the allowlist: tags, attributes, and URLs whose scheme could run code
    (``javascript:``...) or load a page (``data:`` anywhere but an image). Linear (the standard library's parser).

    Example:
        >>> active_parts('<p><a href="javascript:alert(1)">x</a><img src="x" onerror="y"></p>')
        ['a[href=javascript:alert(1)]', 'img[onerror]']
    """
    inspector = _Inspector()
    inspector.feed(page)
    inspector.close()
    return inspector.active


def inert_html(page: str) -> bool:
    """Whether an HTML fragment holds nothing outside the allowlist (:func:`active_parts`)."""
    return not active_parts(page)


def _render(markdown: str) -> str:
    from nbconvert.filters.markdown import markdown2html

    return markdown2html(markdown)


def as_preformatted(text: str) -> str:
    """Markdown that renders ``text`` as preformatted text and nothing else: an indented code block."""
    return "\n".join("    " + line for line in str(text).split("\n"))


def clean_markdown(source: str, budget: Budget | None = None) -> str:
    """Markdown whose rendering (nbconvert's ``markdown2html``, as the formgrader and the feedback render it) is
    inert: ``source`` as written when its rendering is inert (:func:`inert_html`), else its HTML cleaned
    (:func:`clean_html`), then rendered and checked; if anything is left (a ``[link](javascript:...)`` written in
    markdown), the whole cell is given as preformatted text.

    Example:
        >>> clean_markdown("the marker `</w>` is shown as written")  # a tag in a code span is text already
        'the marker `</w>` is shown as written'
        >>> clean_markdown("**ok** <script>x</script>")
        '**ok** &lt;script&gt;x&lt;/script&gt;'
        >>> clean_markdown("[click](javascript:alert(1))")
        '    [click](javascript:alert(1))'
        >>> clean_markdown(clean_markdown("<script>x</script> [c](javascript:y)"))  # cleaned once, not twice
        '    <script>x</script> [c](javascript:y)'
    """
    source = str(source)[:MAX_FIELD_CHARS]
    if source.strip() and all(line.startswith("    ") or not line.strip() for line in source.split("\n")):
        return source  # preformatted text already (cleaned before: the feedback of a graded notebook): inert as is
    budget = budget or Budget()
    if not budget.take(source):  # over the bounds: not parsed, not rendered; text it is
        return as_preformatted(source)
    return (_cleaned_markdown if len(source) <= CACHED_CHARS else _cleaned_markdown.__wrapped__)(source)


CACHED_CHARS = 8192
"""Markdown up to this long is cleaned once per process (:func:`_cleaned_markdown`): the instructor's cells, the same
in every notebook of an assignment (the longest of the course's is 7,027 characters)."""


@functools.lru_cache(maxsize=256)  # at most 256 x CACHED_CHARS characters held
def _cleaned_markdown(source: str) -> str:
    """What :func:`clean_markdown` gives for ``source`` once it is within the budget (which it has paid): ``source``
    itself when its rendering is inert already (its tags only in code, which markdown shows as text: cleaning it
    would show ``&lt;/w&gt;`` for the ``</w>`` written in a code span), else as :func:`clean_markdown` says."""
    if inert_html(_render(source)):
        return source
    cleaned = clean_html(source, Budget())
    if inert_html(_render(cleaned)):
        return cleaned
    return as_preformatted(source)


def _text(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def _base64(value: Any) -> str | None:
    text = "".join(_text(value).split())
    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
    return text


def clean_output_metadata(metadata: Any) -> dict:
    """Of an output's metadata, only each image's ``width``/``height`` (numbers) and ``unconfined`` (a bool): no
    ``filenames`` (an image read from a path), no ``isolated`` (an iframe), nothing a template could quote."""
    kept: dict[str, dict] = {}
    for mime, value in (metadata or {}).items() if isinstance(metadata, dict) else ():
        if mime in IMAGE_TYPES and isinstance(value, dict):
            entry = {k: v for k, v in value.items() if k in ("width", "height") and type(v) in (int, float)}
            if type(value.get("unconfined")) is bool:
                entry["unconfined"] = value["unconfined"]
            if entry:
                kept[mime] = entry
    return kept


def clean_outputs(outputs: list, budget: Budget | None = None) -> list:
    """A code cell's outputs made inert: unknown output types dropped; HTML and markdown cleaned; images kept only
    as valid base64; active types (:data:`ACTIVE_TYPES`) and unknown ones dropped, a plain-text view kept or said;
    metadata reduced (:func:`clean_output_metadata`); stream names and execution counts checked."""
    budget = budget or Budget()
    kept = []
    for output in outputs or []:
        kind = output.get("output_type")
        if kind == "stream":
            output["name"] = output.get("name") if output.get("name") in ("stdout", "stderr") else "stdout"
            output["text"] = _text(output.get("text", ""))
        elif kind == "error":
            output["ename"], output["evalue"] = _text(output.get("ename", "")), _text(output.get("evalue", ""))
            trace = output.get("traceback", [])
            output["traceback"] = [_text(line) for line in trace] if isinstance(trace, list) else [_text(trace)]
        elif kind in ("display_data", "execute_result"):
            data = output.get("data") if isinstance(output.get("data"), dict) else {}
            clean: dict[str, Any] = {}
            for mime, value in data.items():
                if mime == "text/html":
                    clean[mime] = clean_html(_text(value), budget)
                elif mime == "text/markdown":
                    clean[mime] = clean_markdown(_text(value), budget)
                elif mime in IMAGE_TYPES:
                    image = _base64(value)
                    if image is not None:
                        clean[mime] = image
                elif mime in TEXT_TYPES:
                    clean[mime] = value if mime == "application/json" else _text(value)
            if not clean:
                clean["text/plain"] = "[active content removed by the grader]"
            output["data"] = clean
            output["metadata"] = clean_output_metadata(output.get("metadata"))
            if kind == "execute_result" and type(output.get("execution_count")) is not int:
                output["execution_count"] = None
        else:
            continue
        kept.append(output)
    return kept


CELL_METADATA_VALUES: dict[str, type | tuple[type, ...]] = {
    "deletable": bool,
    "editable": bool,
    "trusted": bool,
    "collapsed": bool,
    "scrolled": (bool, str),
}


def clean_cell_metadata(metadata: Any, keep: tuple[str, ...] = ()) -> NotebookNode:
    """A cell's metadata reduced to plain values no template can turn into markup: nbgrader's (its grade id a plain
    name), tags that are plain names, Jupyter's hiding flags and the few booleans; ``keep`` names other keys kept
    as they are (the grader's own, such as the doctor's notes)."""
    metadata = metadata if isinstance(metadata, dict) else {}
    kept: dict[str, Any] = {key: metadata[key] for key in keep if key in metadata}
    grading = metadata.get("nbgrader")
    if isinstance(grading, dict) and SAFE_NAME.match(str(grading.get("grade_id", ""))):
        kept["nbgrader"] = grading
    tags = metadata.get("tags")
    if isinstance(tags, list):
        kept["tags"] = [t for t in tags if isinstance(t, str) and SAFE_NAME.match(t)][:20]
    jupyter = metadata.get("jupyter")
    if isinstance(jupyter, dict):
        kept["jupyter"] = {k: v for k, v in jupyter.items() if k in ("source_hidden", "outputs_hidden") and v is True}
    for key, kinds in CELL_METADATA_VALUES.items():
        value = metadata.get(key)
        if isinstance(value, kinds) and (not isinstance(value, str) or value == "auto"):
            kept[key] = value
    return NotebookNode(kept)


def clean_notebook_metadata(metadata: Any) -> NotebookNode:
    """A notebook's metadata reduced to its kernel spec and language info, each value a plain name (no widget
    state, no title, nothing else a template or a browser could use)."""
    metadata = metadata if isinstance(metadata, dict) else {}
    kept: dict[str, Any] = {}
    for key, fields in (("kernelspec", ("name", "display_name", "language")),
                        ("language_info", ("name", "version", "pygments_lexer", "file_extension", "mimetype",
                                           "nbconvert_exporter"))):  # fmt: skip
        value = metadata.get(key)
        if isinstance(value, dict):
            entry = {f: value[f] for f in fields if isinstance(value.get(f), str) and _plain(value[f])}
            required = ("name", "display_name") if key == "kernelspec" else ("name",)  # nbformat's schema
            if all(f in entry for f in required):
                kept[key] = entry
    return NotebookNode(kept)


def _plain(text: str) -> bool:
    return len(text) <= 100 and re.fullmatch(r"[\w .:+/()-]*", text) is not None


_CELL_ID = re.compile(r"[A-Za-z0-9_-]{1,64}\Z")


def clean_cell(cell: NotebookNode, budget: Budget, keep_metadata: tuple[str, ...] = ()) -> NotebookNode:
    """One cell made inert: markdown (:func:`clean_markdown`), raw cells (HTML cleaned, never rendered as HTML),
    attachments (only images, valid base64), outputs (:func:`clean_outputs`), metadata
    (:func:`clean_cell_metadata`), its id a plain name."""
    if "attachments" in cell:
        _clean_attachments(cell)
    if cell.get("cell_type") == "markdown":
        cell.source = clean_markdown(_text(cell.get("source", "")), budget)
    elif cell.get("cell_type") == "raw":
        cell.source = clean_html(_text(cell.get("source", "")), budget)
    elif cell.get("cell_type") == "code":
        cell.source = _text(cell.get("source", ""))
        cell.outputs = clean_outputs(cell.get("outputs", []), budget)
        if type(cell.get("execution_count")) is not int:
            cell.execution_count = None
    if "id" in cell and not _CELL_ID.match(str(cell.id)):
        cell.id = f"cell-{abs(hash(str(cell.id))) % 10**12}"
    cell.metadata = clean_cell_metadata(cell.get("metadata"), keep_metadata)
    return cell


def _clean_attachments(cell: NotebookNode) -> None:
    """Keep a cell's attachments that are images in valid base64 under a plain name; a reference to one dropped
    (``attachment:page.html``) no longer names an attachment (nbconvert refuses a page with a missing one)."""
    attachments, dropped = {}, []
    for name, bundle in (cell.attachments or {}).items() if isinstance(cell.attachments, dict) else ():
        images = {m: _base64(v) for m, v in (bundle or {}).items() if m in IMAGE_TYPES}
        images = {m: v for m, v in images.items() if v is not None}
        if images and SAFE_NAME.match(str(name)):
            attachments[name] = images
        else:
            dropped.append(str(name))
    cell.attachments = attachments
    source = _text(cell.get("source", ""))
    for name in dropped:
        source = source.replace(f"attachment:{name}", f"dropped-attachment:{name}")
    cell.source = source

"""The charts of 05 (byte-level BPE): token boundaries, training round by round, bytes per token.

* :func:`token_boundaries`: rows of tokens coloured one by one on the same text (bytes, a trained table, GPT-4);
  a token that holds only part of a character shows its bytes in hex, with a dashed border;
* :func:`byte_rounds`: a slider over the course's rounds of byte-level training (the top pairs as bars, the merged
  pair and its tied rivals marked); given the learner's merges it says where they depart;
* :func:`bytes_per_token`: bytes per token of a held-out text against the vocabulary size, with GPT-4's mark;
* :func:`genesis_text`: the text these charts train on, shipped with ``bpe_lab``.

From which data: ``token_boundaries`` draws the tokens it is given (the learner's ``encode_bytes`` on their own
table, GPT-4's from :mod:`bpe_lab.gpt4`); the rounds and the ratios are traces of the course's trainer, shipped in
``bpe_lab/data/traces/byte_rounds.json`` and ``bytes_per_token.json`` (:func:`bpe_lab.traces.lookup`); the
learner's merges, when given, are only compared with the rounds.

What it does not do: train, tokenize or measure (an input with no trace raises
:class:`bpe_lab.traces.TraceMissing`, naming it); read the text or draw while nbgrader executes the notebook (each
builder returns a placeholder at once, and ``genesis_text`` an empty string).
"""

from __future__ import annotations

import base64
import html
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import ipywidgets as widgets

from .. import traces
from .drawing import CHOSEN, DPI, INK, OTHER, TIED, figure_png, new_figure, style_axes
from .skipped import grading, placeholder
from .widget import Chart

__all__ = ["byte_rounds", "bytes_per_token", "genesis_text", "token_boundaries", "token_label", "tokens_html"]

GENESIS = Path(__file__).resolve().parent.parent / "data" / "kjv_genesis.txt"
"""The course's training text for the charts: the Book of Genesis, King James Version (public domain), one verse
per line (see the course's ``data/README.md`` for where it comes from)."""


def genesis_text(*, force: bool = False) -> str:
    """The text of Genesis the charts train on, shipped with ``bpe_lab``.

    Args:
        force: read it even while nbgrader executes the notebook.

    Returns:
        The whole text (196,818 bytes, 1,533 verses); ``""`` while nbgrader executes the notebook (the charts draw
        nothing then), unless ``force``.

    Raises:
        FileNotFoundError: the package data is missing (a broken install).

    Example:
        >>> genesis_text()[:24]
        'In the beginning God cre'
    """
    if grading() and not force:
        return ""
    return GENESIS.read_text(encoding="utf-8")


_FILLS = ("#cfe3f7", "#fde2c4", "#d6efd0", "#f3d3e6", "#e6e0f5", "#fff3b0")


def token_label(token: bytes) -> tuple[str, bool]:
    """What a token looks like on screen, and whether it is a whole piece of text.

    A token that decodes as UTF-8 shows as its text (a newline as ``↵``, a tab as ``→``); one that holds part of
    a character shows its bytes in hex, such as ``<e6 97>``.

    Example:
        >>> token_label(" the".encode())
        (' the', True)
        >>> token_label("日".encode()[:2])
        ('<e6 97>', False)
    """
    try:
        text = token.decode("utf-8")
    except UnicodeDecodeError:
        return "<" + " ".join(f"{b:02x}" for b in token) + ">", False
    return text.replace("\n", "↵").replace("\t", "→").replace("\r", "␍"), True


def tokens_html(rows: Mapping[str, Sequence[bytes]]) -> str:
    """An HTML table: one row per tokenizer, its tokens as coloured boxes and how many there are."""
    lines = ['<table style="border-collapse:collapse;font-size:14px">']
    for name, tokens in rows.items():
        boxes = []
        for index, token in enumerate(tokens):
            label, whole = token_label(bytes(token))
            border = "1px solid #888" if whole else "1px dashed #b00"
            boxes.append(
                f'<span title="{html.escape(repr(bytes(token)))}" style="background:{_FILLS[index % len(_FILLS)]};'
                f"border:{border};border-radius:3px;padding:1px 0;margin:0 1px;white-space:pre;"
                f'font-family:monospace">{html.escape(label)}</span>'
            )
        lines.append(
            f'<tr><td style="padding:4px 8px;text-align:right;vertical-align:top;white-space:nowrap">'
            f"<b>{html.escape(name)}</b><br><small>{len(tokens)} token{'' if len(tokens) == 1 else 's'}</small></td>"
            f'<td style="padding:4px 8px;line-height:2">{"".join(boxes)}</td></tr>'
        )
    lines.append("</table>")
    return "\n".join(lines)


def token_boundaries(rows: Mapping[str, Sequence[bytes]]) -> widgets.Widget:
    """The tokens of one text under several tokenizers, coloured one by one (see :func:`tokens_html`).

    Args:
        rows: tokenizer name -> its tokens as byte strings, in order (``vocab[id]`` for each id).

    Example (a notebook cell)::

        token_boundaries({"bytes": [bytes([b]) for b in text.encode()], "GPT-4": [...]})
    """
    if grading():
        return placeholder("token_boundaries")
    return widgets.HTML(value=tokens_html(rows))


def _pair_label(pair: tuple[int, int], vocab: Mapping[int, bytes]) -> str:
    """A pair of ids by their bytes, ``t + h`` (``␣`` for a space); an id the vocabulary lacks by its number."""
    return " + ".join(token_label(vocab[i])[0].replace(" ", "␣") if i in vocab else f"id {i}" for i in pair)


def _merge_label(merge: tuple[tuple[int, int], int], vocab: Mapping[int, bytes]) -> str:
    """A learner's merge ``((a, b), new_id)`` by its bytes, ``t + h -> id 256``; ids it cannot read by number.

    Example:
        >>> _merge_label(((116, 104), 256), {i: bytes([i]) for i in range(256)})
        't + h -> id 256'
    """
    try:
        (a, b), new_id = merge
        return f"{_pair_label((a, b), vocab)} -> id {new_id}"
    except (TypeError, ValueError):
        return str(merge)


class _Figure(widgets.VBox):
    """A still chart (its PNG and a caption) whose display also carries the PNG, which a saved notebook keeps and a
    viewer without widget support shows instead, as the slider charts' (:class:`~bpe_lab.charts.widget.Chart`)."""

    def __init__(self, png: bytes, caption: str) -> None:
        self.png = png
        super().__init__([widgets.Image(value=png, format="png"), widgets.HTML(value=caption)])

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any] | None:
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is not None:
            bundle["image/png"] = base64.b64encode(self.png).decode("ascii")
        return bundle


def byte_rounds(
    text: str,
    vocab_size: int,
    pattern: str,
    merges: Mapping[tuple[int, int], int] | None = None,
) -> widgets.Widget:
    """A slider over the course's rounds of byte-level training on ``text``: the top pairs of each round as bars.

    The merged pair is blue, rivals with the same count orange and hatched (the pair seen first wins). With
    ``merges`` (the learner's ``train_bytes`` result) the caption says, round by round, whether the learner
    merged the same pair into the same id, and names the first round where they differ.

    Raises:
        bpe_lab.traces.TraceMissing: the course ships no rounds for this text, size and pattern.
    """
    if grading():
        return placeholder("byte_rounds")
    data = traces.lookup("byte_rounds", text=text, vocab_size=vocab_size, pattern=pattern)
    rounds = [_ByteRound(r) for r in data["rounds"]]
    vocab = {i: bytes([i]) for i in range(256)} | {int(i): bytes.fromhex(t) for i, t in data["tokens"].items()}
    mine = [((a, b), new_id) for (a, b), new_id in merges.items()] if merges is not None else None
    differs = None
    if mine is not None:
        theirs = [(r.pair, r.new_id) for r in rounds]
        differs = next((i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b), None)
        if differs is None and len(mine) != len(theirs):
            differs = min(len(mine), len(theirs))

    def draw(k: int):
        figure = new_figure(7.5, 3.6)
        ax = figure.add_subplot(1, 1, 1)
        if not rounds:
            ax.text(0.5, 0.5, "no pair to merge", ha="center", va="center")
            ax.set_axis_off()
            return figure
        step = rounds[k - 1]
        pairs = [p for p, _ in step.top]
        fills = [CHOSEN if p == step.pair else TIED if p in step.tied else OTHER for p in pairs]
        bars = ax.barh(range(len(pairs)), [c for _, c in step.top], color=fills, edgecolor=INK, linewidth=0.6)
        for patch, pair in zip(bars.patches, pairs):
            if pair in step.tied:
                patch.set_hatch("///")
        ax.set_yticks(range(len(pairs)), [_pair_label(p, vocab) for p in pairs], family="monospace")
        ax.invert_yaxis()
        ax.set_xlabel("times the pair occurs (inside chunks)")
        new_label = token_label(vocab[step.new_id])[0].replace(" ", "␣")
        ax.set_title(f"round {k}: {_pair_label(step.pair, vocab)}  ->  id {step.new_id} = '{new_label}'", fontsize=11)
        style_axes(ax)
        figure.tight_layout()
        return figure

    def caption(k: int) -> str:
        if not rounds:
            return "Training made no merge."
        step = rounds[k - 1]
        parts = [
            f"Round {k} of {len(rounds)}: the pair {html.escape(_pair_label(step.pair, vocab))} "
            f"(ids {step.pair[0]}, {step.pair[1]}) occurs {step.count} times and becomes id {step.new_id}."
        ]
        if step.tied:
            parts.append(f" {len(step.tied)} other pair(s) have the same count; the one seen first wins.")
        if mine is not None:
            if differs is None:
                parts.append(" <b>Your train_bytes made the same merges.</b>")
            elif k - 1 < differs:
                parts.append(f" Your merge agrees here; yours first differs in round {differs + 1}.")
            elif k - 1 == differs:
                got = html.escape(_merge_label(mine[k - 1], vocab)) if k - 1 < len(mine) else "nothing"
                parts.append(f" <b style='color:#b00'>Yours differs from this round on: you made {got}.</b>")
        return "".join(parts)

    header = (
        f"<b>Byte-level training, round by round</b> ({data['text_bytes']:,} bytes of text, vocabulary {vocab_size})"
    )
    start = differs + 1 if differs is not None and differs < len(rounds) else 1
    return Chart(
        "byte_rounds", header=header, label="round", count=len(rounds), value=start, draw=draw, caption=caption
    )


class _ByteRound:
    """One traced round of byte-level training: the pair, its count, its new id, its tied rivals, the top pairs."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.pair = (data["pair"][0], data["pair"][1])
        self.count = data["count"]
        self.new_id = data["new_id"]
        self.tied = [(a, b) for a, b in data["tied"]]
        self.top = [((a, b), count) for a, b, count in data["top"]]


def bytes_per_token(
    train_text: str,
    test_text: str,
    vocab_sizes: Sequence[int],
    pattern: str,
    *,
    gpt4: bool = True,
) -> widgets.Widget:
    """Bytes per token of ``test_text`` against the vocabulary size, for tables trained on ``train_text``.

    The ratios are a trace: the course's trainer ran once to the largest size (every smaller table is its first
    merges) and measured each table on ``test_text``, and GPT-4's ``cl100k_base`` on the same text, when the
    course was released. With ``gpt4`` GPT-4's ratio is drawn as a dashed line.

    Raises:
        ValueError: an empty text. bpe_lab.traces.TraceMissing: the course ships no ratios for these texts, sizes
        and pattern.
    """
    if grading():
        return placeholder("bytes_per_token")
    if not test_text or not train_text:
        raise ValueError(
            f"bytes_per_token needs training and held-out text; got {len(train_text)} and {len(test_text)} characters"
        )
    data = traces.lookup(
        "bytes_per_token", train_text=train_text, test_text=test_text, vocab_sizes=vocab_sizes, pattern=pattern
    )
    sizes, ratios, total = data["sizes"], data["ratios"], data["test_bytes"]
    figure = new_figure(7.0, 3.6)
    ax = figure.add_subplot(1, 1, 1)
    ax.plot(sizes, ratios, marker="o", color=CHOSEN, label="trained on the training text")
    for size, ratio in zip(sizes, ratios):
        ax.annotate(f"{ratio:.2f}", (size, ratio), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=8)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("vocabulary size (256 bytes + merges)")
    ax.set_ylabel("bytes per token (held-out text)")
    if gpt4:
        ax.axhline(data["gpt4"], color=TIED, linestyle="--", label=f"GPT-4 (cl100k_base): {data['gpt4']:.2f}")
    ax.legend(loc="lower right", fontsize=9)
    style_axes(ax)
    figure.tight_layout()
    image = figure_png(figure, DPI)
    text = (
        f"<small>{data['train_bytes']:,} bytes of training text, {total:,} bytes held out; "
        f"bytes per token at {', '.join(f'{s}: {r:.2f}' for s, r in zip(sizes, ratios))}.</small>"
    )
    return _Figure(image, text)

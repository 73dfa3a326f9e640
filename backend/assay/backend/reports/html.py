"""HTML rendering of a report document: one self-contained page, no external assets, all text escaped.

Report text comes from scanned code (tool names, descriptions), so nothing is ever inserted unescaped.
Badges never wrap (``white-space: nowrap``), but a cell of several wraps between them; paths break only
after "/" (``<wbr>``, and no break-anywhere inside them); identifiers break only after "/", "." or "_";
code spans are ``<code>``. The page fits a 1280 px window (tests/reports measure it in Chromium).

The other artifacts of the Evaluation are API routes that need a bearer key, which a browser opening the
file does not send: they are listed as text (the route to GET), never as links that would fail, unless
the page is served where they open (``link``: a dashboard maps each route to its own page).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from html import escape

from assay.backend.reports.document import (
    Block,
    Bullets,
    Callout,
    ColumnKind,
    Document,
    Heading,
    KeyValues,
    PageBreak,
    Paragraph,
    Table,
    badge_colour,
    code_spans,
    omitted_note,
)

_CSS = """
body{font:15px/1.5 "DejaVu Sans",-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;color:#1d2433;max-width:1100px;margin:2rem auto;padding:0 1rem}
h1{font-size:1.7rem;margin:.2rem 0}h2{font-size:1.25rem;margin-top:2rem;border-bottom:1px solid #d8dde6;padding-bottom:.2rem}
h2,h3,h4{break-after:avoid}h3{font-size:1.05rem;margin-top:1.3rem}.sub{color:#5b6578;margin:0 0 .6rem}
nav.links{margin:0 0 1rem;font-size:.85rem;color:#5b6578}nav.links a{color:#1f4e8c}nav.links span{margin-right:1rem;white-space:nowrap}
.mono,td.mono{font-family:"DejaVu Sans Mono",SFMono-Regular,Menlo,Consolas,monospace;font-size:.85em;overflow-wrap:anywhere}
code{font-family:"DejaVu Sans Mono",SFMono-Regular,Menlo,Consolas,monospace;font-size:.88em;background:#eef1f6;padding:0 .2em;border-radius:3px}
.muted{color:#5b6578}table{border-collapse:collapse;width:100%;margin:.6rem 0;font-size:.9rem}
th,td{border:1px solid #d8dde6;padding:.35rem .5rem;text-align:left;vertical-align:top;overflow-wrap:anywhere}
th{background:#f3f5f9}p,li,.callout{overflow-wrap:break-word}
td.path{overflow-wrap:normal;word-break:normal;font-family:"DejaVu Sans Mono",SFMono-Regular,Menlo,Consolas,monospace;font-size:.85em}
td.b{width:1%}td.mono{overflow-wrap:normal;word-break:normal}.nw{white-space:nowrap}
.badge{display:inline-block;white-space:nowrap;font-weight:700;font-size:.78rem;padding:.05rem .45rem;border-radius:.7rem;border:1px solid;letter-spacing:.02em}
.callout{border-left:6px solid #6b7a90;background:#f6f8fb;padding:.7rem 1rem;margin:1rem 0;border-radius:4px}
.callout .t{font-weight:700;font-size:1.1rem}.ALLOW{border-color:#1f8a4c;background:#eef9f2}
.REVIEW{border-color:#b7791f;background:#fdf6e7}.BLOCK{border-color:#c53030;background:#fdeeee}
.warning{border-color:#c53030;background:#fdeeee}.omitted{color:#8a5a00;font-style:italic}
footer{margin-top:3rem;color:#5b6578;font-size:.8rem;border-top:1px solid #d8dde6;padding-top:.5rem}
@media print{body{margin:0;max-width:none}.callout,tr{break-inside:avoid}thead{display:table-header-group}}
"""


# A word longer than this may break after ".", "/" or "_" (a dotted API name in a sentence).
LONG_WORD = 24


_NAME = re.compile(r"[\w./:-]+")


def _words(text: str) -> str:
    """Escaped text whose long names (a dotted API, a path) break after ".", "/" or "_" before anywhere else;
    any other word is escaped as it is."""
    return "".join(
        "<wbr>".join(escape(p) for p in re.split(r"(?<=[./_])(?=\w)", word))
        if len(word) > LONG_WORD and _NAME.fullmatch(word)
        else escape(word)
        for word in re.split(r"(\s+)", text)
    )


def inline(text: str) -> str:
    """Escaped text with Markdown code spans as ``<code>``."""
    return "".join(f"<code>{escape(part)}</code>" if code else _words(part) for code, part in code_spans(text))


def badge(value: str) -> str:
    colour = badge_colour(value)
    return (
        f'<span class="badge" style="color:{colour};border-color:{colour};background:{colour}14">{escape(value)}</span>'
    )


def _path(text: str) -> str:
    return "/<wbr>".join(escape(part) for part in text.split("/"))


def _identifier(text: str) -> str:
    """An identifier that breaks only after "/", "." or "_" (a dotted API, a snake_case name), never inside a
    word or at a hyphen."""
    pieces = [piece for piece in re.split(r"(?<=[/._])", text) if piece]
    return "<wbr>".join(f"<span class=nw>{escape(piece)}</span>" for piece in pieces)


def _cell(text: str, kind: ColumnKind) -> str:
    if kind == "badge":
        return f'<td class="b">{" ".join(badge(v) for v in text.split(", ")) if text else ""}</td>'
    if kind == "path":
        return f'<td class="path">{"<br>".join(_path(line) for line in text.splitlines())}</td>'
    if kind == "mono":  # break between values, or inside one after "/", "." or "_" only (never at a hyphen)
        return f'<td class="mono">{", ".join(_identifier(v) for v in text.split(", "))}</td>'
    return f"<td>{inline(text)}</td>"


def _note(count: int, noun: str, rest: str) -> str:
    return f'<p class="omitted">{escape(omitted_note(count, noun, rest))}</p>' if count else ""


def _block(block: Block) -> str:
    if isinstance(block, Heading):
        level = min(max(block.level + 1, 2), 4)
        return f"<h{level}>{inline(block.text)}</h{level}>"
    if isinstance(block, Paragraph):
        return f'<p class="{block.style}">{inline(block.text)}</p>'
    if isinstance(block, KeyValues):
        cls = ' class="mono"' if block.mono else ""
        rows = "".join(f"<tr><th>{escape(k)}</th><td{cls}>{inline(v)}</td></tr>" for k, v in block.rows)
        return f"<table>{rows}</table>"
    if isinstance(block, Table):
        kinds: list[ColumnKind] = list(block.kinds or ["text"] * len(block.columns))
        head = "".join(f"<th>{escape(c)}</th>" for c in block.columns)
        body = "".join(
            "<tr>" + "".join(_cell(c, k) for c, k in zip(row, kinds, strict=False)) + "</tr>" for row in block.rows
        )
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>" + _note(
            block.omitted, block.noun, block.rest
        )
    if isinstance(block, Bullets):
        items = "".join(f"<li>{inline(i)}</li>" for i in block.items)
        return f"<ul>{items}</ul>" + _note(block.omitted, block.noun, block.rest)
    if isinstance(block, Callout):
        return (
            f'<div class="callout {escape(block.kind)}"><div class="t">{inline(block.title)}</div>'
            f"<div>{inline(block.text)}</div></div>"
        )
    if isinstance(block, PageBreak):
        return ""
    raise TypeError(f"unknown block {type(block).__name__}")


def _links(doc: Document, link: Callable[[str], str | None] | None) -> str:
    if not doc.links:
        return ""
    entries = []
    for label, route in doc.links:
        href = link(route) if link is not None else None
        if href:
            entries.append(f'<span><a href="{escape(href)}">{escape(label)}</a></span>')
        else:
            entries.append(f"<span>{escape(label)}: <code>GET {_path(route)}</code></span>")
    lead = "" if link is not None else "The same Evaluation through the API (send an API key): "
    return f'<nav class="links">{lead}{"".join(entries)}</nav>'


def render_html(doc: Document, *, link: Callable[[str], str | None] | None = None) -> str:
    """The page of ``doc``. ``link`` maps an artifact's API route to a URL a browser can open where the page is
    served (a dashboard); without it the routes are shown as text, so the page works opened from a file."""
    body = "\n".join(_block(b) for b in doc.blocks)
    links = _links(doc, link)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(doc.title)}</title><style>{_CSS}</style></head><body>"
        f'<h1>{escape(doc.title)}</h1><p class="sub">{escape(doc.subtitle)}</p>{links}\n{body}\n'
        f"<footer>{escape(doc.footer)}</footer></body></html>\n"
    )

"""HTML rendering of a report document: one self-contained page, no external assets, all text escaped.

Report text comes from scanned code (tool names, descriptions), so nothing is ever inserted unescaped.
"""

from __future__ import annotations

from html import escape

from assay.backend.reports.document import (
    Block,
    Bullets,
    Callout,
    Document,
    Heading,
    KeyValues,
    PageBreak,
    Paragraph,
    Table,
    omitted_note,
)

_CSS = """
body{font:15px/1.5 -apple-system,Segoe UI,Helvetica,Arial,sans-serif;color:#1d2433;max-width:1040px;margin:2rem auto;padding:0 1rem}
h1{font-size:1.7rem;margin:.2rem 0}h2{font-size:1.25rem;margin-top:2rem;border-bottom:1px solid #d8dde6;padding-bottom:.2rem}
h3{font-size:1.05rem;margin-top:1.3rem}.sub{color:#5b6578;margin:0 0 1rem}
.mono,td.mono{font-family:SFMono-Regular,Menlo,Consolas,monospace;font-size:.85em;word-break:break-all}
.muted{color:#5b6578}table{border-collapse:collapse;width:100%;margin:.6rem 0;font-size:.9rem}
th,td{border:1px solid #d8dde6;padding:.35rem .5rem;text-align:left;vertical-align:top;overflow-wrap:anywhere}
p,li,.callout{overflow-wrap:anywhere}th{background:#f3f5f9}
.callout{border-left:6px solid #6b7a90;background:#f6f8fb;padding:.7rem 1rem;margin:1rem 0;border-radius:4px}
.callout .t{font-weight:700;font-size:1.1rem}.ALLOW{border-color:#1f8a4c;background:#eef9f2}
.REVIEW{border-color:#b7791f;background:#fdf6e7}.BLOCK{border-color:#c53030;background:#fdeeee}
.warning{border-color:#b7791f}.omitted{color:#8a5a00;font-style:italic}
footer{margin-top:3rem;color:#5b6578;font-size:.8rem;border-top:1px solid #d8dde6;padding-top:.5rem}
@media print{body{margin:0;max-width:none}.callout,tr{break-inside:avoid}thead{display:table-header-group}}
"""


def _block(block: Block) -> str:
    if isinstance(block, Heading):
        level = min(max(block.level + 1, 2), 4)
        return f"<h{level}>{escape(block.text)}</h{level}>"
    if isinstance(block, Paragraph):
        return f'<p class="{block.style}">{escape(block.text)}</p>'
    if isinstance(block, KeyValues):
        cls = ' class="mono"' if block.mono else ""
        rows = "".join(f"<tr><th>{escape(k)}</th><td{cls}>{escape(v)}</td></tr>" for k, v in block.rows)
        return f"<table>{rows}</table>"
    if isinstance(block, Table):
        head = "".join(f"<th>{escape(c)}</th>" for c in block.columns)
        body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in block.rows)
        note = f'<p class="omitted">{escape(omitted_note(block.omitted))}</p>' if block.omitted else ""
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{note}"
    if isinstance(block, Bullets):
        items = "".join(f"<li>{escape(i)}</li>" for i in block.items)
        note = f'<p class="omitted">{escape(omitted_note(block.omitted))}</p>' if block.omitted else ""
        return f"<ul>{items}</ul>{note}"
    if isinstance(block, Callout):
        return (
            f'<div class="callout {escape(block.kind)}"><div class="t">{escape(block.title)}</div>'
            f"<div>{escape(block.text)}</div></div>"
        )
    if isinstance(block, PageBreak):
        return ""
    raise TypeError(f"unknown block {type(block).__name__}")


def render_html(doc: Document) -> str:
    body = "\n".join(_block(b) for b in doc.blocks)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(doc.title)}</title><style>{_CSS}</style></head><body>"
        f'<h1>{escape(doc.title)}</h1><p class="sub">{escape(doc.subtitle)}</p>\n{body}\n'
        f"<footer>{escape(doc.footer)}</footer></body></html>\n"
    )

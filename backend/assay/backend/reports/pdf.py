"""PDF rendering of a report document with reportlab's platypus: real, typeset, deterministic.

Standard fonts only (Helvetica, Courier: nothing to embed), long digests and names wrap inside their
cells, table headers repeat across pages, every page carries the footer and its number, and the
invariant mode makes the same document give the same bytes.
"""

from __future__ import annotations

from io import BytesIO
from typing import Any, Literal
from xml.sax.saxutils import escape

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

PageSize = Literal["A4", "LETTER"]


class RendererUnavailableError(RuntimeError):
    """The PDF renderer cannot run here (missing library or a rendering failure)."""


_COLOURS = {"ALLOW": "#1f8a4c", "REVIEW": "#b7791f", "BLOCK": "#c53030", "info": "#4a5a75", "warning": "#b7791f"}


def render_pdf(doc: Document, *, page_size: PageSize = "A4") -> bytes:
    """Render ``doc`` to PDF bytes. Raises RendererUnavailableError when it cannot."""
    try:
        from reportlab.lib import colors
        from reportlab.lib.pagesizes import A4, LETTER
        from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
        from reportlab.lib.units import mm
        from reportlab.platypus import (
            KeepTogether,
            ListFlowable,
            ListItem,
            SimpleDocTemplate,
            Spacer,
            TableStyle,
        )
        from reportlab.platypus import PageBreak as RLPageBreak
        from reportlab.platypus import Paragraph as RLParagraph
        from reportlab.platypus import Table as RLTable
    except ImportError as exc:  # pragma: no cover - reportlab is a declared dependency
        raise RendererUnavailableError(f"the PDF renderer is not installed: {exc}") from exc

    size = A4 if page_size == "A4" else LETTER
    margin = 18 * mm
    width = size[0] - 2 * margin
    sheet = getSampleStyleSheet()
    body = ParagraphStyle("body", parent=sheet["BodyText"], fontName="Helvetica", fontSize=9.5, leading=13)
    muted = ParagraphStyle("muted", parent=body, textColor=colors.HexColor("#5b6578"))
    mono = ParagraphStyle("mono", parent=body, fontName="Courier", fontSize=8, leading=10.5)
    cell = ParagraphStyle("cell", parent=body, fontSize=8, leading=10)
    head_cell = ParagraphStyle("headcell", parent=cell, fontName="Helvetica-Bold")
    omitted = ParagraphStyle("omitted", parent=body, fontName="Helvetica-Oblique", textColor=colors.HexColor("#8a5a00"))
    title = ParagraphStyle(
        "title", parent=sheet["Title"], fontName="Helvetica-Bold", fontSize=20, leading=24, alignment=0
    )
    h = {
        1: ParagraphStyle(
            "h1", parent=sheet["Heading1"], fontName="Helvetica-Bold", fontSize=14, leading=18, spaceBefore=10
        ),
        2: ParagraphStyle(
            "h2", parent=sheet["Heading2"], fontName="Helvetica-Bold", fontSize=11.5, leading=15, spaceBefore=8
        ),
        3: ParagraphStyle(
            "h3", parent=sheet["Heading3"], fontName="Helvetica-Bold", fontSize=10, leading=13, spaceBefore=6
        ),
    }
    grid = TableStyle(
        [
            ("GRID", (0, 0), (-1, -1), 0.4, colors.HexColor("#c9d0db")),
            ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#eef1f6")),
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("LEFTPADDING", (0, 0), (-1, -1), 4),
            ("RIGHTPADDING", (0, 0), (-1, -1), 4),
        ]
    )

    def flow(block: Block) -> list[Any]:
        if isinstance(block, Heading):
            return [RLParagraph(escape(block.text), h[min(max(block.level, 1), 3)])]
        if isinstance(block, Paragraph):
            style = {"body": body, "muted": muted, "mono": mono}[block.style]
            text = escape(block.text)
            return [RLParagraph(text, style)]
        if isinstance(block, KeyValues):
            rows = [
                [
                    RLParagraph(escape(k), head_cell),
                    RLParagraph(escape(v), mono if block.mono else cell),
                ]
                for k, v in block.rows
            ]
            table = RLTable(rows, colWidths=[width * 0.28, width * 0.72])
            table.setStyle(
                TableStyle(
                    [
                        *grid.getCommands()[:1],
                        ("VALIGN", (0, 0), (-1, -1), "TOP"),
                        ("BACKGROUND", (0, 0), (0, -1), colors.HexColor("#eef1f6")),
                    ]
                )
            )
            return [table, Spacer(1, 4)]
        if isinstance(block, Table):
            fractions = block.widths or [1 / len(block.columns)] * len(block.columns)
            data = [[RLParagraph(escape(c), head_cell) for c in block.columns]]
            data += [[RLParagraph(escape(c), cell) for c in row] for row in block.rows]
            table = RLTable(data, colWidths=[width * f for f in fractions], repeatRows=1)
            table.setStyle(grid)
            out: list[Any] = [table]
            if block.omitted:
                out.append(RLParagraph(escape(omitted_note(block.omitted)), omitted))
            return [*out, Spacer(1, 4)]
        if isinstance(block, Bullets):
            items = ListFlowable(
                [ListItem(RLParagraph(escape(i), body), leftIndent=10) for i in block.items],
                bulletType="bullet",
                start="•",
                leftIndent=10,
            )
            out = [items]
            if block.omitted:
                out.append(RLParagraph(escape(omitted_note(block.omitted)), omitted))
            return out
        if isinstance(block, Callout):
            colour = colors.HexColor(_COLOURS[block.kind])
            badge = ParagraphStyle(
                "badge", parent=body, fontName="Helvetica-Bold", fontSize=15, leading=19, textColor=colour
            )
            box = RLTable(
                [[RLParagraph(escape(block.title), badge)], [RLParagraph(escape(block.text), body)]], colWidths=[width]
            )
            box.setStyle(
                TableStyle(
                    [
                        ("LINEBEFORE", (0, 0), (0, -1), 5, colour),
                        ("BOX", (0, 0), (-1, -1), 0.4, colour),
                        ("LEFTPADDING", (0, 0), (-1, -1), 10),
                    ]
                )
            )
            return [KeepTogether([box]), Spacer(1, 6)]
        if isinstance(block, PageBreak):
            return [RLPageBreak()]
        raise TypeError(f"unknown block {type(block).__name__}")

    def decorate(canvas: Any, template: Any) -> None:
        canvas.saveState()
        canvas.setFont("Helvetica", 7.5)
        canvas.setFillColor(colors.HexColor("#5b6578"))
        canvas.drawString(margin, 10 * mm, doc.footer[:150])
        canvas.drawRightString(size[0] - margin, 10 * mm, f"Page {template.page}")
        canvas.restoreState()

    story: list[Any] = [RLParagraph(escape(doc.title), title), RLParagraph(escape(doc.subtitle), muted), Spacer(1, 8)]
    for block in doc.blocks:
        story.extend(flow(block))
    buffer = BytesIO()
    template = SimpleDocTemplate(
        buffer,
        pagesize=size,
        leftMargin=margin,
        rightMargin=margin,
        topMargin=margin,
        bottomMargin=18 * mm,
        title=doc.title,
        subject=doc.subtitle,
        author="Assay",
        creator="Assay",
        invariant=1,
    )
    try:
        template.build(story, onFirstPage=decorate, onLaterPages=decorate)
    except Exception as exc:  # reportlab raises assorted LayoutError/ValueError subclasses
        raise RendererUnavailableError(f"the PDF could not be rendered: {exc}") from exc
    return buffer.getvalue()

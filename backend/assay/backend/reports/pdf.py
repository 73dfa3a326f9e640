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


# Text that reportlab must wrap costs time that grows faster than its length (an unbreakable token is
# split character by character), and report text comes from scanned code. These bounds keep a hostile
# or runaway string from stalling a render; whatever they cut is announced in place, like any omission.
CELL_CHARS = 1000
TEXT_CHARS = 20000


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, ending with an omitted count when anything was cut."""
    if len(text) <= limit:
        return text
    hidden = len(text) - limit
    return f"{text[:limit]} … and {hidden} more characters not shown (omitted: {hidden})"


_COLOURS = {"ALLOW": "#1f8a4c", "REVIEW": "#b7791f", "BLOCK": "#c53030", "info": "#4a5a75", "warning": "#b7791f"}


def render_pdf(doc: Document, *, page_size: PageSize = "A4") -> bytes:
    """Render ``doc`` to PDF bytes. Raises RendererUnavailableError when it cannot."""
    try:
        from reportlab.lib import colors
        from reportlab.lib.pagesizes import A4, LETTER
        from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
        from reportlab.lib.units import mm
        from reportlab.pdfbase.pdfmetrics import stringWidth
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

    def para(text: str, style: Any, limit: int = CELL_CHARS) -> Any:
        return RLParagraph(escape(clip(text, limit)), style)

    def grid_table(data: list[list[Any]], widths: list[float], repeat: int) -> Any:
        # splitInRow lets a cell taller than a page continue on the next one instead of failing the layout.
        return RLTable(data, colWidths=widths, repeatRows=repeat, splitInRow=1)

    def flow(block: Block) -> list[Any]:
        if isinstance(block, Heading):
            return [para(block.text, h[min(max(block.level, 1), 3)])]
        if isinstance(block, Paragraph):
            style = {"body": body, "muted": muted, "mono": mono}[block.style]
            return [para(block.text, style, TEXT_CHARS)]
        if isinstance(block, KeyValues):
            if not block.rows:
                return []
            rows = [[para(k, head_cell), para(v, mono if block.mono else cell)] for k, v in block.rows]
            table = grid_table(rows, [width * 0.28, width * 0.72], 0)
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
            out: list[Any] = []
            count = len(block.columns)
            if count:
                fractions = block.widths if block.widths and len(block.widths) == count else [1 / count] * count
                scale = sum(fractions)  # widths that do not add up to 1 are taken as proportions
                data = [[para(c, head_cell) for c in block.columns]]
                # Ragged rows are padded or cut to the header, so a malformed row cannot break the grid.
                data += [[para(c, cell) for c in [*row, *[""] * count][:count]] for row in block.rows]
                table = grid_table(data, [width * f / scale for f in fractions], 1)
                table.setStyle(grid)
                out.append(table)
            if block.omitted:
                out.append(RLParagraph(escape(omitted_note(block.omitted)), omitted))
            return [*out, Spacer(1, 4)]
        if isinstance(block, Bullets):
            items = ListFlowable(
                [ListItem(para(i, body, TEXT_CHARS), leftIndent=10) for i in block.items],
                bulletType="bullet",
                start="•",
                leftIndent=10,
            )
            out = [items] if block.items else []
            if block.omitted:
                out.append(RLParagraph(escape(omitted_note(block.omitted)), omitted))
            return out
        if isinstance(block, Callout):
            colour = colors.HexColor(_COLOURS.get(block.kind, _COLOURS["info"]))
            badge = ParagraphStyle(
                "badge", parent=body, fontName="Helvetica-Bold", fontSize=15, leading=19, textColor=colour
            )
            box = grid_table([[para(block.title, badge)], [para(block.text, body, TEXT_CHARS)]], [width], 0)
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
        number = f"Page {template.page}"
        room = width - stringWidth(number, "Helvetica", 7.5) - 12
        canvas.drawString(margin, 10 * mm, fit(doc.footer, room))
        canvas.drawRightString(size[0] - margin, 10 * mm, number)
        canvas.restoreState()

    def fit(text: str, room: float) -> str:
        """The longest prefix of ``text`` (ending in "…" when cut) that fits ``room`` points of footer."""
        if stringWidth(text, "Helvetica", 7.5) <= room:
            return text
        low, high = 0, len(text)
        while low < high:
            mid = (low + high + 1) // 2
            if stringWidth(text[:mid] + "…", "Helvetica", 7.5) <= room:
                low = mid
            else:
                high = mid - 1
        return text[:low] + "…"

    story: list[Any] = [para(doc.title, title), para(doc.subtitle, muted), Spacer(1, 8)]
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

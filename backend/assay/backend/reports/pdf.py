"""PDF rendering of a report document with reportlab's platypus: real, typeset, deterministic.

DejaVu fonts are embedded (subset) when the system has them (Debian's fonts-dejavu-core), so Latin,
Greek, Cyrillic and most other alphabets print; otherwise the standard Helvetica and Courier are used.
Enum badges never wrap (their column is widened to fit them), paths break only after "/", headings never
end a page, table headers repeat across pages, every page carries the footer and its number,
and the invariant mode with the Evaluation's own time as the creation date makes the same document give
the same bytes.
"""

from __future__ import annotations

import functools
import re
from datetime import UTC, datetime
from io import BytesIO
from pathlib import Path
from typing import Any, Literal
from xml.sax.saxutils import escape

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

PageSize = Literal["A4", "LETTER"]


class RendererUnavailableError(RuntimeError):
    """The PDF renderer cannot run here (missing library or a rendering failure)."""


# Text that reportlab must wrap costs time that grows faster than its length (an unbreakable token is
# split character by character), and report text comes from scanned code. These bounds keep a hostile
# or runaway string from stalling a render; whatever they cut is announced in place, like any omission.
CELL_CHARS = 1000
TEXT_CHARS = 20000
FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/dejavu"))
_DEJAVU = {
    "Sans": "DejaVuSans.ttf",
    "Sans-Bold": "DejaVuSans-Bold.ttf",
    "Sans-Oblique": "DejaVuSans-Oblique.ttf",
    "Sans-BoldOblique": "DejaVuSans-BoldOblique.ttf",
    "Mono": "DejaVuSansMono.ttf",
    "Mono-Bold": "DejaVuSansMono-Bold.ttf",
}
_STANDARD = {
    "Sans": "Helvetica",
    "Sans-Bold": "Helvetica-Bold",
    "Sans-Oblique": "Helvetica-Oblique",
    "Sans-BoldOblique": "Helvetica-BoldOblique",
    "Mono": "Courier",
    "Mono-Bold": "Courier-Bold",
}


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, ending with an omitted count when anything was cut."""
    if len(text) <= limit:
        return text
    hidden = len(text) - limit
    return f"{text[:limit]} … and {hidden} more characters not shown (omitted: {hidden})"


_COLOURS = {"ALLOW": "#1f8a4c", "REVIEW": "#b7791f", "BLOCK": "#c53030", "info": "#4a5a75", "warning": "#c53030"}


@functools.cache
def fonts() -> dict[str, str]:
    """The font names to use, DejaVu registered once per process when its files are there."""
    from reportlab.lib.fonts import addMapping
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFError, TTFont

    for directory in FONT_DIRS:
        if all((directory / name).is_file() for name in _DEJAVU.values()):
            try:
                for role, name in _DEJAVU.items():
                    pdfmetrics.registerFont(TTFont(f"DejaVu{role}", str(directory / name)))
            except (TTFError, OSError):
                continue
            # <b> and <i> in paragraph markup pick the family's bold and oblique faces.
            for bold, italic, role in (
                (0, 0, "Sans"),
                (1, 0, "Sans-Bold"),
                (0, 1, "Sans-Oblique"),
                (1, 1, "Sans-BoldOblique"),
            ):
                addMapping("DejaVuSans", bold, italic, f"DejaVu{role}")
            return {role: f"DejaVu{role}" for role in _DEJAVU}
    return dict(_STANDARD)


def _timestamp(created: str | None) -> Any:
    """A reportlab TimeStamp fixed at ``created`` (RFC 3339 UTC), or None."""
    if created is None:
        return None
    from reportlab.lib.utils import TimeStamp

    moment = datetime.fromisoformat(created).astimezone(UTC)
    stamp = TimeStamp(invariant=True)
    stamp.t = moment.timestamp()
    stamp.lt = moment.timetuple()
    stamp.YMDhms = tuple(stamp.lt)[:6]
    return stamp


def render_pdf(doc: Document, *, page_size: PageSize = "A4") -> bytes:
    """Render ``doc`` to PDF bytes. Raises RendererUnavailableError when it cannot."""
    try:
        from reportlab.lib import colors
        from reportlab.lib.pagesizes import A4, LETTER
        from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
        from reportlab.lib.units import mm
        from reportlab.pdfbase.pdfmetrics import stringWidth
        from reportlab.platypus import (
            CondPageBreak,
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

    font = fonts()
    size = A4 if page_size == "A4" else LETTER
    margin = 18 * mm
    width = size[0] - 2 * margin
    sheet = getSampleStyleSheet()
    body = ParagraphStyle("body", parent=sheet["BodyText"], fontName=font["Sans"], fontSize=9, leading=12.5)
    muted = ParagraphStyle("muted", parent=body, textColor=colors.HexColor("#5b6578"))
    mono = ParagraphStyle("mono", parent=body, fontName=font["Mono"], fontSize=7.5, leading=10)
    cell = ParagraphStyle("cell", parent=body, fontSize=7.5, leading=9.5)
    path_cell = ParagraphStyle("path", parent=cell, fontName=font["Mono"], fontSize=7, splitLongWords=0)
    head_cell = ParagraphStyle("headcell", parent=cell, fontName=font["Sans-Bold"])
    omitted = ParagraphStyle(
        "omitted", parent=body, fontName=font["Sans-Oblique"], textColor=colors.HexColor("#8a5a00")
    )
    title = ParagraphStyle(
        "title", parent=sheet["Title"], fontName=font["Sans-Bold"], fontSize=19, leading=23, alignment=0
    )
    h = {
        level: ParagraphStyle(
            f"h{level}",
            parent=sheet[f"Heading{level}"],
            fontName=font["Sans-Bold"],
            fontSize=fs,
            leading=fs + 4,
            spaceBefore=sb,
            spaceAfter=3,
        )
        for level, fs, sb in ((1, 13.5, 10), (2, 11, 8), (3, 9.5, 6))
    }
    grid = [
        ("GRID", (0, 0), (-1, -1), 0.4, colors.HexColor("#c9d0db")),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#eef1f6")),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("LEFTPADDING", (0, 0), (-1, -1), 3.5),
        ("RIGHTPADDING", (0, 0), (-1, -1), 3.5),
        ("TOPPADDING", (0, 0), (-1, -1), 2.5),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 2.5),
    ]
    badge_font, badge_size = font["Sans-Bold"], 7

    def markup(text: str, limit: int) -> str:
        """Paragraph markup: escaped text, code spans in the mono face."""
        return "".join(
            f'<font face="{font["Mono"]}">{escape(part)}</font>' if code else escape(part)
            for code, part in code_spans(clip(text, limit))
        )

    def para(text: str, style: Any, limit: int = CELL_CHARS) -> Any:
        return RLParagraph(markup(text, limit), style)

    def break_lines(text: str, room: float, style: Any, after: str = "/") -> str:
        """``text`` in lines that fit ``room`` points: broken after "/" when that is enough, else also after
        one of the ``after`` characters (a path: ".", "_", "-" or ":"), and only a run with no such place
        left is split between characters, so nothing ever spills over the cell's border."""

        def width(line: str) -> float:
            return float(stringWidth(line, style.fontName, style.fontSize))

        def lines(raw: str, seps: str) -> list[str]:
            out: list[str] = []
            line = ""
            for segment in (m for m in re.findall(f"[^{re.escape(seps)}]*[{re.escape(seps)}]?", raw) if m):
                if line and width(line + segment) > room:
                    out.append(line)
                    line = ""
                line += segment
            return [*out, line]

        def fitted(line: str, chain: tuple[str, ...]) -> list[str]:
            if width(line) <= room:
                return [line]
            if chain:
                return [part for piece in lines(line, chain[0]) for part in fitted(piece, chain[1:])]
            out, current = [], ""
            for char in line:
                if current and width(current + char) > room:
                    out.append(current)
                    current = ""
                current += char
            return [*out, current]

        chain = ("/", "._-:") if after == "/" else ("/", after)
        result: list[str] = []
        for raw in clip(text, CELL_CHARS).splitlines() or [""]:
            result += fitted(raw, chain)
        return "<br/>".join(escape(line) for line in result)

    def grid_table(data: list[list[Any]], widths: list[float], repeat: int) -> Any:
        # splitInRow lets a cell taller than a page continue on the next one instead of failing the layout.
        return RLTable(data, colWidths=widths, repeatRows=repeat, splitInRow=1)

    def badge_width(text: str) -> float:
        return max((stringWidth(v, badge_font, badge_size) for v in text.split(", ")), default=0) + 9

    def column_widths(block: Table, kinds: list[ColumnKind]) -> list[float]:
        count = len(block.columns)
        fractions = block.widths if block.widths and len(block.widths) == count else [1 / count] * count
        scale = sum(fractions)  # widths that do not add up to 1 are taken as proportions
        widths = [width * f / scale for f in fractions]
        # A badge column is as wide as its widest value (and its header word): enum values never wrap.
        need = {
            i: max(
                [badge_width(r[i]) for r in block.rows if i < len(r)]
                + [stringWidth(block.columns[i], head_cell.fontName, head_cell.fontSize) + 9]
            )
            for i, kind in enumerate(kinds)
            if kind == "badge"
        }
        grow = sum(max(0.0, need[i] - widths[i]) for i in need)
        if grow:
            flexible = [i for i in range(count) if i not in need]
            room = sum(widths[i] for i in flexible)
            for i in need:
                widths[i] = max(widths[i], need[i])
            for i in flexible:
                widths[i] -= grow * widths[i] / room if room else 0
        return widths

    def table_flow(block: Table) -> list[Any]:
        out: list[Any] = []
        count = len(block.columns)
        if count:
            kinds: list[ColumnKind] = list(block.kinds or ["text"] * count)
            widths = column_widths(block, kinds)
            data: list[list[Any]] = [[para(c, head_cell) for c in block.columns]]
            style = list(grid)
            for r, row in enumerate(block.rows, start=1):
                # Ragged rows are padded or cut to the header, so a malformed row cannot break the grid.
                cells: list[Any] = []
                for c, (text, kind) in enumerate(zip([*row, *[""] * count][:count], kinds, strict=True)):
                    if kind == "badge":
                        # A plain string cell never wraps; one value per line.
                        cells.append("\n".join(text.split(", ")))
                        colour = colors.HexColor(badge_colour(text.split(", ")[0])) if text else colors.black
                        style += [
                            ("FONTNAME", (c, r), (c, r), badge_font),
                            ("FONTSIZE", (c, r), (c, r), badge_size),
                            ("LEADING", (c, r), (c, r), badge_size + 2.5),
                            ("TEXTCOLOR", (c, r), (c, r), colour),
                        ]
                    elif kind == "path":
                        cells.append(RLParagraph(break_lines(text, widths[c] - 7, path_cell), path_cell))
                    elif kind == "mono":
                        cells.append(RLParagraph(break_lines(text, widths[c] - 7, path_cell, "/._-, "), path_cell))
                    else:
                        cells.append(para(text, cell))
                data.append(cells)
            table = grid_table(data, widths, 1)
            table.setStyle(TableStyle(style))
            out.append(table)
        if block.omitted:
            out.append(RLParagraph(escape(omitted_note(block.omitted, block.noun, block.rest)), omitted))
        return [*out, Spacer(1, 4)]

    def flow(block: Block) -> list[Any]:
        if isinstance(block, Heading):
            # A heading never ends a page alone: with less room than a heading and a few lines left, it
            # starts the next page. (keepWithNext would move a whole long table after it to a new page.)
            return [CondPageBreak(90), para(block.text, h[min(max(block.level, 1), 3)])]
        if isinstance(block, Paragraph):
            style = {"body": body, "muted": muted, "mono": mono}[block.style]
            return [para(block.text, style, TEXT_CHARS)]
        if isinstance(block, KeyValues):
            if not block.rows:
                return []
            rows = [[para(k, head_cell), para(v, mono if block.mono else cell)] for k, v in block.rows]
            table = grid_table(rows, [width * 0.22, width * 0.78], 0)
            table.setStyle(
                TableStyle([*grid[:1], *grid[2:], ("BACKGROUND", (0, 0), (0, -1), colors.HexColor("#eef1f6"))])
            )
            return [table, Spacer(1, 4)]
        if isinstance(block, Table):
            return table_flow(block)
        if isinstance(block, Bullets):
            items = ListFlowable(
                [ListItem(para(i, body, TEXT_CHARS), leftIndent=10) for i in block.items],
                bulletType="bullet",
                start="•",
                leftIndent=10,
                bulletFontName=font["Sans"],
            )
            out = [items] if block.items else []
            if block.omitted:
                out.append(RLParagraph(escape(omitted_note(block.omitted, block.noun, block.rest)), omitted))
            return out
        if isinstance(block, Callout):
            colour = colors.HexColor(_COLOURS.get(block.kind, _COLOURS["info"]))
            badge = ParagraphStyle(
                "badge", parent=body, fontName=font["Sans-Bold"], fontSize=14, leading=18, textColor=colour
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

    stamp = _timestamp(doc.created)
    footer_font = font["Sans"]

    def decorate(canvas: Any, template: Any) -> None:
        if stamp is not None:
            # reportlab's invariant mode dates every PDF 2000-01-01; the Evaluation's own time keeps the
            # bytes deterministic and tells the truth. The document reads the stamp when it is saved.
            canvas._doc._timeStamp = stamp
        canvas.saveState()
        canvas.setFont(footer_font, 7)
        canvas.setFillColor(colors.HexColor("#5b6578"))
        number = f"Page {template.page}"
        room = width - stringWidth(number, footer_font, 7) - 12
        canvas.drawString(margin, 10 * mm, fit(doc.footer, room))
        canvas.drawRightString(size[0] - margin, 10 * mm, number)
        canvas.restoreState()

    def fit(text: str, room: float) -> str:
        """The longest prefix of ``text`` (ending in "…" when cut) that fits ``room`` points of footer."""
        if stringWidth(text, footer_font, 7) <= room:
            return text
        low, high = 0, len(text)
        while low < high:
            mid = (low + high + 1) // 2
            if stringWidth(text[:mid] + "…", footer_font, 7) <= room:
                low = mid
            else:
                high = mid - 1
        return text[:low] + "…"

    # doc.links are hrefs on the service: the HTML page links them; the PDF lists them in its own blocks.
    story: list[Any] = [para(doc.title, title), para(doc.subtitle, muted), Spacer(1, 6)]
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
        lang="en",
        invariant=1,
    )
    try:
        template.build(story, onFirstPage=decorate, onLaterPages=decorate)
    except Exception as exc:  # reportlab raises assorted LayoutError/ValueError subclasses
        raise RendererUnavailableError(f"the PDF could not be rendered: {exc}") from exc
    return buffer.getvalue()

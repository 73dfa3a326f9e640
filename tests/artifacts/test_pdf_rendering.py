"""The PDF renderer on its own: valid, typeset, deterministic, bounded, and never broken by content."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import pypdf
import pytest

from assay.backend.reports.document import (
    Bullets,
    Callout,
    Document,
    Heading,
    KeyValues,
    PageBreak,
    Paragraph,
    Table,
)
from assay.backend.reports.pdf import CELL_CHARS, RendererUnavailableError, clip, render_pdf

DIGEST = "sha256:" + "0123456789abcdef" * 4
HOSTILE = '<b>bold</b> & <font size="80">big</font> <para> &amp; <img src="x"/>'


def _doc(*blocks: object, footer: str = "Assay · Evaluation eval-42") -> Document:
    return Document(title="Master Assurance Report", subtitle="AI System sys-1", footer=footer, blocks=list(blocks))  # type: ignore[arg-type]


def _reader(pdf: bytes) -> pypdf.PdfReader:
    assert pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF")
    return pypdf.PdfReader(io.BytesIO(pdf))


def _pages(pdf: bytes) -> list[str]:
    return [page.extract_text() for page in _reader(pdf).pages]


def _flat(pdf: bytes) -> str:
    return "".join(_pages(pdf)).replace("\n", "")


def _typical() -> Document:
    """About the size of a real Master Report: five tables of fifty rows, digests, lists."""
    blocks: list[object] = [
        Callout("REVIEW", "Disposition: REVIEW", "A person must look at the reasons."),
        KeyValues([("coreTruthDigest", DIGEST), ("evidenceBundleDigest", DIGEST)], mono=True),
    ]
    for section in range(5):
        blocks += [
            Heading(f"Section {section}", 1),
            Table(
                ["Class", "Impact", "Target", "Where", "Tools"],
                [
                    [f"exec.{i}", "HIGH", f"subprocess.run #{i} " * 3, f"agent/tools_{i}.py:{i}", "run_shell"]
                    for i in range(50)
                ],
                omitted=12,
                widths=[0.15, 0.1, 0.35, 0.25, 0.15],
            ),
            Bullets(
                [f"limitation {i}: runtime evidence was not supplied for this action" for i in range(15)], omitted=3
            ),
        ]
    return _doc(*blocks)


def test_the_page_holds_title_disposition_digests_and_omitted_counts() -> None:
    pdf = render_pdf(_typical())
    text = _flat(pdf)
    assert "Master Assurance Report" in text and "Disposition: REVIEW" in text
    assert DIGEST in text
    assert len(re.findall(r"… and 12 more (rows|entries) not shown \(omitted: 12\)", text)) == 5
    assert text.count("… and 3 more entries not shown (omitted: 3).") == 5
    metadata = _reader(pdf).metadata
    assert (
        metadata is not None and metadata.title == "Master Assurance Report" and metadata.subject == "AI System sys-1"
    )


def test_every_page_has_the_footer_and_its_number_and_tables_repeat_their_header() -> None:
    pages = _pages(render_pdf(_typical()))
    assert len(pages) >= 5
    for number, text in enumerate(pages, start=1):
        assert "Assay · Evaluation eval-42" in text
        assert re.search(rf"\bPage {number}\b", text)
    continued = [text for text in pages[1:] if "exec." in text]
    assert continued and all(
        "ClassImpactTargetWhereTools" in text.replace("\n", "").replace(" ", "") for text in continued
    )


@pytest.mark.parametrize(("size", "box"), [("A4", (595, 842)), ("LETTER", (612, 792))])
def test_page_sizes(size: str, box: tuple[int, int]) -> None:
    reader = _reader(render_pdf(_typical(), page_size=size))  # type: ignore[arg-type]
    assert {(round(float(p.mediabox.width)), round(float(p.mediabox.height))) for p in reader.pages} == {box}


def test_the_same_document_gives_the_same_bytes_in_another_process() -> None:
    pdf = render_pdf(_typical())
    assert render_pdf(_typical()) == pdf
    script = (
        "import sys, tests.artifacts.test_pdf_rendering as t; "
        "from assay.backend.reports.pdf import render_pdf; sys.stdout.buffer.write(render_pdf(t._typical()))"
    )
    root = Path(__file__).resolve().parents[2]
    other = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60, check=True, cwd=root)
    assert other.stdout == pdf


def test_markup_in_content_is_text_not_markup() -> None:
    text = _flat(
        render_pdf(_doc(Heading(HOSTILE), Paragraph(HOSTILE), Table(["<th>"], [[HOSTILE]]), Bullets([HOSTILE])))
    )
    assert text.count("<b>bold</b>") == 4 and text.count("&amp;") == 4 and '<font size="80">' in text


def test_long_digests_and_names_wrap_inside_the_page() -> None:
    name = "tool_" + "x" * 400
    pdf = render_pdf(
        _doc(
            KeyValues([("digest", DIGEST * 3)], mono=True),
            Table(["Tool", "Digest"], [[name, DIGEST]], widths=[0.3, 0.7]),
        )
    )
    assert DIGEST * 3 in _flat(pdf) and name in _flat(pdf)  # whole, only broken across lines
    lines = "\n".join(_pages(pdf)).splitlines()
    # DejaVu Sans Mono 7.5pt fits about 86 characters in the value column, DejaVu Sans 7.5pt about 37 "x"
    # in the name column: a line longer than that would run off its cell.
    assert max(len(line) for line in lines if "0123456789abcdef" in line) <= 88
    assert max(len(line) for line in lines if "xxxx" in line) <= 45


@pytest.mark.parametrize(
    "block",
    [
        Table(["a", "b"], [["x" * 30000, "y " * 8000]]),  # a cell far taller than a page
        KeyValues([("k" * 50000, "v")]),
        Callout("BLOCK", "t", "z " * 30000),
        Table([], []),
        Table(["a", "b"], [["1"], ["1", "2", "3"]], widths=[2.0, 1.0]),
        Bullets([]),
        KeyValues([]),
        Paragraph("nul \x00 bell \x07 escape \x1b[31m and 模型 🚀"),
        Heading("deep", 9),
        PageBreak(),
    ],
)
def test_odd_and_oversized_content_still_renders(block: object) -> None:
    pdf = render_pdf(_doc(block, footer="F" * 600))
    assert len(_reader(pdf).pages) >= 1


def test_cut_cell_text_is_announced_in_place() -> None:
    text = _flat(render_pdf(_doc(Table(["Target"], [["q" * (CELL_CHARS + 250)]]))))
    assert "…and250morecharactersnotshown(omitted:250)" in re.sub(r"\s", "", text)
    assert clip("short", 10) == "short"


def test_a_missing_renderer_raises_renderer_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "reportlab.platypus", None)
    with pytest.raises(RendererUnavailableError, match="not installed"):
        render_pdf(_typical())

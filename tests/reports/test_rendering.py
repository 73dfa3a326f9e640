"""HTML and PDF renderings of the Master Report and the legacy evidence report."""

from __future__ import annotations

import io
from pathlib import Path

import pypdf
import pytest

from assay.backend.engines.static.scan import scan_tree
from assay.backend.evaluation.membership import EvidenceMembership, make_membership, static_bundle_item
from assay.backend.evaluation.methodology import EvaluationPayload, evaluate
from assay.backend.reports.document import Document, Table
from assay.backend.reports.html import inline, render_html
from assay.backend.reports.legacy import build_evidence_report
from assay.backend.reports.legacy_document import evidence_document
from assay.backend.reports.master import build_master_report
from assay.backend.reports.master_document import PRESENTATION_ROWS, master_document
from assay.backend.reports.pdf import render_pdf

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _evaluated(name: str) -> tuple[EvidenceMembership, EvaluationPayload]:
    membership = make_membership([static_bundle_item(scan_tree(EXAMPLES / name).to_json_dict())])
    return membership, evaluate(membership, ai_system_id="sys-1", jurisdiction=None)


def _text(pdf: bytes) -> str:
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    return "".join(page.extract_text() for page in reader.pages).replace("\n", "")


@pytest.mark.parametrize("name", ["ops-agent", "support-agent-ts", "research-assistant"])
def test_master_report_pdf_holds_disposition_and_digests(name: str) -> None:
    _, payload = _evaluated(name)
    report = build_master_report("eval-9", payload, links={}, detail="full")["masterReport"]
    pdf = render_pdf(master_document(report))
    assert pdf.startswith(b"%PDF-")
    text = _text(pdf)
    assert f"Disposition: {payload.disposition}" in text
    assert payload.core_truth_digest in text
    assert payload.evidence_bundle_digest in text
    assert render_pdf(master_document(report)) == pdf  # deterministic bytes


def test_presentation_omissions_are_announced_on_the_page(tmp_path: Path) -> None:
    root = tmp_path / "wide"
    root.mkdir()
    tools = "".join(
        f"\n@tool\ndef t{i}(p: str) -> str:\n    '''T.'''\n    os.remove(p)\n    return p\n"
        for i in range(PRESENTATION_ROWS + 7)
    )
    (root / "agent.py").write_text("import os\nfrom langchain_core.tools import tool\n" + tools)
    membership = make_membership([static_bundle_item(scan_tree(root).to_json_dict())])
    payload = evaluate(membership, ai_system_id="s", jurisdiction=None)
    report = build_master_report("e", payload, links={}, detail="full")["masterReport"]
    text = _text(render_pdf(master_document(report)))
    assert "(omitted: 7)" in text
    bounded = build_master_report("e", payload, links={})["masterReport"]
    text = _text(render_pdf(master_document(bounded)))
    assert "fourQuestions.reach.codeCapable.actions" in text  # the bound's omitted counts are listed


@pytest.mark.parametrize("page_size", ["A4", "LETTER"])
@pytest.mark.parametrize("profile", ["executive", "technical", "auditor"])
def test_legacy_evidence_pdf_profiles_and_page_sizes(profile: str, page_size: str) -> None:
    membership, payload = _evaluated("ops-agent")
    report = build_evidence_report("eval-9", payload, membership)
    pdf = render_pdf(evidence_document(report, profile), page_size=page_size)  # type: ignore[arg-type]
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    width, height = float(reader.pages[0].mediabox.width), float(reader.pages[0].mediabox.height)
    assert (round(width), round(height)) == ((595, 842) if page_size == "A4" else (612, 792))
    text = _text(pdf)
    assert f"Assurance Evidence Report ({profile})" in text and "Secondary to the Master Assurance Report" in text
    if profile == "technical":
        assert "F-TAINT-EXEC" in text and "ops_agent/tools.py:35" in text
    if profile == "auditor":
        assert payload.evidence_bundle_digest in text and "Evidence membership" in text
    if profile == "executive":
        assert len(reader.pages) <= 2 and "F-TAINT-EXEC" not in text


def test_profiles_are_different_documents() -> None:
    membership, payload = _evaluated("support-agent-ts")
    report = build_evidence_report("e", payload, membership)
    texts = {p: _text(render_pdf(evidence_document(report, p))) for p in ("executive", "technical", "auditor")}  # type: ignore[arg-type]
    assert len(set(texts.values())) == 3


def test_html_escapes_hostile_text_and_has_no_external_assets() -> None:
    doc = Document(
        title="<script>alert(1)</script>",
        subtitle="x",
        footer="f",
        blocks=[Table(columns=["name"], rows=[['<img src=x onerror="alert(1)">']], omitted=3)],
    )
    page = render_html(doc)
    assert "<script>" not in page and "<img" not in page
    assert "&lt;script&gt;" in page
    assert "(omitted: 3)" in page
    assert "http://" not in page and "https://" not in page and "<link" not in page


def test_master_report_html_is_the_same_product() -> None:
    _, payload = _evaluated("ops-agent")
    report = build_master_report("eval-9", payload, links={}, detail="full")["masterReport"]
    page = render_html(master_document(report))
    assert "Disposition: BLOCK" in page and payload.core_truth_digest in page
    for item in payload.data["verificationItems"]:
        assert inline(item["verificationNeeded"]) in page  # whole, code spans as <code>

"""What people and agents read, checked on every artifact of the three examples and a 60-tool system:
identity on page one, reasons grouped by rule, omitted notes that say what and where, enum values never
split, paths broken only at "/", embedded fonts, and verificationNeeded the same text everywhere."""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pypdf
import pytest
from report_systems import EXAMPLE_NAMES, EXAMPLES, evaluated, write_wide_system

from assay.backend.evaluation.agent_audit import build_agent_audit
from assay.backend.reports.document import Document, Paragraph, plain
from assay.backend.reports.html import inline, render_html
from assay.backend.reports.identity import build_identity, sources_of
from assay.backend.reports.master import build_master_report
from assay.backend.reports.master_document import PRESENTATION_ROWS, master_document
from assay.backend.reports.pdf import fonts, render_pdf
from assay.backend.runs.links import master_report_links

WHEN = "2026-11-24T15:43:29Z"
BADGE_VALUES = (
    "BLOCK", "REVIEW", "ALLOW", "critical", "medium", "ESTABLISHED", "EVIDENCE_NEEDED", "MISSING", "PARTIAL",
    "UNGATED", "GATED", "human_approval",
)  # fmt: skip


def _artifacts(name: str, root: Path) -> dict[str, Any]:
    membership, payload = evaluated(root, ai_system_id=f"sys_{name}")
    links = master_report_links(f"eval_{name}", f"sys_{name}")
    identity = build_identity(
        evaluation_id=f"eval_{name}",
        ai_system_id=f"sys_{name}",
        system_name=f"System {name}",
        evaluated_at=WHEN,
        methodology_version=payload.methodology_version,
        sources=sources_of(membership),
        signing_key_id="kid-test-123",
        links=links,
    )
    full = build_master_report(f"eval_{name}", payload, links=links, detail="full", identity=identity)
    document = master_document(full["masterReport"])
    pdf = render_pdf(document)
    return {
        "payload": payload,
        "identity": identity,
        "bounded": build_master_report(f"eval_{name}", payload, links=links, identity=identity),
        "full": full,
        "audit": build_agent_audit(f"eval_{name}", payload, detail="full", identity=identity),
        "html": render_html(document),
        "pdf": pdf,
        "pages": [p.extract_text() for p in pypdf.PdfReader(io.BytesIO(pdf)).pages],
    }


@pytest.fixture(scope="module", params=[*EXAMPLE_NAMES, "wide-60-tools"])
def views(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    name = request.param
    root = write_wide_system(tmp_path_factory.mktemp("wide")) if name == "wide-60-tools" else EXAMPLES / name
    return {"name": name, **_artifacts(name, root)}


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def test_page_one_says_what_was_assessed_and_the_disposition(views: dict[str, Any]) -> None:
    first, identity = views["pages"][0], views["identity"]
    disposition = views["payload"].disposition
    for fact in (f"System {views['name']}", f"Disposition: {disposition}", WHEN, identity["workspaceDigest"],
                 identity["methodologyVersion"], "kid-test-123", "Fix first", "At a glance"):  # fmt: skip
        assert _squash(fact) in _squash(first), fact
        assert fact.replace("&", "&amp;") in views["html"]
    reader = pypdf.PdfReader(io.BytesIO(views["pdf"]))
    assert reader.metadata.creation_date.isoformat().startswith("2026-11-24T15:43:29")
    for page in views["pages"]:  # every page names the system and the evaluation in its footer
        assert f"Evaluation eval_{views['name']}" in page


def test_reasons_are_grouped_by_rule_with_counts(views: dict[str, Any]) -> None:
    reasons = views["payload"].data["reasons"]
    counts = Counter(r["ruleId"] for r in reasons)
    html = views["html"]
    section = html[html.index("Why: reasons by rule") : html.index("Actions: one row per action")]
    rows = re.findall(
        r"<tr><td class=\"b\">.*?</td><td class=\"mono\"><span class=nw>([^<]+)</span></td><td>(\d+)</td>", section
    )
    assert {rule: int(n) for rule, n in rows} == dict(counts)
    assert len(rows) == len(counts)  # one row per rule, however many reasons it gave


def test_one_row_per_action_sorted_by_path_then_line(views: dict[str, Any]) -> None:
    actions = views["payload"].data["fourQuestions"]["reach"]["codeCapable"]["actions"]
    html = views["html"]
    section = html[html.index("Actions: one row per action") : html.index("The Four Assurance Questions")]
    wheres = [w.replace("<wbr>", "") for w in re.findall(r'<td class="path">([^<]*(?:<wbr>[^<]*)*)</td>', section)]
    assert len(wheres) == min(len(actions), PRESENTATION_ROWS)
    keys = [(w.rsplit(":", 1)[0], int(w.rsplit(":", 1)[1])) for w in wheres]
    assert keys == sorted(keys)


def test_omitted_notes_name_the_list_the_count_and_where_the_rest_is(views: dict[str, Any]) -> None:
    actions = views["payload"].data["fourQuestions"]["reach"]["codeCapable"]["actions"]
    text = _squash("".join(views["pages"]))
    hidden = len(actions) - PRESENTATION_ROWS
    note = f"… and {hidden} more actions not shown (omitted: {hidden}). They are in Appendix A."
    if hidden > 0:
        assert _squash(note) in text and note in views["html"]
        assert "Appendix A: the rest of the actions" in views["html"]
        # The appendix holds exactly the rows the body left out.
        appendix = views["html"][views["html"].index("Appendix A") :]
        assert appendix.count('<td class="path">') >= hidden
    else:
        assert "Appendix A" not in views["html"]
    assert "more not shown" not in text  # every note names what it counts


def test_no_enum_badge_is_split_across_lines(views: dict[str, Any]) -> None:
    lines = "\n".join(views["pages"])
    flat = lines.replace("\n", "")
    for value in BADGE_VALUES:
        # A value split over two lines would be found in the flattened text but not in the lined text.
        assert lines.count(value) == flat.count(value), value
    css = views["html"][views["html"].index("<style>") : views["html"].index("</style>")]
    # A badge never wraps; a cell of several wraps between them (one under another), never inside one.
    assert re.search(r"\.badge\{[^}]*white-space:nowrap", css) and re.search(r"td\.b\{width:1%\}", css)
    for value in re.findall(r'<span class="badge"[^>]*>([^<]*)</span>', views["html"]):
        assert value and "\n" not in value


def test_paths_break_only_after_a_slash(views: dict[str, Any]) -> None:
    actions = views["payload"].data["fourQuestions"]["reach"]["codeCapable"]["actions"]
    places = {f"{a['location']['path']}:{a['location']['line']}" for a in actions}
    lines = {line.strip() for page in views["pages"] for line in page.splitlines()}
    for place in places:
        for line in lines:
            # A line that is the start of a path but not all of it is a wrapped path: it ends at a "/".
            if len(line) >= 3 and place.startswith(line) and line != place and line not in ("the", "tool"):
                assert line.endswith("/"), (place, line)
    css = views["html"][views["html"].index("<style>") : views["html"].index("</style>")]
    assert re.search(r"td\.path\{[^}]*overflow-wrap:normal", css)
    for cell in re.findall(r'<td class="path">(.*?)</td>', views["html"]):
        assert all(part.endswith("/") for part in cell.split("<wbr>")[:-1])


def _in_order(words: list[str], page_words: list[str]) -> bool:
    """``words`` appear in order in ``page_words``, with at most a few other words between them (a table
    row's other cells are extracted between the lines of a wrapped cell)."""
    for start in (n for n, w in enumerate(page_words) if w == words[0]):
        at, ok = start, True
        for word in words[1:]:
            window = page_words[at + 1 : at + 40]  # a page break puts the footer and header row between
            if word not in window:
                ok = False
                break
            at += 1 + window.index(word)
        if ok:
            return True
    return False


def test_verification_needed_is_the_same_text_in_every_artifact(views: dict[str, Any]) -> None:
    expected = [i["verificationNeeded"] for i in views["payload"].data["verificationItems"]]
    assert [i["verificationNeeded"] for i in views["audit"]["agentAudit"]["verificationItems"]] == expected
    assert [i["verificationNeeded"] for i in views["full"]["masterReport"]["verificationItems"]] == expected
    bounded = views["bounded"]["masterReport"]["verificationItems"]
    assert [i["verificationNeeded"] for i in bounded] == expected[: len(bounded)]
    serialised = json.dumps(views["bounded"], ensure_ascii=False)
    pdf_words = " ".join(views["pages"]).split()
    for text in expected:
        assert json.dumps(text, ensure_ascii=False) in serialised or text not in [
            i["verificationNeeded"] for i in bounded
        ]
        assert inline(text) in views["html"]  # whole; code spans drawn as code, never with backticks
        assert _in_order(plain(text).split(), pdf_words), text
    assert "`" not in "".join(views["pages"]).replace("``", "")


def test_fonts_are_embedded_and_non_latin_text_prints() -> None:
    if not fonts()["Sans"].startswith("DejaVu"):
        pytest.skip("DejaVu fonts are not installed (Debian: fonts-dejavu-core)")
    text = "Инструмент удаляет файлы · Ελληνικά · Łódź · ☑"
    pdf = render_pdf(Document(title="T", subtitle="S", footer="F", blocks=[Paragraph(text)]))
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    assert text in reader.pages[0].extract_text()
    names = {str(f["/BaseFont"]) for f in reader.pages[0]["/Resources"]["/Font"].values()}
    assert any("DejaVu" in n for n in names)
    for font in reader.pages[0]["/Resources"]["/Font"].values():
        descriptor = font.get_object().get("/FontDescriptor")
        if descriptor is not None:
            assert "/FontFile2" in descriptor.get_object()  # the TrueType program is in the file

"""The jurisdiction's controls in the Master Report (framework x control), the computed figures with full
detail, and the NYC LL144 public summary as a document of its own (JSON, HTML, PDF).

Everything here is read from the persisted Evaluation; answer text (a URL, a reason) reaches the page only
through the renderers, which escape every string.
"""

from __future__ import annotations

from typing import Any

from assay.backend.reports.document import Block, Bullets, Callout, Document, Heading, KeyValues, Paragraph, Table

FOUR_FIFTHS_NOTE = (
    "0.8 is the EEOC four-fifths reference (29 C.F.R. § 1607.4(D)), a rule of thumb for adverse impact; it is "
    "not a pass mark of Local Law 144, which sets none. With small numbers a ratio says little either way."
)
CLASSIFICATION_LABELS = {
    "prohibitedPractice": "Prohibited practice (Art. 5)",
    "prohibitedPracticeAnswer": "Practice answered",
    "highRisk": "High-risk (Art. 6)",
    "highRiskPath": "High-risk path",
    "article6_3Exception": "Art. 6(3) exception",
    "profiling": "Profiling",
    "transparencyDuties": "Transparency duties (Art. 50)",
    "generalPurposeModelProvider": "General-purpose model provider",
    "systemicRisk": "Systemic risk (Art. 51)",
    "role": "Role",
}
TABLES = (("bySex", "Sex"), ("byRaceEthnicity", "Race/ethnicity"), ("intersectional", "Sex and race/ethnicity"))


def _label(row: dict[str, Any]) -> str:
    return " / ".join(str(row[k]) for k in ("sex", "raceEthnicity") if k in row)


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def ratio_rows(rows: list[dict[str, Any]]) -> list[list[str]]:
    out = []
    for row in rows:
        if row["excludedFromRatios"]:
            note = "excluded from ratios (under 2% of the data)" if row["count"] else "no candidates"
        elif row["underFourFifths"]:
            note = "under 0.8" + (" (small sample)" if row["smallSample"] else "")
        else:
            note = "small sample" if row["smallSample"] else ""
        out.append(
            [_label(row), str(row["count"]), str(row["positive"]), _num(row["rate"]), _num(row["impactRatio"]), note]
        )
    return out


def _ratio_table(ll144: dict[str, Any], key: str) -> Table:
    positive = "Selected" if ll144["method"] == "selection_rate" else "Above median"
    rate = "Selection rate" if ll144["method"] == "selection_rate" else "Scoring rate"
    return Table(
        ["Category", "Candidates", positive, rate, "Impact ratio", "Note"],
        ratio_rows(ll144[key]),
        widths=[0.31, 0.13, 0.12, 0.12, 0.12, 0.2],
        kinds=["text", "mono", "mono", "mono", "mono", "text"],
        noun="categories",
    )


def _open(control: dict[str, Any]) -> str:
    if control["status"] == "ESTABLISHED":
        return "-"
    if control["status"] == "NOT_APPLICABLE":
        return "ruled out by the answers"
    unmet = [r for r in control.get("requirements", []) if r["status"] != "ESTABLISHED"]
    return "; ".join(f"{r['subject']}: {r['detail']}" for r in unmet[:3]) or control.get("howToClose", "")


def jurisdiction_blocks(section: dict[str, Any] | None) -> list[Block]:
    """The Master Report's framework x control section (nothing when the run had no jurisdiction)."""
    if section is None:
        return []
    framework = section["framework"]
    blocks: list[Block] = [Heading(f"Jurisdiction: {framework}", 2)]
    if section["status"] != "ASSESSED":
        blocks.append(
            Callout(
                "warning",
                "Controls NOT_ASSESSED",
                f"The run held no {framework} assessment: create one, answer it and run again with engines.wizard.",
            )
        )
        return blocks
    pack = section["pack"]
    counts = ", ".join(f"{k} {v}" for k, v in section["counts"].items())
    blocks.append(
        KeyValues(
            rows=[
                ("Law pack", f"{pack['id']} (in force from {pack['inForceFrom']})"),
                ("Pack digest", pack["digest"]),
                ("Evaluated on", section["asOf"]),
                ("Controls", counts),
            ]
        )
    )
    if not pack["inForceOnEvaluationDate"]:
        blocks.append(
            Callout("info", "Not yet in force", f"The pack applies from {pack['inForceFrom']}: assessed for readiness.")
        )
    blocks.append(
        Table(
            ["Control", "Status", "Citation", "Applies from", "What is open"],
            [
                [
                    f"{c['id']}: {c['title']}",
                    c["status"],
                    c["citation"],
                    (c["appliesFrom"] or "-") + (" (secondary)" if c.get("dateSourceKind") == "secondary" else ""),
                    _open(c),
                ]
                for c in section["controls"]
            ],
            widths=[0.28, 0.14, 0.16, 0.12, 0.3],
            kinds=["text", "badge", "text", "mono", "text"],
            noun="controls",
        )
    )
    figures = section.get("figures") or {}
    ll144 = figures.get("ll144")
    if ll144:
        blocks += [
            Heading("NYC LL144 figures", 3),
            Paragraph(
                f"{ll144['rows']} candidates ({ll144['dataKind']} data), {ll144['method'].replace('_', ' ')}s; unknown "
                f"sex {ll144['unknown']['sex']}, unknown race/ethnicity {ll144['unknown']['raceEthnicity']}. "
                + FOUR_FIFTHS_NOTE
            ),
        ]
        for key, title in TABLES:
            blocks += [Paragraph(title, "muted"), _ratio_table(ll144, key)]
    classification = figures.get("classification")
    if classification:
        blocks += [
            Heading("EU AI Act classification", 3),
            KeyValues(rows=[(CLASSIFICATION_LABELS.get(k, k), _shown(v)) for k, v in classification.items()]),
            Heading("Annex IV technical documentation", 3),
            Table(
                ["Section", "Title", "Status", "Pre-filled from the evidence"],
                [[s["section"], s["title"], s["status"], _prefill(s["prefilled"])] for s in figures.get("annexIV", [])],
                widths=[0.08, 0.34, 0.18, 0.4],
                kinds=["mono", "text", "mono", "text"],
                noun="sections",
            ),
        ]
    return blocks


def _shown(value: Any) -> str:
    if value is None:
        return "unanswered"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "none"
    return str(value)


def _prefill(content: dict[str, Any] | None) -> str:
    if not content:
        return "-"
    return "; ".join(f"{k}: {', '.join(map(str, v[:8])) or 'none'}" for k, v in content.items())


def ll144_summary(evaluation_id: str, payload: dict[str, Any], system_name: str | None) -> dict[str, Any] | None:
    """The public summary of the bias audit (6 RCNY § 5-303) as JSON; None without LL144 figures."""
    section = (payload["fourQuestions"]["authority"] or {}).get("jurisdiction") or {}
    ll144 = (section.get("figures") or {}).get("ll144")
    if section.get("framework") != "nyc_ll144" or not ll144:
        return None
    excluded = [_label(r) for key, _t in TABLES for r in ll144[key] if r["excludedFromRatios"] and r["count"]]
    return {
        "document": "NYC Local Law 144 bias audit summary",
        "evaluationId": evaluation_id,
        "aiSystemId": payload.get("aiSystemId"),
        "tool": system_name,
        "lawPack": section["pack"],
        "auditDate": ll144.get("auditDate"),
        "distributionDate": ll144.get("distributionDate"),
        "independentAuditor": ll144.get("independentAuditor"),
        "dataSource": ll144["dataKind"],
        "testDataReason": ll144.get("testDataReason"),
        "dataDigest": ll144["contentDigest"],
        "candidates": ll144["rows"],
        "unknownCategory": ll144["unknown"],
        "method": ll144["method"],
        "medianScore": ll144["medianScore"],
        "bySex": ll144["bySex"],
        "byRaceEthnicity": ll144["byRaceEthnicity"],
        "intersectional": ll144["intersectional"],
        "excludedFromRatios": excluded,
        "notes": [
            FOUR_FIFTHS_NOTE,
            "Categories under 2% of the data are excluded from the impact ratios and still reported with their counts "
            "(6 RCNY § 5-301).",
            *(
                ["Test data was used because historical data was insufficient (6 RCNY § 5-302)."]
                if ll144["dataKind"] == "test"
                else []
            ),
            *ll144.get("notes", []),
        ],
    }


def ll144_document(summary: dict[str, Any]) -> Document:
    rows = [
        ("Tool", summary["tool"] or summary["aiSystemId"] or "-"),
        ("Date of the bias audit", summary["auditDate"] or "not given"),
        ("Distribution date", summary["distributionDate"] or "not given"),
        ("Independent auditor", _shown(summary["independentAuditor"])),
        ("Data", f"{summary['dataSource']} data, {summary['candidates']} candidates ({summary['dataDigest']})"),
        (
            "Unknown category",
            f"sex {summary['unknownCategory']['sex']}, race/ethnicity {summary['unknownCategory']['raceEthnicity']}",
        ),
        (
            "Method",
            summary["method"].replace("_", " ")
            + ("" if summary["medianScore"] is None else f" (median score {summary['medianScore']})"),
        ),
    ]
    if summary["testDataReason"]:
        rows.append(("Why test data", summary["testDataReason"]))
    figures = {k: summary[k] for k in ("bySex", "byRaceEthnicity", "intersectional")} | {"method": summary["method"]}
    blocks: list[Block] = [KeyValues(rows=rows)]
    for key, title in TABLES:
        blocks += [Heading(title, 2), _ratio_table(figures, key)]
    blocks += [Heading("Notes", 2), Bullets(items=list(summary["notes"]))]
    return Document(
        title="Summary of bias audit results",
        subtitle=f"NYC Local Law 144 (Admin. Code § 20-871; 6 RCNY § 5-303) · Evaluation {summary['evaluationId']}",
        footer=f"Assay · {summary['lawPack']['id']} · {summary['evaluationId']}",
        blocks=blocks,
    )

"""The legacy Assurance Evidence Report as three genuinely different documents, one per profile:
executive (a page or two), technical (findings with locations), auditor (membership, digests,
methodology)."""

from __future__ import annotations

from typing import Any

from assay.backend.reports.document import Block, Bullets, Callout, Document, Heading, KeyValues, Paragraph, Table, cut
from assay.backend.reports.legacy import Profile

ROWS = 60


def evidence_document(report: dict[str, Any], profile: Profile) -> Document:
    r = report["report"]
    evaluation_id = report["evaluationId"]
    disposition = r["disposition"]
    blocks: list[Block] = [
        Paragraph("Secondary to the Master Assurance Report, kept for backwards compatibility.", "muted"),
        Callout(kind=disposition, title=f"Disposition: {disposition}", text=f"Methodology {r['methodologyVersion']}."),
    ]
    if profile == "executive":
        top = r["reasons"][:5]
        blocks += [
            Heading("In short", 1),
            Bullets(
                items=[x["message"] for x in top] or ["No disposition rule fired."],
                omitted=max(0, len(r["reasons"]) - 5),
            ),
            Heading("Findings by severity", 2),
            KeyValues(
                rows=[
                    (s, str(sum(1 for f in r["findings"] if f["severity"] == s)))
                    for s in ("critical", "high", "medium", "low", "info")
                ]
            ),
            Heading("Limitations", 2),
            Bullets(items=r["limitations"][:6], omitted=max(0, len(r["limitations"]) - 6)),
        ]
    elif profile == "technical":
        rows = [
            [
                f["severity"],
                f["ruleId"],
                ", ".join(f"{loc['path']}:{loc['line']}" for loc in f["locations"]) or "-",
                f["message"],
            ]
            for f in r["findings"]
        ]
        shown, omitted = cut(rows, ROWS)
        blocks += [
            Heading("Findings", 1),
            Table(
                columns=["Severity", "Rule", "Locations", "Finding"],
                rows=shown,
                omitted=omitted,
                widths=[0.1, 0.2, 0.25, 0.45],
            ),
            Heading("Disposition reasons", 1),
            Table(
                columns=["Rule", "Reason"],
                rows=[[x["ruleId"], x["message"]] for x in r["reasons"]],
                widths=[0.15, 0.85],
            ),
            Heading("Limitations", 2),
            Bullets(items=r["limitations"]),
        ]
    else:
        blocks += [Heading("Evidence membership", 1)]
        for item in r["evidence"]:
            identity = item["provenance"]["sourceIdentity"]
            producer = item["provenance"]["producer"]
            blocks += [
                Heading(item["evidenceId"], 3),
                KeyValues(
                    rows=[
                        ("kind", item["kind"]),
                        ("producerId", item["producerId"]),
                        ("contentDigest", item["contentDigest"]),
                        ("engine", f"{producer['engine']} {producer['engineVersion']}"),
                        (
                            "rulePack",
                            f"{producer['rulePack']['id']} {producer['rulePack']['version']} {producer['rulePack']['digest']}",
                        ),
                        ("workspaceDigest", identity["workspaceDigest"]),
                        ("pathSetDigest", identity["pathSetDigest"]),
                        (
                            "git",
                            f"{identity.get('gitRemote') or '-'} {identity.get('gitCommit') or '-'} dirty={identity.get('dirty')}",
                        ),
                    ],
                    mono=True,
                ),
            ]
        blocks += [
            Heading("Digests", 1),
            KeyValues(
                rows=[("coreTruthDigest", r["coreTruthDigest"]), ("evidenceBundleDigest", r["evidenceBundleDigest"])],
                mono=True,
            ),
            Heading("Methodology", 1),
            Paragraph(
                f"{r['methodologyVersion']}: disposition by explicit, versioned rules over the frozen membership only; "
                "digests are SHA-256 over RFC 8785 canonical JSON and can be recomputed by anyone."
            ),
            Table(
                columns=["Rule", "Disposition"],
                rows=[[x["ruleId"], x["disposition"]] for x in r["reasons"]],
                widths=[0.5, 0.5],
            ),
            Heading("Limitations", 2),
            Bullets(items=r["limitations"]),
        ]
    return Document(
        title=f"Assurance Evidence Report ({profile})",
        subtitle=f"Evaluation {evaluation_id} · {disposition}",
        footer=f"Assay · Evaluation {evaluation_id} · evidence report, profile {profile}",
        blocks=blocks,
    )

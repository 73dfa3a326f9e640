"""The Master Report as a document for people (HTML and PDF): the same product as the API.

It is built from the full Master Report; tables keep at most ``PRESENTATION_ROWS`` rows and announce
the rest with an on-page omitted count.
"""

from __future__ import annotations

from typing import Any

from assay.backend.reports.document import (
    Block,
    Bullets,
    Callout,
    Document,
    Heading,
    KeyValues,
    Paragraph,
    Table,
    cut,
)

PRESENTATION_ROWS = 40
_MEANING = {
    "ALLOW": "Nothing in the evaluated evidence stands in the way. This is not a statement that the system is safe: "
    "see the limitations.",
    "REVIEW": "A person must look at the reasons below before the system ships.",
    "BLOCK": "The system must not ship as it is: see the reasons below.",
}


def _where(loc: dict[str, Any] | None) -> str:
    return f"{loc['path']}:{loc['line']}" if loc else ""


def _table(columns: list[str], rows: list[list[str]], widths: list[float] | None = None) -> Table:
    shown, omitted = cut(rows, PRESENTATION_ROWS)
    return Table(columns=columns, rows=shown, omitted=omitted, widths=widths)


def master_document(master: dict[str, Any]) -> Document:
    """``master`` is the ``masterReport`` object (full detail gives the complete document)."""
    r = master
    fq = r["fourQuestions"]
    reach, authority, observed, boundary = fq["reach"], fq["authority"], fq["observed"], fq["proofBoundary"]
    disposition = r["disposition"]
    blocks: list[Block] = [
        Callout(kind=disposition, title=f"Disposition: {disposition}", text=_MEANING.get(disposition, "")),
        KeyValues(
            rows=[
                ("Evaluation", r["evaluationId"]),
                ("AI System", r.get("aiSystemId") or "-"),
                ("Methodology", r.get("methodologyVersion") or "-"),
                ("Time basis", r["timeBasis"]),
                ("Report", f"{r['reportId']} (report {r['reportVersion']}, projection {r['projectionVersion']})"),
            ]
        ),
        KeyValues(
            rows=[
                ("coreTruthDigest", r["coreTruthDigest"]),
                ("evidenceBundleDigest", r["evidenceBundleDigest"] or "-"),
                ("snapshotDigest", r["evaluationScenarioSnapshot"].get("snapshotDigest", "-")),
            ],
            mono=True,
        ),
        Heading("Why", 1),
    ]
    reasons = [[x["disposition"], x["ruleId"], x["message"]] for x in r.get("reasons", [])]
    blocks.append(
        _table(["Disposition", "Rule", "Reason"], reasons, [0.13, 0.13, 0.74])
        if reasons
        else Paragraph("No disposition rule fired.", "muted")
    )

    blocks += [Heading("The Four Assurance Questions", 1), Heading("Reach: what can it do?", 2)]
    blocks.append(
        KeyValues(
            rows=[
                ("Declared", f"{reach['declared']['status']} ({reach['declared'].get('source') or 'no declaration'})"),
                ("Code-capable", f"{reach['codeCapable']['status']} ({len(reach['codeCapable']['actions'])} actions)"),
                ("Unresolved", f"{reach['unresolved']['status']} ({len(reach['unresolved']['items'])} items)"),
            ]
        )
    )
    actions = [
        [
            a["actionClass"],
            a["impact"],
            a["target"],
            _where(a["location"]),
            ", ".join(a["tools"]) or "-",
            ", ".join(a["gates"]) or "none",
        ]
        for a in reach["codeCapable"]["actions"]
    ]
    blocks.append(
        _table(["Class", "Impact", "Target", "Where", "Tools", "Gates"], actions, [0.14, 0.09, 0.25, 0.2, 0.16, 0.16])
    )
    if reach["differences"]:
        diffs = [
            [d["kind"], d.get("actionClass") or "-", ", ".join(d["tools"]) or "-", _where(d.get("location"))]
            for d in reach["differences"]
        ]
        blocks += [Heading("Declared vs code-capable", 3), _table(["Difference", "Class", "Tools", "Where"], diffs)]
    if reach["unresolved"]["items"]:
        blocks += [
            Heading("Unresolved reach", 3),
            _table(
                ["Kind", "Where", "Detail"],
                [
                    [u["kind"], _where(u.get("location")) or (u.get("path") or ""), u["detail"]]
                    for u in reach["unresolved"]["items"]
                ],
                [0.2, 0.25, 0.55],
            ),
        ]

    blocks.append(Heading("Authority: who authorized it?", 2))
    planes = ["REQUESTED", "POLICY_AUTHORIZED", "EFFECTIVELY_GRANTED", "CODE_CAPABLE", "OBSERVED"]
    summary_rows = [
        [p, ", ".join(f"{k} {v}" for k, v in authority["summary"].get(p, {}).items()) or "-"] for p in planes
    ]
    blocks.append(_table(["Plane", "Actions by status"], summary_rows, [0.3, 0.7]))
    plane_rows = [
        [
            f"{a['actionClass']} {_where(a['location'])}",
            *(a["planes"][p] for p in planes),
            ", ".join(g["kind"] for g in a["context"]["gates"]) or "none",
        ]
        for a in authority["actions"]
    ]
    blocks.append(
        _table(
            ["Action", "Requested", "Policy", "Granted", "Code", "Observed", "Gates"],
            plane_rows,
            [0.2, 0.13, 0.13, 0.14, 0.13, 0.14, 0.13],
        )
    )

    blocks += [
        Heading("Observed: what was it seen doing?", 2),
        Paragraph(f"Status: {observed['status']}. {observed.get('note', '')}"),
    ]
    blocks.append(Heading("Proof boundary: what is still unproven?", 2))
    items = r.get("verificationItems", [])
    rows = [[i.get("severity", ""), i["whatHaiecFound"], i["verificationNeeded"]] for i in items]
    blocks.append(
        _table(["Severity", "What was found", "Verification needed"], rows, [0.1, 0.42, 0.48])
        if rows
        else Paragraph("No open verification items.", "muted")
    )
    if boundary["unresolved"]:
        blocks.append(
            Paragraph(f"{len(boundary['unresolved'])} unresolved frontier item(s), listed under Reach.", "muted")
        )

    snapshot = r["evaluationScenarioSnapshot"]
    blocks += [
        Heading("Scenario snapshot", 1),
        Paragraph(f"Status: {snapshot['status']}. Declared order only, never timestamps."),
    ]
    for scenario in snapshot.get("scenarios", []):
        blocks.append(
            Paragraph(
                f"{scenario['scenarioId']}: {' → '.join(scenario['states'])} ({scenario['status']}; "
                f"earliest divergence: {scenario.get('earliestDivergence') or 'none established'})"
            )
        )
    blocks.append(Bullets(items=list(snapshot.get("limitations", []))))

    omitted = r.get("omitted") or {}
    if omitted:
        blocks += [
            Heading("Left out by the report's bounds", 2),
            Table(columns=["List", "Omitted"], rows=[[k, str(v)] for k, v in omitted.items()], widths=[0.8, 0.2]),
        ]
    limitations, hidden = r["limitations"][:PRESENTATION_ROWS], max(0, len(r["limitations"]) - PRESENTATION_ROWS)
    blocks += [
        Heading("Limitations", 1),
        Bullets(items=limitations, omitted=hidden),
        Heading("What this report means", 2),
        Bullets(items=list(r["semantics"])),
    ]
    return Document(
        title="Master Assurance Report",
        subtitle=f"AI System {r.get('aiSystemId') or '-'} · Evaluation {r['evaluationId']} · {disposition}",
        footer=f"Assay · Evaluation {r['evaluationId']} · coreTruthDigest {r['coreTruthDigest']}",
        blocks=blocks,
    )

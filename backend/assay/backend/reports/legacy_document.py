"""The legacy Assurance Evidence Report as three genuinely different documents, one per profile:
executive (a page or two), technical (findings with locations), auditor (membership, digests,
methodology)."""

from __future__ import annotations

from typing import Any

from assay.backend.reports.document import Block, Bullets, Callout, Document, Heading, KeyValues, Paragraph, Table, cut
from assay.backend.reports.identity import dirty_words
from assay.backend.reports.legacy import Profile

ROWS = 60


def _by_rule(reasons: list[dict[str, Any]]) -> list[str]:
    """One line per rule: how many reasons it gave and the first of them (never the same reason five times)."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for reason in reasons:
        groups.setdefault(reason["ruleId"], []).append(reason)
    rank = {"BLOCK": 0, "REVIEW": 1}
    ordered = sorted(groups.items(), key=lambda g: (rank.get(g[1][0]["disposition"], 2), g[0]))
    return [
        f"{rule} ({group[0]['disposition']}, {len(group)}): {group[0]['message']}"
        + (f" (and {len(group) - 1} more like it)" if len(group) > 1 else "")
        for rule, group in ordered
    ]


def _identity(identity: dict[str, Any] | None) -> list[Block]:
    if not identity:
        return []
    commit = identity.get("commit") or "unknown"
    return [
        KeyValues(
            rows=[
                ("AI System", f"{identity.get('systemName') or '-'} ({identity.get('aiSystemId') or '-'})"),
                ("Repository", identity.get("repository") or "local workspace (no git remote)"),
                ("Commit", f"{commit} on branch {identity['branch']}" if identity.get("branch") else commit),
                ("Workspace", dirty_words(identity.get("dirty", "unknown"))),
                ("Workspace digest", identity.get("workspaceDigest") or "-"),
                ("Evaluated", identity.get("evaluatedAt") or "-"),
                ("Signing key", identity.get("signingKeyId") or "-"),
            ]
        )
    ]


def evidence_document(report: dict[str, Any], profile: Profile, identity: dict[str, Any] | None = None) -> Document:
    """``identity`` (reports/identity.py) names what was assessed and when, on page one and in the footer."""
    r = report["report"]
    evaluation_id = report["evaluationId"]
    disposition = r["disposition"]
    blocks: list[Block] = [
        Paragraph("Secondary to the Master Assurance Report, kept for backwards compatibility.", "muted"),
        Callout(kind=disposition, title=f"Disposition: {disposition}", text=f"Methodology {r['methodologyVersion']}."),
        *_identity(identity),
    ]
    if profile == "executive":
        lines = _by_rule(r["reasons"])
        blocks += [
            Heading("In short: the reasons by rule", 1),
            Bullets(
                items=lines[:5] or ["No disposition rule fired."],
                omitted=max(0, len(lines) - 5),
                noun="rules",
                rest="The technical profile lists every reason.",
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
                kinds=["badge", "mono", "path", "text"],
                noun="findings",
                rest="The JSON report (GET .../report) has them all.",
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
    name = (identity or {}).get("systemName") or "-"
    dirty = " · DIRTY WORKSPACE" if (identity or {}).get("dirty") is True else ""
    when = (identity or {}).get("evaluatedAt")
    return Document(
        title=f"Assurance Evidence Report ({profile})",
        subtitle=f"{name} · Evaluation {evaluation_id} · {disposition}{dirty}"
        + (f" · evaluated {when}" if when else ""),
        footer=f"{name} · {disposition}{dirty} · Evaluation {evaluation_id} · evidence report, profile {profile}",
        blocks=blocks,
        created=when,
    )

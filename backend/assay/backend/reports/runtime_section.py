"""The Master Report's runtime section, rendered (HTML and PDF): what the runtime engine probed, what
the server serves, what the probe pack's rules found, and what changed since the pinned catalogue."""

from __future__ import annotations

from typing import Any

from assay.backend.reports.document import Block, Bullets, Heading, KeyValues, Paragraph, Table

ROWS = 25


def runtime_blocks(runtime: dict[str, Any] | None) -> list[Block]:
    if not runtime:
        return []
    pack = runtime["probePack"]
    blocks: list[Block] = [
        Heading("Runtime probe", 1),
        Paragraph(
            f"Probe pack {pack['id']} {pack['version']} ({pack['digest']}). The findings below are computed from "
            "the recorded session only; listed tools were not called, so observed actions stay EVIDENCE_NEEDED."
        ),
    ]
    for recording in runtime["recordings"]:
        server = recording["server"]
        counts = recording["counts"]
        drift = recording["drift"]
        blocks += [
            Heading(f"Target {recording['target']['address']}", 2),
            KeyValues(
                rows=[
                    ("Kind", recording["target"]["kind"]),
                    (
                        "Server",
                        f"{server.get('name') or '-'} {server.get('version') or ''} (protocol {server.get('protocolVersion') or '-'})",
                    ),
                    ("Suites", ", ".join(recording["suites"])),
                    ("Catalogue", ", ".join(f"{v} {k}(s)" for k, v in counts.items())),
                    ("Catalogue digest", recording["catalogueDigest"]),
                    ("Recording", recording["evidenceId"]),
                    ("Drift", "no earlier catalogue pinned" if drift is None else f"against {drift['pinnedBy']}"),
                ]
            ),
        ]
        hits = recording["poisoning"]
        if hits:
            blocks.append(
                Table(
                    columns=["Rule", "Entity", "Field", "Excerpt"],
                    rows=[[h["ruleId"], f"{h['kind']} {h['name']}", h["field"], h["excerpt"]] for h in hits[:ROWS]],
                    omitted=max(0, recording.get("poisoningCount", len(hits)) - min(ROWS, len(hits))),
                    widths=[0.15, 0.2, 0.25, 0.4],
                    kinds=["mono", "text", "mono", "mono"],
                    noun="rule hits",
                    rest="The JSON report (?detail=full) has them all.",
                )
            )
        else:
            blocks.append(Paragraph("No poisoning, shadowing or exfiltration rule fired.", "muted"))
        if drift is not None:
            changes = [f"{c['kind']} {c['name']}: {', '.join(c['changed'])} changed" for c in drift["changed"]]
            changes += [f"{e['kind']} {e['name']}: added" for e in drift["added"]]
            changes += [f"{e['kind']} {e['name']}: removed" for e in drift["removed"]]
            blocks.append(Bullets(items=changes or ["No change since the pinned catalogue."]))
        for finding in recording["annotations"][:ROWS]:
            classes = f" (code reaches {', '.join(finding['classes'])})" if finding["classes"] else ""
            blocks.append(Paragraph(f"{finding['ruleId']}: tool {finding['name']}{classes}."))
    return blocks

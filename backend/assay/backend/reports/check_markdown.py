"""Markdown of an ``assay check`` result: a pull-request comment or a GitHub job summary
(``$GITHUB_STEP_SUMMARY``). Bounded: the first reasons of each disposition and the first verification items,
with how many more there are and where to read them (the JSON result, or the SARIF log's alerts)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from assay.backend.reports.document import one_line

MAX_REASONS = 10
MAX_ITEMS = 10
_ICON = {"BLOCK": "⛔", "REVIEW": "⚠️", "ALLOW": "✅"}


def _cell(text: Any) -> str:
    # A table cell holds one line (a quoted snippet too, cut at a token boundary) and no unescaped pipe.
    return one_line(str(text)).replace("|", "\\|").strip()


def _where(reason: Mapping[str, Any], prefix: str) -> str:
    locations = reason.get("locations") or []
    if not locations:
        return "—"
    loc = locations[0]
    path = f"{prefix.strip('/')}/{loc['path']}" if prefix.strip("/") not in ("", ".") else str(loc["path"])
    return f"`{path}:{loc['line']}`" if loc.get("line") else f"`{path}`"


def check_markdown(result: Mapping[str, Any], *, path_prefix: str = "") -> str:
    """The Markdown of one check result."""
    disposition = str(result.get("disposition"))
    reasons = list(result.get("reasons") or [])
    items = list(result.get("verificationItems") or [])
    gate = result.get("gate") or {}
    lines = [f"## {_ICON.get(disposition, '')} Assay: {disposition}".replace("  ", " "), ""]
    target = (result.get("target") or {}).get("path")
    lines.append(
        f"`{target}` · evaluation `{result.get('evaluationId')}` · {result.get('methodologyVersion')} · "
        f"{len(reasons)} reason(s), {len(items)} verification item(s)"
    )
    if gate:
        verdict = "fails" if gate.get("failed") else "passes"
        against = f", {gate.get('newReasons', 0)} new since the baseline" if gate.get("baseline") else ""
        lines.append(f"Gate `--fail-on {gate.get('failOn')}`: **{verdict}**{against}.")
    lines.append("")
    for group in ("BLOCK", "REVIEW"):
        of_group = [r for r in reasons if r.get("disposition") == group]
        if not of_group:
            continue
        lines += [f"### {group} ({len(of_group)})", "", "| Rule | Where | Reason |", "|---|---|---|"]
        for reason in of_group[:MAX_REASONS]:
            new = " 🆕" if reason.get("baselineState") == "new" else ""
            lines.append(
                f"| `{_cell(reason.get('ruleId'))}`{new} | {_where(reason, path_prefix)} | {_cell(reason.get('message'))} |"
            )
        if len(of_group) > MAX_REASONS:
            lines.append(f"\n…and {len(of_group) - MAX_REASONS} more {group} reason(s) in the JSON or SARIF output.")
        lines.append("")
    if items:
        lines += [f"### Verification needed ({len(items)})", ""]
        for item in items[:MAX_ITEMS]:
            lines.append(f"- **`{_cell(item.get('id'))}`** {_cell(item.get('verificationNeeded'))}")
        if len(items) > MAX_ITEMS:
            lines.append(f"- …and {len(items) - MAX_ITEMS} more in the JSON output (`--format json`).")
        lines.append("")
    limitations = list(result.get("limitations") or [])
    if limitations:
        lines += ["<details><summary>Limitations</summary>", ""]
        lines += [f"- {_cell(text)}" for text in limitations]
        lines += ["", "</details>", ""]
    return "\n".join(lines)

"""Markdown of an ``assay check`` result: a pull-request comment or a GitHub job summary
(``$GITHUB_STEP_SUMMARY``). It carries every reason and every verification item; what shows unfolded is
bounded: the first reasons of each rule (heaviest rule first, as the result orders them) and the first
verification items, the rest folded under a count."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import groupby
from typing import Any

from assay.backend.reports.document import one_line

# Unfolded: the first reasons of each rule and the first verification items; the rest is folded.
MAX_PER_RULE = 3
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


def _table(reasons: list[Mapping[str, Any]], prefix: str) -> list[str]:
    lines = ["| Rule | Where | Reason |", "|---|---|---|"]
    for reason in reasons:
        new = " 🆕" if reason.get("baselineState") == "new" else ""
        lines.append(
            f"| `{_cell(reason.get('ruleId'))}`{new} | {_where(reason, prefix)} | {_cell(reason.get('message'))} |"
        )
    return lines


def _item(item: Mapping[str, Any]) -> str:
    return f"- **`{_cell(item.get('id'))}`** {_cell(item.get('verificationNeeded'))}"


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
    excluded = (result.get("target") or {}).get("excluded")
    if excluded:
        patterns = ", ".join(f"`{_cell(p)}`" for p in excluded["patterns"])
        lines.append(f"Left out by the exclude patterns {patterns}: {len(excluded['paths'])} path(s), not analysed.")
    if gate:
        verdict = "fails" if gate.get("failed") else "passes"
        against = f", {gate.get('newReasons', 0)} new since the baseline" if gate.get("baseline") else ""
        lines.append(f"Gate `--fail-on {gate.get('failOn')}`: **{verdict}**{against}.")
    lines.append("")
    for group in ("BLOCK", "REVIEW"):
        of_group = [r for r in reasons if r.get("disposition") == group]
        if not of_group:
            continue
        shown: list[Mapping[str, Any]] = []
        folded: list[Mapping[str, Any]] = []
        for _, of_rule in groupby(of_group, key=lambda r: str(r.get("ruleId"))):
            listed = list(of_rule)
            shown += listed[:MAX_PER_RULE]
            folded += listed[MAX_PER_RULE:]
        lines += [f"### {group} ({len(of_group)})", "", *_table(shown, path_prefix), ""]
        if folded:
            lines += [f"<details><summary>{len(folded)} more {group} reason(s)</summary>", ""]
            lines += [*_table(folded, path_prefix), "", "</details>", ""]
    if items:
        lines += [f"### Verification needed ({len(items)})", ""]
        lines += [_item(item) for item in items[:MAX_ITEMS]]
        lines.append("")
        if len(items) > MAX_ITEMS:
            lines += [f"<details><summary>{len(items) - MAX_ITEMS} more verification item(s)</summary>", ""]
            lines += [_item(item) for item in items[MAX_ITEMS:]]
            lines += ["", "</details>", ""]
    limitations = list(result.get("limitations") or [])
    if limitations:
        lines += ["<details><summary>Limitations</summary>", ""]
        lines += [f"- {_cell(text)}" for text in limitations]
        lines += ["", "</details>", ""]
    return "\n".join(lines)

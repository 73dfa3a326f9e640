"""The text view of an ``assay check`` result: disposition, reasons grouped by disposition, verification
items, and the gate. Bounded: each rule shows its first reasons and each list ends in a count and where to
read it whole, so hundreds of one rule's reasons (REVIEW-001 on a large tree) never hide another rule's.
Reasons come in the result's order: by disposition impact, BLOCK first (check_result.IMPACT_ORDER)."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import groupby
from typing import Any

from assay.backend.reports.document import one_line

# The first reasons of each rule, and the first verification items; the rest is counted.
MAX_PER_RULE = 5
MAX_ITEMS = 10
_EVERY_ONE = "--format json, sarif or markdown lists every one"


def _where(reason: Mapping[str, Any], prefix: str) -> str:
    locations = reason.get("locations") or []
    if not locations:
        return "-"
    loc = locations[0]
    path = f"{prefix.strip('/')}/{loc['path']}" if prefix.strip("/") not in ("", ".") else str(loc["path"])
    return f"{path}:{loc['line']}" if loc.get("line") else path


def _reason_lines(reasons: list[Mapping[str, Any]], path_prefix: str) -> list[str]:
    lines: list[str] = []
    for rule, of_rule in groupby(reasons, key=lambda r: str(r.get("ruleId"))):
        listed = list(of_rule)
        for reason in listed[:MAX_PER_RULE]:
            new = " [new]" if reason.get("baselineState") == "new" else ""
            message = one_line(str(reason.get("message")))  # a quoted snippet: one line, cut at a token boundary
            lines.append(f"  {rule:<10}{new} {_where(reason, path_prefix)}  {message}")
        if len(listed) > MAX_PER_RULE:
            lines.append(f"  ... and {len(listed) - MAX_PER_RULE} more {rule} ({_EVERY_ONE})")
    return lines


def check_text(result: Mapping[str, Any], *, path_prefix: str = "") -> str:
    """The person's view of one check result."""
    reasons = list(result.get("reasons") or [])
    items = list(result.get("verificationItems") or [])
    target = (result.get("target") or {}).get("path")
    lines = [
        f"{target}: {result.get('disposition')}",
        f"  evaluation {result.get('evaluationId')} ({result.get('methodologyVersion')}, {result.get('mode')}), "
        f"run {result.get('runId')}, AI System {result.get('aiSystemId')}",
    ]
    excluded = (result.get("target") or {}).get("excluded")
    if excluded:
        lines.append(
            f"  left out: {len(excluded['paths'])} path(s) matching the exclude patterns "
            f"{', '.join(excluded['patterns'])} (not analysed)"
        )
    for group in ("BLOCK", "REVIEW"):
        of_group = [r for r in reasons if r.get("disposition") == group]
        if of_group:
            lines += ["", f"{group} ({len(of_group)}):", *_reason_lines(of_group, path_prefix)]
    if items:
        lines += ["", f"Verification needed ({len(items)}):"]
        for item in items[:MAX_ITEMS]:
            lines.append(f"  [{item.get('id')}] {one_line(str(item.get('verificationNeeded')))}")
        if len(items) > MAX_ITEMS:
            lines.append(f"  ... and {len(items) - MAX_ITEMS} more ({_EVERY_ONE})")
    gate = result.get("gate")
    if gate:
        verdict = "FAILED" if gate.get("failed") else "passed"
        against = f"; {gate.get('newReasons', 0)} reason(s) new since the baseline" if gate.get("baseline") else ""
        lines += ["", f"Gate --fail-on {gate.get('failOn')}: {verdict} (exit {gate.get('exitCode')}){against}"]
    return "\n".join(lines) + "\n"

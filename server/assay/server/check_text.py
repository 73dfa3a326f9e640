"""The text view of an ``assay check`` result: disposition, reasons grouped by disposition, verification
items, and the gate. Bounded: a large tree's hundreds of reasons end in a count and where to read them all."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from assay.backend.reports.document import one_line

MAX_REASONS = 20
MAX_ITEMS = 10


def _where(reason: Mapping[str, Any], prefix: str) -> str:
    locations = reason.get("locations") or []
    if not locations:
        return "-"
    loc = locations[0]
    path = f"{prefix.strip('/')}/{loc['path']}" if prefix.strip("/") not in ("", ".") else str(loc["path"])
    return f"{path}:{loc['line']}" if loc.get("line") else path


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
    for group in ("BLOCK", "REVIEW"):
        of_group = [r for r in reasons if r.get("disposition") == group]
        if not of_group:
            continue
        lines += ["", f"{group} ({len(of_group)}):"]
        for reason in of_group[:MAX_REASONS]:
            new = " [new]" if reason.get("baselineState") == "new" else ""
            message = one_line(str(reason.get("message")))  # a quoted snippet: one line, cut at a token boundary
            lines.append(f"  {reason.get('ruleId'):<10}{new} {_where(reason, path_prefix)}  {message}")
        if len(of_group) > MAX_REASONS:
            lines.append(f"  ... and {len(of_group) - MAX_REASONS} more (--format json or sarif lists every one)")
    if items:
        lines += ["", f"Verification needed ({len(items)}):"]
        for item in items[:MAX_ITEMS]:
            lines.append(f"  [{item.get('id')}] {one_line(str(item.get('verificationNeeded')))}")
        if len(items) > MAX_ITEMS:
            lines.append(f"  ... and {len(items) - MAX_ITEMS} more (--format json lists every one)")
    gate = result.get("gate")
    if gate:
        verdict = "FAILED" if gate.get("failed") else "passed"
        against = f"; {gate.get('newReasons', 0)} reason(s) new since the baseline" if gate.get("baseline") else ""
        lines += ["", f"Gate --fail-on {gate.get('failOn')}: {verdict} (exit {gate.get('exitCode')}){against}"]
    return "\n".join(lines) + "\n"

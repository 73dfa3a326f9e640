"""The result of ``assay check``: one Evaluation's disposition, every reason with where it points in the code
(heaviest first, IMPACT_ORDER), and every verification item, as one JSON document (``assay-check/1``) that the text, SARIF and Markdown views
are rendered from and that a later check reads back as its baseline.

Everything here is read from the service's own answers (summary, agent audit, the reasons of the
Evaluation) and the Evidence Bundle the Evaluation was made from; nothing is decided again. A reason's
``fingerprint`` names it without line numbers (rule, message with ``path:line`` reduced to ``path``, and its
rank among equal ones), so moving code does not make it new; that is what a baseline compares.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from assay.backend.evaluation.fingerprint import fingerprints as fingerprints
from assay.backend.evaluation.fingerprint import line_free as line_free

SCHEMA_VERSION = "assay-check/1"
DISPOSITIONS = ("ALLOW", "REVIEW", "BLOCK")
_RANK = {"ALLOW": 0, "REVIEW": 1, "BLOCK": 2}
# How much a rule's reasons weigh on the disposition, heaviest first: every view of a check result lists
# reasons in this order (then in the Evaluation's own), so reasons about high-impact actions come before
# what analysis could not see (REVIEW-001), however many of those there are. Unknown rules go last.
IMPACT_ORDER = (
    "BLOCK-001",  # model-chosen data reaches execution
    "BLOCK-002",  # an ungated, undeclared high-impact action
    "BLOCK-003",  # a high-impact class seen performed outside the declaration
    "REVIEW-003",  # a high-impact action without established authority
    "REVIEW-008",  # a critical or high impact action no recognised tool reaches
    "REVIEW-009",  # a tool seen called that the code does not define
    "REVIEW-002",  # an action the declaration does not cover
    "REVIEW-010",  # an imported scanner error on reachable code
    "REVIEW-006",  # no declaration
    "REVIEW-005",  # partial coverage
    "REVIEW-007",  # no AI code recognised
    "REVIEW-004",  # a jurisdiction not assessed
    "REVIEW-001",  # unresolved reach
    "REVIEW-013",  # reasons accepted as known risks
)


def _location(value: Any) -> dict[str, Any] | None:
    if not isinstance(value, Mapping) or not isinstance(value.get("path"), str):
        return None
    loc: dict[str, Any] = {"path": value["path"]}
    for key in ("line", "column", "endLine"):
        if isinstance(value.get(key), int) and value[key] > 0:
            loc[key] = value[key]
    return loc


def bundle_locations(bundle: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Where each element of an Evidence Bundle is, by its id (the part of an evidenceRef after ``#``)."""
    out: dict[str, list[dict[str, Any]]] = {}

    def put(item_id: Any, *locations: Any) -> None:
        found = [loc for loc in (_location(v) for v in locations) if loc is not None]
        if isinstance(item_id, str) and found:
            out[item_id] = found

    for member in ("models", "tools", "actions", "gates"):
        for item in bundle.get(member) or []:
            put(item.get("id"), item.get("location"))
    for flow in bundle.get("taintFlows") or []:
        put(flow.get("id"), flow.get("sink"), flow.get("source"))
    for finding in bundle.get("findings") or []:
        put(finding.get("id"), *(finding.get("locations") or []))
    for item in bundle.get("frontier") or []:
        put(item.get("id"), item.get("location") or ({"path": item["path"]} if item.get("path") else None))
    # Reasons about the whole tree point at what they are about.
    declaration = bundle.get("declaration") or {}
    put("declaration", {"path": declaration.get("path") or "assay.toml", "line": 1})
    coverage = bundle.get("coverage") or {}
    skipped = [s.get("path") for s in coverage.get("skippedFiles") or [] if isinstance(s, Mapping)]
    put("coverage", *({"path": p} for p in skipped[:1] if isinstance(p, str)))
    return out


def _element(ref: str) -> str:
    return ref.partition("#")[2] or ref


def reason_locations(reason: Mapping[str, Any], located: Mapping[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """The code locations a reason rests on: those of the bundle elements its evidenceRefs name."""
    out: list[dict[str, Any]] = []
    for ref in reason.get("evidenceRefs") or []:
        for loc in located.get(_element(str(ref)), []):
            if loc not in out:
                out.append(loc)
    return out


def excluded_of(bundle: Mapping[str, Any]) -> dict[str, Any]:
    """What exclude patterns left out of the scan: ``{"excluded": {"patterns", "paths"}}``, or nothing."""
    coverage = bundle.get("coverage") or {}
    patterns = [str(p) for p in coverage.get("excluded") or []]
    if not patterns:
        return {}
    paths = [
        str(s.get("path"))
        for s in coverage.get("skippedFiles") or []
        if isinstance(s, Mapping) and s.get("reason") == "excluded"
    ]
    return {"excluded": {"patterns": patterns, "paths": paths}}


def impact_rank(reason: Mapping[str, Any]) -> tuple[int, int]:
    """Sort key of a reason: its disposition (BLOCK first), then its rule's place in IMPACT_ORDER."""
    rule = str(reason.get("ruleId"))
    disposition = 0 if reason.get("disposition") == "BLOCK" else 1
    return disposition, IMPACT_ORDER.index(rule) if rule in IMPACT_ORDER else len(IMPACT_ORDER)


def _items_of(reason: Mapping[str, Any], items: Iterable[Mapping[str, Any]]) -> list[str]:
    refs = set(reason.get("evidenceRefs") or [])
    return [str(item["id"]) for item in items if refs & set(item.get("evidenceRefs") or []) and "id" in item]


def build_check_result(
    *,
    summary: Mapping[str, Any],
    agent_audit: Mapping[str, Any],
    reasons: Sequence[Mapping[str, Any]],
    bundle: Mapping[str, Any],
    run_id: str,
    target: str,
    mode: str,
    tool_version: str,
) -> dict[str, Any]:
    """The ``assay-check/1`` document of one Evaluation (before any gate is applied)."""
    items = [dict(item) for item in agent_audit.get("verificationItems") or []]
    located = bundle_locations(bundle)
    prints = fingerprints([(str(r.get("ruleId")), str(r.get("message"))) for r in reasons])
    reasons_out = [
        {
            "ruleId": r.get("ruleId"),
            "disposition": r.get("disposition"),
            "message": r.get("message"),
            "fingerprint": fp,
            "locations": reason_locations(r, located),
            "evidenceRefs": list(r.get("evidenceRefs") or []),
            "verificationItemIds": _items_of(r, items),
            # A reason accepted as a known risk (methodology 1.5.0) drives nothing; the gate counts it as REVIEW.
            **({"acceptance": dict(r["acceptance"])} if isinstance(r.get("acceptance"), Mapping) else {}),
        }
        for r, fp in zip(reasons, prints, strict=True)
    ]
    # A stable sort: reasons of one rule keep the Evaluation's order, so their fingerprints' ranks hold.
    out_reasons = sorted(reasons_out, key=impact_rank)
    return {
        "schemaVersion": SCHEMA_VERSION,
        "tool": {"name": "assay", "version": tool_version},
        "mode": mode,
        "target": {"path": target, "contentHash": bundle.get("contentHash"), **excluded_of(bundle)},
        "aiSystemId": summary.get("aiSystemId"),
        "runId": run_id,
        "evaluationId": summary.get("evaluationId"),
        "disposition": summary.get("disposition"),
        "methodologyVersion": summary.get("methodologyVersion"),
        "digests": dict(summary.get("digests") or {}),
        "counts": dict(summary.get("counts") or {}),
        "reasons": out_reasons,
        "verificationItems": items,
        "limitations": list(summary.get("limitations") or []),
    }


class BaselineError(ValueError):
    """A baseline file that is not an ``assay check`` JSON result."""


def baseline_fingerprints(document: Any) -> Counter[str]:
    """The reasons of a stored ``assay check --format json`` result, as a multiset of fingerprints."""
    if not isinstance(document, Mapping) or document.get("schemaVersion") != SCHEMA_VERSION:
        raise BaselineError(f"not an assay check result (schemaVersion {SCHEMA_VERSION!r} expected)")
    reasons = document.get("reasons")
    if not isinstance(reasons, list):
        raise BaselineError("it has no reasons list")
    found: Counter[str] = Counter()
    for reason in reasons:
        if not isinstance(reason, Mapping) or not isinstance(reason.get("fingerprint"), str):
            raise BaselineError("a reason has no fingerprint")
        found[reason["fingerprint"]] += 1
    return found


def apply_gate(result: dict[str, Any], fail_on: str, baseline: Counter[str] | None) -> bool:
    """Mark each reason new or unchanged against ``baseline`` and record the gate; True when it fails.

    ``fail_on`` is ``block``, ``review`` or ``never``. Without a baseline the disposition decides; with one,
    only reasons absent from it count (a BLOCK reason already there does not fail the build again).
    """
    remaining = Counter(baseline) if baseline is not None else None
    for reason in result["reasons"]:
        if remaining is None:
            continue
        if remaining[reason["fingerprint"]] > 0:
            remaining[reason["fingerprint"]] -= 1
            reason["baselineState"] = "unchanged"
        else:
            reason["baselineState"] = "new"
    threshold = {"block": _RANK["BLOCK"], "review": _RANK["REVIEW"]}.get(fail_on)
    if remaining is None:
        counted = [str(result.get("disposition"))]
    else:
        counted = [
            "REVIEW" if "acceptance" in r else str(r.get("disposition"))
            for r in result["reasons"]
            if r.get("baselineState") == "new"
        ]
    worst = max((_RANK.get(d, 0) for d in counted), default=0)
    failed = threshold is not None and worst >= threshold
    result["gate"] = {
        "failOn": fail_on,
        "baseline": baseline is not None,
        "newReasons": sum(1 for r in result["reasons"] if r.get("baselineState") == "new"),
        "failed": failed,
        "worst": DISPOSITIONS[worst] if counted else "ALLOW",
    }
    return failed

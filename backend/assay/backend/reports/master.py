"""The Master Assurance Report (contract 2.4): a projection of exactly one persisted Evaluation.

Nothing is recomputed: the disposition, questions, snapshot and digests are the payload's, verbatim.
``detail="bounded"`` (the default) keeps every list to ``MAX_ITEMS`` entries and every text to
``MAX_TEXT`` characters, and says in ``omitted`` how many entries each bound left out, so the report
fits an agent's context. ``detail="full"`` adds the complete report projection and the
evaluation-bound supporting read models; any current-state context passed in is marked
``timeBasis: CURRENT_CONTEXT`` / ``truthRole: NON_EVALUATION_CONTEXT`` and touches nothing else.
"""

from __future__ import annotations

import copy
from typing import Any, Literal

from assay.backend.canonical import short_id
from assay.backend.evaluation.agent_audit import build_agent_audit, project_item
from assay.backend.evaluation.methodology import EvaluationPayload
from assay.backend.evaluation.summary import build_summary

SCHEMA_VERSION = "assay.master-report/1.0.0"
REPORT_VERSION = "1.0.0"
PROJECTION_VERSION = "1.0.0"
MAX_ITEMS = 10
MAX_TEXT = 300
# Texts no bound ever cuts: verificationNeeded is the authoritative evidence request, so it is whole in
# every artifact or absent with its item (an omitted count says so).
WHOLE_TEXTS = ("verificationNeeded",)
Detail = Literal["bounded", "full"]

SEMANTICS = [
    "The disposition holds only within the evaluated scope and the available evidence.",
    "Every statement is bound to the frozen Evaluation named by evaluationId (timeBasis EVALUATED_SNAPSHOT).",
    "Unavailable evidence is a limitation, never a pass; UNKNOWN, NOT_ASSESSED and EVIDENCE_NEEDED are passed through verbatim.",
    "verificationNeeded is the only evidence request; nothing beyond it is required.",
    "This report is not a decision receipt and not a passport.",
    "The linked investigation may hold evidence received after this Evaluation; this report never reflects it.",
]

LINK_MEMBERS = ("html", "pdf", "api", "apiPdf", "agentAudit", "passport", "assuranceReport", "assuranceEvidencePdf")
NULLABLE_LINKS = ("evaluation", "decisionReceipt", "systemWorkspace", "investigation")


def _bound(value: Any, path: str, omitted: dict[str, int]) -> Any:
    """Cut lists to MAX_ITEMS and strings to MAX_TEXT, recording what was left out per path."""
    if isinstance(value, list):
        if len(value) > MAX_ITEMS:
            omitted[path] = len(value) - MAX_ITEMS
        return [_bound(v, f"{path}[]", omitted) for v in value[:MAX_ITEMS]]
    if isinstance(value, dict):
        return {k: _bound(v, f"{path}.{k}" if path else k, omitted) for k, v in value.items()}
    if isinstance(value, str) and len(value) > MAX_TEXT and not path.endswith(WHOLE_TEXTS):
        omitted[f"{path}#chars"] = omitted.get(f"{path}#chars", 0) + len(value) - MAX_TEXT
        return value[: MAX_TEXT - 1] + "…"
    return value


def build_master_report(
    evaluation_id: str,
    payload: EvaluationPayload,
    *,
    links: dict[str, str | None],
    detail: Detail = "bounded",
    current_context: list[dict[str, Any]] | None = None,
    identity: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """MasterReportResponse for one persisted Evaluation. Raises ValueError for an unknown detail.

    ``identity`` (what was assessed and when: reports/identity.py) is carried whole, never bounded."""
    if detail not in ("bounded", "full"):
        raise ValueError(f"detail must be 'bounded' or 'full', not {detail!r}")
    data = payload.data
    omitted: dict[str, int] = {}
    four = copy.deepcopy(data["fourQuestions"])
    snapshot = copy.deepcopy(data["evaluationScenarioSnapshot"])
    limitations = list(data["limitations"])
    items = [project_item(i) for i in copy.deepcopy(data["verificationItems"])]
    if detail == "bounded":
        four = _bound(four, "fourQuestions", omitted)
        snapshot = _bound(snapshot, "evaluationScenarioSnapshot", omitted)
        limitations = _bound(limitations, "limitations", omitted)
        items = _bound(items, "verificationItems", omitted)
    report: dict[str, Any] = {
        "schemaVersion": SCHEMA_VERSION,
        "timeBasis": "EVALUATED_SNAPSHOT",
        "evaluationId": evaluation_id,
        "aiSystemId": data.get("aiSystemId"),
        "disposition": data["disposition"],
        "methodologyVersion": data["methodologyVersion"],
        "identity": identity,
        "profile": "BASE",
        "reportId": short_id("mr", evaluation_id, REPORT_VERSION),
        "reportVersion": REPORT_VERSION,
        "projectionVersion": PROJECTION_VERSION,
        "coreTruthDigest": data["coreTruthDigest"],
        "evidenceBundleDigest": data["evidenceBundleDigest"],
        "detail": detail,
        "reasons": _bound(data["reasons"], "reasons", omitted) if detail == "bounded" else data["reasons"],
        "fourQuestions": four,
        "evaluationScenarioSnapshot": snapshot,
        "verificationItems": items,
        "links": {**{m: links.get(m) for m in LINK_MEMBERS}, **{m: links.get(m) for m in NULLABLE_LINKS}},
        "limitations": limitations,
        "semantics": list(SEMANTICS),
        "bounds": {"maxItems": MAX_ITEMS, "maxTextChars": MAX_TEXT} if detail == "bounded" else None,
        "omitted": dict(sorted(omitted.items())),
    }
    if "runtime" in data:
        # Present only when the Evaluation holds a runtime probe recording (docs/runtime.md).
        runtime = copy.deepcopy(data["runtime"])
        report["runtime"] = _bound(runtime, "runtime", omitted) if detail == "bounded" else runtime
    if "riskAcceptances" in data:
        # Present only when the run froze risk acceptances (docs/methodology.md, "Risk acceptances"); never
        # bounded: every accepted risk is shown, as the passport binds every one.
        report["acceptedRisks"] = copy.deepcopy(data["riskAcceptances"])
    if detail == "full":
        report["reportProjection"] = copy.deepcopy(data)
        report["supportingReadModels"] = {
            "summary": build_summary(evaluation_id, payload, links, identity=identity),
            "agentAudit": build_agent_audit(evaluation_id, payload, detail="full")["agentAudit"],
        }
        report["currentContext"] = [
            {**entry, "timeBasis": "CURRENT_CONTEXT", "truthRole": "NON_EVALUATION_CONTEXT"}
            for entry in (current_context or [])
        ]
    return {"evaluationId": evaluation_id, "masterReport": report}

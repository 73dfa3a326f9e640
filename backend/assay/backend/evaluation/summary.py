"""The compact summary of one persisted Evaluation: a projection, never a recomputation."""

from __future__ import annotations

from typing import Any

from assay.backend.evaluation.methodology import EvaluationPayload

TOP_REASONS = 5


def build_summary(
    evaluation_id: str,
    payload: EvaluationPayload,
    links: dict[str, str | None],
    *,
    identity: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """``identity`` (what was assessed and when, reports/identity.py) is carried verbatim when given."""
    data = payload.data
    fq = data["fourQuestions"]
    reach = fq["reach"]
    reasons = data["reasons"]
    summary: dict[str, Any] = {
        "evaluationId": evaluation_id,
        "aiSystemId": data["aiSystemId"],
        "disposition": data["disposition"],
        "methodologyVersion": data["methodologyVersion"],
        "identity": identity,
        "jurisdiction": data["jurisdiction"],
        "digests": {
            "coreTruthDigest": data["coreTruthDigest"],
            "evidenceBundleDigest": data["evidenceBundleDigest"],
            "snapshotDigest": data["evaluationScenarioSnapshot"]["snapshotDigest"],
        },
        "counts": {
            "reach": {
                "declared": reach["declared"]["status"],
                "declaredActions": len(reach["declared"]["actions"]),
                "codeCapable": reach["codeCapable"]["status"],
                "codeCapableActions": len(reach["codeCapable"]["actions"]),
                "tools": len(reach["codeCapable"]["tools"]),
                "unresolved": reach["unresolved"]["status"],
                "unresolvedItems": len(reach["unresolved"]["items"]),
                "differences": len(reach["differences"]),
            },
            "authority": fq["authority"]["summary"],
            "observed": {"status": fq["observed"]["status"], "actions": len(fq["observed"]["actions"])},
            "proofBoundary": {
                "unresolved": len(fq["proofBoundary"]["unresolved"]),
                "verificationItems": len(data["verificationItems"]),
            },
            "reasons": {d: sum(1 for r in reasons if r["disposition"] == d) for d in ("BLOCK", "REVIEW")},
        },
        "topReasons": reasons[:TOP_REASONS],
        "omittedReasons": max(0, len(reasons) - TOP_REASONS),
        "limitations": data["limitations"],
        "links": links,
    }
    if "riskAcceptances" in data:
        # Present only when the run froze risk acceptances (docs/methodology.md, "Risk acceptances").
        accepted = data["riskAcceptances"]["accepted"]
        summary["acceptedRisks"] = {
            "accepted": len(accepted),
            "acceptedBlock": sum(1 for a in accepted if a["disposition"] == "BLOCK"),
            "expired": len(data["riskAcceptances"]["expired"]),
        }
    if "runtime" in data:
        # Present only when the Evaluation holds a runtime probe recording (docs/runtime.md).
        summary["runtime"] = {
            "probePack": data["runtime"]["probePack"],
            "targets": [
                {
                    "target": r["target"],
                    "server": r["server"].get("name"),
                    "counts": r["counts"],
                    "catalogueDigest": r["catalogueDigest"],
                    "ruleHits": r["poisoningCount"],
                    "annotationFindings": len(r["annotations"]),
                    "driftChanges": None
                    if r["drift"] is None
                    else sum(len(r["drift"][k]) for k in ("added", "removed", "changed")),
                }
                for r in data["runtime"]["recordings"]
            ],
        }
    return summary

"""The agent audit (contract 2.5): ordered sections, narrative, authority summary and verification
items, projected verbatim from the persisted Evaluation. Nothing is recomputed or invented: the
verification items are the payload's own, and ``verificationNeeded`` is the only evidence request."""

from __future__ import annotations

from typing import Any

from assay.backend.evaluation.methodology import EvaluationPayload

ITEM_MEMBERS = (
    "whatHaiecFound",
    "whatItEstablishes",
    "whatHaiecDidNotEstablish",
    "whyItMatters",
    "verificationNeeded",
    "affectedQuestionIds",
    "affectedPathIds",
    "evidenceRefs",
    "relationIds",
    "boundary",
)


def build_agent_audit(evaluation_id: str, payload: EvaluationPayload) -> dict[str, Any]:
    data = payload.data
    fq = data["fourQuestions"]
    authority = fq["authority"]
    established: list[str] = []
    unestablished: list[str] = []
    not_assessed: list[str] = []
    for entry in authority["actions"]:
        label = (
            f"{entry['actionClass']} via {entry['target']} ({entry['location']['path']}:{entry['location']['line']})"
        )
        for plane, status in entry["planes"].items():
            line = f"{plane} {status}: {label}"
            if status == "ESTABLISHED":
                established.append(line)
            elif status in ("PARTIAL", "MISSING"):
                unestablished.append(line)
            else:
                not_assessed.append(line)
    if fq["observed"]["status"] != "ESTABLISHED":
        not_assessed.append(f"observed: {fq['observed']['status']}")
    snapshot = data["evaluationScenarioSnapshot"]
    not_assessed.append(f"scenario snapshot: {snapshot['status']}")
    items = [{"id": i["id"], **{m: i[m] for m in ITEM_MEMBERS}} for i in data["verificationItems"]]
    return {
        "evaluationId": evaluation_id,
        "agentAudit": {
            "disposition": data["disposition"],
            "methodologyVersion": data["methodologyVersion"],
            "sections": [
                {
                    "id": "disposition",
                    "title": "Disposition",
                    "disposition": data["disposition"],
                    "reasons": data["reasons"],
                },
                {
                    "id": "reach",
                    "title": "Reach",
                    "declared": fq["reach"]["declared"]["status"],
                    "codeCapable": fq["reach"]["codeCapable"]["status"],
                    "unresolved": fq["reach"]["unresolved"]["status"],
                    "differences": fq["reach"]["differences"],
                },
                {"id": "authority", "title": "Authority", "summary": authority["summary"]},
                {"id": "observed", "title": "Observed", "status": fq["observed"]["status"]},
                {"id": "proofBoundary", "title": "Proof boundary", "unresolved": fq["proofBoundary"]["unresolved"]},
                {"id": "verification", "title": "Verification needed", "count": len(items)},
            ],
            "narrative": {
                "established": established,
                "unestablished": unestablished,
                "notAssessed": not_assessed,
                "evidenceGaps": [i["verificationNeeded"] for i in items],
                "limitations": data["limitations"],
            },
            "authoritySummary": authority["summary"],
            "verificationItems": items,
        },
    }

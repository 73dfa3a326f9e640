"""The passport's in-toto Statement v1: subjects and the Assay passport predicate.

Subjects: the AI System identity, the source commit of each static evidence item (when known) and each
evidence item's content digest. The predicate carries the disposition, methodology, the Four Questions'
headline states, declared and code-capable actions, limitations, a CycloneDX 1.6 AI-BOM of models and
tools, and ``digests``: SHA-256 over the JCS bytes of each named predicate part, which a verifier
recomputes offline.
"""

from __future__ import annotations

import hashlib
from typing import Any

from assay.backend.canonical import digest_json
from assay.backend.evaluation.membership import EvidenceMembership
from assay.backend.evaluation.methodology import EvaluationPayload

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "https://assay.dev/passport/v1"
DIGESTED_PARTS = ("evaluation", "fourQuestions", "actions", "limitations", "aiBom")


def _hex(digest: str) -> str:
    return digest.removeprefix("sha256:")


def _ai_bom(membership: EvidenceMembership) -> dict[str, Any]:
    components: dict[str, dict[str, Any]] = {}
    for _, bundle in membership.bundles():
        for model in bundle.models:
            ref = f"model:{model.provider}:{model.api}"
            components[ref] = {
                "type": "machine-learning-model",
                "bom-ref": ref,
                "name": model.api,
                "properties": [{"name": "assay:provider", "value": model.provider}],
            }
        for tool in bundle.tools:
            ref = f"tool:{tool.name}"
            components[ref] = {
                "type": "application",
                "bom-ref": ref,
                "name": tool.name,
                "description": tool.description or "",
                "properties": [{"name": "assay:framework", "value": tool.framework}],
            }
    return {"bomFormat": "CycloneDX", "specVersion": "1.6", "components": [components[k] for k in sorted(components)]}


def build_statement(
    evaluation_id: str, ai_system_id: str, payload: EvaluationPayload, membership: EvidenceMembership
) -> dict[str, Any]:
    data = payload.data
    fq = data["fourQuestions"]
    subjects = [
        {"name": f"ai-system:{ai_system_id}", "digest": {"sha256": hashlib.sha256(ai_system_id.encode()).hexdigest()}}
    ]
    for item, bundle in membership.bundles():
        subjects.append({"name": f"evidence:{item.evidenceId}", "digest": {"sha256": _hex(item.contentDigest)}})
        if bundle.sourceIdentity.gitCommit:
            subjects.append(
                {
                    "name": f"git-commit:{bundle.sourceIdentity.gitRemote or 'local'}",
                    "digest": {"gitCommit": bundle.sourceIdentity.gitCommit},
                }
            )
    parts: dict[str, Any] = {
        "evaluation": {
            "evaluationId": evaluation_id,
            "aiSystemId": ai_system_id,
            "disposition": data["disposition"],
            "methodologyVersion": data["methodologyVersion"],
            "coreTruthDigest": data["coreTruthDigest"],
            "evidenceBundleDigest": data["evidenceBundleDigest"],
        },
        "fourQuestions": {
            "reach": {
                "declared": fq["reach"]["declared"]["status"],
                "codeCapable": fq["reach"]["codeCapable"]["status"],
                "unresolved": fq["reach"]["unresolved"]["status"],
            },
            "authority": fq["authority"]["summary"],
            "observed": fq["observed"]["status"],
            "proofBoundary": {
                "unresolved": len(fq["proofBoundary"]["unresolved"]),
                "verificationItems": len(data["verificationItems"]),
            },
        },
        "actions": {
            "declared": fq["reach"]["declared"]["actions"],
            "codeCapable": [
                {"actionClass": a["actionClass"], "impact": a["impact"], "target": a["target"], "tools": a["tools"]}
                for a in fq["reach"]["codeCapable"]["actions"]
            ],
        },
        "limitations": data["limitations"],
        "aiBom": _ai_bom(membership),
    }
    predicate = {**parts, "digests": {name: digest_json(parts[name]) for name in DIGESTED_PARTS}}
    return {"_type": STATEMENT_TYPE, "subject": subjects, "predicateType": PREDICATE_TYPE, "predicate": predicate}

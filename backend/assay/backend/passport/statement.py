"""The passport's in-toto Statement v1: subjects and the Assay passport predicate.

Subjects: the AI System identity, each evidence item's content digest, the exact tree each static
evidence item assessed (its workspace digest) and, only when that tree was clean, its git commit: a
passport must never vouch for a commit whose checkout is not what was assessed. The predicate carries the
Evaluation (with its time), the source (repository, commit, branch, dirty state, workspace digest), the
Four Questions' headline states, declared and code-capable actions, limitations, a CycloneDX 1.6 AI-BOM,
and ``digests``: SHA-256 over the JCS bytes of each named predicate part, which a verifier recomputes
offline.
"""

from __future__ import annotations

import hashlib
from typing import Any

from assay.backend.canonical import digest_json
from assay.backend.evaluation.membership import EvidenceMembership
from assay.backend.evaluation.methodology import EvaluationPayload
from assay.backend.passport.ai_bom import build_ai_bom
from assay.backend.reports.identity import combined_dirty, dirty_words, sources_of

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "https://assay.dev/passport/v1"
DIGESTED_PARTS = ("evaluation", "source", "fourQuestions", "actions", "limitations", "aiBom")
# Parts present only for some Evaluations, digested (and verified) whenever present: ``runtime`` binds the
# probe pack (id, version, digest) and each probe recording's digest (docs/runtime.md).
# ``acceptedRisks`` binds the risk acceptances the Evaluation applied and those it found expired
# (docs/methodology.md, "Risk acceptances").
OPTIONAL_DIGESTED_PARTS = ("runtime", "acceptedRisks")


def _hex(digest: str) -> str:
    return digest.removeprefix("sha256:")


def _source_statement(dirty: bool | str) -> str:
    """What the passport vouches for, in words: never a commit whose checkout was not what was assessed."""
    if dirty is True:
        return (
            f"Workspace {dirty_words(True)}. This passport vouches for the tree named by its source-tree "
            "subject (the workspace digest), not for any commit."
        )
    if dirty is False:
        return "The assessed tree is the commit as committed (git-commit subject) and the workspace digest."
    return "The assessed tree is named by its workspace digest; whether it matches a commit is unknown."


def build_statement(
    evaluation_id: str,
    ai_system_id: str,
    payload: EvaluationPayload,
    membership: EvidenceMembership,
    *,
    evaluated_at: str | None = None,
    system_name: str | None = None,
) -> dict[str, Any]:
    """The Statement. ``evaluated_at`` is the Evaluation's own time (reports/identity.py), never the clock."""
    data = payload.data
    fq = data["fourQuestions"]
    subjects = [
        {"name": f"ai-system:{ai_system_id}", "digest": {"sha256": hashlib.sha256(ai_system_id.encode()).hexdigest()}}
    ]
    sources = sources_of(membership)
    by_evidence = {s["evidenceId"]: s for s in sources}
    for item in membership.items:
        subjects.append({"name": f"evidence:{item.evidenceId}", "digest": {"sha256": _hex(item.contentDigest)}})
        source = by_evidence.get(item.evidenceId)
        if source is None:
            continue
        origin = source["repository"] or "local"
        if source["workspaceDigest"]:
            subjects.append({"name": f"source-tree:{origin}", "digest": {"sha256": _hex(source["workspaceDigest"])}})
        if source["commit"] and source["dirty"] is False:
            subjects.append({"name": f"git-commit:{origin}", "digest": {"gitCommit": source["commit"]}})
    dirty = combined_dirty(sources)
    parts: dict[str, Any] = {
        "evaluation": {
            "evaluationId": evaluation_id,
            "aiSystemId": ai_system_id,
            "systemName": system_name,
            "evaluatedAt": evaluated_at,
            "disposition": data["disposition"],
            "methodologyVersion": data["methodologyVersion"],
            "coreTruthDigest": data["coreTruthDigest"],
            "evidenceBundleDigest": data["evidenceBundleDigest"],
        },
        "source": {
            "dirty": dirty,
            "statement": _source_statement(dirty),
            "trees": sources,
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
        "aiBom": build_ai_bom(
            membership,
            evaluation_id=evaluation_id,
            core_truth_digest=data["coreTruthDigest"],
            ai_system_id=ai_system_id,
            system_name=system_name,
            evaluated_at=evaluated_at,
        ),
    }
    if "runtime" in data:
        digests = {i.evidenceId: i.contentDigest for i in membership.items}
        parts["runtime"] = {
            "probePack": data["runtime"]["probePack"],
            "recordings": [
                {
                    "evidenceId": r["evidenceId"],
                    "recordingDigest": digests.get(r["evidenceId"]),
                    "target": r["target"],
                    "catalogueDigest": r["catalogueDigest"],
                }
                for r in data["runtime"]["recordings"]
            ],
        }
    if "riskAcceptances" in data:
        section = data["riskAcceptances"]
        parts["acceptedRisks"] = {
            "evidenceId": section["evidenceId"],
            "accepted": [
                {
                    k: a[k]
                    for k in (
                        "fingerprint",
                        "ruleId",
                        "disposition",
                        "owner",
                        "justification",
                        "expiresOn",
                        "recordedBy",
                    )
                }
                for a in section["accepted"]
            ],
            "expired": [
                {k: a[k] for k in ("fingerprint", "ruleId", "disposition", "owner", "expiresOn")}
                for a in section["expired"]
            ],
        }
    named = [*DIGESTED_PARTS, *(p for p in OPTIONAL_DIGESTED_PARTS if p in parts)]
    predicate = {**parts, "digests": {name: digest_json(parts[name]) for name in named}}
    return {"_type": STATEMENT_TYPE, "subject": subjects, "predicateType": PREDICATE_TYPE, "predicate": predicate}

"""The Assurance Evidence Report (``/report``): the legacy, profile-scoped evidence bundle.

Kept for backwards compatibility and secondary to the Master Report. It lists the Evaluation's frozen
evidence membership with digests and provenance, the static engine's findings and the limitations,
bound to the same persisted Evaluation; it reruns no analysis.
"""

from __future__ import annotations

from typing import Any, Literal

from assay.backend.evaluation.membership import EvidenceMembership
from assay.backend.evaluation.methodology import EvaluationPayload

Profile = Literal["executive", "technical", "auditor"]
PROFILES: tuple[Profile, ...] = ("executive", "technical", "auditor")
REPORT_VERSION = "assay.evidence-report/1.0.0"


def build_evidence_report(
    evaluation_id: str, payload: EvaluationPayload, membership: EvidenceMembership
) -> dict[str, Any]:
    data = payload.data
    evidence = []
    findings = []
    for item, bundle in membership.bundles():
        evidence.append(
            {
                **item.ref(),
                "provenance": {
                    "producer": bundle.producer.model_dump(mode="json"),
                    "sourceIdentity": bundle.sourceIdentity.model_dump(mode="json"),
                    "coverage": {
                        "analysed": bundle.coverage.analysed.count,
                        "skipped": bundle.coverage.skipped.count,
                        "parseErrors": bundle.coverage.parseErrors,
                        "complete": bundle.coverage.complete,
                        "languages": bundle.coverage.languages,
                    },
                },
            }
        )
        for finding in bundle.findings:
            findings.append({**finding.model_dump(mode="json"), "evidenceRef": f"{item.evidenceId}#{finding.id}"})
    return {
        "evaluationId": evaluation_id,
        "report": {
            "reportVersion": REPORT_VERSION,
            "role": "LEGACY_EVIDENCE_BUNDLE",
            "secondaryTo": "masterReport",
            "timeBasis": "EVALUATED_SNAPSHOT",
            "disposition": data["disposition"],
            "methodologyVersion": data["methodologyVersion"],
            "coreTruthDigest": data["coreTruthDigest"],
            "evidenceBundleDigest": data["evidenceBundleDigest"],
            "evidence": evidence,
            "findings": sorted(findings, key=lambda f: (f["ruleId"], f["id"])),
            "reasons": data["reasons"],
            "limitations": data["limitations"],
            "profiles": list(PROFILES),
        },
    }

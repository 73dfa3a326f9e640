"""The jurisdiction's controls of an Evaluation as an OSCAL 1.1.2 assessment-results document.

One result per Evaluation; every applicable control is a finding whose target status is ``satisfied``
(ESTABLISHED) or ``not-satisfied`` (MISSING, EVIDENCE_NEEDED: the reason says which); NOT_APPLICABLE controls
are excluded from the reviewed controls. Each finding's observation carries the requirement details and the
evidence refs. UUIDs are derived from the Evaluation and control ids (uuid5), so the export of one
Evaluation is the same document every time.
"""

from __future__ import annotations

import uuid
from typing import Any

OSCAL_VERSION = "1.1.2"
NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/assay/oscal")
ASSAY_NS = "https://github.com/assay/ns/oscal"


def _uuid(*parts: str) -> str:
    return str(uuid.uuid5(NAMESPACE, "/".join(parts)))


def _control_id(control_id: str) -> str:
    return control_id.lower()


def assessment_results(evaluation_id: str, payload: dict[str, Any], evaluated_at: str) -> dict[str, Any] | None:
    """The OSCAL document, or None when the Evaluation has no assessed jurisdiction."""
    section = (payload["fourQuestions"]["authority"] or {}).get("jurisdiction") or {}
    if section.get("status") != "ASSESSED":
        return None
    framework = section["framework"]
    pack = section["pack"]
    controls = section["controls"]
    reviewed = [c for c in controls if c["status"] != "NOT_APPLICABLE"]
    excluded = [c for c in controls if c["status"] == "NOT_APPLICABLE"]
    observations = []
    findings = []
    for control in reviewed:
        observation = _uuid(evaluation_id, control["id"], "observation")
        details = "; ".join(f"{r['subject']}: {r['status']} ({r['detail']})" for r in control["requirements"]) or "-"
        observations.append(
            {
                "uuid": observation,
                "title": f"{control['id']} requirements",
                "description": details,
                "methods": ["EXAMINE", "TEST"]
                if any(r["kind"] != "answer" for r in control["requirements"])
                else ["INTERVIEW"],
                "collected": evaluated_at,
                **(
                    {
                        "relevant-evidence": [
                            {"href": f"#{ref}", "description": ref} for ref in control["evidenceRefs"][:20]
                        ]
                    }
                    if control["evidenceRefs"]
                    else {}
                ),
            }
        )
        satisfied = control["status"] == "ESTABLISHED"
        status: dict[str, Any] = {"state": "satisfied" if satisfied else "not-satisfied"}
        if not satisfied:
            status["reason"] = (
                "contradicted" if control.get("contradiction") else control["status"].lower().replace("_", "-")
            )
        findings.append(
            {
                "uuid": _uuid(evaluation_id, control["id"], "finding"),
                "title": control["title"],
                "description": f"{control['citation']}: {control['status']}"
                + (f", applies from {control['appliesFrom']}" if control.get("appliesFrom") else ""),
                "props": [{"name": "assay-status", "ns": ASSAY_NS, "value": control["status"]}],
                "target": {
                    "type": "objective-id",
                    "target-id": _control_id(control["id"]),
                    "status": status,
                },
                "related-observations": [{"observation-uuid": observation}],
            }
        )
    selection: dict[str, Any] = {"include-controls": [{"control-id": _control_id(c["id"])} for c in reviewed]}
    if excluded:
        selection["exclude-controls"] = [{"control-id": _control_id(c["id"])} for c in excluded]
    return {
        "assessment-results": {
            "uuid": _uuid(evaluation_id, "assessment-results"),
            "metadata": {
                "title": f"Assay {framework} assessment results, Evaluation {evaluation_id}",
                "last-modified": evaluated_at,
                "version": pack["version"],
                "oscal-version": OSCAL_VERSION,
                "props": [
                    {"name": "law-pack", "ns": ASSAY_NS, "value": pack["id"]},
                    {"name": "law-pack-digest", "ns": ASSAY_NS, "value": pack["digest"]},
                    {"name": "disposition", "ns": ASSAY_NS, "value": payload["disposition"]},
                ],
            },
            "import-ap": {"href": f"#assay-{framework}-assessment-plan"},
            "results": [
                {
                    "uuid": _uuid(evaluation_id, "result"),
                    "title": f"{framework} controls on {section['asOf']}",
                    "description": f"Controls of {pack['id']} decided from the Evaluation's frozen assessment and "
                    "evidence (methodology " + str(payload["methodologyVersion"]) + ").",
                    "start": evaluated_at,
                    "end": evaluated_at,
                    "reviewed-controls": {"control-selections": [selection]},
                    **({"observations": observations} if observations else {}),
                    **({"findings": findings} if findings else {}),
                }
            ],
        }
    }

"""What a framework computes beside its controls: the NYC LL144 bias-audit figures (from the attached
data), the EU AI Act classification and the Annex IV sections pre-filled from the evidence."""

from __future__ import annotations

from typing import Any

from assay.backend.engines.wizard.controls import EvidenceFacts, plain_answers
from assay.backend.engines.wizard.lawpack import Answer, LawPack

# Annex IV's nine sections of technical documentation, and which evidence pre-fills each.
ANNEX_IV = (
    ("1", "General description of the AI system", "inventory"),
    ("2", "Detailed description of the elements of the system and of its development", "inventory"),
    ("3", "Monitoring, functioning and control (human oversight measures)", "gates"),
    ("4", "Appropriateness of the performance metrics", None),
    ("5", "Risk management system (Art. 9)", None),
    ("6", "Relevant changes made over the lifecycle", None),
    ("7", "Harmonised standards or other specifications applied", None),
    ("8", "EU declaration of conformity", None),
    ("9", "Post-market monitoring, including logging (Art. 12, 72)", "runtime"),
)


def framework_figures(
    pack: LawPack, answers: dict[str, Any], data: dict[str, dict[str, Any]], evidence: EvidenceFacts | None
) -> dict[str, Any]:
    values = plain_answers(answers)
    if pack.framework == "nyc_ll144":
        outcomes = data.get("ll144_outcomes")
        return {
            "ll144": None
            if outcomes is None
            else {
                "dataKind": outcomes["kind"],
                "auditDate": values.get("audit_date"),
                "distributionDate": values.get("distribution_date"),
                "independentAuditor": values.get("independent_auditor"),
                "testDataReason": values.get("test_data_reason"),
                "summaryUrl": values.get("summary_url"),
                "rowCount": outcomes["rowCount"],
                "contentDigest": outcomes["contentDigest"],
                **outcomes["figures"],
            }
        }
    if pack.framework == "eu_ai_act":
        return {"classification": eu_classification(values), "annexIV": annex_iv(evidence)}
    return {}


def eu_classification(values: dict[str, Answer]) -> dict[str, Any]:
    """The Act's classification path from the answers; None where an answer it needs is missing."""
    practice = values.get("prohibited_practice")
    annex_i = values.get("annex_i_product")
    area = values.get("annex_iii_area")
    exception = values.get("art6_3_exception")
    profiling = values.get("profiling")
    annex_iii: bool | None
    if area is None:
        annex_iii = None
    elif area == "none":
        annex_iii = False
    elif profiling is True or exception == "none":
        annex_iii = True
    elif exception is None or profiling is None:
        annex_iii = None
    else:
        annex_iii = False
    high = True if annex_i is True or annex_iii is True else (None if None in (annex_i, annex_iii) else False)
    path = [p for p, on in (("annex_i", annex_i is True), (f"annex_iii:{area}", annex_iii is True)) if on]
    transparency = [
        duty
        for duty, question in (
            ("art50_1_interaction", "interacts_with_people"),
            ("art50_2_synthetic_content", "generates_synthetic_content"),
            ("art50_3_emotion_biometric", "emotion_or_biometric"),
            ("art50_4_deep_fake", "deep_fake"),
        )
        if values.get(question) is True
    ]
    return {
        "prohibitedPractice": None if practice is None else practice != "none",
        "prohibitedPracticeAnswer": practice,
        "highRisk": high,
        "highRiskPath": path,
        "article6_3Exception": None if area in (None, "none") else exception,
        "profiling": profiling,
        "transparencyDuties": transparency,
        "generalPurposeModelProvider": values.get("gpai_model_provider"),
        "systemicRisk": values.get("gpai_systemic_risk"),
        "role": values.get("role"),
    }


def annex_iv(evidence: EvidenceFacts | None) -> list[dict[str, Any]]:
    """Annex IV's sections, pre-filled where the evidence speaks (the rest is the provider's to write)."""
    inventory = evidence.inventory if evidence is not None else {}
    sections = []
    for number, title, source in ANNEX_IV:
        content: dict[str, Any] | None = None
        if source == "inventory" and evidence is not None and evidence.static_refs:
            content = {k: inventory.get(k, []) for k in ("models", "tools", "actionClasses")}
        elif source == "gates" and evidence is not None and evidence.static_refs:
            content = {
                "gateKinds": inventory.get("gateKinds", []),
                "ungatedHighImpactActions": [a.text for a in evidence.unapproved_actions[:20]],
            }
        elif source == "runtime" and evidence is not None and evidence.runtime_refs:
            content = {"runtimeEvidence": evidence.runtime_refs[:20]}
        sections.append(
            {
                "section": number,
                "title": title,
                "status": "PREFILLED" if content is not None else "PROVIDER_TO_WRITE",
                "prefilled": content,
            }
        )
    return sections

"""The requested jurisdiction's controls in an Evaluation: decided by the wizard engine's frozen assessment,
checked against the rest of the membership (the code's actions and gates, the runtime records).

Without an assessment of that framework in the membership the controls stay NOT_ASSESSED (REVIEW-004).
With one, every control has a status; unmet or unanswered controls are REVIEW-004, answers the evidence
contradicts REVIEW-011, LL144 impact ratios under the four-fifths reference REVIEW-012: REVIEW, never
BLOCK, on their own. Each open control is a verification item naming the question or data file that
would close it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from assay.backend.engines.wizard.controls import EvidenceFacts, Finding, decide
from assay.backend.engines.wizard.figures import framework_figures
from assay.backend.engines.wizard.lawpack import pack_by_version
from assay.backend.evaluation.boundary import NEW_RUN, NOWHERE, make_item
from assay.backend.evaluation.membership import EvidenceMembership
from assay.backend.evaluation.view import HIGH_IMPACT, EvidenceView

OPEN = ("MISSING", "EVIDENCE_NEEDED")


@dataclass
class JurisdictionAssessment:
    section: dict[str, Any] | None = None
    reasons: list[dict[str, Any]] = field(default_factory=list)
    items: list[dict[str, Any]] = field(default_factory=list)
    limitations: list[str] = field(default_factory=list)


def evidence_facts(view: EvidenceView, membership: EvidenceMembership) -> EvidenceFacts:
    unapproved = []
    for action in sorted(view.actions.values(), key=lambda a: (a.location.path, a.location.line, a.id)):
        if action.actionClass in HIGH_IMPACT and "human_approval" not in view.gate_kinds(action):
            unapproved.append(
                Finding(
                    view.ref(action.id),
                    f"{action.actionClass} via {action.target} at {action.location.path}:{action.location.line}",
                )
            )
    runtime = [f"{e}#records" for e in membership.runtime_evidence_ids()] if view.runtime.present else []
    return EvidenceFacts(
        static_refs=[f"{e}#coverage" for e in view.evidence_ids],
        unapproved_actions=unapproved,
        runtime_refs=runtime,
        probe_refs=[f"{e}#probe" for e, _payload in membership.of_kind("runtime_probe")],
        inventory={
            "models": sorted({f"{m.provider}:{m.model}" if m.model else m.provider for m in view.models.values()}),
            "tools": sorted({t.name for t in view.tools.values()}),
            "actionClasses": sorted({a.actionClass for a in view.actions.values()}),
            "gateKinds": sorted({g.kind for g in view.gates.values()}),
        },
    )


def _reason(rule: str, message: str, refs: list[str]) -> dict[str, Any]:
    return {"ruleId": rule, "disposition": "REVIEW", "message": message, "evidenceRefs": sorted(set(refs))}


def _not_assessed(view: EvidenceView, jurisdiction: str) -> JurisdictionAssessment:
    refs = [f"{e}#jurisdiction" for e in view.evidence_ids]
    return JurisdictionAssessment(
        section={"framework": jurisdiction, "status": "NOT_ASSESSED", "pack": None, "asOf": None, "controls": []},
        reasons=[
            _reason(
                "REVIEW-004",
                f"Jurisdiction {jurisdiction} requested; its controls are NOT_ASSESSED (the run has no "
                f"{jurisdiction} assessment: engines.wizard).",
                refs,
            )
        ],
        items=[
            make_item(
                "jurisdiction_not_assessed",
                "medium",
                jurisdiction,
                found=f"Jurisdiction {jurisdiction} was requested.",
                establishes="Nothing about its controls: they are NOT_ASSESSED.",
                not_established=f"Whether the {jurisdiction} obligations are met.",
                why="A requested jurisdiction's controls must be assessed before the system can be allowed there.",
                needed=f"Create a {jurisdiction} assessment of this AI System (assay assess create, POST "
                "/api/v1/assessments or the MCP tool assay_assessment), answer its questions, then start a NEW run "
                f'with engines.wizard {{"enabled": true, "framework": "{jurisdiction}", "assessmentId": ...}}.',
                questions=["authority", "proofBoundary"],
                paths=[],
                refs=refs,
                relations=[],
                boundary="Jurisdiction controls are NOT_ASSESSED.",
                about=NOWHERE,
            )
        ],
        limitations=[f"Jurisdiction {jurisdiction}: controls NOT_ASSESSED (the run has no {jurisdiction} assessment)."],
    )


def assess(view: EvidenceView, membership: EvidenceMembership, jurisdiction: str | None) -> JurisdictionAssessment:
    """The jurisdiction section, reasons and verification items (nothing without a jurisdiction).
    ValueError when the frozen assessment names a law pack this version does not ship."""
    if jurisdiction is None:
        return JurisdictionAssessment()
    frozen = [(e, p) for e, p in membership.wizard_assessments() if p["framework"] == jurisdiction]
    if not frozen:
        return _not_assessed(view, jurisdiction)
    evidence_id, payload = frozen[0]
    as_of = date.fromisoformat(payload["asOf"])
    pack, ref = pack_by_version(jurisdiction, payload["pack"]["version"], payload["pack"]["digest"], as_of)
    facts = evidence_facts(view, membership)
    controls = decide(pack, payload["answers"], payload["data"], as_of, facts)
    for control in controls:
        control["evidenceRefs"] = [_full(evidence_id, r) for r in control["evidenceRefs"]]
        for requirement in control["requirements"]:
            requirement["evidenceRefs"] = [_full(evidence_id, r) for r in requirement["evidenceRefs"]]
    figures = framework_figures(pack, payload["answers"], payload["data"], facts)
    counts: dict[str, int] = {}
    for control in controls:
        counts[control["status"]] = counts.get(control["status"], 0) + 1
    out = JurisdictionAssessment(
        section={
            "framework": jurisdiction,
            "status": "ASSESSED",
            "pack": ref.model_dump(mode="json"),
            "asOf": as_of.isoformat(),
            "evidenceRef": f"{evidence_id}#assessment",
            "counts": dict(sorted(counts.items())),
            "controls": controls,
            "figures": figures,
        }
    )
    if not ref.inForceOnEvaluationDate:
        out.limitations.append(
            f"Jurisdiction {jurisdiction}: no law pack is in force on {as_of.isoformat()}; the controls are those of "
            f"{ref.id}, in force from {ref.inForceFrom.isoformat()}, assessed for readiness."
        )
    for control in controls:
        if control["status"] in OPEN:
            _open_control(out, jurisdiction, evidence_id, control)
    ll144 = figures.get("ll144")
    if ll144 and ll144["underFourFifths"]:
        _impact_ratios(out, evidence_id, ll144)
    if not view.evidence_ids:
        out.items.append(_source_needed(jurisdiction))
    return out


def _full(evidence_id: str, ref: str) -> str:
    return ref if "#" in ref else f"{evidence_id}#{ref}"


def _closing(control: dict[str, Any]) -> str:
    parts = []
    for subject in control["closedBy"]:
        if subject == "engines.static":
            parts.append("include the system's source in the run (engines.static)")
        elif subject.endswith("_outcomes"):
            parts.append(f"attach the data file `{subject}` (assay assess attach ID --data FILE.csv)")
        else:
            parts.append(f"answer question `{subject}` (assay assess answer ID {subject} VALUE)")
    return "; ".join(parts) or control["howToClose"]


def _open_control(out: JurisdictionAssessment, jurisdiction: str, evidence_id: str, control: dict[str, Any]) -> None:
    unmet = [r for r in control["requirements"] if r["status"] in OPEN]
    detail = "; ".join(f"{r['subject']}: {r['detail']}" for r in unmet[:4])
    when = f", applies from {control['appliesFrom']}" if control["appliesFrom"] else ""
    refs = control["evidenceRefs"] or [f"{evidence_id}#assessment"]
    if control.get("contradiction"):
        contradicted = [r for r in unmet if r["contradiction"]]
        out.reasons.append(
            _reason(
                "REVIEW-011",
                f"{control['id']} ({control['citation']}) is MISSING: the answer is contradicted by the evidence "
                f"({'; '.join(r['detail'] for r in contradicted)}).",
                refs,
            )
        )
    out.reasons.append(
        _reason(
            "REVIEW-004",
            f"{jurisdiction} control {control['id']} ({control['citation']}{when}) is {control['status']}: {detail}.",
            refs,
        )
    )
    contradiction = bool(control.get("contradiction"))
    out.items.append(
        make_item(
            "jurisdiction_control",
            "high" if contradiction else "medium",
            f"{jurisdiction}:{control['id']}",
            found=f"{control['title']} ({control['citation']}) is {control['status']}: {detail}.",
            establishes="The answer given is contradicted by what the evidence shows."
            if contradiction
            else "What the answers and data establish, and what they leave open.",
            not_established=f"That {control['id']} is met.",
            why="A requested jurisdiction's controls must be met, and every answer must hold against the evidence."
            if contradiction
            else "Unanswered is EVIDENCE_NEEDED, never a pass; an unmet obligation is exposure in that jurisdiction.",
            needed=f"{_closing(control)}; then start a NEW run with engines.wizard."
            if not contradiction
            else f"Resolve the contradiction: {control['howToClose']} Either change the system so the evidence agrees "
            f"with the answer, or correct the answer (assay assess answer ID {', '.join(control['closedBy'])} ...); "
            f"{NEW_RUN}",
            questions=["authority", "proofBoundary"],
            paths=[],
            refs=refs,
            relations=[],
            boundary=f"{control['id']} is {control['status']}.",
            about=NOWHERE,
        )
    )


def _impact_ratios(out: JurisdictionAssessment, evidence_id: str, ll144: dict[str, Any]) -> None:
    flagged = ll144["underFourFifths"]
    listed = ", ".join(f"{f['category']} {f['impactRatio']:.3f}" for f in flagged[:6])
    more = f" and {len(flagged) - 6} more" if len(flagged) > 6 else ""
    ref = f"{evidence_id}#data:ll144_outcomes"
    out.reasons.append(
        _reason(
            "REVIEW-012",
            f"NYC LL144: {len(flagged)} impact ratio(s) under the four-fifths reference (0.8, not a legal pass mark): "
            f"{listed}{more}.",
            [ref],
        )
    )
    out.items.append(
        make_item(
            "impact_ratio_review",
            "medium",
            "ll144:impact_ratios",
            found=f"{len(flagged)} impact ratio(s) are under 0.8: {listed}{more}.",
            establishes="The selection or scoring rates of these categories are under four fifths of the highest.",
            not_established="Whether the difference is statistically significant (small samples say little) or "
            "unlawful; LL144 sets no pass mark.",
            why="The four-fifths reference (29 C.F.R. § 1607.4(D)) is the usual first signal of adverse impact.",
            needed="Have the independent auditor review the categories under 0.8 (with their counts and a "
            "significance test where samples are small), record the conclusion in the bias audit summary, and "
            "attach the data of any re-audit to the assessment; then start a NEW run with engines.wizard.",
            questions=["authority", "proofBoundary"],
            paths=[],
            refs=[ref],
            relations=[],
            boundary="Impact ratios are computed; their legal significance is NOT_ASSESSED.",
            about=NOWHERE,
        )
    )


def _source_needed(jurisdiction: str) -> dict[str, Any]:
    return make_item(
        "source_evidence_needed",
        "low",
        jurisdiction,
        found="The run holds the wizard assessment only: no source was analysed.",
        establishes="The jurisdiction's controls as the answers and data decide them.",
        not_established="What the code can do, so no answer could be checked against the code.",
        why="Answers about oversight and logging hold only if the code and traces agree.",
        needed="Bind the system's source repository (assay admin source add) and include engines.static in a NEW "
        "run with the same assessment, so the answers are checked against the code.",
        questions=["reach", "proofBoundary"],
        paths=[],
        refs=[],
        relations=[],
        boundary="codeCapable reach is EVIDENCE_NEEDED.",
        about=NOWHERE,
    )

"""``evaluate``: the versioned methodology. Frozen evidence membership in, Evaluation payload out.

Pure and deterministic: no I/O, no clock, no randomness, no LLM. The payload holds no run or
evaluation id and no timestamp (the service keeps those beside it), so the same membership always gives
byte-identical canonical JSON and digests.

Digests (docs/methodology.md):
- ``evidenceBundleDigest``: the membership digest (sorted evidenceId, kind, contentDigest triples);
- ``coreTruthDigest``: SHA-256 over the JCS bytes of the core truth: methodologyVersion, disposition,
  reasons, fourQuestions, evaluationScenarioSnapshot, limitations and evidenceBundleDigest.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from assay.backend.canonical import canonical_bytes, canonical_bytes_of_plain, canonical_object, digest_bytes
from assay.backend.evaluation import acceptance, boundary, disposition, imported, probes, questions, scenario
from assay.backend.evaluation import jurisdiction as jurisdictions
from assay.backend.evaluation.caps import apply_caps
from assay.backend.evaluation.membership import EvidenceMembership
from assay.backend.evaluation.view import build_view
from assay.backend.scans.bundle import EvidenceBundle

METHODOLOGY_VERSION = "assay-methodology/1.5.0"
JURISDICTIONS = ("nyc_ll144", "colorado_ai", "eu_ai_act")
CORE_MEMBERS = (
    "methodologyVersion",
    "disposition",
    "reasons",
    "fourQuestions",
    "evaluationScenarioSnapshot",
    "limitations",
    "evidenceBundleDigest",
)


@dataclass(frozen=True, slots=True)
class EvaluationPayload:
    """The Evaluation payload as JSON data, with its canonical bytes."""

    data: dict[str, Any]
    # The RFC 8785 bytes of ``data`` when already known (``evaluate`` encodes each member once).
    encoded: bytes | None = field(default=None, repr=False, compare=False)

    @property
    def disposition(self) -> str:
        return str(self.data["disposition"])

    @property
    def methodology_version(self) -> str:
        return str(self.data["methodologyVersion"])

    @property
    def core_truth_digest(self) -> str:
        return str(self.data["coreTruthDigest"])

    @property
    def evidence_bundle_digest(self) -> str:
        return str(self.data["evidenceBundleDigest"])

    def canonical(self) -> bytes:
        return self.encoded if self.encoded is not None else canonical_bytes(self.data)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EvaluationPayload:
        return cls(data=data)


def core_truth(data: dict[str, Any]) -> dict[str, Any]:
    return {member: data[member] for member in CORE_MEMBERS}


def evaluate(
    membership: EvidenceMembership,
    *,
    ai_system_id: str,
    jurisdiction: str | None,
    known_bundles: Mapping[str, EvidenceBundle] | None = None,
) -> EvaluationPayload:
    """Evaluate a frozen membership. Raises ValueError for an empty membership or unknown jurisdiction.

    ``known_bundles`` are static bundles already held as models, by evidence id (a fresh scan's own
    result), so they are not validated again from their JSON; the payload is the same either way."""
    if not membership.items:
        raise ValueError("an Evaluation needs at least one evidence item")
    if jurisdiction is not None and jurisdiction not in JURISDICTIONS:
        raise ValueError(f"unknown jurisdiction {jurisdiction!r}")
    view = build_view(membership, known_bundles)
    view.imported, imported_total = imported.imported_findings(view)
    assessed = jurisdictions.assess(view, membership, jurisdiction)
    items = boundary.verification_items(view, assessed.items) + probes.verification_items(view)
    found = disposition.reasons(view, assessed.reasons)
    # Risk acceptances the run froze mark the reasons they name (and add REVIEW-013), before the decision.
    accepted, acceptance_limitations = acceptance.apply(found, membership)
    found = disposition.ordered(found)
    limitations = set(view.limitations) | probes.limitations(view) | set(acceptance_limitations)
    if not view.probes:
        limitations.add(
            "No runtime evidence: observed actions are EVIDENCE_NEEDED, never reported as not having occurred."
        )
    limitations.add(
        "EFFECTIVELY_GRANTED is EVIDENCE_NEEDED: static analysis cannot see the credentials a deployment wires in."
    )
    if imported_total > len(view.imported):
        limitations.add(
            f"{imported_total - len(view.imported)} of {imported_total} imported SARIF results are not listed: an "
            f"Evaluation holds the first {imported.MAX_IMPORTED} (errors on reachable code first)."
        )
    limitations.update(assessed.limitations)
    data: dict[str, Any] = {
        "methodologyVersion": METHODOLOGY_VERSION,
        "aiSystemId": ai_system_id,
        "jurisdiction": jurisdiction,
        "disposition": disposition.decide(found),
        "reasons": found,
        "evidenceBundleDigest": membership.digest(),
        "membership": [i.ref() for i in membership.items],
        "fourQuestions": {
            "reach": questions.reach(view),
            "authority": questions.authority(view)
            if assessed.section is None
            else {**questions.authority(view), "jurisdiction": assessed.section},
            "observed": questions.observed(view),
            "proofBoundary": boundary.proof_boundary(view, items),
        },
        "evaluationScenarioSnapshot": scenario.scenario_snapshot(view),
        "verificationItems": items,
        "importedFindings": [f.to_json() for f in view.imported],
        "limitations": [],
    }
    runtime = probes.runtime_section(view)
    if runtime is not None:
        # Only with runtime evidence: Evaluations without it keep their exact bytes.
        data["runtime"] = runtime
    if accepted is not None:
        # Only with risk acceptance evidence: Evaluations without it keep their exact bytes.
        data["riskAcceptances"] = accepted
    # Everything above was computed on all of the evidence; now the lists are cut to their caps.
    limitations.update(apply_caps(data))
    data["limitations"] = sorted(limitations)
    # Each member encoded once: the core truth and the whole payload share most of their bytes. The
    # payload is plain by construction (JSON values of validated models under literal keys).
    members = {name: canonical_bytes_of_plain(value) for name, value in data.items()}
    data["coreTruthDigest"] = digest_bytes(canonical_object({name: members[name] for name in CORE_MEMBERS}))
    members["coreTruthDigest"] = canonical_bytes_of_plain(data["coreTruthDigest"])
    return EvaluationPayload(data=data, encoded=canonical_object(members))

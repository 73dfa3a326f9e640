"""Risk acceptances (methodology 1.5.0, docs/methodology.md "Risk acceptances"): a person's decision that a
reason is a known risk, with an owner, a justification and an expiry date.

A run freezes the acceptances of its AI System when it is created (runs/plan.py), split into those still
active on that day and those expired (never the revoked ones), as one ``risk_acceptance`` evidence item:
they are evidence of a decision, so an Evaluation made from the same membership is byte-identical whenever
it is computed again. :func:`apply` then marks the reasons they name:

- a reason whose fingerprint (evaluation/fingerprint.py) has an active acceptance of the same rule stays
  listed, with its own disposition, and carries ``acceptance`` (fingerprint, owner, justification,
  expiresOn, recordedBy); it no longer drives the disposition;
- while any reason is accepted, REVIEW-013 says so: an accepted risk is a decision, not evidence that the
  risk is gone, so the disposition is at least REVIEW (an accepted BLOCK reason makes REVIEW, never ALLOW);
- a reason whose acceptance expired carries ``acceptanceExpired`` and drives the disposition as before, and a
  limitation says the acceptance expired.

Pure: no clock (expiry was judged when the run froze its inputs), no I/O.
"""

from __future__ import annotations

from typing import Any

from assay.backend.canonical import canonical_bytes, sha256_hex
from assay.backend.evaluation.fingerprint import fingerprints
from assay.backend.evaluation.membership import EvidenceItem, EvidenceMembership

RULE = "REVIEW-013"
PRODUCER_ID = "assay-dashboard"
ENTRY_MEMBERS = ("fingerprint", "ruleId", "owner", "justification", "expiresOn", "recordedBy")


def acceptance_item(payload: dict[str, Any]) -> EvidenceItem:
    """The evidence item of a run's frozen acceptances, identified by the digest of its canonical payload."""
    canonical = canonical_bytes(payload)
    digest = f"sha256:{sha256_hex(canonical)}"
    return EvidenceItem(
        evidenceId=f"ev-{sha256_hex(f'risk_acceptance:{digest}'.encode())[:16]}",
        kind="risk_acceptance",
        producerId=PRODUCER_ID,
        contentDigest=digest,
        payloadJson=canonical.decode("utf-8"),
    )


def _frozen(membership: EvidenceMembership) -> tuple[str | None, dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    evidence_id: str | None = None
    active: dict[str, dict[str, Any]] = {}
    expired: dict[str, dict[str, Any]] = {}
    for item_id, payload in membership.of_kind("risk_acceptance"):
        evidence_id = evidence_id or item_id
        for entry in payload.get("active", []):
            active[entry["fingerprint"]] = {k: entry[k] for k in ENTRY_MEMBERS}
        for entry in payload.get("expired", []):
            expired.setdefault(entry["fingerprint"], {k: entry[k] for k in ENTRY_MEMBERS})
    return evidence_id, active, expired


def apply(found: list[dict[str, Any]], membership: EvidenceMembership) -> tuple[dict[str, Any] | None, list[str]]:
    """Mark ``found`` (the Evaluation's reasons, in their order) in place with the run's frozen acceptances;
    append the REVIEW-013 reason when any applies. The ``riskAcceptances`` section of the payload (None
    without acceptance evidence) and the limitations to add."""
    evidence_id, active, expired = _frozen(membership)
    if evidence_id is None:
        return None, []
    prints = fingerprints([(str(r["ruleId"]), str(r["message"])) for r in found])
    accepted: list[dict[str, Any]] = []
    lapsed: list[dict[str, Any]] = []
    limitations: list[str] = []
    matched: set[str] = set()
    for reason, fingerprint in zip(found, prints, strict=True):
        entry = active.get(fingerprint)
        if entry is not None and entry["ruleId"] == reason["ruleId"]:
            matched.add(fingerprint)
            reason["acceptance"] = {k: entry[k] for k in ENTRY_MEMBERS if k != "ruleId"}
            accepted.append({**entry, "disposition": reason["disposition"], "message": reason["message"]})
            continue
        old = expired.get(fingerprint)
        if old is not None and old["ruleId"] == reason["ruleId"]:
            reason["acceptanceExpired"] = {
                "fingerprint": fingerprint,
                "owner": old["owner"],
                "expiresOn": old["expiresOn"],
            }
            lapsed.append({**old, "disposition": reason["disposition"], "message": reason["message"]})
            limitations.append(
                f"The risk acceptance of {reason['ruleId']} reason {fingerprint} (owner {old['owner']}) expired on "
                f"{old['expiresOn']}: it is not applied, and the reason drives the disposition again."
            )
    if accepted:
        blocking = sum(1 for a in accepted if a["disposition"] == "BLOCK")
        found.append(
            {
                "ruleId": RULE,
                "disposition": "REVIEW",
                "message": f"{len(accepted)} reason(s) ({blocking} BLOCK) are accepted as known risks by their "
                "owners until their expiry: an acceptance is a decision, not evidence that the risk is gone.",
                "evidenceRefs": [evidence_id],
            }
        )
    section = {
        "evidenceId": evidence_id,
        "accepted": accepted,
        "expired": lapsed,
        # Active acceptances whose reason this Evaluation does not have (fixed, or changed beyond its fingerprint).
        "notPresent": sorted(set(active) - matched),
    }
    return section, limitations


def is_accepted(reason: dict[str, Any]) -> bool:
    return "acceptance" in reason

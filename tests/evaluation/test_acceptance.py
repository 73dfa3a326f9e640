"""Risk acceptances in the methodology (docs/methodology.md, "Risk acceptances"): frozen acceptances mark
the reasons they name, accepted reasons drive nothing, REVIEW-013 keeps the disposition at least REVIEW, an
expired acceptance is not applied, and the same membership gives the same bytes."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from assay.backend.engines.static.scan import scan_tree
from assay.backend.evaluation.acceptance import acceptance_item
from assay.backend.evaluation.fingerprint import fingerprints
from assay.backend.evaluation.membership import EvidenceItem, make_membership, static_bundle_item
from assay.backend.evaluation.methodology import EvaluationPayload, evaluate
from assay.backend.reports.check_result import apply_gate

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def bundle() -> EvidenceItem:
    return static_bundle_item(scan_tree(EXAMPLES / "ops-agent").to_json_dict())


def _entry(fingerprint: str, rule: str, expires: str = "2027-01-31") -> dict[str, str]:
    return {
        "fingerprint": fingerprint,
        "ruleId": rule,
        "owner": "dana@acme.example",
        "justification": "Sandboxed runner.",
        "expiresOn": expires,
        "recordedBy": "ann@acme.example",
    }


def _run(bundle: EvidenceItem, active: list[dict[str, str]], expired: list[dict[str, str]]) -> EvaluationPayload:
    items = [bundle, acceptance_item({"active": active, "expired": expired})]
    return evaluate(make_membership(items), ai_system_id="sys-test", jurisdiction=None)


def _printed(payload: EvaluationPayload) -> list[tuple[dict[str, Any], str]]:
    reasons = payload.data["reasons"]
    return list(zip(reasons, fingerprints([(r["ruleId"], r["message"]) for r in reasons]), strict=True))


def test_accepting_every_block_reason_makes_review_never_allow(bundle: EvidenceItem) -> None:
    plain = evaluate(make_membership([bundle]), ai_system_id="sys-test", jurisdiction=None)
    assert plain.disposition == "BLOCK" and "riskAcceptances" not in plain.data
    blocking = [(r, fp) for r, fp in _printed(plain) if r["disposition"] == "BLOCK"]
    some = _run(bundle, [_entry(fp, r["ruleId"]) for r, fp in blocking[:1]], [])
    assert some.disposition == "BLOCK"  # other BLOCK reasons still block
    every = _run(bundle, [_entry(fp, r["ruleId"]) for r, fp in _printed(plain)], [])
    assert every.disposition == "REVIEW"  # everything accepted: REVIEW-013 still holds it at REVIEW
    review_013 = [r for r in every.data["reasons"] if r["ruleId"] == "REVIEW-013"]
    assert len(review_013) == 1 and "acceptance" not in review_013[0]
    assert sum("acceptance" in r for r in every.data["reasons"]) == len(plain.data["reasons"])
    # The reasons are the same reasons, in the same order, with the same fingerprints.
    marked = {fp for r, fp in _printed(every) if "acceptance" in r}
    assert marked == {fp for _, fp in _printed(plain)}
    # Deterministic: the same membership, the same bytes.
    again = _run(bundle, [_entry(fp, r["ruleId"]) for r, fp in _printed(plain)], [])
    assert again.canonical() == every.canonical() and again.core_truth_digest == every.core_truth_digest


def test_expired_mismatched_and_absent_acceptances(bundle: EvidenceItem) -> None:
    plain = evaluate(make_membership([bundle]), ai_system_id="sys-test", jurisdiction=None)
    (first, fp1), (_, fp2) = _printed(plain)[:2]
    payload = _run(
        bundle,
        # An acceptance whose rule differs from the reason's is not applied; one whose reason is gone is listed.
        [_entry(fp2, "REVIEW-001"), _entry("f" * 32 + ":1", "BLOCK-002")],
        [_entry(fp1, first["ruleId"], expires="2026-01-01")],
    )
    assert payload.disposition == "BLOCK"
    assert not any("acceptance" in r for r in payload.data["reasons"])
    lapsed = [r for r in payload.data["reasons"] if "acceptanceExpired" in r]
    assert [r["acceptanceExpired"] for r in lapsed] == [
        {"fingerprint": fp1, "owner": "dana@acme.example", "expiresOn": "2026-01-01"}
    ]
    assert any(fp1 in line and "expired on 2026-01-01" in line for line in payload.data["limitations"])
    section = payload.data["riskAcceptances"]
    assert section["accepted"] == [] and [e["fingerprint"] for e in section["expired"]] == [fp1]
    assert section["notPresent"] == sorted([fp2, "f" * 32 + ":1"])


def test_a_ci_gate_counts_a_new_accepted_block_reason_as_review() -> None:
    result: dict[str, Any] = {
        "disposition": "REVIEW",
        "reasons": [
            {"ruleId": "BLOCK-002", "disposition": "BLOCK", "fingerprint": "a:1", "acceptance": {"owner": "d"}},
            {"ruleId": "REVIEW-013", "disposition": "REVIEW", "fingerprint": "b:1"},
        ],
    }
    assert apply_gate(result, "block", Counter()) is False
    assert result["gate"]["worst"] == "REVIEW"
    assert apply_gate(result, "review", Counter()) is True

"""The methodology, rule by rule, each with the example that triggers it (docs/methodology.md)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from assay.backend.canonical import canonical_bytes, digest_bytes, digest_json, reference_canonical_bytes
from assay.backend.engines.static.scan import scan_tree
from assay.backend.evaluation.agent_audit import ITEM_MEMBERS, STRUCTURED_MEMBERS, build_agent_audit
from assay.backend.evaluation.membership import make_membership, static_bundle_item
from assay.backend.evaluation.methodology import METHODOLOGY_VERSION, EvaluationPayload, core_truth, evaluate
from assay.backend.evaluation.summary import build_summary
from assay.backend.scans.bundle import content_hash

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

TOOL_HEADER = (
    "import os, shutil, subprocess\nimport stripe\nfrom langchain_core.tools import tool\nfrom openai import OpenAI\n"
)


def _evaluate(root: Path, jurisdiction: str | None = None) -> EvaluationPayload:
    bundle = scan_tree(root).to_json_dict()
    return evaluate(make_membership([static_bundle_item(bundle)]), ai_system_id="sys-test", jurisdiction=jurisdiction)


def _tree(tmp_path: Path, code: str, declaration: str | None) -> Path:
    root = tmp_path / "system"
    root.mkdir()
    (root / "agent.py").write_text(TOOL_HEADER + code)
    if declaration is not None:
        (root / "assay.toml").write_text(declaration)
    return root


def _rules(payload: EvaluationPayload) -> set[str]:
    return {r["ruleId"] for r in payload.data["reasons"]}


DECLARED_ALL = 'version = "1"\npurpose = "test"\n'


def test_block_001_model_output_reaches_shell(tmp_path: Path) -> None:
    code = (
        '\n@tool\ndef run(cmd: str) -> str:\n    """Run."""\n'
        '    if not request_approval(cmd):\n        return "no"\n'
        "    return subprocess.run(cmd, shell=True).stdout\n"
    )
    declaration = DECLARED_ALL + '[[actions]]\nclass = "shell.exec"\nrequires_approval = true\n'
    payload = _evaluate(_tree(tmp_path, code, declaration))
    # Gated and declared, yet model-chosen text reaches the shell: BLOCK-001 alone decides.
    assert payload.disposition == "BLOCK"
    assert _rules(payload) == {"BLOCK-001"}


def test_block_002_high_impact_undeclared_and_ungated(tmp_path: Path) -> None:
    code = '\n@tool\ndef purge(days: int) -> str:\n    """Purge."""\n    shutil.rmtree("/var/cache/app")\n    return "ok"\n'
    payload = _evaluate(_tree(tmp_path, code, DECLARED_ALL))
    assert payload.disposition == "BLOCK"
    assert "BLOCK-002" in _rules(payload) and "BLOCK-001" not in _rules(payload)


def test_review_001_unresolved_reach() -> None:
    payload = _evaluate(EXAMPLES / "support-agent-ts")
    assert payload.disposition == "REVIEW"
    assert "REVIEW-001" in _rules(payload)


def test_review_002_undeclared_action(tmp_path: Path) -> None:
    code = '\n@tool\ndef fetch(url: str) -> str:\n    """Fetch."""\n    import httpx\n    return httpx.get("https://example.com").text\n'
    payload = _evaluate(_tree(tmp_path, code, DECLARED_ALL))
    assert payload.disposition == "REVIEW"
    assert _rules(payload) == {"REVIEW-002"}


def test_review_003_declared_approval_not_enforced(tmp_path: Path) -> None:
    code = '\n@tool\ndef refund(charge: str) -> str:\n    """Refund."""\n    stripe.Refund.create(charge="ch_fixed")\n    return "ok"\n'
    declaration = DECLARED_ALL + '[[actions]]\nclass = "payment"\nrequires_approval = true\n'
    payload = _evaluate(_tree(tmp_path, code, declaration))
    assert payload.disposition == "REVIEW"
    assert _rules(payload) == {"REVIEW-003"}
    entry = payload.data["fourQuestions"]["authority"]["actions"][0]
    assert entry["planes"]["POLICY_AUTHORIZED"] == "PARTIAL"
    assert entry["context"]["approvalRequired"] is True and entry["context"]["approvalEnforced"] is False


def test_review_004_jurisdiction_not_assessed() -> None:
    payload = _evaluate(EXAMPLES / "research-assistant", jurisdiction="eu_ai_act")
    assert payload.disposition == "REVIEW"
    assert _rules(payload) == {"REVIEW-004"}
    assert payload.data["jurisdiction"] == "eu_ai_act"
    assert any("NOT_ASSESSED" in lim for lim in payload.data["limitations"])


def test_review_005_partial_coverage(tmp_path: Path) -> None:
    root = tmp_path / "ra"
    shutil.copytree(EXAMPLES / "research-assistant", root)
    (root / "research" / "broken.py").write_text("def broken(:\n")
    payload = _evaluate(root)
    assert payload.disposition == "REVIEW"
    assert _rules(payload) == {"REVIEW-005"}
    assert payload.data["fourQuestions"]["reach"]["codeCapable"]["status"] == "PARTIAL"


def test_review_006_no_declaration(tmp_path: Path) -> None:
    root = tmp_path / "ra"
    shutil.copytree(EXAMPLES / "research-assistant", root)
    (root / "assay.toml").unlink()
    payload = _evaluate(root)
    assert payload.disposition == "REVIEW"
    assert _rules(payload) == {"REVIEW-006"}
    assert payload.data["fourQuestions"]["reach"]["declared"]["status"] == "EVIDENCE_NEEDED"


def test_review_007_no_ai_code_is_not_allow(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    (root / "util.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "assay.toml").write_text(DECLARED_ALL)
    payload = _evaluate(root)
    assert payload.disposition == "REVIEW"
    assert _rules(payload) == {"REVIEW-007"}


def test_allow_when_no_rule_fires_with_limitations() -> None:
    payload = _evaluate(EXAMPLES / "research-assistant")
    assert payload.disposition == "ALLOW"
    assert payload.data["reasons"] == []
    assert (
        "No runtime evidence: observed actions are EVIDENCE_NEEDED, never reported as not having occurred."
        in (payload.data["limitations"])
    )


@pytest.mark.parametrize(
    ("name", "disposition"), [("ops-agent", "BLOCK"), ("support-agent-ts", "REVIEW"), ("research-assistant", "ALLOW")]
)
def test_examples_dispositions(name: str, disposition: str) -> None:
    assert _evaluate(EXAMPLES / name).disposition == disposition


def test_statuses_that_evidence_cannot_show_pass_through_verbatim() -> None:
    payload = _evaluate(EXAMPLES / "ops-agent")
    fq = payload.data["fourQuestions"]
    assert fq["observed"]["status"] == "EVIDENCE_NEEDED"
    assert fq["observed"]["actions"] == []
    for entry in fq["authority"]["actions"]:
        assert entry["planes"]["OBSERVED"] == "EVIDENCE_NEEDED"
        assert entry["planes"]["EFFECTIVELY_GRANTED"] == "EVIDENCE_NEEDED"
        assert entry["planes"]["CODE_CAPABLE"] == "ESTABLISHED"
    assert payload.data["evaluationScenarioSnapshot"]["status"] == "EVIDENCE_NEEDED"


def test_authority_context_names_the_dominating_gates() -> None:
    payload = _evaluate(EXAMPLES / "ops-agent")
    restart = next(
        e
        for e in payload.data["fourQuestions"]["authority"]["actions"]
        if e["location"]["path"] == "ops_agent/infra.py"
    )
    assert sorted(g["kind"] for g in restart["context"]["gates"]) == ["allowlist", "human_approval"]
    assert restart["planes"]["POLICY_AUTHORIZED"] == "ESTABLISHED"
    assert restart["context"]["approvalRequired"] is True and restart["context"]["approvalEnforced"] is True


def test_same_membership_gives_byte_identical_payload_in_any_order(tmp_path: Path) -> None:
    ops = static_bundle_item(scan_tree(EXAMPLES / "ops-agent").to_json_dict())
    ra = static_bundle_item(scan_tree(EXAMPLES / "research-assistant").to_json_dict())
    first = evaluate(make_membership([ops, ra]), ai_system_id="s", jurisdiction=None)
    second = evaluate(make_membership([ra, ops]), ai_system_id="s", jurisdiction=None)
    assert first.canonical() == second.canonical()
    assert first.core_truth_digest == second.core_truth_digest


@pytest.mark.parametrize("jurisdiction", [None, "eu_ai_act"])
def test_payload_bytes_are_the_reference_encoders_for_every_example_and_odd_strings(
    jurisdiction: str | None,
) -> None:
    odd = 'caf\u00e9 \U0001f600 \u2028 \x01 "q" \\ \ue000'
    for name in ("ops-agent", "support-agent-ts", "research-assistant"):
        bundle = scan_tree(EXAMPLES / name).to_json_dict()
        for tool in bundle["tools"]:
            tool["name"] = f"{tool['name']} {odd}"
        for action in bundle["actions"]:
            action["target"] = f"{action['target']} {odd}"
            action["location"]["path"] = f"{odd}/{action['location']['path']}"
        bundle["contentHash"] = content_hash(bundle)
        payload = evaluate(make_membership([static_bundle_item(bundle)]), ai_system_id="s", jurisdiction=jurisdiction)
        assert payload.canonical() == reference_canonical_bytes(payload.data)
        assert payload.core_truth_digest == digest_bytes(reference_canonical_bytes(core_truth(payload.data)))


def test_digests_recompute_from_the_payload() -> None:
    bundle = scan_tree(EXAMPLES / "ops-agent").to_json_dict()
    membership = make_membership([static_bundle_item(bundle)])
    payload = evaluate(membership, ai_system_id="s", jurisdiction=None)
    assert payload.core_truth_digest == digest_json(core_truth(payload.data))
    # evaluate assembles the payload's bytes from each member's; they are the reference encoder's bytes.
    assert payload.canonical() == reference_canonical_bytes(payload.data)
    assert payload.core_truth_digest == digest_bytes(reference_canonical_bytes(core_truth(payload.data)))
    assert payload.evidence_bundle_digest == membership.digest()
    snapshot = dict(payload.data["evaluationScenarioSnapshot"])
    assert snapshot.pop("snapshotDigest") == digest_json(snapshot)
    assert payload.data["methodologyVersion"] == METHODOLOGY_VERSION
    # Ids of runs or evaluations and timestamps never enter the payload.
    text = canonical_bytes(payload.data).decode()
    assert "createdAt" not in text and "runId" not in text and "evaluationId" not in text


def _refs(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [r for k, v in value.items() for r in (v if k == "evidenceRefs" else _refs(v))]
    if isinstance(value, list):
        return [r for v in value for r in _refs(v)]
    return []


@pytest.mark.parametrize("name", ["ops-agent", "support-agent-ts", "research-assistant"])
def test_every_evidence_ref_points_into_the_membership(name: str) -> None:
    bundle = scan_tree(EXAMPLES / name).to_json_dict()
    item = static_bundle_item(bundle)
    payload = evaluate(make_membership([item]), ai_system_id="s", jurisdiction="eu_ai_act")
    element_ids = {e["id"] for key in ("models", "tools", "actions", "gates", "taintFlows", "frontier", "findings")
                   for e in bundle[key]}  # fmt: skip
    element_ids |= {"declaration", "coverage", "jurisdiction"}
    refs = _refs(payload.data)
    assert refs
    for ref in refs:
        evidence_id, _, element = ref.partition("#")
        assert evidence_id == item.evidenceId
        assert element in element_ids


def test_verification_items_are_the_only_requests_and_trace_to_evidence() -> None:
    payload = _evaluate(EXAMPLES / "ops-agent")
    audit = build_agent_audit("eval-1", payload)
    assert audit["evaluationId"] == "eval-1"
    items = audit["agentAudit"]["verificationItems"]
    assert [i["kind"] for i in payload.data["verificationItems"]] == [
        "model_output_to_execution",
        "ungated_undeclared_high_impact",
        "ungated_undeclared_high_impact",
        "undeclared_tool",
        "runtime_evidence_needed",
    ]
    for item in items:
        assert set(item) == {"id", *ITEM_MEMBERS, *STRUCTURED_MEMBERS}
        assert item["evidenceRefs"]
    assert audit["agentAudit"]["narrative"]["evidenceGaps"] == [i["verificationNeeded"] for i in items]
    shell = items[0]["verificationNeeded"]
    assert "subprocess.run at ops_agent/tools.py:37" in shell and shell.endswith("then start a NEW run.")
    # The same facts as structured members, so an agent need not parse the prose.
    assert items[0]["location"] == {"path": "ops_agent/tools.py", "line": 37}
    assert (items[0]["severity"], items[0]["actionClass"]) == ("critical", "shell.exec")
    assert items[0]["tool"] in items[0]["tools"] and items[0]["tool"] in shell


def test_agent_audit_members_are_exactly_the_contracts() -> None:
    audit = build_agent_audit("e", _evaluate(EXAMPLES / "support-agent-ts"))["agentAudit"]
    assert {"sections", "narrative", "authoritySummary", "verificationItems"} <= set(audit)
    assert set(audit["narrative"]) == {"established", "unestablished", "notAssessed", "evidenceGaps", "limitations"}
    assert [s["id"] for s in audit["sections"]] == [
        "disposition", "reach", "authority", "observed", "proofBoundary", "verification",
    ]  # fmt: skip


def test_summary_is_compact_and_bounded() -> None:
    payload = _evaluate(EXAMPLES / "ops-agent")
    summary = build_summary("eval-1", payload, {"self": "/x"})
    assert summary["disposition"] == "BLOCK"
    assert len(summary["topReasons"]) == 5
    assert summary["omittedReasons"] == len(payload.data["reasons"]) - 5
    assert summary["counts"]["reasons"]["BLOCK"] == 3
    assert summary["digests"]["coreTruthDigest"] == payload.core_truth_digest
    assert summary["links"] == {"self": "/x"}


def test_empty_membership_and_unknown_jurisdiction_are_refused() -> None:
    with pytest.raises(ValueError, match="at least one"):
        evaluate(make_membership([]), ai_system_id="s", jurisdiction=None)
    item = static_bundle_item(scan_tree(EXAMPLES / "research-assistant").to_json_dict())
    with pytest.raises(ValueError, match="unknown jurisdiction"):
        evaluate(make_membership([item]), ai_system_id="s", jurisdiction="mars")


@pytest.mark.parametrize("name", ["ops-agent", "support-agent-ts", "research-assistant"])
def test_a_fresh_scans_own_models_evaluate_exactly_like_its_json(name: str) -> None:
    # The worker hands a fresh scan's models to evaluate; an attached scan is validated from JSON. The
    # payload must not depend on which.
    bundle = scan_tree(EXAMPLES / name)
    item = static_bundle_item(bundle.to_json_dict())
    membership = make_membership([item])
    from_json = evaluate(membership, ai_system_id="s", jurisdiction=None)
    from_models = evaluate(membership, ai_system_id="s", jurisdiction=None, known_bundles={item.evidenceId: bundle})
    assert from_models.canonical() == from_json.canonical()

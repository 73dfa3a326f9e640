"""The Master Report projection: every contract 2.4 member, bounded vs full, current context."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from assay.backend.engines.static.scan import scan_tree
from assay.backend.evaluation.membership import make_membership, static_bundle_item
from assay.backend.evaluation.methodology import EvaluationPayload, evaluate
from assay.backend.reports.master import MAX_ITEMS, MAX_TEXT, build_master_report

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MEMBERS_2_4 = {
    "schemaVersion", "timeBasis", "evaluationId", "aiSystemId", "disposition", "methodologyVersion", "profile",
    "reportId", "reportVersion", "projectionVersion", "coreTruthDigest", "evidenceBundleDigest", "fourQuestions",
    "evaluationScenarioSnapshot", "links", "limitations", "semantics",
}  # fmt: skip
LINKS = {"html": "/h", "pdf": "/p", "api": "/a", "apiPdf": "/ap", "agentAudit": "/aa", "passport": "/pp",
         "assuranceReport": "/r", "assuranceEvidencePdf": "/rp"}  # fmt: skip


def _payload(name: str) -> EvaluationPayload:
    bundle = scan_tree(EXAMPLES / name).to_json_dict()
    return evaluate(make_membership([static_bundle_item(bundle)]), ai_system_id="sys-1", jurisdiction=None)


def _max_list(value: Any) -> int:
    if isinstance(value, list):
        return max([len(value), *(_max_list(v) for v in value)])
    if isinstance(value, dict):
        return max([0, *(_max_list(v) for v in value.values())])
    return 0


@pytest.mark.parametrize("name", ["ops-agent", "support-agent-ts", "research-assistant"])
def test_master_report_members_are_the_contracts(name: str) -> None:
    payload = _payload(name)
    response = build_master_report("eval-1", payload, links=LINKS)
    assert set(response) == {"evaluationId", "masterReport"}
    report = response["masterReport"]
    assert set(report) >= MEMBERS_2_4
    assert report["timeBasis"] == "EVALUATED_SNAPSHOT"
    assert report["profile"] == "BASE"
    assert report["disposition"] == payload.disposition
    assert report["coreTruthDigest"] == payload.core_truth_digest
    assert report["evidenceBundleDigest"] == payload.evidence_bundle_digest
    assert set(report["fourQuestions"]) == {"reach", "authority", "observed", "proofBoundary"}
    assert report["links"] == {**LINKS, "evaluation": None, "decisionReceipt": None, "systemWorkspace": None,
                               "investigation": None}  # fmt: skip


def test_bounded_respects_bounds_and_counts_what_it_left_out(tmp_path: Path) -> None:
    root = tmp_path / "wide"
    root.mkdir()
    tools = "".join(
        f"\n@tool\ndef t{i}(p: str) -> str:\n    '''{'x' * 400}'''\n    os.remove(p)\n    return p\n" for i in range(14)
    )
    (root / "agent.py").write_text("import os\nfrom langchain_core.tools import tool\n" + tools)
    bundle = scan_tree(root).to_json_dict()
    payload = evaluate(make_membership([static_bundle_item(bundle)]), ai_system_id="s", jurisdiction=None)
    report = build_master_report("e", payload, links=LINKS)["masterReport"]
    assert _max_list(report["fourQuestions"]) <= MAX_ITEMS
    assert report["omitted"]["fourQuestions.reach.codeCapable.actions"] == 14 - MAX_ITEMS
    assert report["omitted"]["fourQuestions.authority.actions"] == 14 - MAX_ITEMS
    assert report["bounds"] == {"maxItems": MAX_ITEMS, "maxTextChars": MAX_TEXT}
    full = build_master_report("e", payload, links=LINKS, detail="full")["masterReport"]
    assert len(full["fourQuestions"]["reach"]["codeCapable"]["actions"]) == 14
    assert full["omitted"] == {}


def test_full_adds_projection_and_read_models_and_context_never_touches_truth() -> None:
    payload = _payload("ops-agent")
    bounded = build_master_report("e", payload, links=LINKS)["masterReport"]
    context = [{"kind": "newer_evidence", "detail": "a scan after this Evaluation exists"}]
    full = build_master_report("e", payload, links=LINKS, detail="full", current_context=context)["masterReport"]
    assert full["reportProjection"] == payload.data
    assert set(full["supportingReadModels"]) == {"summary", "agentAudit"}
    assert full["currentContext"] == [
        {**context[0], "timeBasis": "CURRENT_CONTEXT", "truthRole": "NON_EVALUATION_CONTEXT"}
    ]
    for member in ("disposition", "coreTruthDigest", "evidenceBundleDigest"):
        assert full[member] == bounded[member] == payload.data[member]
    assert full["evaluationScenarioSnapshot"] == payload.data["evaluationScenarioSnapshot"]


def test_unknown_detail_is_refused() -> None:
    with pytest.raises(ValueError, match="detail"):
        build_master_report("e", _payload("research-assistant"), links=LINKS, detail="everything")  # type: ignore[arg-type]


def test_projection_is_deterministic() -> None:
    payload = _payload("support-agent-ts")
    assert build_master_report("e", payload, links=LINKS) == build_master_report("e", payload, links=LINKS)

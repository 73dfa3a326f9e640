"""The observed question, the OBSERVED plane and the scenario snapshot from runtime evidence (span and
structured records as the intake routes normalize them, docs/intake.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from assay.backend.engines.static.scan import scan_tree
from assay.backend.evaluation.membership import EvidenceItem, ingested_item, make_membership, static_bundle_item
from assay.backend.evaluation.methodology import EvaluationPayload, evaluate

AGENT = '''
import shutil, subprocess
import httpx
from langchain_core.tools import tool
from openai import OpenAI

def ask(q: str) -> str:
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[]).choices[0].message.content

@tool
def verify_identity(customer: str) -> str:
    """Check the customer."""
    return httpx.get("https://id.example.com/check").text

@tool
def approve(amount: int) -> str:
    """Ask a human."""
    return "ok"

@tool
def issue_refund(amount: int) -> str:
    """Refund."""
    return httpx.post("https://pay.example.com/refund").text

@tool
def clean(path: str) -> str:
    """Clean the cache."""
    shutil.rmtree("/var/cache/app")
    return "ok"
'''
DECLARATION = """version = "1"
purpose = "refunds"
tools = ["verify_identity", "approve", "issue_refund", "clean"]
[[actions]]
class = "network.egress"
[[scenarios]]
id = "refund"
states = ["receive_request", "verify_identity", "approve", "issue_refund"]
"""


def _span(trace: str, span: str, name: str, parent: str | None = None, **attributes: Any) -> dict[str, Any]:
    return {
        "kind": "span",
        "traceId": trace,
        "spanId": span,
        "parentSpanId": parent,
        "name": name,
        "spanKind": "INTERNAL",
        "status": {"code": "UNSET", "message": None},
        "attributes": attributes,
    }


def _tool_span(trace: str, span: str, tool: str, parent: str | None = "a0", **extra: Any) -> dict[str, Any]:
    return _span(
        trace,
        span,
        f"execute_tool {tool}",
        parent,
        **{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool},
        **extra,
    )


def _agent(trace: str) -> dict[str, Any]:
    return _span(trace, "a0", "invoke_agent refunds", None, **{"gen_ai.operation.name": "invoke_agent"})


def _runtime(records: list[dict[str, Any]]) -> EvidenceItem:
    return ingested_item(
        "runtime_batch", "structured-ingress", {"adapter": "otlp", "signal": "traces", "records": records}
    )


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("refunds")
    (root / "agent.py").write_text(AGENT)
    (root / "assay.toml").write_text(DECLARATION)
    return scan_tree(root).to_json_dict()


def _evaluate(bundle: dict[str, Any], *runtime: EvidenceItem) -> EvaluationPayload:
    return evaluate(make_membership([static_bundle_item(bundle), *runtime]), ai_system_id="sys-t", jurisdiction=None)


def _rules(payload: EvaluationPayload) -> set[str]:
    return {r["ruleId"] for r in payload.data["reasons"]}


def test_without_runtime_evidence_everything_observed_is_evidence_needed(bundle: dict[str, Any]) -> None:
    payload = _evaluate(bundle)
    observed = payload.data["fourQuestions"]["observed"]
    assert observed["status"] == "EVIDENCE_NEEDED" and observed["actions"] == []
    snapshot = payload.data["evaluationScenarioSnapshot"]
    assert snapshot["status"] == "EVIDENCE_NEEDED"
    assert snapshot["states"] == ["receive_request", "verify_identity", "approve", "issue_refund"]
    assert snapshot["earliestDivergence"] is None
    assert {a["planes"]["OBSERVED"] for a in payload.data["fourQuestions"]["authority"]["actions"]} == {
        "EVIDENCE_NEEDED"
    }
    assert any(i["kind"] == "runtime_evidence_needed" for i in payload.data["verificationItems"])
    howto = next(i for i in payload.data["verificationItems"] if i["kind"] == "runtime_evidence_needed")
    assert "/api/otlp/v1/traces" in howto["verificationNeeded"] and "X-Binder-Id" in howto["verificationNeeded"]


def test_observed_tool_calls_are_counted_joined_and_referenced(bundle: dict[str, Any]) -> None:
    records = [_agent("t1"), _tool_span("t1", "s1", "verify_identity"), _tool_span("t1", "s2", "verify_identity")]
    records.append(_tool_span("t1", "s3", "issue_refund", **{"error.type": "timeout"}))
    records.append(_span("t1", "s4", "POST", "s3", **{"http.request.method": "POST"}))
    item = _runtime(records)
    payload = _evaluate(bundle, item)
    observed = payload.data["fourQuestions"]["observed"]
    assert observed["status"] == "ESTABLISHED"
    by_tool = {a["tool"]: a for a in observed["actions"]}
    assert set(by_tool) == {"verify_identity", "issue_refund"}
    assert by_tool["verify_identity"]["count"] == 2 and by_tool["verify_identity"]["errors"] == 0
    assert by_tool["issue_refund"]["errors"] == 1
    assert by_tool["issue_refund"]["evidencedActionClasses"] == ["network.egress"]
    assert by_tool["verify_identity"]["evidenceRefs"] == [
        f"{item.evidenceId}#span:t1:s1",
        f"{item.evidenceId}#span:t1:s2",
    ]
    assert observed["summary"] == {"records": 5, "spans": 5, "toolCalls": 3, "agentRuns": 1, "gates": 0}
    planes = {tuple(a["tools"]): a["planes"]["OBSERVED"] for a in payload.data["fourQuestions"]["authority"]["actions"]}
    # A span under the refund call shows the HTTP request: ESTABLISHED. verify_identity ran, but nothing
    # under it shows its request: PARTIAL. clean was never seen: still EVIDENCE_NEEDED, never MISSING.
    assert planes[("issue_refund",)] == "ESTABLISHED"
    assert planes[("verify_identity",)] == "PARTIAL"
    assert planes[("clean",)] == "EVIDENCE_NEEDED"
    assert not any(i["kind"] == "runtime_evidence_needed" for i in payload.data["verificationItems"])


def test_other_vocabularies_are_tool_calls_too(bundle: dict[str, Any]) -> None:
    records = [
        _span(
            "t2", "m1", "tools/call approve", None, **{"mcp.method.name": "tools/call", "gen_ai.tool.name": "approve"}
        ),
        _span("t2", "o1", "approve", None, **{"openinference.span.kind": "TOOL", "tool.name": "approve"}),
        _span("t2", "l1", "approve.tool", None, **{"traceloop.span.kind": "tool", "traceloop.entity.name": "approve"}),
    ]
    observed = _evaluate(bundle, _runtime(records)).data["fourQuestions"]["observed"]
    (approve,) = observed["actions"]
    assert approve["count"] == 3 and approve["vocabularies"] == ["mcp", "openinference", "openllmetry"]


def test_high_impact_action_observed_outside_declared_reach_blocks(bundle: dict[str, Any]) -> None:
    records = [
        _agent("t3"),
        _tool_span("t3", "c1", "clean"),
        _span("t3", "p1", "rm", "c1", **{"process.command": "rm", "process.command_line": "rm -rf /var/cache/app"}),
    ]
    payload = _evaluate(bundle, _runtime(records))
    assert payload.disposition == "BLOCK"
    (reason,) = [r for r in payload.data["reasons"] if r["ruleId"] == "BLOCK-003"]
    assert "clean" in reason["message"] and "shell.exec" in reason["message"]
    assert any(i["kind"] == "observed_outside_declared_reach" for i in payload.data["verificationItems"])


def test_tool_observed_but_not_in_code_is_review(bundle: dict[str, Any]) -> None:
    payload = _evaluate(bundle, _runtime([_tool_span("t4", "x1", "wire_transfer", None)]))
    assert "REVIEW-009" in _rules(payload)
    (observed,) = payload.data["fourQuestions"]["observed"]["actions"]
    assert observed["staticMatch"] is False
    assert any(i["kind"] == "observed_tool_not_in_code" for i in payload.data["verificationItems"])


def test_guardrails_and_recorded_approvals_are_observed_gates(bundle: dict[str, Any]) -> None:
    records = [
        _span(
            "t5",
            "g1",
            "run_guardrail",
            None,
            **{
                "gen_ai.operation.name": "run_guardrail",
                "gen_ai.guardrail.decision": "DENY",
                "gen_ai.guardrail.target": "issue_refund",
            },
        ),
        {
            "kind": "record",
            "type": "approval",
            "tool": "issue_refund",
            "verdict": "granted",
            "eventId": "e1",
            "traceId": "r1",
        },
    ]
    gates = _evaluate(bundle, _runtime(records)).data["fourQuestions"]["observed"]["gates"]
    assert [(g["kind"], g["verdict"], g["target"], g["count"]) for g in gates] == [
        ("guardrail", "deny", "issue_refund", 1),
        ("human_approval", "granted", "issue_refund", 1),
    ]


def test_scenario_follows_declared_order(bundle: dict[str, Any]) -> None:
    records = [
        {"kind": "record", "type": "state", "state": "receive_request", "traceId": "r7", "eventId": "e0"},
        {"kind": "record", "type": "tool_call", "tool": "verify_identity", "traceId": "r7", "eventId": "e1"},
        {"kind": "record", "type": "tool_call", "tool": "approve", "traceId": "r7", "eventId": "e2"},
        {"kind": "record", "type": "tool_call", "tool": "issue_refund", "traceId": "r7", "eventId": "e3"},
    ]
    snapshot = _evaluate(bundle, _runtime(records)).data["evaluationScenarioSnapshot"]
    assert snapshot["status"] == "ESTABLISHED"
    assert snapshot["earliestDivergence"] is None
    assert [(t["from"], t["to"], t["inDeclaredOrder"]) for t in snapshot["transitions"]] == [
        ("receive_request", "verify_identity", True),
        ("verify_identity", "approve", True),
        ("approve", "issue_refund", True),
    ]


def test_scenario_divergence_is_by_trace_structure_never_timestamps(bundle: dict[str, Any]) -> None:
    # Trace t6 skips approval. Its spans carry timestamps that would put approve first: they are ignored.
    request = _span(
        "t6",
        "r0",
        "receive_request",
        None,
        **{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "receive_request"},
    )
    verify = _tool_span("t6", "v1", "verify_identity", "r0")
    refund = _tool_span("t6", "f1", "issue_refund", "r0")
    verify["startTimeUnixNano"], refund["startTimeUnixNano"] = "200", "100"
    # Trace t7 jumps from the request straight to the refund. t6 diverges at declared position 2 (approve
    # expected after verify_identity), t7 at position 1: t7's is the earliest.
    late = [
        _span(
            "t7",
            "r0",
            "receive_request",
            None,
            **{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "receive_request"},
        ),
        _tool_span("t7", "f1", "issue_refund", "r0"),
    ]
    item = _runtime([request, verify, refund, *late])
    snapshot = _evaluate(bundle, item).data["evaluationScenarioSnapshot"]
    assert snapshot["status"] == "DIVERGED"
    assert snapshot["earliestDivergence"] == {
        "scenarioId": "refund",
        "traceId": "t7",
        "afterState": "receive_request",
        "expectedState": "verify_identity",
        "observedState": "issue_refund",
        "declaredPosition": 1,
        "evidenceRefs": [f"{item.evidenceId}#span:t7:f1"],
    }
    (t6,) = snapshot["scenarios"]
    assert ("verify_identity", "issue_refund", False) in [
        (t["from"], t["to"], t["inDeclaredOrder"]) for t in t6["transitions"]
    ]


def test_same_evidence_in_any_record_order_across_traces_gives_the_same_payload(bundle: dict[str, Any]) -> None:
    t1 = [_agent("t1"), _tool_span("t1", "s1", "verify_identity")]
    t2 = [_agent("t2"), _tool_span("t2", "s1", "approve")]
    first = _evaluate(bundle, _runtime(t1 + t2))
    second = _evaluate(bundle, _runtime(t1 + t2))
    assert first.canonical() == second.canonical()
    swapped = _evaluate(bundle, _runtime(t2 + t1))
    assert swapped.data["fourQuestions"]["observed"] == {
        **first.data["fourQuestions"]["observed"],
        "actions": swapped.data["fourQuestions"]["observed"]["actions"],
    }
    assert [a["tool"] for a in swapped.data["fourQuestions"]["observed"]["actions"]] == ["approve", "verify_identity"]


def test_no_recognised_call_in_attached_evidence_stays_evidence_needed(bundle: dict[str, Any], tmp_path: Path) -> None:
    payload = _evaluate(bundle, _runtime([_span("t9", "z", "GET /health", None, **{"http.request.method": "GET"})]))
    observed = payload.data["fourQuestions"]["observed"]
    assert observed["status"] == "EVIDENCE_NEEDED"
    assert observed["summary"]["spans"] == 1
    assert "holds no recognised tool call" in observed["note"]

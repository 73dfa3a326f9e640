"""A traces batch read from its stored request sees exactly what its normalized records show: the same
tool calls, counts, errors, classes, references, gates and scenario steps, in the same order."""

from __future__ import annotations

import io
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue, KeyValueList

from assay.backend.evaluation.runtime import RuntimeEvidence, read_runtime
from assay.backend.intake.adapters import otlp_traces

REFUNDS = Path(__file__).resolve().parents[2] / "examples" / "refund-agent" / "traces" / "refunds.otlp.json"


def _kv(key: str, value: AnyValue) -> KeyValue:
    return KeyValue(key=key, value=value)


def _text(value: str) -> AnyValue:
    return AnyValue(string_value=value)


def _mixed_request() -> bytes:
    """Spans of every vocabulary, nested key-value lists, non-string values, errors, guardrails, action
    classes under calls, spans of one trace in two scope entries, more calls than references kept, calls
    named only by their span name."""
    request = ExportTraceServiceRequest()
    entry = request.resource_spans.add()
    entry.resource.attributes.append(_kv("service.name", _text("agent")))
    first, second = entry.scope_spans.add(), entry.scope_spans.add()

    def span(scope: Any, trace: int, number: int, name: str, parent: int = 0, **attrs: AnyValue) -> Any:
        added = scope.spans.add()
        added.trace_id = trace.to_bytes(16, "big")
        added.span_id = number.to_bytes(8, "big")
        if parent:
            added.parent_span_id = parent.to_bytes(8, "big")
        added.name = name
        added.attributes.extend(_kv(k.replace("__", "."), v) for k, v in attrs.items())
        return added

    for t in range(1, 14):
        span(first, t, t * 100, "invoke_agent ops", gen_ai__operation__name=_text("invoke_agent"))
        span(
            first,
            t,
            t * 100 + 1,
            "execute_tool refund",
            t * 100,
            gen_ai__operation__name=_text("execute_tool"),
            gen_ai__tool__name=_text("refund"),
            gen_ai__tool__call__id=_text(f"c{t}"),
        )
        child = span(second, t, t * 100 + 2, "POST", t * 100 + 1, http__request__method=_text("POST"))
        if t % 3 == 0:
            child.status.code = 2
        span(
            second,
            t,
            t * 100 + 3,
            "tools/call lookup",
            t * 100,
            mcp__method__name=_text("tools/call"),
            error__type=AnyValue(int_value=7),
        )
        span(first, t, t * 100 + 4, "query", t * 100 + 3, db__statement=_text("select 1"))
        gen_ai = KeyValueList(
            values=[
                _kv("tool", AnyValue(kvlist_value=KeyValueList(values=[_kv("name", _text("approve"))]))),
                _kv("operation.name", _text("execute_tool")),
            ]
        )
        failed = span(first, t, t * 100 + 5, "approval step", t * 100, gen_ai=AnyValue(kvlist_value=gen_ai))
        failed.status.code = 2
        failed.status.message = "denied"
        span(
            first,
            t,
            t * 100 + 6,
            "run_guardrail pii",
            t * 100,
            gen_ai__guardrail__decision=_text("BLOCK"),
            gen_ai__guardrail__target=_text("refund"),
        )
        span(
            first,
            t,
            t * 100 + 7,
            "shell",
            t * 100 + 5,
            process__command_line=_text("rm -rf /tmp/x"),
            openinference__span__kind=_text("TOOL"),
            tool__name=_text("clean"),
        )
        span(
            first,
            t,
            t * 100 + 8,
            "llm",
            t * 100,
            traceloop__span__kind=_text("tool"),
            traceloop__entity__name=_text("fetch"),
            attempt=AnyValue(int_value=3),
        )
    for t in range(20, 40):  # plain calls: once "notify" has its references, counted without ordering
        span(second, t, t * 100, "invoke_agent ops", gen_ai__operation__name=_text("invoke_agent"))
        call = span(second, t, t * 100 + 1, "execute_tool notify", t * 100)
        if t % 4 == 0:
            call.status.code = 2
    return request.SerializeToString()


def _refunds() -> bytes:
    converted, _ = otlp_traces.from_json(io.BytesIO(REFUNDS.read_bytes()))
    return converted.read()


def _seen(evidence: RuntimeEvidence) -> dict[str, Any]:
    return {
        "tools": {name: asdict(stats) for name, stats in sorted(evidence.tools.items())},
        "gates": [asdict(g) for g in evidence.gates],
        "steps": evidence.state_sequences(),
        "counts": (evidence.calls, evidence.agent_runs, evidence.spans, evidence.records),
    }


def test_the_stored_request_reads_as_its_normalized_records() -> None:
    states = frozenset({"verify_identity", "approve", "issue_refund", "refund", "clean"})
    for content in (_mixed_request(), _refunds()):
        records = list(otlp_traces.normalized_spans(content))
        structured = [{"kind": "event", "eventId": None, "fields": {"type": "tool_call", "tool": "refund"}}]
        from_records = read_runtime([("ev-a", records), ("ev-b", structured)], states)
        from_content = read_runtime([("ev-a", content), ("ev-b", structured)], states)
        assert json.dumps(_seen(from_content), default=sorted) == json.dumps(_seen(from_records), default=sorted)
        assert from_records.calls > 5
    mixed = read_runtime([("ev-a", _mixed_request())], states)
    notify = mixed.tools["notify"]
    assert (notify.count, notify.errors, len(notify.refs), mixed.agent_runs) == (20, 5, 10, 33)
    assert mixed.tools["refund"].classes == {"network.egress"} and mixed.tools["lookup"].errors == 13
    assert mixed.tools["approve"].classes == {"shell.exec"} and mixed.tools["approve"].errors == 13

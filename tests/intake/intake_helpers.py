"""Helpers of the intake tests: binders and keys, OTLP requests built by the OpenTelemetry SDK's own
encoder, and reading what was stored."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Status, StatusCode
from service_helpers import World

from assay.backend.intake import binders
from assay.backend.storage.models import EvidenceBinder


@dataclass
class IntakeWorld:
    world: World
    ingest_key_a: str = ""
    ingest_key_b: str = ""
    binders: dict[str, str] = field(default_factory=dict)

    async def binder(self, adapter_id: str, *, org: str | None = None, **kwargs: Any) -> EvidenceBinder:
        async with self.world.sessions() as session:
            created = await binders.create_binder(
                session,
                org or self.world.org_a,
                source_system=f"{adapter_id}-source",
                adapter_id=adapter_id,
                ai_system_id=kwargs.pop("ai_system_id", self.world.system_a if org is None else None),
                **kwargs,
            )
            await session.commit()
        return created


async def provision_intake(world: World) -> IntakeWorld:
    iw = IntakeWorld(world=world)
    iw.ingest_key_a = await world.key(["evidence:ingest"])
    iw.ingest_key_b = await world.key(["evidence:ingest"], org=world.org_b)
    for adapter_id in ("otlp", "structured", "log", "sarif"):
        iw.binders[adapter_id] = (await iw.binder(adapter_id)).id
    return iw


def make_spans(count: int = 3, *, tool: str = "refund") -> Sequence[ReadableSpan]:
    """Real SDK spans: an invoke_agent span with ``count - 1`` execute_tool children."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "ops-agent", "deployment.env": "test"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("example.agent", "1.2.3")
    with tracer.start_as_current_span("invoke_agent ops", attributes={"gen_ai.operation.name": "invoke_agent"}):
        for i in range(count - 1):
            with tracer.start_as_current_span(
                f"execute_tool {tool}",
                attributes={
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": tool,
                    "gen_ai.tool.call.id": f"call_{i}",
                    "amounts": [1, 2],
                },
            ) as span:
                if i == 0:
                    span.set_status(Status(StatusCode.ERROR, "denied"))
                    span.add_event("retry", {"attempt": 1})
    provider.shutdown()
    return exporter.get_finished_spans()


def trace_request(spans: Sequence[ReadableSpan]) -> bytes:
    """The ExportTraceServiceRequest the SDK's OTLP exporter would send for ``spans``."""
    return encode_spans(spans).SerializeToString()


def trace_request_json(spans: Sequence[ReadableSpan]) -> bytes:
    """The OTLP/JSON request the SDK's JSON exporter would send for ``spans``."""
    from opentelemetry.exporter.otlp.json.common.trace_encoder import encode_spans as encode_json

    return str(encode_json(spans).to_json()).encode("utf-8")


OTLP_TRACES = "/api/otlp/v1/traces"
MAX_BODY = 4 * 1024 * 1024
PROTOBUF = {"Content-Type": "application/x-protobuf"}


def ingest_headers(key: str, binder_id: str | None = None, **extra: str) -> dict[str, str]:
    headers = {"Authorization": f"Bearer {key}", **extra}
    if binder_id is not None:
        headers["X-Binder-Id"] = binder_id
    return headers


def span_export(first: int, count: int) -> ExportTraceServiceRequest:
    """An OTLP export of ``count`` execute_tool spans, numbered from ``first`` (span ``i`` has the same ids
    in every export), built with the protobuf classes: fast for hundreds of thousands of spans."""
    request = ExportTraceServiceRequest()
    entry = request.resource_spans.add()
    entry.resource.attributes.append(KeyValue(key="service.name", value=AnyValue(string_value="ops-agent")))
    scope = entry.scope_spans.add()
    for i in range(first, first + count):
        span = scope.spans.add()
        span.trace_id = (i // 10 + 1).to_bytes(16, "big")
        span.span_id = (i + 1).to_bytes(8, "big")
        span.name = "execute_tool refund"
        span.kind = 1
        span.start_time_unix_nano = 1_700_000_000_000_000_000 + i * 1000
        span.end_time_unix_nano = span.start_time_unix_nano + 500
        span.attributes.extend(
            [
                KeyValue(key="gen_ai.operation.name", value=AnyValue(string_value="execute_tool")),
                KeyValue(key="gen_ai.tool.name", value=AnyValue(string_value="refund")),
            ]
        )
    return request


def span_export_json(first: int, count: int) -> bytes:
    """The same spans as OTLP/JSON (hex ids, integers of 64 bits as strings)."""
    spans = [
        {
            "traceId": (i // 10 + 1).to_bytes(16, "big").hex(),
            "spanId": (i + 1).to_bytes(8, "big").hex(),
            "name": "execute_tool refund",
            "kind": 1,
            "startTimeUnixNano": str(1_700_000_000_000_000_000 + i * 1000),
            "endTimeUnixNano": str(1_700_000_000_000_000_000 + i * 1000 + 500),
            "attributes": [
                {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
                {"key": "gen_ai.tool.name", "value": {"stringValue": "refund"}},
            ],
        }
        for i in range(first, first + count)
    ]
    return json.dumps({"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {}, "spans": spans}]}]}).encode()

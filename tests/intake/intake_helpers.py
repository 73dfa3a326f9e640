"""Helpers of the intake tests: binders and keys, OTLP requests built by the OpenTelemetry SDK's own
encoder, and reading what was stored."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
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

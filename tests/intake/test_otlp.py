"""OTLP/HTTP intake: SDK-encoded traces (protobuf and JSON), gzip, the Export response, receipts, dedupe."""

from __future__ import annotations

import gzip
import hashlib

import httpx
import pytest
from intake_helpers import (
    OTLP_TRACES,
    PROTOBUF,
    IntakeWorld,
    ingest_headers,
    make_spans,
    trace_request,
    trace_request_json,
)
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse
from opentelemetry.proto.trace.v1.trace_pb2 import ScopeSpans

from assay.backend.intake.adapters import otlp_traces
from assay.backend.intake.store import load_ingested_batch


async def _records(iw: IntakeWorld, producer_run_id: str) -> list[dict[str, object]]:
    async with iw.world.sessions() as session:
        batch = await load_ingested_batch(session, iw.world.org_a, producer_run_id)
    assert batch is not None
    return batch.records


async def test_protobuf_traces_are_stored_normalized_with_a_receipt(client: httpx.AsyncClient, iw: IntakeWorld) -> None:
    spans = make_spans(3)
    body = trace_request(spans)
    response = await client.post(
        OTLP_TRACES,
        content=body,
        headers=ingest_headers(iw.ingest_key_a, iw.binders["otlp"], **PROTOBUF),
    )
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/x-protobuf"
    answer = ExportTraceServiceResponse.FromString(response.content)
    assert not answer.HasField("partial_success")
    assert response.headers["assay-receipt-status"] == "EVIDENCE_INGESTED"
    assert response.headers["assay-record-count"] == "3"
    run_id = response.headers["assay-producer-run-id"]
    records = await _records(iw, run_id)
    # A traces batch is stored as the request itself: its digest is SHA-256 over the request's bytes.
    assert response.headers["assay-content-digest"] == f"sha256:{hashlib.sha256(body).hexdigest()}"
    tool = next(r for r in records if r["name"] == "execute_tool refund" and r["status"]["code"] == "ERROR")  # type: ignore[index]
    sdk_span = next(s for s in spans if s.name == "execute_tool refund" and s.status.status_code.name == "ERROR")
    assert tool["traceId"] == f"{sdk_span.context.trace_id:032x}"
    assert tool["spanId"] == f"{sdk_span.context.span_id:016x}"
    assert tool["parentSpanId"] == f"{sdk_span.parent.span_id:016x}"  # type: ignore[union-attr]
    assert tool["spanKind"] == "INTERNAL"
    assert tool["status"] == {"code": "ERROR", "message": "denied"}
    assert tool["attributes"] == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "refund",
        "gen_ai.tool.call.id": "call_0",
        "amounts": [1, 2],
    }
    assert tool["resource"]["service.name"] == "ops-agent"  # type: ignore[index]
    assert tool["scope"] == {"name": "example.agent", "version": "1.2.3"}
    assert tool["events"][0]["name"] == "retry"  # type: ignore[index]
    assert tool["startTimeUnixNano"] == str(sdk_span.start_time)
    receipts = await client.get(
        f"/api/v1/evidence/binders/{iw.binders['otlp']}/receipts", headers=ingest_headers(iw.world.agent_key_a)
    )
    assert receipts.status_code == 200
    [receipt] = receipts.json()["receipts"]
    assert receipt["producerRunId"] == run_id
    assert receipt["attach"] == {"producerId": "structured-ingress", "producerRunId": run_id}
    assert receipt["batchKind"] == "otlp-traces" and receipt["aiSystemId"] == iw.world.system_a


async def test_json_and_gzip_encodings_give_the_same_records(client: httpx.AsyncClient, iw: IntakeWorld) -> None:
    spans = make_spans(4)
    binder_json = (await iw.binder("otlp")).id
    binder_gzip = (await iw.binder("otlp")).id
    as_json = await client.post(
        OTLP_TRACES,
        content=trace_request_json(spans),
        headers=ingest_headers(iw.ingest_key_a, binder_json, **{"Content-Type": "application/json"}),
    )
    assert as_json.status_code == 200, as_json.text
    assert as_json.headers["content-type"] == "application/json"
    # The contract's ingestion receipt, in the body beside the (absent: nothing skipped) partialSuccess.
    receipt = as_json.json()
    assert "partialSuccess" not in receipt
    assert receipt["producerRunId"] == as_json.headers["assay-producer-run-id"]
    assert receipt["status"] == "EVIDENCE_INGESTED" and receipt["batchKind"] == "otlp-traces"
    assert receipt["recordCount"] == 4 and receipt["duplicateCount"] == 0
    assert receipt["contentDigest"] == as_json.headers["assay-content-digest"]
    assert receipt["attach"] == {"producerId": "structured-ingress", "producerRunId": receipt["producerRunId"]}
    assert receipt["binderId"] == binder_json and receipt["aiSystemId"] == iw.world.system_a
    listed = await client.get(
        f"/api/v1/evidence/binders/{binder_json}/receipts", headers=ingest_headers(iw.world.agent_key_a)
    )
    assert listed.json()["receipts"] == [receipt]  # the same receipt the listing gives
    as_gzip = await client.post(
        f"{OTLP_TRACES}?binderId={binder_gzip}",
        content=gzip.compress(trace_request(spans)),
        headers=ingest_headers(iw.ingest_key_a, **PROTOBUF, **{"Content-Encoding": "gzip"}),
    )
    assert as_gzip.status_code == 200, as_gzip.text
    from_json = await _records(iw, as_json.headers["assay-producer-run-id"])
    from_gzip = await _records(iw, as_gzip.headers["assay-producer-run-id"])
    assert from_json == from_gzip and len(from_json) == 4
    assert as_json.headers["assay-content-digest"] == as_gzip.headers["assay-content-digest"]


async def test_resent_spans_are_skipped_as_duplicates_and_reported(client: httpx.AsyncClient, iw: IntakeWorld) -> None:
    body = trace_request(make_spans(3))
    headers = ingest_headers(iw.ingest_key_a, iw.binders["otlp"], **PROTOBUF)
    first = await client.post(OTLP_TRACES, content=body, headers=headers)
    again = await client.post(OTLP_TRACES, content=body, headers=headers)
    assert first.status_code == again.status_code == 200
    assert again.headers["assay-record-count"] == "0"
    assert again.headers["assay-duplicate-count"] == "3"
    answer = ExportTraceServiceResponse.FromString(again.content)
    assert answer.partial_success.rejected_spans == 0
    assert "3 record(s) were already ingested" in answer.partial_success.error_message
    assert await _records(iw, again.headers["assay-producer-run-id"]) == []


async def test_a_json_answer_carries_the_receipt_beside_partial_success(
    client: httpx.AsyncClient, iw: IntakeWorld
) -> None:
    body = trace_request_json(make_spans(2))
    headers = ingest_headers(iw.ingest_key_a, iw.binders["otlp"], **{"Content-Type": "application/json"})
    await client.post(OTLP_TRACES, content=body, headers=headers)
    again = await client.post(OTLP_TRACES, content=body, headers=headers)
    assert again.status_code == 200, again.text
    answer = again.json()
    assert "2 record(s) were already ingested" in answer["partialSuccess"]["errorMessage"]
    assert answer["producerRunId"] == again.headers["assay-producer-run-id"]
    assert (answer["recordCount"], answer["duplicateCount"]) == (0, 2)
    assert answer["status"] == "EVIDENCE_INGESTED"


async def test_metrics_and_logs_routes_take_sdk_requests(client: httpx.AsyncClient, iw: IntakeWorld) -> None:
    from opentelemetry._logs import LogRecord, SeverityNumber
    from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs
    from opentelemetry.exporter.otlp.proto.common.metrics_encoder import encode_metrics
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader

    reader = InMemoryMetricReader()
    meter = MeterProvider(metric_readers=[reader]).get_meter("example.agent")
    meter.create_counter("tool.calls").add(2, {"gen_ai.tool.name": "refund"})
    metrics = reader.get_metrics_data()
    assert metrics is not None
    response = await client.post(
        "/api/otlp/v1/metrics",
        content=encode_metrics(metrics).SerializeToString(),
        headers=ingest_headers(iw.ingest_key_a, iw.binders["otlp"], **PROTOBUF),
    )
    assert response.status_code == 200, response.text
    [metric] = await _records(iw, response.headers["assay-producer-run-id"])
    assert metric["kind"] == "metric" and metric["name"] == "tool.calls" and metric["type"] == "sum"
    assert metric["dataPoints"][0]["attributes"] == {"gen_ai.tool.name": "refund"}  # type: ignore[index]
    assert metric["dataPoints"][0]["asInt"] == "2"  # type: ignore[index]

    exporter = InMemoryLogRecordExporter()
    provider = LoggerProvider()
    provider.add_log_record_processor(SimpleLogRecordProcessor(exporter))
    provider.get_logger("intake-test").emit(
        LogRecord(
            body="refund denied",
            severity_text="WARN",
            severity_number=SeverityNumber.WARN,
            attributes={"log.record.uid": "uid-1"},
        )
    )
    provider.shutdown()
    logs = exporter.get_finished_logs()
    response = await client.post(
        "/api/otlp/v1/logs",
        content=encode_logs(logs).SerializeToString(),
        headers=ingest_headers(iw.ingest_key_a, iw.binders["otlp"], **PROTOBUF),
    )
    assert response.status_code == 200, response.text
    [log] = await _records(iw, response.headers["assay-producer-run-id"])
    assert log["kind"] == "log" and log["body"] == "refund denied" and log["severityText"] == "WARN"
    assert log["attributes"]["log.record.uid"] == "uid-1"  # type: ignore[index]


async def test_spans_held_by_the_binder_are_cut_from_the_stored_request(
    client: httpx.AsyncClient, iw: IntakeWorld
) -> None:
    headers = ingest_headers(iw.ingest_key_a, iw.binders["otlp"], **PROTOBUF)
    earlier = encode_spans(make_spans(3))
    first = await client.post(OTLP_TRACES, content=earlier.SerializeToString(), headers=headers)
    assert first.status_code == 200 and first.headers["assay-record-count"] == "3"
    new_spans = make_spans(2, tool="send_email")
    mixed = encode_spans(new_spans)
    listed = mixed.resource_spans[0].scope_spans[0].spans
    # One span of the earlier batch, and a repeat of a span of this one.
    listed.add().CopyFrom(earlier.resource_spans[0].scope_spans[0].spans[1])
    listed.add().CopyFrom(listed[0])
    response = await client.post(OTLP_TRACES, content=mixed.SerializeToString(), headers=headers)
    assert response.status_code == 200, response.text
    assert (response.headers["assay-record-count"], response.headers["assay-duplicate-count"]) == ("2", "2")
    answer = ExportTraceServiceResponse.FromString(response.content)
    assert "2 record(s) were already ingested" in answer.partial_success.error_message
    # What is stored is the request without them, byte for byte: the digest is the digest of that request.
    alone = trace_request(new_spans)
    assert response.headers["assay-content-digest"] == f"sha256:{hashlib.sha256(alone).hexdigest()}"
    records = await _records(iw, response.headers["assay-producer-run-id"])
    assert [r["attributes"]["gen_ai.tool.name"] for r in records if r["name"] != "invoke_agent ops"] == ["send_email"]  # type: ignore[index]
    assert len(records) == 2
    # A retry of the whole request stores an empty batch; a request the earlier ones never saw, all of it.
    again = await client.post(OTLP_TRACES, content=mixed.SerializeToString(), headers=headers)
    assert (again.headers["assay-record-count"], again.headers["assay-duplicate-count"]) == ("0", "4")
    assert await _records(iw, again.headers["assay-producer-run-id"]) == []
    fresh = await client.post(OTLP_TRACES, content=trace_request(make_spans(2)), headers=headers)
    assert (fresh.headers["assay-record-count"], fresh.headers["assay-duplicate-count"]) == ("2", "0")


async def test_a_request_is_read_in_windows(
    client: httpx.AsyncClient, iw: IntakeWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Windows of 64 KiB over 2 MB of spans in one scope entry, one span larger than a window, a scope
    # header after the spans: the same records as a whole-message parse gives.
    monkeypatch.setattr(otlp_traces, "WINDOW", 64 * 1024)
    request = encode_spans(make_spans(2))
    scope = request.resource_spans[0].scope_spans[0]
    template = scope.spans[1]
    for i in range(8_000):
        span = scope.spans.add()
        span.CopyFrom(template)
        span.span_id = (i + 1).to_bytes(8, "big")
        span.attributes[0].value.string_value = "x" * (200 if i != 6_000 else 100_000)
    scope.schema_url = "https://opentelemetry.io/schemas/1.30.0"  # encoded after the spans (field 3)
    unknown = ScopeSpans(schema_url="x").SerializeToString()  # field 3 of the request: unknown, kept aside
    body = request.SerializeToString() + unknown
    assert len(body) > 2_000_000 and body.index(b"schemas/1.30.0") > len(body) - 100
    binder = (await iw.binder("otlp", max_record_bytes=200_000)).id
    response = await client.post(OTLP_TRACES, content=body, headers=ingest_headers(iw.ingest_key_a, binder, **PROTOBUF))
    assert response.status_code == 200, response.text
    assert response.headers["assay-record-count"] == str(8_002)
    assert response.headers["assay-content-digest"] == f"sha256:{hashlib.sha256(body).hexdigest()}"
    records = await _records(iw, response.headers["assay-producer-run-id"])
    assert [r["spanId"] for r in records[2:]] == [f"{i + 1:016x}" for i in range(8_000)]
    assert len(records[6_002]["attributes"]["gen_ai.operation.name"]) == 100_000  # type: ignore[index,arg-type]
    small = (await iw.binder("otlp", max_record_bytes=50_000)).id
    refused = await client.post(OTLP_TRACES, content=body, headers=ingest_headers(iw.ingest_key_a, small, **PROTOBUF))
    assert refused.status_code == 413 and "Record 6002" in refused.json()["error"]["message"]

"""OTLP/HTTP intake: SDK-encoded traces (protobuf and JSON), gzip, the Export response, receipts, dedupe."""

from __future__ import annotations

import gzip

import httpx
from intake_helpers import (
    OTLP_TRACES,
    PROTOBUF,
    IntakeWorld,
    ingest_headers,
    make_spans,
    trace_request,
    trace_request_json,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from assay.backend.canonical import digest_json
from assay.backend.intake.store import load_ingested_batch


async def _records(iw: IntakeWorld, producer_run_id: str) -> list[dict[str, object]]:
    async with iw.world.sessions() as session:
        batch = await load_ingested_batch(session, iw.world.org_a, producer_run_id)
    assert batch is not None
    return batch.records


async def test_protobuf_traces_are_stored_normalized_with_a_receipt(client: httpx.AsyncClient, iw: IntakeWorld) -> None:
    spans = make_spans(3)
    response = await client.post(
        OTLP_TRACES,
        content=trace_request(spans),
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
    assert response.headers["assay-content-digest"] == digest_json(records)
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
    assert as_json.json() == {}
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

"""OTLP intake figures (issue 14): traces ingested by ``assay serve`` versus decoding the same protobuf.

A request of about ``ASSAY_BENCH_OTLP_MB`` MB (default 100) of GenAI spans (execute_tool spans under
invoke_agent spans, eight attributes each) is built with the ``opentelemetry-proto`` classes. The baseline
decodes it whole with ``ExportTraceServiceRequest.FromString`` (upb, C) in this process; the measured side
POSTs it to ``/api/otlp/v1/traces`` of an ``assay serve`` subprocess (SQLite file, loopback) and waits for
the answer: decoding and checking every span, claiming its event id, and writing the request with its
digest in one transaction (docs/intake.md).
Figures: spans per second of each and their ratio (target >= 0.5), and the server's peak RSS (VmHWM of
the ``assay serve`` process) for the batch (target < 200 MB), beside its RSS before the batch. Then a batch
of 100,000 spans (``ASSAY_BENCH_ATTACH_SPANS``) is ingested and runs of ``examples/ops-agent`` alternate
with and without it attached: the time from create to Evaluation of each (target: attached < 3x plain).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

from bench.http_api import HOST, _admin, _free_port, _wait_ready

ASSAY = [sys.executable, "-m", "assay.server.cli"]
SPANS_PER_TRACE = 10
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "ops-agent"
RUN_PAIRS = 2
TOOLS = ("refund", "send_email", "query_db", "run_shell", "fetch_url")


def _kv(key: str, value: str | int) -> KeyValue:
    if isinstance(value, int):
        return KeyValue(key=key, value=AnyValue(int_value=value))
    return KeyValue(key=key, value=AnyValue(string_value=value))


def build_request(target_bytes: int, id_base: int = 0, spans: int | None = None) -> tuple[bytes, int]:
    """A serialized ExportTraceServiceRequest of about ``target_bytes`` (or of ``spans`` spans), and its span
    count."""
    request = ExportTraceServiceRequest()
    entry = request.resource_spans.add()
    entry.resource.attributes.extend([_kv("service.name", "ops-agent"), _kv("deployment.environment", "bench")])
    scope = entry.scope_spans.add()
    scope.scope.name, scope.scope.version = "bench.agent", "1.0.0"
    template = scope.spans.add()
    template.name = "execute_tool refund"
    template.kind = 1
    template.attributes.extend(
        [
            _kv("gen_ai.operation.name", "execute_tool"),
            _kv("gen_ai.tool.name", "refund"),
            _kv("gen_ai.tool.call.id", "call_000000000000"),
            _kv("gen_ai.tool.type", "function"),
            _kv("gen_ai.tool.call.arguments", '{"order": "A-1234", "amount": 1200, "currency": "EUR"}'),
            _kv("gen_ai.agent.name", "ops"),
            _kv("session.id", "session-0000000000"),
            _kv("attempt", 1),
        ]
    )
    span_size = template.ByteSize() + 40
    count = spans if spans is not None else max(SPANS_PER_TRACE, target_bytes // span_size)
    del scope.spans[:]
    for i in range(count):
        span = scope.spans.add()
        span.CopyFrom(template)
        trace, position = divmod(i, SPANS_PER_TRACE)
        span.trace_id = (id_base + trace + 1).to_bytes(16, "big")
        span.span_id = (id_base + i + 1).to_bytes(8, "big")
        if position == 0:
            span.name = "invoke_agent ops"
            span.attributes[0].value.string_value = "invoke_agent"
        else:
            span.parent_span_id = (id_base + trace * SPANS_PER_TRACE + 1).to_bytes(8, "big")
            tool = TOOLS[i % len(TOOLS)]
            span.name = f"execute_tool {tool}"
            span.attributes[1].value.string_value = tool
            span.attributes[2].value.string_value = f"call_{i:012d}"
        span.start_time_unix_nano = 1_700_000_000_000_000_000 + i * 1000
        span.end_time_unix_nano = span.start_time_unix_nano + 500
    return request.SerializeToString(), count


def _vm(pid: int, field: str) -> int:
    """A VmRSS/VmHWM field of ``/proc/<pid>/status`` in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"{field} not found for {pid}")


def _chunks(body: bytes, size: int = 1 << 20) -> Iterator[bytes]:
    for start in range(0, len(body), size):
        yield body[start : start + size]


def _timed_run(client: httpx.Client, base: str, key: str, body: dict[str, object]) -> float:
    headers = {"Authorization": f"Bearer {key}"}
    started = time.perf_counter()
    created = client.post(f"{base}/api/v1/assurance/runs", json=body, headers=headers)
    assert created.status_code == 202, created.text
    while True:
        run = client.get(
            f"{base}/api/v1/assurance/runs/{created.json()['runId']}", headers={**headers, "Prefer": "wait=20"}
        )
        status = run.json()["status"]
        if status in ("COMPLETED", "FAILED"):
            assert status == "COMPLETED", run.text
            return time.perf_counter() - started


def _attach_figures(
    client: httpx.Client, base: str, db: str, tmp: str, ids: dict[str, str], headers: dict[str, str]
) -> None:
    spans = int(os.environ.get("ASSAY_BENCH_ATTACH_SPANS", "100000"))
    body, _ = build_request(0, id_base=1 << 50, spans=spans)
    response = client.post(f"{base}/api/otlp/v1/traces", content=_chunks(body), headers=headers)
    assert response.status_code == 200, response.text
    repo = Path(tmp) / "ops-agent"
    shutil.copytree(EXAMPLE, repo)
    source = _admin(db, "source", "add", "--org", ids["org"], "--system", ids["system"], "--repo", str(repo))
    _admin(db, "source", "verify", source["sourceAssetId"])
    agent = _admin(db, "key", "create", "--org", ids["org"], "--purpose", "assurance-agent")["apiKey"]
    plain: dict[str, object] = {"aiSystemId": ids["system"], "engines": {"static": {"enabled": True}}}
    attach = {"producerId": "structured-ingress", "producerRunId": response.headers["assay-producer-run-id"]}
    attached = {**plain, "externalEvidenceAttachments": [attach]}
    _timed_run(client, base, agent, plain)  # warm-up
    times: dict[str, list[float]] = {"plain": [], "attached": []}
    for _ in range(RUN_PAIRS):
        times["plain"].append(_timed_run(client, base, agent, plain))
        times["attached"].append(_timed_run(client, base, agent, attached))
    plain_s, attached_s = statistics.median(times["plain"]), statistics.median(times["attached"])
    print(
        f"run of ops-agent: {plain_s:.2f} s; with {int(response.headers['assay-record-count']):,} spans attached: "
        f"{attached_s:.2f} s; ratio {attached_s / plain_s:.2f} (target < 3)"
    )


def run() -> None:
    target = int(float(os.environ.get("ASSAY_BENCH_OTLP_MB", "100")) * 1_000_000)
    body, spans = build_request(target)
    print(f"request: {len(body) / 1e6:.1f} MB protobuf, {spans:,} spans")
    started = time.perf_counter()
    decoded = ExportTraceServiceRequest.FromString(body)
    decode_s = time.perf_counter() - started
    assert len(decoded.resource_spans[0].scope_spans[0].spans) == spans
    del decoded
    with tempfile.TemporaryDirectory() as tmp:
        db = f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}"
        org = _admin(db, "org", "create", "Bench")["organizationId"]
        system = _admin(db, "system", "create", "--org", org, "--name", "Bench agent")["aiSystemId"]
        binder = _admin(
            db, "binder", "create", "--org", org, "--system", system, "--source-system", "bench", "--adapter", "otlp"
        )
        key = _admin(db, "key", "create", "--org", org, "--purpose", "evidence-intake")["apiKey"]
        port = _free_port()
        env = {"ASSAY_DATABASE_URL": db, "ASSAY_DATA_DIR": tmp}
        server = subprocess.Popen(
            [*ASSAY, "serve", "--host", HOST, "--port", str(port)],
            env={**os.environ, **env},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            _wait_ready(port)
            pid = server.pid
            headers = {
                "Authorization": f"Bearer {key}",
                "X-Binder-Id": binder["binderId"],
                "Content-Type": "application/x-protobuf",
            }
            url = f"http://{HOST}:{port}/api/otlp/v1/traces"
            with httpx.Client(timeout=600) as client:
                warm, _ = build_request(200_000, id_base=1 << 40)
                assert client.post(url, content=warm, headers=headers).status_code == 200
                before = _vm(pid, "VmRSS")
                started = time.perf_counter()
                response = client.post(url, content=_chunks(body), headers=headers)
                ingest_s = time.perf_counter() - started
                assert response.status_code == 200, response.text
                assert int(response.headers["assay-record-count"]) == spans
                peak = _vm(pid, "VmHWM")
                ids = {"org": org, "system": system}
                _attach_figures(client, f"http://{HOST}:{port}", db, tmp, ids, headers)
        finally:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
    decode_rate, ingest_rate = spans / decode_s, spans / ingest_s
    print(f"decode alone (FromString): {decode_s:.2f} s, {decode_rate:,.0f} spans/s")
    print(f"ingest (POST -> receipt):  {ingest_s:.2f} s, {ingest_rate:,.0f} spans/s")
    print(f"ratio ingest/decode: {ingest_rate / decode_rate:.3f} (target >= 0.5)")
    print(
        f"assay serve RSS before the batch: {before / 1e6:.0f} MB; peak RSS (VmHWM): {peak / 1e6:.0f} MB (target < 200 MB)"
    )

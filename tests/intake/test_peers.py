"""Real peers against a running ``assay serve``: the OpenTelemetry SDK's own OTLP/HTTP exporters (protobuf,
gzip and JSON) send spans, metrics and logs with the binder in X-Binder-Id; ruff's SARIF is ingested;
a run attaching the batches observes the tool calls."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from intake_helpers import make_spans
from opentelemetry._logs import LogRecord
from opentelemetry.exporter.otlp.json.http.trace_exporter import OTLPSpanExporter as JsonSpanExporter
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace.export import SpanExportResult
from test_structured_log_sarif import ruff_sarif

CLI = [sys.executable, "-m", "assay.server.cli"]
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DEADLINE = 120.0  # bounded, generous for a heavily loaded machine


def _admin(env: dict[str, str], *argv: str) -> dict[str, Any]:
    proc = subprocess.run([*CLI, "admin", *argv, "--json"], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    value: dict[str, Any] = json.loads(proc.stdout)
    return value


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_healthy(server: subprocess.Popen[str], base: str) -> None:
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/healthz", timeout=1.0).status_code == 200:
                return
        except httpx.TransportError:
            pass
        try:
            server.wait(timeout=0.1)
        except subprocess.TimeoutExpired:
            continue
        raise AssertionError(f"assay serve exited early with {server.returncode}")
    raise AssertionError("assay serve did not become healthy in time")


def _logs() -> Any:
    exporter = InMemoryLogRecordExporter()
    provider = LoggerProvider()
    provider.add_log_record_processor(SimpleLogRecordProcessor(exporter))
    provider.get_logger("assay-peer-test").emit(
        LogRecord(body="refund issued", severity_text="WARN", attributes={"log.record.uid": "peer-log-1"})
    )
    provider.shutdown()
    return exporter.get_finished_logs()


@pytest.mark.slow
def test_sdk_exporters_and_ruff_sarif_against_assay_serve(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASSAY_")}
    env["ASSAY_DATA_DIR"] = str(tmp_path / "data")
    org = _admin(env, "org", "create", "Acme")["organizationId"]
    system = _admin(env, "system", "create", "--org", org, "--name", "Ops agent")["aiSystemId"]
    repo = tmp_path / "ops-agent"
    shutil.copytree(EXAMPLES / "ops-agent", repo)
    source = _admin(env, "source", "add", "--org", org, "--system", system, "--repo", str(repo))["sourceAssetId"]
    _admin(env, "source", "verify", source)
    otlp = _admin(
        env, "binder", "create", "--org", org, "--system", system, "--source-system", "ops", "--adapter", "otlp"
    )
    sarif = _admin(
        env, "binder", "create", "--org", org, "--system", system, "--source-system", "ci", "--adapter", "sarif"
    )
    ingest = _admin(env, "key", "create", "--org", org, "--purpose", "evidence-intake")["apiKey"]
    agent = _admin(env, "key", "create", "--org", org, "--purpose", "assurance-agent")["apiKey"]
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [*CLI, "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_healthy(server, base)
        headers = {"Authorization": f"Bearer {ingest}", "X-Binder-Id": otlp["binderId"]}
        traces = f"{base}/api/otlp/v1/traces"
        assert OTLPSpanExporter(endpoint=traces, headers=headers).export(make_spans(3)) == SpanExportResult.SUCCESS
        gzipped = OTLPSpanExporter(endpoint=traces, headers=headers, compression=Compression.Gzip)
        assert gzipped.export(make_spans(2, tool="send_email")) == SpanExportResult.SUCCESS
        assert (
            JsonSpanExporter(endpoint=traces, headers=headers).export(make_spans(2, tool="lookup_order"))
            == SpanExportResult.SUCCESS
        )
        reader = InMemoryMetricReader()
        MeterProvider(metric_readers=[reader]).get_meter("peer").create_counter("tool.calls").add(1)
        metrics = reader.get_metrics_data()
        assert metrics is not None
        metric_exporter = OTLPMetricExporter(endpoint=f"{base}/api/otlp/v1/metrics", headers=headers)
        assert metric_exporter.export(metrics).name == "SUCCESS"
        log_exporter = OTLPLogExporter(endpoint=f"{base}/api/otlp/v1/logs", headers=headers)
        assert log_exporter.export(_logs()).name == "SUCCESS"
        # A wrong binder is refused, and the exporter reports the failure (nothing stored).
        wrong = OTLPSpanExporter(endpoint=traces, headers={**headers, "X-Binder-Id": "bnd_nope"})
        assert wrong.export(make_spans(2)) == SpanExportResult.FAILURE

        sarif_receipt = httpx.post(
            f"{base}/api/ingest/sarif",
            content=ruff_sarif(tmp_path),
            headers={
                "Authorization": f"Bearer {ingest}",
                "X-Binder-Id": sarif["binderId"],
                "Content-Type": "application/sarif+json",
            },
            timeout=30,
        )
        assert sarif_receipt.status_code == 201, sarif_receipt.text

        read = {"Authorization": f"Bearer {agent}"}
        listed = httpx.get(
            f"{base}/api/v1/evidence/binders/{otlp['binderId']}/receipts", headers=read, timeout=10
        ).json()
        kinds = sorted(r["batchKind"] for r in listed["receipts"])
        assert kinds == ["otlp-logs", "otlp-metrics", "otlp-traces", "otlp-traces", "otlp-traces"]
        spans = [r for r in listed["receipts"] if r["batchKind"] == "otlp-traces"]
        assert sum(r["recordCount"] for r in spans) == 7
        attachments = [r["attach"] for r in spans] + [sarif_receipt.json()["attach"]]
        created = httpx.post(
            f"{base}/api/v1/assurance/runs",
            json={
                "aiSystemId": system,
                "engines": {"static": {"enabled": True}},
                "externalEvidenceAttachments": attachments,
            },
            headers=read,
            timeout=30,
        )
        assert created.status_code == 202, created.text
        deadline = time.monotonic() + DEADLINE
        while True:
            run = httpx.get(
                f"{base}/api/v1/assurance/runs/{created.json()['runId']}",
                headers={**read, "Prefer": "wait=5"},
                timeout=30,
            ).json()
            if run["status"] in ("COMPLETED", "FAILED") or time.monotonic() > deadline:
                break
        assert run["status"] == "COMPLETED", run
        report = httpx.get(f"{base}{run['links']['masterReport']}?detail=full", headers=read, timeout=30)
        assert report.status_code == 200
        observed = report.json()["masterReport"]["fourQuestions"]["observed"]
        assert {"refund", "send_email", "lookup_order"} <= {a["tool"] for a in observed["actions"]}
    finally:
        server.terminate()
        try:
            _, stderr = server.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            _, stderr = server.communicate(timeout=5)
    assert ingest not in stderr

"""Runtime evidence in a run (issue 14): create -> poll -> Evaluation for a 20,000-line generated tree with
100,000 attached GenAI spans (20,000 conversations of an agent and four tool calls, ingested once through
the OTLP route beforehand), against the same run without them, alternating in one process.
Target: the run with the spans takes under 3x the run without them (ratio < 3)."""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from assay.backend import provisioning
from assay.backend.intake import binders
from assay.backend.settings import RateLimitSettings, ServiceSettings
from assay.backend.storage.db import sqlite_url_for
from assay.backend.web.app import create_app
from bench.gen_tree import generate

REPEATS = 5
CONVERSATIONS = 20_000
TOOLS = ("lookup", "approve", "apply", "notify")
BATCHES = 5


def _attr(key: str, value: str) -> dict[str, Any]:
    return {"key": key, "value": {"stringValue": value}}


def _batch(first: int, count: int) -> dict[str, Any]:
    """An OTLP/JSON ExportTraceServiceRequest: ``count`` conversations from number ``first`` on."""
    spans = []
    for n in range(first, first + count):
        trace = f"{n + 1:032x}"
        root = f"{n + 1:08x}00000000"
        for i, tool in enumerate(TOOLS, start=1):
            spans.append(
                {
                    "traceId": trace,
                    "spanId": f"{n + 1:08x}{i:08x}",
                    "parentSpanId": root,
                    "name": f"execute_tool {tool}",
                    "kind": 1,
                    "startTimeUnixNano": str(1_700_000_000_000_000_000 + n * 1000 + i),
                    "endTimeUnixNano": str(1_700_000_000_000_000_000 + n * 1000 + i + 1),
                    "attributes": [
                        _attr("gen_ai.operation.name", "execute_tool"),
                        _attr("gen_ai.tool.name", tool),
                        _attr("gen_ai.tool.call.id", f"call_{n}_{i}"),
                    ],
                }
            )
        spans.append(
            {
                "traceId": trace,
                "spanId": root,
                "name": "invoke_agent bench",
                "kind": 1,
                "startTimeUnixNano": str(1_700_000_000_000_000_000 + n * 1000),
                "endTimeUnixNano": str(1_700_000_000_000_000_000 + n * 1000 + 10),
                "attributes": [_attr("gen_ai.operation.name", "invoke_agent")],
            }
        )
    return {
        "resourceSpans": [
            {"resource": {"attributes": [_attr("service.name", "bench")]}, "scopeSpans": [{"spans": spans}]}
        ]
    }


async def _follow(client: httpx.AsyncClient, headers: dict[str, str], body: dict[str, Any]) -> float:
    start = time.perf_counter()
    run_id = (await client.post("/api/v1/assurance/runs", json=body, headers=headers)).json()["runId"]
    waiting = {**headers, "Prefer": "wait=20"}
    deadline = start + 600
    while True:
        run = (await client.get(f"/api/v1/assurance/runs/{run_id}", headers=waiting)).json()
        if run["evaluation"] is not None or run["status"] == "FAILED" or time.perf_counter() > deadline:
            break
    if run["evaluation"] is None:
        raise RuntimeError(f"run {run_id} ended {run['status']} without an Evaluation: {run.get('failure')}")
    return time.perf_counter() - start


async def _alternating(tmp: Path, tree: Path) -> tuple[list[float], list[float], int]:
    settings = ServiceSettings(
        database_url=sqlite_url_for(tmp / "bench.db"), data_dir=tmp, rate_limit=RateLimitSettings(enabled=False)
    )
    app = create_app(settings)
    without: list[float] = []
    with_spans: list[float] = []
    async with app.router.lifespan_context(app):
        async with app.state.services.session_factory() as session:
            org = await provisioning.create_organization(session, "Bench")
            system = await provisioning.create_ai_system(session, org.id, "bench")
            source = await provisioning.add_source(session, org.id, system.id, str(tree))
            await provisioning.verify_source(session, source.id)
            key = await provisioning.create_api_key(session, org.id, purpose="assurance-agent")
            ingest = await provisioning.create_api_key(session, org.id, purpose="evidence-intake")
            binder = await binders.create_binder(
                session, org.id, source_system="bench", adapter_id="otlp", ai_system_id=system.id
            )
            await session.commit()
        headers = {"Authorization": f"Bearer {key.api_key}"}
        plain = {"aiSystemId": system.id, "engines": {"static": {"enabled": True}}}
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://b", timeout=600
        ) as client:
            receipts = []
            per_batch = CONVERSATIONS // BATCHES
            for b in range(BATCHES):
                response = await client.post(
                    "/api/otlp/v1/traces",
                    json=_batch(b * per_batch, per_batch),
                    headers={"Authorization": f"Bearer {ingest.api_key}", "X-Binder-Id": binder.id},
                )
                if response.status_code != 200:
                    raise RuntimeError(f"ingest refused: {response.status_code} {response.text}")
                receipts.append(response.headers["Assay-Producer-Run-Id"])
            attached = {
                **plain,
                "externalEvidenceAttachments": [
                    {"producerId": "structured-ingress", "producerRunId": r} for r in receipts
                ],
            }
            for index in range(REPEATS + 1):
                plain_s = await _follow(client, headers, plain)
                spans_s = await _follow(client, headers, attached)
                if index:  # the first pair warms both up
                    without.append(plain_s)
                    with_spans.append(spans_s)
    return without, with_spans, CONVERSATIONS * (len(TOOLS) + 1)


def run() -> None:
    with tempfile.TemporaryDirectory(prefix="assay-bench-attach-") as name:
        tmp = Path(name)
        tree = tmp / "tree"
        counts = generate(tree, total_lines=20_000)
        without, with_spans, spans = asyncio.run(_alternating(tmp, tree))
        plain_s, spans_s = statistics.median(without), statistics.median(with_spans)
        print(f"tree: {counts['lines']} lines; {spans:,} attached spans; medians over {REPEATS} alternating pairs")
        print(
            f"run without them {plain_s:.2f}s; run with them {spans_s:.2f}s -> ratio {spans_s / plain_s:.2f} "
            f"(target < 3); per pair {' '.join(f'{s / p:.2f}' for p, s in zip(without, with_spans, strict=True))}"
        )

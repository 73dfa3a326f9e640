"""One tree assessed in this process (``bench.large_tree`` runs it): prints one JSON line of figures."""

from __future__ import annotations

import io
import json
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import httpx

from assay.backend.settings import ServiceSettings
from assay.backend.storage.db import sqlite_url_for
from assay.server.embedded import open_embedded
from assay.server.mcp_app import build_mcp_server
from mcp import Client


def _answer(result: Any) -> dict[str, Any]:
    """A tool's answer: its one JSON text block (nothing when the call failed)."""
    text = getattr(result.content[0], "text", "") if result.content else ""
    value = json.loads(text) if text and not result.is_error else {}
    return value if isinstance(value, dict) else {}


async def main(tree: Path) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as work:
        settings = ServiceSettings(database_url=sqlite_url_for(Path(work) / "s.db"), data_dir=Path(work) / "data")
        async with open_embedded(settings, tree, log=io.StringIO()) as service:
            async with Client(build_mcp_server(service.binding)) as client:
                started = time.perf_counter()
                result = await client.call_tool("assay_assess_workspace", {"wait_seconds": 120})
                assessed = time.perf_counter() - started
                data = _answer(result)
                while data.get("status") in ("QUEUED", "RUNNING"):  # a run longer than the tool's wait
                    run = await client.call_tool("assay_get_run", {"run_id": data["runId"], "wait_seconds": 60})
                    data = {**data, **_answer(run)}
                    assessed = time.perf_counter() - started
            evaluation_id = data.get("evaluationId") or (data.get("evaluation") or {}).get("evaluationId")
            if result.is_error or not evaluation_id:
                raise SystemExit(f"the assessment failed: {result.content}")
            async with service.app.state.services.session_factory() as session:
                from assay.backend.storage import models

                row = await session.get(models.Evaluation, evaluation_id)
                payload_bytes = len(row.payload_json.encode()) if row else 0
            http = httpx.AsyncClient(transport=httpx.ASGITransport(app=service.app), base_url="http://b")
            headers = {"Authorization": f"Bearer {service.record.apiKey}"}
            summary_url = f"/api/v1/assurance/evaluations/{evaluation_id}/summary"
            reads, health = [], []
            for _ in range(5):
                t0 = time.perf_counter()
                async with anyio.create_task_group() as tasks:

                    async def probe() -> None:
                        h0 = time.perf_counter()
                        await http.get("/healthz")
                        health.append(time.perf_counter() - h0)

                    tasks.start_soon(probe)
                    assert (await http.get(summary_url, headers=headers)).status_code == 200
                reads.append(time.perf_counter() - t0)
            await http.aclose()
    return {
        "disposition": data.get("disposition"),
        "assess_s": round(assessed, 1),
        "peak_rss_MB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
        "payload_MB": round(payload_bytes / 1e6, 2),
        "summary_read_ms": round(statistics.median(reads) * 1000, 1),
        "healthz_during_read_ms": round(statistics.median(health) * 1000, 1),
    }


if __name__ == "__main__":
    print(json.dumps(anyio.run(main, Path(sys.argv[1]))))

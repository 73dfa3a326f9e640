"""MCP figure (issue 6): median latency of an evaluation summary read through the MCP server over stdio
(remote mode, against `assay serve` on loopback) versus the same read over HTTP, in the same run.
Target: ratio <= 1.5."""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bench.http_api import ASSAY, HOST, _admin, _free_port, _server
from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parents[1]
READS = 60


async def _measure(base: str, key: str, system: str) -> tuple[list[float], list[float]]:
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=60) as http:
        run = (
            await http.post(
                "/api/v1/assurance/runs", json={"aiSystemId": system, "engines": {"static": {"enabled": True}}}
            )
        ).json()
        deadline = time.monotonic() + 120
        while run["evaluation"] is None and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
            run = (await http.get(f"/api/v1/assurance/runs/{run['runId']}")).json()
        evaluation_id = run["evaluation"]["evaluationId"]
        http_times = []
        for _ in range(READS):
            start = time.perf_counter()
            (await http.get(f"/api/v1/assurance/evaluations/{evaluation_id}/summary")).raise_for_status()
            http_times.append(time.perf_counter() - start)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "assay.server.cli", "mcp", "--base-url", base, "--api-key", key, "--system-id", system],
    )
    mcp_times = []
    async with Client(params) as client:
        await client.call_tool("assay_get_summary", {"evaluation_id": evaluation_id})
        for _ in range(READS):
            start = time.perf_counter()
            result = await client.call_tool("assay_get_summary", {"evaluation_id": evaluation_id})
            mcp_times.append(time.perf_counter() - start)
            assert not result.is_error
    return http_times, mcp_times


def run() -> None:
    with tempfile.TemporaryDirectory(prefix="assay-bench-mcp-") as tmp:
        db = f"sqlite+aiosqlite:///{tmp}/bench.db"
        org = _admin(db, "org", "create", "Bench")["organizationId"]
        system = _admin(db, "system", "create", "--org", org, "--name", "research")["aiSystemId"]
        source = _admin(
            db,
            "source",
            "add",
            "--org",
            org,
            "--system",
            system,
            "--repo",
            str(ROOT / "examples" / "research-assistant"),
        )
        _admin(db, "source", "verify", source["sourceAssetId"])
        key = _admin(db, "key", "create", "--org", org, "--purpose", "assurance-agent")["apiKey"]
        port = _free_port()
        serve = [*ASSAY, "serve", "--host", HOST, "--port", str(port), "--database-url", db, "--log-level", "warning"]
        with _server(serve, port, env={"ASSAY_DATA_DIR": tmp}):
            http_times, mcp_times = asyncio.run(_measure(f"http://{HOST}:{port}", key, system))
    h, m = statistics.median(http_times), statistics.median(mcp_times)
    print(
        f"summary read, median of {READS}: HTTP {h * 1000:.1f} ms, MCP over stdio {m * 1000:.1f} ms -> ratio {m / h:.2f} (target <= 1.5)"
    )

"""MCP figure (issue 6): median latency of an evaluation summary read through the MCP server over stdio
versus the same read over HTTP from `assay serve` on loopback, in the same run. Target: ratio <= 1.5.

Two configurations, both with the real stdio server driven by the SDK's client:
- embedded (what `assay mcp` runs with no configuration): the service in the MCP server's process, on
  the same SQLite file that `assay serve` reads for the HTTP side;
- remote (`assay mcp --base-url ... --api-key ...`): every tool call is itself an HTTP read from that
  `assay serve`, so its ratio is 1 plus the MCP hop over the HTTP read.
HTTP and MCP reads alternate one by one, so load from elsewhere on the machine falls on both sides.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bench.http_api import ASSAY, HOST, _free_port, _server
from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parents[1]
READS = 100
WARMUP = 5


async def _alternate(http: httpx.AsyncClient, client: Client, evaluation_id: str) -> tuple[float, float]:
    """Median seconds of READS summary reads over HTTP and through MCP, alternating one by one."""
    path = f"/api/v1/assurance/evaluations/{evaluation_id}/summary"
    arguments = {"evaluation_id": evaluation_id}
    http_times, mcp_times = [], []
    for index in range(WARMUP + READS):
        start = time.perf_counter()
        (await http.get(path)).raise_for_status()
        middle = time.perf_counter()
        result = await client.call_tool("assay_get_summary", arguments)
        end = time.perf_counter()
        assert not result.is_error, result
        if index >= WARMUP:
            http_times.append(middle - start)
            mcp_times.append(end - middle)
    return statistics.median(http_times), statistics.median(mcp_times)


async def _measure(workspace: Path, data_dir: Path, base: str) -> dict[str, tuple[float, float]]:
    embedded = StdioServerParameters(
        command=sys.executable,
        args=["-m", "assay.server.cli", "mcp", "--workspace", str(workspace)],
        env={"ASSAY_DATA_DIR": str(data_dir)},
    )
    async with Client(embedded) as client:
        assessed = await client.call_tool("assay_assess_workspace", {})
        evaluation_id = json.loads(assessed.content[0].text)["evaluationId"]  # type: ignore[union-attr]
        # The key and AI System the embedded server provisioned for the workspace (state file, 0600).
        state = json.loads((data_dir / "mcp-workspaces.json").read_text())
        (record,) = [w for db in state["databases"].values() for w in db["workspaces"].values()]
        headers = {"Authorization": f"Bearer {record['apiKey']}"}
        async with httpx.AsyncClient(base_url=base, headers=headers, timeout=60) as http:
            figures = {"embedded": await _alternate(http, client, evaluation_id)}
            remote = StdioServerParameters(
                command=sys.executable,
                args=["-m", "assay.server.cli", "mcp", "--workspace", str(workspace)],
                env={
                    "ASSAY_BASE_URL": base,
                    "ASSAY_API_KEY": record["apiKey"],
                    "ASSAY_SYSTEM_ID": record["aiSystemId"],
                    "ASSAY_DATA_DIR": str(data_dir / "remote"),
                },
            )
            async with Client(remote) as remote_client:
                figures["remote"] = await _alternate(http, remote_client, evaluation_id)
    return figures


def run() -> None:
    with tempfile.TemporaryDirectory(prefix="assay-bench-mcp-") as name:
        tmp = Path(name)
        workspace = tmp / "research-assistant"
        shutil.copytree(ROOT / "examples" / "research-assistant", workspace)
        data_dir = tmp / "data"
        data_dir.mkdir()
        port = _free_port()
        db = f"sqlite+aiosqlite:///{data_dir / 'assay.db'}"
        serve = [*ASSAY, "serve", "--host", HOST, "--port", str(port), "--database-url", db, "--log-level", "warning"]
        with _server(serve, port, env={"ASSAY_DATA_DIR": str(data_dir)}):
            figures = asyncio.run(_measure(workspace, data_dir, f"http://{HOST}:{port}"))
    print(f"summary read, medians of {READS} alternating reads (MCP over stdio vs HTTP from assay serve):")
    for mode, (h, m) in figures.items():
        print(f"  {mode:9} MCP {m * 1000:.2f} ms, HTTP {h * 1000:.2f} ms -> ratio {m / h:.2f} (target <= 1.5)")

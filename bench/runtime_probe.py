"""Runtime engine figures (issue 22), measured alternately in one run against the same server.

- Catalogue suite on a 200-tool stdio server (``bench.runtime_server``): the whole probe (recorded session
  with every message kept, then the Evaluation computed from the recording with every suite) against the
  raw listing calls alone (the SDK's own ``Client`` over ``StdioServerParameters``: initialize, tools/list),
  each started afresh, medians of ``ASSAY_BENCH_RUNTIME_ROUNDS`` (default 5) alternating rounds. Target:
  probe <= 2x the raw listing.
- Peak RSS over 1,000 probe requests: one session listing 100 tools over 1,000 pages (1,000 tools/list
  requests), beside the same 100 tools over 100 pages, each in a fresh subprocess; VmHWM of that process.
  Target: flat (the 1,000-request session within 10% of the 100-request one).
- Not compared here (issue 22 asks for it): cisco-ai-mcp-scanner and snyk-agent-scan, which are not
  installed by this project.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import anyio

from assay.backend.evaluation.membership import make_membership
from assay.backend.evaluation.methodology import evaluate
from assay.backend.runtime.probe import ProbeTarget, record_session, recording_item
from assay.backend.runtime.transport import Limits
from mcp import Client, StdioServerParameters

# By path: the probe starts servers in a throwaway directory with a minimal environment.
SERVER = [sys.executable, str(Path(__file__).resolve().parent / "runtime_server.py")]
ROOT = str(Path(__file__).resolve().parents[1])
LIMITS = Limits(max_requests=1100, timeout_seconds=120, max_bytes=64 << 20, max_message_bytes=8 << 20, max_pages=1100)


async def _raw(tools: int) -> float:
    started = time.perf_counter()
    params = StdioServerParameters(command=SERVER[0], args=[*SERVER[1:], str(tools)], cwd=ROOT)
    async with Client(params, mode="legacy", cache=None) as client:
        listed = await client.list_tools()
    assert len(listed.tools) == tools
    return time.perf_counter() - started


async def _probe(tools: int, pages: int = 1) -> tuple[float, int]:
    started = time.perf_counter()
    argv = [*SERVER, str(tools), str(pages)]
    recording = await record_session(
        ProbeTarget("mcp-command", " ".join(argv), argv), ["catalogue", "poisoning", "annotations"], LIMITS
    )
    payload = evaluate(make_membership([recording_item(recording)]), ai_system_id="sys_bench", jurisdiction=None)
    assert payload.data["runtime"]["recordings"][0]["counts"]["tool"] == tools
    return time.perf_counter() - started, len(recording["exchanges"])


def _peak_rss(pages: int) -> int:
    code = (
        "import anyio, bench.runtime_probe as b; anyio.run(b._probe, "
        f"100, {pages}); print(open('/proc/self/status').read().split('VmHWM:')[1].split()[0])"
    )
    env = {**os.environ, "PYTHONPATH": ROOT}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    return int(out.stdout.split()[-1])


def run() -> None:
    rounds = int(os.environ.get("ASSAY_BENCH_RUNTIME_ROUNDS", "5"))
    raw, probe = [], []
    for _ in range(rounds):
        raw.append(anyio.run(_raw, 200))
        probe.append(anyio.run(_probe, 200)[0])
    raw_s, probe_s = statistics.median(raw), statistics.median(probe)
    print(
        f"catalogue suite, 200 tools: probe {probe_s * 1000:.0f} ms, raw listing {raw_s * 1000:.0f} ms, "
        f"ratio {probe_s / raw_s:.2f} (target <= 2.00; medians of {rounds} alternating rounds)"
    )
    small, large = _peak_rss(100), _peak_rss(1000)
    print(
        f"peak RSS: 100 requests {small / 1024:.1f} MB, 1,000 requests {large / 1024:.1f} MB, "
        f"ratio {large / small:.2f} (target <= 1.10)"
    )
    print(json.dumps({"probeSeconds": probe_s, "rawSeconds": raw_s, "rssKb100": small, "rssKb1000": large}))

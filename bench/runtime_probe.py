"""Runtime engine figures (issue 22), measured alternately in one run against the same server.

- Catalogue suite on a 200-tool stdio server (``bench.runtime_server``): the whole probe (recorded session
  with every message kept, then the Evaluation computed from the recording with every suite) against the
  raw listing calls alone (the SDK's own ``Client`` over ``StdioServerParameters``: initialize, tools/list),
  each started afresh, medians of ``ASSAY_BENCH_RUNTIME_ROUNDS`` (default 5) alternating rounds. Target:
  probe <= 2x the raw listing.
- Peak RSS over 1,000 probe requests: one session listing 100 tools over 1,000 pages (1,000 tools/list
  requests), beside the same 100 tools over 100 pages, each in a fresh subprocess; VmHWM of that process.
  Target: flat (the 1,000-request session within 10% of the 100-request one).
- Against cisco-ai-mcp-scanner's offline YARA analyzer (installed by ``make bench-peers`` into
  ``.bench-peers-venv``; skipped when absent): ``assay probe`` (default suites, embedded service, a fresh
  data directory) and ``mcp-scanner --analyzers yara stdio`` on the npm server-everything, alternating,
  each a whole CLI process; wall seconds and what each flags. Target: assay no slower. snyk-agent-scan is
  not compared (it needs its cloud API).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
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


ROOT_PATH = Path(ROOT)
CISCO = ROOT_PATH / ".bench-peers-venv" / "bin" / "mcp-scanner"
EVERYTHING = (
    ROOT_PATH
    / "tests"
    / "runtime"
    / "peers"
    / "node_modules"
    / "@modelcontextprotocol"
    / "server-everything"
    / "dist"
    / "index.js"
)


def _timed(argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600, check=False)
    return time.perf_counter() - started, done.stdout


def _assay_once() -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as data:
        env = {**os.environ, "ASSAY_DATA_DIR": data}
        seconds, out = _timed(
            [sys.executable, "-m", "assay.server.cli", "probe", "--command", f"node {EVERYTHING}", "--json"], env
        )
    return seconds, int(json.loads(out)["runtime"]["targets"][0]["ruleHits"])


def _cisco_once() -> tuple[float, int]:
    argv = [str(CISCO), "--analyzers", "yara", "--format", "raw", "stdio", "--stdio-command", "node"]
    seconds, out = _timed([*argv, "--stdio-arg", str(EVERYTHING)], dict(os.environ))
    return seconds, sum(1 for r in json.loads(out)["scan_results"] if not r["is_safe"])


def compare_cisco(rounds: int | None = None) -> None:
    """Whole CLI processes on the npm server-everything, alternating which goes first each round (ABBA),
    so load that drifts during the run falls on both alike; per-round ratios and the median ratio."""
    if not CISCO.exists() or not EVERYTHING.exists():
        print("cisco-ai-mcp-scanner comparison skipped (make bench-peers, make peers)")
        return
    rounds = rounds or int(os.environ.get("ASSAY_BENCH_PEER_ROUNDS", "4"))
    _assay_once(), _cisco_once()  # warm-up: node's and Python's caches, not counted
    ours, theirs = [], []
    flagged_ours = flagged_theirs = 0
    for index in range(rounds):
        order = [_assay_once, _cisco_once] if index % 2 == 0 else [_cisco_once, _assay_once]
        measured = {f: f() for f in order}
        (mine, flagged_ours), (peer, flagged_theirs) = measured[_assay_once], measured[_cisco_once]
        ours.append(mine)
        theirs.append(peer)
        print(f"  round {index + 1}: assay probe {mine:.2f} s, mcp-scanner yara {peer:.2f} s, ratio {mine / peer:.2f}")
    print(
        f"server-everything: assay probe {statistics.median(ours):.2f} s ({flagged_ours} rule hits), "
        f"mcp-scanner yara {statistics.median(theirs):.2f} s ({flagged_theirs} unsafe items); median ratio "
        f"{statistics.median(m / p for m, p in zip(ours, theirs, strict=True)):.2f} "
        f"(target <= 1.00; {rounds} alternating rounds after a warm-up pair)"
    )


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
    compare_cisco()

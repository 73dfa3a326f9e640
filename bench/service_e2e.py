"""Service figure (issue 4): end to end on the embedded default, create -> poll -> Evaluation for a
20,000-line generated repository, against the static scan alone of the same tree in the same run.
Target: the service adds at most 30% over the scan (ratio <= 1.3).

The run is followed as the MCP tools follow one: each read of it asks the service to answer when the run
moves on (``Prefer: wait``), so the Evaluation is seen the moment it is persisted. The scan alone and the
end-to-end run alternate (scan, run, scan, run, ...) in one process, so load from
elsewhere on the machine (or file pages evicted between reads) falls on both sides; each pair's ratio
is printed to show the spread."""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from assay.backend import provisioning
from assay.backend.engines.static.scan import scan_tree
from assay.backend.settings import RateLimitSettings, ServiceSettings
from assay.backend.storage.db import sqlite_url_for
from assay.backend.web.app import create_app
from bench.gen_tree import generate

REPEATS = 7


async def _alternating(tmp: Path, tree: Path) -> tuple[list[float], list[float]]:
    """Seconds of REPEATS static scans alone and REPEATS runs, alternating (after one warm-up of each)."""
    settings = ServiceSettings(
        database_url=sqlite_url_for(tmp / "bench.db"), data_dir=tmp, rate_limit=RateLimitSettings(enabled=False)
    )
    app = create_app(settings)
    scans: list[float] = []
    runs: list[float] = []
    async with app.router.lifespan_context(app):
        async with app.state.services.session_factory() as session:
            org = await provisioning.create_organization(session, "Bench")
            system = await provisioning.create_ai_system(session, org.id, "bench")
            source = await provisioning.add_source(session, org.id, system.id, str(tree))
            await provisioning.verify_source(session, source.id)
            key = await provisioning.create_api_key(session, org.id, purpose="assurance-agent")
            await session.commit()
        headers = {"Authorization": f"Bearer {key.api_key}"}
        body = {"aiSystemId": system.id, "engines": {"static": {"enabled": True}}}
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://b") as client:
            for index in range(REPEATS + 1):
                start = time.perf_counter()
                scan_tree(tree)
                scanned = time.perf_counter() - start
                start = time.perf_counter()
                run_id = (await client.post("/api/v1/assurance/runs", json=body, headers=headers)).json()["runId"]
                deadline = start + 300
                # Each read is answered when the run moves on (Prefer: wait), as the MCP tools follow a run.
                waiting = {**headers, "Prefer": "wait=20"}
                while True:
                    run = (await client.get(f"/api/v1/assurance/runs/{run_id}", headers=waiting)).json()
                    if run["evaluation"] is not None or run["status"] == "FAILED" or time.perf_counter() > deadline:
                        break
                if run["evaluation"] is None:
                    raise RuntimeError(f"run {run_id} ended {run['status']} without an Evaluation")
                if index:  # the first pair warms both up
                    scans.append(scanned)
                    runs.append(time.perf_counter() - start)
    return scans, runs


def run() -> None:
    with tempfile.TemporaryDirectory(prefix="assay-bench-e2e-") as name:
        tmp = Path(name)
        tree = tmp / "tree"
        counts = generate(tree, total_lines=20_000)
        scans, runs = asyncio.run(_alternating(tmp, tree))
        scan_s, e2e_s = statistics.median(scans), statistics.median(runs)
        print(f"tree: {counts['lines']} lines; medians over {REPEATS} alternating pairs")
        print(
            f"static scan alone {scan_s:.2f}s; create -> poll -> Evaluation {e2e_s:.2f}s -> ratio {e2e_s / scan_s:.2f} "
            f"(target <= 1.3); per pair {' '.join(f'{r / s:.2f}' for s, r in zip(scans, runs, strict=True))}"
        )

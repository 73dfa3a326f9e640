"""A provisioned ``assay serve`` subprocess on loopback, for the benchmarks that measure it from outside:
one organization, an AI System with a verified source (a one-file tree), an assurance-agent key, an
evidence-intake key and a binder per intake adapter."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from assay.backend import provisioning
from assay.backend.intake.binders import create_binder
from assay.backend.settings import ServiceSettings
from assay.backend.storage.db import sqlite_url_for
from assay.backend.web.app import create_app
from bench.http_api import HOST, _free_port

ASSAY = [sys.executable, "-m", "assay.server.cli"]
ADAPTERS = ("structured", "log", "otlp")


@dataclass(frozen=True)
class Served:
    base: str
    pid: int
    system: str
    agent: dict[str, str]
    intake: dict[str, str]
    binders: dict[str, str]

    def _status(self, field: str) -> int:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) * 1024
        raise RuntimeError(f"no {field}")

    def rss_bytes(self) -> int:
        """The server's resident set size now (VmRSS)."""
        return self._status("VmRSS")

    def peak_rss_bytes(self) -> int:
        """The server's peak resident set size so far (VmHWM)."""
        return self._status("VmHWM")


async def _provision(data_dir: Path, tree: Path) -> tuple[str, str, str, dict[str, str]]:
    app = create_app(ServiceSettings(database_url=sqlite_url_for(data_dir / "assay.db"), run_workers=0))
    async with app.router.lifespan_context(app), app.state.services.session_factory() as session:
        org = await provisioning.create_organization(session, "Bench")
        system = await provisioning.create_ai_system(session, org.id, "bench")
        source = await provisioning.add_source(session, org.id, system.id, str(tree))
        await provisioning.verify_source(session, source.id)
        agent = await provisioning.create_api_key(session, org.id, purpose="assurance-agent")
        intake = await provisioning.create_api_key(session, org.id, purpose="evidence-intake")
        binders = {
            name: (await create_binder(session, org.id, source_system=name, adapter_id=name, ai_system_id=system.id)).id
            for name in ADAPTERS
        }
        await session.commit()
    return system.id, agent.api_key, intake.api_key, binders


@contextmanager
def served(tmp: Path) -> Iterator[Served]:
    """``assay serve --workers 0`` (no run executes: reads see queued runs) on a free port, provisioned."""
    tree = tmp / "tree"
    tree.mkdir()
    (tree / "agent.py").write_text("import subprocess\n\ndef run(cmd):\n    return subprocess.run(cmd)\n")
    data_dir = tmp / "data"
    system, agent, intake, binders = asyncio.run(_provision(data_dir, tree))
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASSAY_")}
    env |= {"ASSAY_DATA_DIR": str(data_dir), "ASSAY_RATE_LIMIT_BURST": "0"}
    command = [*ASSAY, "serve", "--host", HOST, "--port", str(port), "--workers", "0", "--log-level", "warning"]
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://{HOST}:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("assay serve did not start")
            time.sleep(0.1)
        yield Served(
            base,
            proc.pid,
            system,
            {"Authorization": f"Bearer {agent}"},
            {"Authorization": f"Bearer {intake}"},
            binders,
        )
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()

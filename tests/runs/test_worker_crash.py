"""A worker killed mid-run (SIGKILL, as a crash) does not leave the run running forever: once its lease
expires another worker process picks the run up again and completes it, as docs/runs.md describes."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from runs_helpers import STATIC, bind, copy_example, create, provision_world

from assay.backend.settings import RateLimitSettings, ServiceSettings
from assay.backend.storage.db import sqlite_url_for
from assay.backend.web.app import create_app

pytestmark = pytest.mark.slow
WRAPPER = Path(__file__).with_name("blocking_worker.py")
WORKER_ARGS = ["worker", "--lease-seconds", "1", "--poll-seconds", "0.1"]


def _status(db: Path, run_id: str) -> tuple[str, int, str | None, str | None]:
    with sqlite3.connect(db) as connection:
        row = connection.execute(
            "SELECT status, attempts, evaluation_id, claimed_by FROM assurance_run WHERE id=?", (run_id,)
        ).fetchone()
    return str(row[0]), int(row[1]), row[2], row[3]


def _until(predicate: Callable[[], bool], seconds: float, process: subprocess.Popen[bytes]) -> None:
    """Wait for ``predicate`` within ``seconds``; fail at once if the worker process died."""
    deadline = time.monotonic() + seconds
    while not predicate():
        if process.poll() is not None:
            raise AssertionError(f"worker exited early with {process.returncode}: {process.stderr}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"condition not met within {seconds}s")
        time.sleep(0.02)


def _create_run(db: Path, tree_parent: Path) -> str:
    """Provision a world and create one run through the API, with no worker in the process."""
    settings = ServiceSettings(
        database_url=sqlite_url_for(db), run_workers=0, rate_limit=RateLimitSettings(enabled=False)
    )

    async def go() -> str:
        app = create_app(settings)
        async with app.router.lifespan_context(app):
            world = await provision_world(app.state.services.session_factory)
            await bind(world.sessions, world.org_a, world.system_a, copy_example("research-assistant", tree_parent))
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
                created = await create(client, world.agent_key_a, {"aiSystemId": world.system_a, **STATIC})
        assert created.status_code == 202, created.text
        run_id: str = created.json()["runId"]
        return run_id

    return asyncio.run(go())


def test_killed_worker_run_is_recovered_by_another(tmp_path: Path) -> None:
    db = tmp_path / "svc.db"
    url = sqlite_url_for(db)
    run_id = _create_run(db, tmp_path)
    marker = tmp_path / "entered"

    crashing = subprocess.Popen(
        [sys.executable, str(WRAPPER), str(marker), *WORKER_ARGS, "--database-url", url], stderr=subprocess.PIPE
    )
    try:
        _until(marker.exists, 120, crashing)  # inside the static engine, mid-run
        status, attempts, _, crashed_worker = _status(db, run_id)
        assert (status, attempts) == ("RUNNING", 1) and crashed_worker is not None
    finally:
        crashing.send_signal(signal.SIGKILL)
        crashing.wait(timeout=30)
    assert _status(db, run_id)[:2] == ("RUNNING", 1)  # the crash left it claimed, under a lease

    recovering = subprocess.Popen(
        [sys.executable, "-m", "assay.server.cli", *WORKER_ARGS, "--database-url", url], stderr=subprocess.PIPE
    )
    try:
        _until(lambda: _status(db, run_id)[0] in ("COMPLETED", "FAILED"), 120, recovering)
    finally:
        recovering.terminate()
        recovering.wait(timeout=30)
    status, attempts, evaluation_id, claimed_by = _status(db, run_id)
    assert (status, attempts) == ("COMPLETED", 2)
    assert evaluation_id is not None and claimed_by not in (None, crashed_worker)

"""A worker killed mid-run (SIGKILL, as a crash) does not leave the run running forever: once its lease
expires another worker picks the run up again and completes it, as docs/runs.md describes."""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from bench.gen_tree import generate

from assay.backend import models, provisioning
from assay.backend.db import create_engine, create_session_factory, sqlite_url_for
from assay.backend.migrations import upgrade_database
from assay.backend.runs.plan import RunPlan

pytestmark = pytest.mark.slow


def _status(db: Path, run_id: str) -> tuple[str, int, str | None]:
    with sqlite3.connect(db) as connection:
        row = connection.execute(
            "SELECT status, attempts, evaluation_id FROM assurance_run WHERE id=?", (run_id,)
        ).fetchone()
    return str(row[0]), int(row[1]), row[2]


def _until(predicate: Callable[[], bool], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(f"condition not met within {seconds}s")
        time.sleep(0.05)


def _worker(db_url: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "assay.server.cli",
            "worker",
            "--database-url",
            db_url,
            "--lease-seconds",
            "1",
            "--poll-seconds",
            "0.1",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def test_killed_worker_run_is_recovered_by_another(tmp_path: Path) -> None:
    db = tmp_path / "svc.db"
    url = sqlite_url_for(db)
    upgrade_database(url)
    tree = tmp_path / "tree"
    generate(tree, total_lines=30_000)

    async def provision() -> tuple[str, str]:
        engine = create_engine(url)
        sessions = create_session_factory(engine)
        async with sessions() as session:
            org = await provisioning.create_organization(session, "Crash")
            system = await provisioning.create_ai_system(session, org.id, "Big agent")
            plan = RunPlan(system.id, "api", None, str(tree), None, None)
            session.add(
                models.Run(
                    id="run_crash000000000001",
                    organization_id=org.id,
                    ai_system_id=system.id,
                    api_key_id="k",
                    request_json="{}",
                    plan_json=json.dumps(plan.to_json()),
                    static_execution_mode="api",
                )
            )
            await session.commit()
        await engine.dispose()
        return org.id, system.id

    asyncio.run(provision())
    run_id = "run_crash000000000001"
    first = _worker(url)
    try:
        _until(lambda: _status(db, run_id)[0] == "RUNNING", 60)
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
    status, attempts, _ = _status(db, run_id)
    assert (status, attempts) == ("RUNNING", 1)  # the crash left it claimed

    second = _worker(url)
    try:
        _until(lambda: _status(db, run_id)[0] in ("COMPLETED", "FAILED"), 120)
    finally:
        second.terminate()
        second.wait(timeout=30)
    status, attempts, evaluation_id = _status(db, run_id)
    assert (status, attempts) == ("COMPLETED", 2)
    assert evaluation_id is not None

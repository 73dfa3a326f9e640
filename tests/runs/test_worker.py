"""The worker in process: engine failures name the engine, abandoned runs are recovered as documented,
a stopped worker hands its run back, leases are renewed, and run creation wakes the embedded worker."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from runs_helpers import STATIC, bind, copy_example, create, wait
from service_helpers import World
from sqlalchemy import update
from starlette.applications import Starlette

from assay.backend.engines.static import scan as static_scan
from assay.backend.runs import worker as worker_module
from assay.backend.runs.worker import Worker
from assay.backend.settings import ServiceSettings
from assay.backend.storage import models
from assay.backend.web.app import create_app


@pytest.fixture
def settings(settings: ServiceSettings) -> ServiceSettings:
    return replace(settings, run_workers=0)


@pytest.fixture
def blocked_scan(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[threading.Event, threading.Event]]:
    """The static engine blocks until released: (entered, release)."""
    entered, release = threading.Event(), threading.Event()
    real = static_scan.scan_tree_canonical

    def blocking(root: Path, **kwargs: Any) -> Any:
        entered.set()
        release.wait(30)
        return real(root, **kwargs)

    monkeypatch.setattr(static_scan, "scan_tree_canonical", blocking)
    yield entered, release
    release.set()


async def _run(world: World, run_id: str) -> models.Run:
    async with world.sessions() as session:
        run = await session.get(models.Run, run_id)
    assert run is not None
    return run


async def _queued(client: httpx.AsyncClient, world: World, tmp_path: Path, example: str = "research-assistant") -> str:
    await bind(world.sessions, world.org_a, world.system_a, copy_example(example, tmp_path))
    created = await create(client, world.agent_key_a, {"aiSystemId": world.system_a, **STATIC})
    assert created.status_code == 202, created.text
    run_id: str = created.json()["runId"]
    return run_id


async def test_a_source_gone_before_execution_fails_the_static_engine(
    client: httpx.AsyncClient, world: World, tmp_path: Path, settings: ServiceSettings
) -> None:
    run_id = await _queued(client, world, tmp_path)
    (tmp_path / "research-assistant").rename(tmp_path / "moved")
    assert await Worker(world.sessions, settings).run_once()
    done = await wait(client, world.agent_key_a, run_id)
    assert done["status"] == "FAILED" and done["stage"] is None and done["completedAt"] is not None
    assert done["failure"]["engine"] == "static" and done["failure"]["code"] == "SOURCE_UNAVAILABLE"
    assert done["failure"]["retryable"] is True
    assert done["evaluation"] is None and done["links"]["summary"] is None


async def test_an_engine_crash_fails_the_run_naming_the_engine(
    client: httpx.AsyncClient, world: World, tmp_path: Path, settings: ServiceSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(root: Path, **kwargs: Any) -> Any:
        raise RuntimeError("parser exploded")

    monkeypatch.setattr(static_scan, "scan_tree_canonical", broken)
    run_id = await _queued(client, world, tmp_path)
    assert await Worker(world.sessions, settings).run_once()
    failure = (await wait(client, world.agent_key_a, run_id))["failure"]
    assert failure == {
        "code": "RUN_FAILED",
        "engine": "static",
        "message": "The static engine failed (RuntimeError).",
        "retryable": True,
    }


async def test_an_evaluation_failure_names_the_evaluation(
    client: httpx.AsyncClient, world: World, tmp_path: Path, settings: ServiceSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("no evidence")

    monkeypatch.setattr(worker_module, "evaluate", refuse)
    run_id = await _queued(client, world, tmp_path)
    assert await Worker(world.sessions, settings).run_once()
    failure = (await wait(client, world.agent_key_a, run_id))["failure"]
    assert (failure["engine"], failure["code"], failure["retryable"]) == ("evaluation", "RUN_FAILED", False)


async def test_abandoned_runs_are_requeued_once_then_failed_retryable(
    client: httpx.AsyncClient, world: World, tmp_path: Path, settings: ServiceSettings
) -> None:
    run_id = await _queued(client, world, tmp_path)
    dead = Worker(world.sessions, settings, worker_id="wrk_dead")
    assert await dead.claim() == run_id
    live = Worker(world.sessions, settings, worker_id="wrk_live")
    await live.recover()
    assert (await _run(world, run_id)).status == "RUNNING"  # its lease is still valid: left alone

    async def expire() -> None:
        async with world.sessions() as session:
            past = models.utcnow() - timedelta(seconds=1)
            await session.exec(update(models.Run).values(lease_expires_at=past))
            await session.commit()

    await expire()
    await live.recover()
    run = await _run(world, run_id)
    assert (run.status, run.attempts, run.claimed_by, run.stage) == ("QUEUED", 1, None, None)
    assert run.started_at is not None  # it keeps the time it first started

    assert await dead.claim() == run_id  # the second attempt dies too
    await expire()
    await live.recover()
    done = await wait(client, world.agent_key_a, run_id)
    assert done["status"] == "FAILED" and done["evaluation"] is None
    assert done["failure"]["code"] == "RUN_FAILED" and done["failure"]["retryable"] is True
    assert done["failure"]["engine"] is None and "interrupted" in done["failure"]["message"]


async def test_a_stopped_worker_hands_its_run_back(
    client: httpx.AsyncClient,
    world: World,
    tmp_path: Path,
    settings: ServiceSettings,
    blocked_scan: tuple[threading.Event, threading.Event],
) -> None:
    entered, release = blocked_scan
    run_id = await _queued(client, world, tmp_path)
    worker = Worker(world.sessions, replace(settings, run_lease_seconds=0.3))
    first_lease = None
    with anyio.fail_after(20):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(worker.run_once)
            assert await anyio.to_thread.run_sync(entered.wait, 20)
            first_lease = (await _run(world, run_id)).lease_expires_at
            # The heartbeat renews the lease while the engine works.
            while True:
                if (await _run(world, run_id)).lease_expires_at != first_lease:
                    break
                await anyio.sleep(0.02)
            tasks.cancel_scope.cancel()
    run = await _run(world, run_id)
    assert (run.status, run.attempts, run.claimed_by, run.lease_expires_at) == ("QUEUED", 0, None, None)
    release.set()
    # The next worker runs it to the end.
    assert await Worker(world.sessions, settings).run_once()
    assert (await wait(client, world.agent_key_a, run_id))["status"] == "COMPLETED"


async def test_run_creation_wakes_the_embedded_worker(world: World, settings: ServiceSettings, tmp_path: Path) -> None:
    # A poll interval far beyond the deadline: only the wake-up on creation can finish the run in time.
    app: Starlette = create_app(replace(settings, run_workers=1, worker_poll_seconds=600))
    async with app.router.lifespan_context(app):
        await bind(world.sessions, world.org_a, world.system_a, copy_example("research-assistant", tmp_path))
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            created = await create(client, world.agent_key_a, {"aiSystemId": world.system_a, **STATIC})
            done = await wait(client, world.agent_key_a, created.json()["runId"], seconds=20)
    assert done["status"] == "COMPLETED"


async def test_the_embedded_worker_releases_its_run_on_shutdown(
    world: World, settings: ServiceSettings, tmp_path: Path, blocked_scan: tuple[threading.Event, threading.Event]
) -> None:
    entered, _ = blocked_scan
    app: Starlette = create_app(replace(settings, run_workers=1))
    async with app.router.lifespan_context(app):
        await bind(world.sessions, world.org_a, world.system_a, copy_example("research-assistant", tmp_path))
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            created = await create(client, world.agent_key_a, {"aiSystemId": world.system_a, **STATIC})
        assert await anyio.to_thread.run_sync(entered.wait, 20)
    run = await _run(world, created.json()["runId"])
    assert (run.status, run.claimed_by) == ("QUEUED", None)

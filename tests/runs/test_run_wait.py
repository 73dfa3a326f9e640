"""GET /assurance/runs/{runId} with ``Prefer: wait=N``: the answer comes when the run moves on (its
status or stage changes), so a client follows a run in one request per state instead of a poll loop."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import anyio
import httpx
import pytest
from runs_helpers import RUNS, STATIC, bind, copy_example, create, provision_world, wait
from service_helpers import World, bearer

from assay.backend.runs.worker import Worker
from assay.backend.settings import ServiceSettings
from assay.backend.web.app import create_app

TERMINAL = ("COMPLETED", "FAILED")


async def _queued(client: httpx.AsyncClient, world: World, tmp_path: Path) -> str:
    await bind(world.sessions, world.org_a, world.system_a, copy_example("research-assistant", tmp_path))
    created = await create(client, world.agent_key_a, {"aiSystemId": world.system_a, **STATIC})
    assert created.status_code == 202, created.text
    run_id: str = created.json()["runId"]
    return run_id


async def _follow(client: httpx.AsyncClient, key: str, run_id: str) -> list[tuple[str, str | None]]:
    """Waiting GETs until the run ends: the (status, stage) each one answered."""
    seen: list[tuple[str, str | None]] = []
    while not seen or seen[-1][0] not in TERMINAL:
        response = await client.get(f"{RUNS}/{run_id}", headers={**bearer(key), "Prefer": "wait=20"})
        assert response.status_code == 200, response.text
        assert response.headers["Preference-Applied"] == "wait=20"
        seen.append((response.json()["status"], response.json()["stage"]))
    return seen


async def test_each_waiting_read_answers_the_next_state_of_a_run(
    client: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    run_id = await _queued(client, world, tmp_path)
    with anyio.fail_after(30):
        seen = await _follow(client, world.agent_key_a, run_id)
    assert seen[-1] == ("COMPLETED", None)
    # Every answer came because the run moved on, never because the wait ran out.
    assert all(before != after for before, after in itertools.pairwise(seen))
    assert len(seen) <= 4  # RUNNING static, RUNNING evaluation, COMPLETED (and QUEUED if read first)


@pytest.fixture
async def no_worker_app(settings: ServiceSettings) -> AsyncIterator[tuple[httpx.AsyncClient, World]]:
    """The service without its in-process worker: runs wait for a worker of another process."""
    app = create_app(replace(settings, run_workers=0))
    async with app.router.lifespan_context(app):
        world = await provision_world(app.state.services.session_factory)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://assay.test") as http:
            yield http, world


async def test_a_waiting_read_sees_a_run_another_process_executes(
    no_worker_app: tuple[httpx.AsyncClient, World], settings: ServiceSettings, tmp_path: Path
) -> None:
    client, world = no_worker_app
    run_id = await _queued(client, world, tmp_path)
    outside = Worker(world.sessions, settings)  # announces nothing to the app's waiting requests
    with anyio.fail_after(30):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(outside.run_once)
            seen = await _follow(client, world.agent_key_a, run_id)
    assert seen[-1] == ("COMPLETED", None)
    assert all(before != after for before, after in itertools.pairwise(seen))


async def test_a_wait_that_runs_out_answers_the_unchanged_run(
    no_worker_app: tuple[httpx.AsyncClient, World], tmp_path: Path
) -> None:
    client, world = no_worker_app
    run_id = await _queued(client, world, tmp_path)
    with anyio.fail_after(10):
        response = await client.get(f"{RUNS}/{run_id}", headers={**bearer(world.agent_key_a), "Prefer": "wait=1"})
    assert response.status_code == 200 and response.json()["status"] == "QUEUED"
    assert response.headers["Preference-Applied"] == "wait=1"


async def test_an_ended_run_answers_at_once_and_odd_preferences_are_read_as_the_rfc_says(
    client: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    run_id = await _queued(client, world, tmp_path)
    done = await wait(client, world.agent_key_a, run_id)
    for prefer, applied in [
        ("wait=999", "wait=20"),  # capped
        ("wait=" + "9" * 5000, "wait=20"),  # capped, not a 500 (int() refuses over 4,300 digits)
        ("respond-async, wait=5", "wait=5"),
        ('wait="3"', "wait=3"),
        ("wait=soon", None),  # not understood: ignored
        ("return=minimal", None),
    ]:
        with anyio.fail_after(2):
            response = await client.get(f"{RUNS}/{run_id}", headers={**bearer(world.agent_key_a), "Prefer": prefer})
        assert response.status_code == 200 and response.json() == done
        assert response.headers.get("Preference-Applied") == applied


async def test_a_waiting_read_of_a_foreign_run_is_the_same_404(
    client: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    run_id = await _queued(client, world, tmp_path)
    with anyio.fail_after(2):
        response = await client.get(f"{RUNS}/{run_id}", headers={**bearer(world.agent_key_b), "Prefer": "wait=20"})
    assert response.status_code == 404 and response.json()["error"]["code"] == "RUN_NOT_FOUND"

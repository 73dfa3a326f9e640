"""Idempotency-Key on run creation: scoped to organization + API key, 24 hours; the same payload replays
200 with the run's CURRENT envelope, a different payload is 409; 50 simultaneous requests make one run."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from runs_helpers import RUNS, STATIC, bind, copy_example, create, wait
from service_helpers import World, assert_error, bearer
from sqlalchemy import update

from assay.backend.runs.worker import Worker
from assay.backend.settings import ServiceSettings
from assay.backend.storage import models


@pytest.fixture
def settings(settings: ServiceSettings) -> ServiceSettings:
    # Runs stay QUEUED (no worker): the race below measures run creation only.
    return replace(settings, run_workers=0)


async def _total(client: httpx.AsyncClient, key: str) -> int:
    total: int = (await client.get(RUNS, headers=bearer(key))).json()["total"]
    return total


async def test_replay_and_conflict(client: httpx.AsyncClient, world: World, tmp_path: Path) -> None:
    key = world.agent_key_a
    await bind(world.sessions, world.org_a, world.system_a, copy_example("research-assistant", tmp_path))
    body = {"aiSystemId": world.system_a, **STATIC}
    first = await create(client, key, body, **{"Idempotency-Key": "k1"})
    assert first.status_code == 202 and first.json()["status"] == "QUEUED"
    # The replay shows the run as it is now, not as it was.
    async with world.sessions() as session:
        await session.exec(update(models.Run).values(status="RUNNING", stage="static"))
        await session.commit()
    # Member order and whitespace do not make a different payload.
    reordered = {"engines": {"static": {"enabled": True}}, "aiSystemId": world.system_a}
    replay = await create(client, key, reordered, **{"Idempotency-Key": "k1"})
    assert replay.status_code == 200
    assert replay.json()["runId"] == first.json()["runId"] and replay.json()["status"] == "RUNNING"
    for other in ({**body, "jurisdiction": "eu_ai_act"}, {"aiSystemId": world.system_a, "engines": {"static": {}}}):
        assert_error(await create(client, key, other, **{"Idempotency-Key": "k1"}), 409, "IDEMPOTENCY_CONFLICT")
    assert await _total(client, key) == 1
    # Another key of the same organization has its own key space.
    other_key = await world.key(["scan:create", "scan:read"])
    fresh = await create(client, other_key, body, **{"Idempotency-Key": "k1"})
    assert fresh.status_code == 202 and fresh.json()["runId"] != first.json()["runId"]
    assert_error(await create(client, key, body, **{"Idempotency-Key": ""}), 400, "INVALID_REQUEST")


async def test_a_refused_request_is_not_remembered(client: httpx.AsyncClient, world: World, tmp_path: Path) -> None:
    key = world.agent_key_a
    body = {"aiSystemId": world.system_a, **STATIC}
    assert_error(await create(client, key, body, **{"Idempotency-Key": "k2"}), 400, "SOURCE_NOT_VERIFIED")
    await bind(world.sessions, world.org_a, world.system_a, copy_example("research-assistant", tmp_path))
    assert (await create(client, key, body, **{"Idempotency-Key": "k2"})).status_code == 202


async def test_keys_expire_after_24_hours(client: httpx.AsyncClient, world: World, tmp_path: Path) -> None:
    key = world.agent_key_a
    await bind(world.sessions, world.org_a, world.system_a, copy_example("research-assistant", tmp_path))
    body = {"aiSystemId": world.system_a, **STATIC}
    first = await create(client, key, body, **{"Idempotency-Key": "k3"})
    async with world.sessions() as session:
        old = models.utcnow() - timedelta(hours=24, seconds=1)
        await session.exec(update(models.IdempotencyRecord).values(created_at=old))
        await session.commit()
    later = await create(client, key, {**body, "jurisdiction": "nyc_ll144"}, **{"Idempotency-Key": "k3"})
    assert later.status_code == 202 and later.json()["runId"] != first.json()["runId"]


async def test_fifty_simultaneous_identical_requests_create_one_run(
    client: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    key = world.agent_key_a
    await bind(world.sessions, world.org_a, world.system_a, copy_example("research-assistant", tmp_path))
    body = {"aiSystemId": world.system_a, **STATIC}
    responses = await asyncio.gather(*(create(client, key, body, **{"Idempotency-Key": "race"}) for _ in range(50)))
    assert all(r.status_code in (200, 202) for r in responses), [r.text for r in responses if r.status_code >= 300]
    assert len({r.json()["runId"] for r in responses}) == 1
    assert sum(r.status_code == 202 for r in responses) == 1
    assert await _total(client, key) == 1


async def test_replay_after_completion_carries_the_evaluation(
    client: httpx.AsyncClient, world: World, tmp_path: Path, settings: ServiceSettings
) -> None:
    """The replay of a finished run shows its Evaluation and filled links."""
    await bind(world.sessions, world.org_a, world.system_a, copy_example("research-assistant", tmp_path))
    body = {"aiSystemId": world.system_a, **STATIC}
    first = await create(client, world.agent_key_a, body, **{"Idempotency-Key": "k4"})
    assert await Worker(world.sessions, settings).run_once()
    done = await wait(client, world.agent_key_a, first.json()["runId"])
    replay = await create(client, world.agent_key_a, body, **{"Idempotency-Key": "k4"})
    assert replay.status_code == 200 and replay.json() == done
    assert done["status"] == "COMPLETED" and done["links"]["summary"] is not None

"""Runs on PostgreSQL (asyncpg): the chain, the immutability triggers, the 50-way idempotency race, and
concurrent claims (FOR UPDATE SKIP LOCKED) that never hand one run to two workers. Own database per test;
skipped when no server is reachable (ASSAY_TEST_POSTGRES_URL)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
from runs_helpers import STATIC, bind, copy_example, create, provision_world, wait
from service_helpers import bearer
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from assay.backend.runs.worker import Worker
from assay.backend.settings import RateLimitSettings, ServiceSettings
from assay.backend.web.app import create_app

pytestmark = pytest.mark.postgres


@pytest.fixture
def pg_settings(pg_url: str) -> ServiceSettings:
    return ServiceSettings(database_url=pg_url, rate_limit=RateLimitSettings(enabled=False))


async def test_chain_immutability_and_concurrent_claims(pg_settings: ServiceSettings, tmp_path: Path) -> None:
    app = create_app(pg_settings)
    async with app.router.lifespan_context(app):
        world = await provision_world(app.state.services.session_factory)
        await bind(world.sessions, world.org_a, world.system_a, copy_example("ops-agent", tmp_path))
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://pg") as client:
            created = await create(client, world.agent_key_a, {"aiSystemId": world.system_a, **STATIC})
            done = await wait(client, world.agent_key_a, created.json()["runId"])
            assert done["status"] == "COMPLETED" and done["evaluation"]["disposition"] == "BLOCK"
            summary = await client.get(done["links"]["summary"], headers=bearer(world.agent_key_a))
            assert summary.status_code == 200 and summary.json()["disposition"] == "BLOCK"
        evaluation_id = done["evaluation"]["evaluationId"]
        for statement in (
            "UPDATE evaluation SET disposition='ALLOW' WHERE id=:id",
            "DELETE FROM evaluation WHERE id=:id",
            "UPDATE evaluation_evidence SET kind='x' WHERE evaluation_id=:id",
            "DELETE FROM evaluation_evidence WHERE evaluation_id=:id",
        ):
            with pytest.raises(DBAPIError, match="immutable"):
                async with app.state.services.engine.begin() as connection:
                    await connection.execute(text(statement), {"id": evaluation_id})

    # Eight queued runs, four workers claiming at once: every run is claimed exactly once.
    quiet = create_app(replace(pg_settings, run_workers=0))
    async with quiet.router.lifespan_context(quiet):
        sessions = quiet.state.services.session_factory
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=quiet), base_url="http://pg") as client:
            ids = {
                (await create(client, world.agent_key_a, {"aiSystemId": world.system_a, **STATIC})).json()["runId"]
                for _ in range(8)
            }
        workers = [Worker(sessions, pg_settings, worker_id=f"wrk_{n}") for n in range(4)]

        async def claim_all(worker: Worker) -> list[str]:
            claimed = []
            while (run_id := await worker.claim()) is not None:
                claimed.append(run_id)
            return claimed

        results = await asyncio.gather(*(claim_all(w) for w in workers))
    flat = [run_id for claimed in results for run_id in claimed]
    assert sorted(flat) == sorted(ids)


async def test_fifty_simultaneous_identical_requests_create_one_run(
    pg_settings: ServiceSettings, tmp_path: Path
) -> None:
    app = create_app(replace(pg_settings, run_workers=0))
    async with app.router.lifespan_context(app):
        world = await provision_world(app.state.services.session_factory)
        await bind(world.sessions, world.org_a, world.system_a, copy_example("research-assistant", tmp_path))
        body = {"aiSystemId": world.system_a, **STATIC}
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://pg") as client:
            responses = await asyncio.gather(
                *(create(client, world.agent_key_a, body, **{"Idempotency-Key": "race"}) for _ in range(50))
            )
            listing = (await client.get("/api/v1/assurance/runs", headers=bearer(world.agent_key_a))).json()
    assert all(r.status_code in (200, 202) for r in responses), [r.text for r in responses if r.status_code >= 300]
    assert sum(r.status_code == 202 for r in responses) == 1
    assert len({r.json()["runId"] for r in responses}) == 1 and listing["total"] == 1

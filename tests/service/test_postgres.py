"""The service on PostgreSQL (asyncpg): migrations, provisioning, submission, isolation. Own database per run."""

from __future__ import annotations

import httpx
import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from service_bundles import make_submission
from service_helpers import World, assert_error, bearer
from sqlalchemy.engine import Connection
from sqlmodel import SQLModel

from assay.backend import provisioning
from assay.backend.settings import ServiceSettings
from assay.backend.web.app import create_app

pytestmark = pytest.mark.postgres


def _diff(connection: Connection) -> list[object]:
    return list(
        compare_metadata(MigrationContext.configure(connection, opts={"compare_type": True}), SQLModel.metadata)
    )


async def test_service_on_postgresql(pg_url: str) -> None:
    app = create_app(ServiceSettings(database_url=pg_url))
    async with app.router.lifespan_context(app):
        engine = app.state.services.engine
        async with engine.connect() as connection:
            assert await connection.run_sync(_diff) == []
        world = World(sessions=app.state.services.session_factory)
        async with world.sessions() as session:
            org_a = await provisioning.create_organization(session, "Acme")
            org_b = await provisioning.create_organization(session, "Globex")
            world.org_a, world.org_b = org_a.id, org_b.id
            world.system_a = (await provisioning.create_ai_system(session, org_a.id, "Ops")).id
            world.system_b = (await provisioning.create_ai_system(session, org_b.id, "Theirs")).id
            await session.commit()
        key_a = await world.key(["system:read", "scan:submit", "scan:read", "source:read"])
        key_b = await world.key(["scan:submit", "scan:read"], org=world.org_b)
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://pg") as client:
            systems = await client.get("/api/v1/systems", headers=bearer(key_a))
            assert [s["aiSystemId"] for s in systems.json()["systems"]] == [world.system_a]
            assert systems.json()["systems"][0]["createdAt"].endswith("Z")
            headers = {**bearer(key_a), "Idempotency-Key": "pg-1"}
            first = await client.post("/api/v1/scans", json=make_submission(world.system_a), headers=headers)
            assert first.status_code == 201, first.text
            replay = await client.post("/api/v1/scans", json=make_submission(world.system_a), headers=headers)
            assert replay.content == first.content
            conflict = await client.post(
                "/api/v1/scans", json=make_submission(world.system_a, origin="ide"), headers=headers
            )
            assert_error(conflict, 409, "IDEMPOTENCY_CONFLICT")
            scan_id = first.json()["scanId"]
            assert (await client.get(f"/api/v1/scans/{scan_id}", headers=bearer(key_a))).status_code == 200
            foreign = await client.get(f"/api/v1/scans/{scan_id}", headers=bearer(key_b))
            missing = await client.get("/api/v1/scans/scan_00000000000000000000", headers=bearer(key_b))
            assert foreign.status_code == 404 and foreign.content == missing.content
            async with world.sessions() as session:
                await provisioning.revoke_api_key(session, world.key_ids[key_a])
                await session.commit()
            assert_error(await client.get("/api/v1/systems", headers=bearer(key_a)), 401, "UNAUTHORIZED")

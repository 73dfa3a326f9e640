"""Fixtures of the run tests: settings -> database (a migrated SQLite file) -> app (lifespan entered, so
its in-process worker runs) -> httpx client, and a provisioned world of two organizations.

The world is the service tests' (``tests/service/service_helpers.py``), shared rather than copied.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "service"))

from service_helpers import World

from assay.backend import provisioning
from assay.backend.app import create_app
from assay.backend.db import SessionFactory, sqlite_url_for
from assay.backend.migrations import upgrade_database
from assay.backend.settings import RateLimitSettings, ServiceSettings


@pytest.fixture(scope="session")
def runs_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database at the newest migration, made once and copied per test (keeps the suite fast)."""
    path = tmp_path_factory.mktemp("runs-template") / "template.db"
    upgrade_database(sqlite_url_for(path))
    return path


@pytest.fixture
def settings(tmp_path: Path, runs_template: Path) -> ServiceSettings:
    database = tmp_path / "service.db"
    shutil.copyfile(runs_template, database)
    # Tests poll runs many times; rate limiting has its own tests (tests/service/test_ratelimit.py).
    return ServiceSettings(
        database_url=sqlite_url_for(database),
        data_dir=tmp_path,
        rate_limit=RateLimitSettings(enabled=False),
    )


@pytest.fixture
async def app(settings: ServiceSettings) -> AsyncIterator[Starlette]:
    application = create_app(settings)
    # httpx.ASGITransport does not run the lifespan (which starts the worker): enter it here.
    async with application.router.lifespan_context(application):
        yield application


@pytest.fixture
async def client(app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://assay.test") as http:
        yield http


async def provision_world(sessions: SessionFactory) -> World:
    """Organizations A and B, AI Systems (two in A, one in B) and an assurance-agent key for each."""
    world = World(sessions=sessions)
    async with sessions() as session:
        org_a = await provisioning.create_organization(session, "Acme")
        org_b = await provisioning.create_organization(session, "Globex")
        world.org_a, world.org_b = org_a.id, org_b.id
        world.system_a = (await provisioning.create_ai_system(session, org_a.id, "Ops agent")).id
        world.system_a2 = (await provisioning.create_ai_system(session, org_a.id, "Support agent")).id
        world.system_b = (await provisioning.create_ai_system(session, org_b.id, "Globex agent")).id
        a = await provisioning.create_api_key(session, org_a.id, purpose="assurance-agent")
        b = await provisioning.create_api_key(session, org_b.id, purpose="assurance-agent")
        await session.commit()
    world.agent_key_a, world.agent_key_b = a.api_key, b.api_key
    world.key_ids[a.api_key], world.key_ids[b.api_key] = a.record.id, b.record.id
    return world


@pytest.fixture
async def world(app: Starlette) -> World:
    return await provision_world(app.state.services.session_factory)

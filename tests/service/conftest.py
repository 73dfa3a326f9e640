"""Fixtures: settings -> database (a temporary SQLite file) -> app (lifespan entered) -> httpx client."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from service_helpers import World
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from assay.backend import provisioning
from assay.backend.settings import RateLimitSettings, ServiceSettings
from assay.backend.storage.db import SessionFactory, sqlite_url_for
from assay.backend.storage.migrations import upgrade_database
from assay.backend.web.app import create_app
from assay.backend.web.routing import RequestContext, RouteSpec


async def _boom(request: Request, ctx: RequestContext) -> Response:
    raise RuntimeError("secret internal detail 7c1f")


async def _limited(request: Request, ctx: RequestContext) -> Response:
    return JSONResponse({"ok": True})


# Test-only routes: an unexpected exception, and a rate-limited route (the contract rate-limits only the
# run routes, which arrive with the next issue; the mechanism is the same).
TEST_ROUTES = [
    RouteSpec("GET", "/api/v1/_test/boom", _boom, operation_id="testBoom", summary="raises", scope="system:read"),
    RouteSpec(
        "GET",
        "/api/v1/_test/limited",
        _limited,
        operation_id="testLimited",
        summary="rate limited",
        scope="system:read",
        rate_limited=True,
    ),
]
RATE_LIMIT_BURST = 3


@pytest.fixture(scope="session")
def migrated_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database at the newest migration, made once and copied per test (keeps the suite fast)."""
    path = tmp_path_factory.mktemp("template") / "template.db"
    upgrade_database(sqlite_url_for(path))
    return path


@pytest.fixture
def settings(tmp_path: Path, migrated_template: Path) -> ServiceSettings:
    database = tmp_path / "service.db"
    shutil.copyfile(migrated_template, database)
    return ServiceSettings(
        database_url=sqlite_url_for(database),
        data_dir=tmp_path,
        # A bucket that does not refill within a test: the fourth request is refused, deterministically.
        rate_limit=RateLimitSettings(burst=RATE_LIMIT_BURST, per_second=0.001),
        max_scan_body_bytes=256 * 1024,
    )


@pytest.fixture
async def app(settings: ServiceSettings) -> AsyncIterator[Starlette]:
    application = create_app(settings, extra_routes=TEST_ROUTES)
    # httpx.ASGITransport does not run the lifespan: enter it here.
    async with application.router.lifespan_context(application):
        yield application


@pytest.fixture
async def client(app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://assay.test") as http:
        yield http


@pytest.fixture
async def world(app: Starlette) -> World:
    sessions: SessionFactory = app.state.services.session_factory
    w = World(sessions=sessions)
    async with sessions() as session:
        org_a = await provisioning.create_organization(session, "Acme")
        org_b = await provisioning.create_organization(session, "Globex")
        w.org_a, w.org_b = org_a.id, org_b.id
        w.system_a = (await provisioning.create_ai_system(session, org_a.id, "Ops agent", criticality="high")).id
        w.system_a2 = (await provisioning.create_ai_system(session, org_a.id, "Support agent")).id
        w.system_b = (await provisioning.create_ai_system(session, org_b.id, "Globex agent")).id
        await session.commit()
    async with sessions() as session:
        a = await provisioning.create_api_key(session, w.org_a, purpose="assurance-agent")
        b = await provisioning.create_api_key(session, w.org_b, purpose="assurance-agent")
        await session.commit()
    w.agent_key_a, w.agent_key_b = a.api_key, b.api_key
    w.key_ids[a.api_key], w.key_ids[b.api_key] = a.record.id, b.record.id
    return w

"""Fixtures: settings -> database (a temporary SQLite file) -> app (lifespan entered) -> httpx client."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from service_helpers import RATE_LIMIT_BURST, World
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from assay.backend import provisioning
from assay.backend.settings import RateLimitSettings, ServiceSettings
from assay.backend.storage.db import SessionFactory, sqlite_url_for
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


@pytest.fixture
def settings(tmp_path: Path, service_db: Path) -> ServiceSettings:
    return ServiceSettings(
        database_url=sqlite_url_for(service_db),
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

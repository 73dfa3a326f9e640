"""The dashboard's people, sessions and throttling on PostgreSQL (asyncpg): the scaled-out deployment, where
every replica reads sessions and failed sign-ins from the same database."""

from __future__ import annotations

import httpx
import pytest
from dashboard_helpers import add_user, session_cookie, sign_in
from sqlmodel import select

from assay.backend import provisioning
from assay.backend.dashboard import sessions
from assay.backend.settings import RateLimitSettings, ServiceSettings
from assay.backend.storage.models import DashboardSession, LoginFailure
from assay.backend.web.app import create_app

pytestmark = pytest.mark.postgres


async def test_sign_in_sessions_and_throttling_on_postgresql(pg_url: str) -> None:
    settings = ServiceSettings(database_url=pg_url, rate_limit=RateLimitSettings(enabled=False))
    # Two apps on one database stand for two replicas.
    first, second = create_app(settings), create_app(settings)
    async with first.router.lifespan_context(first), second.router.lifespan_context(second):
        sessions_of = first.state.services.session_factory
        async with sessions_of() as session:
            acme = await provisioning.create_organization(session, "Acme")
            system = await provisioning.create_ai_system(session, acme.id, "Ops <agent>")
            await session.commit()
        await add_user(sessions_of, acme.id, "ann@acme.example")
        one = httpx.AsyncClient(transport=httpx.ASGITransport(app=first), base_url="http://assay.test")
        two = httpx.AsyncClient(transport=httpx.ASGITransport(app=second), base_url="http://assay.test")
        async with one, two:
            assert (await sign_in(one, "ann@acme.example")).status_code == 303
            # The session made by one replica opens pages on the other.
            two.cookies.set("assay_session", session_cookie(one) or "", domain="assay.test")
            home = await two.get("/dashboard")
            assert home.status_code == 200 and "Ops &lt;agent&gt;" in home.text
            assert (await two.get(f"/dashboard/systems/{system.id}")).status_code == 200
            # Failures counted on one replica throttle sign-in on the other.
            for _ in range(sessions.MAX_FAILURES_PER_EMAIL):
                assert (await sign_in(one, "ann@acme.example", "not the password!")).status_code == 401
            assert (await sign_in(two, "ann@acme.example")).status_code == 429
        async with sessions_of() as session:
            assert len((await session.exec(select(LoginFailure))).all()) == sessions.MAX_FAILURES_PER_EMAIL
            assert len((await session.exec(select(DashboardSession))).all()) == 1

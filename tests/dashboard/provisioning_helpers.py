"""Helpers of the provisioning page tests: an owner of organization A, a browser signed in with its CSRF
token, and the rows the pages wrote."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from dashboard_helpers import add_user, csrf_of, sign_in
from service_helpers import World
from sqlmodel import select
from starlette.applications import Starlette

from assay.backend.storage.models import AiSystem, SourceAsset

OWNER = "olive@acme.example"


async def add_owner(world: World) -> str:
    await add_user(world.sessions, world.org_a, OWNER, role="owner")
    return OWNER


def browser(app: Starlette) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://assay.test")


@asynccontextmanager
async def signed_in(app: Starlette, email: str) -> AsyncIterator[tuple[httpx.AsyncClient, str]]:
    """A browser signed in as ``email``, and its session's CSRF token."""
    async with browser(app) as client:
        assert (await sign_in(client, email)).status_code == 303
        home = await client.get("/dashboard")
        yield client, csrf_of(home.text)


async def systems_of(world: World, org: str) -> list[AiSystem]:
    async with world.sessions() as session:
        return list((await session.exec(select(AiSystem).where(AiSystem.organization_id == org))).all())


async def sources_of(world: World, system: str) -> list[SourceAsset]:
    async with world.sessions() as session:
        return list((await session.exec(select(SourceAsset).where(SourceAsset.ai_system_id == system))).all())

"""Fixtures of the dashboard tests: the runs suite's settings and world (two organizations, systems and
keys), plus a user in each organization."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from starlette.applications import Starlette

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "service"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runs"))

from dashboard_helpers import People, add_user
from runs_helpers import provision_world
from service_helpers import World

from assay.backend.settings import RateLimitSettings, ServiceSettings
from assay.backend.storage.db import sqlite_url_for


@pytest.fixture
def settings(tmp_path: Path, service_db: Path) -> ServiceSettings:
    return ServiceSettings(
        database_url=sqlite_url_for(service_db),
        data_dir=tmp_path,
        rate_limit=RateLimitSettings(enabled=False),
    )


@pytest.fixture
async def world(app: Starlette) -> World:
    return await provision_world(app.state.services.session_factory)


@pytest.fixture
async def people(world: World) -> People:
    people = People()
    await add_user(world.sessions, world.org_a, people.ann)
    await add_user(world.sessions, world.org_b, people.bob)
    return people

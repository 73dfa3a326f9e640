"""Fixtures of the intake tests: the run tests' app, client and world (two organizations), plus binders
and an intake key per organization."""

from __future__ import annotations

import shutil
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "service"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runs"))

from intake_helpers import MAX_BODY, IntakeWorld, provision_intake
from runs_helpers import provision_world

from assay.backend.settings import RateLimitSettings, ServiceSettings
from assay.backend.storage.db import sqlite_url_for
from assay.backend.storage.migrations import upgrade_database
from assay.backend.web.app import create_app


@pytest.fixture(scope="session")
def intake_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("intake-template") / "template.db"
    upgrade_database(sqlite_url_for(path))
    return path


@pytest.fixture
def settings(tmp_path: Path, intake_template: Path) -> ServiceSettings:
    database = tmp_path / "service.db"
    shutil.copyfile(intake_template, database)
    return ServiceSettings(
        database_url=sqlite_url_for(database),
        data_dir=tmp_path,
        rate_limit=RateLimitSettings(enabled=False),
        max_intake_body_bytes=MAX_BODY,
        max_sarif_body_bytes=MAX_BODY,
    )


@pytest.fixture
async def app(settings: ServiceSettings) -> AsyncIterator[Starlette]:
    application = create_app(settings)
    async with application.router.lifespan_context(application):
        yield application


@pytest.fixture
async def client(app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://assay.test") as http:
        yield http


@pytest.fixture
async def iw(app: Starlette) -> IntakeWorld:
    world = await provision_world(app.state.services.session_factory)
    return await provision_intake(world)

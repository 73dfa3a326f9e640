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

from runs_helpers import provision_world
from service_helpers import World

from assay.backend.settings import RateLimitSettings, ServiceSettings
from assay.backend.storage.db import sqlite_url_for
from assay.backend.storage.migrations import upgrade_database
from assay.backend.web.app import create_app


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


@pytest.fixture
async def world(app: Starlette) -> World:
    return await provision_world(app.state.services.session_factory)

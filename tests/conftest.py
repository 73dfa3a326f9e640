"""Fixtures shared by the suites that run the service.

- ``service_db``: a fresh SQLite database at the newest migration for each test (the migrations run once
  per session, into a template that each test copies).
- ``app`` and ``client``: the app built from the suite's own ``settings`` fixture, its lifespan entered
  (``httpx.ASGITransport`` does not run it, and it starts the in-process run worker), and an httpx client
  on it. A suite that needs another app (``tests/service`` adds test-only routes) defines its own.
- ``pg_url``: a new PostgreSQL database for the test, dropped after it; the test is skipped when no
  server answers at ``ASSAY_TEST_POSTGRES_URL`` (default: the local server's ``test`` database).
"""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg  # type: ignore[import-untyped]
import httpx
import pytest
from sqlalchemy.engine import make_url
from starlette.applications import Starlette

from assay.backend.settings import ServiceSettings
from assay.backend.storage.db import sqlite_url_for
from assay.backend.storage.migrations import upgrade_database
from assay.backend.web.app import create_app

ADMIN_URL = os.environ.get("ASSAY_TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test")


@pytest.fixture(scope="session")
def migrated_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("template") / "template.db"
    upgrade_database(sqlite_url_for(path))
    return path


@pytest.fixture
def service_db(tmp_path: Path, migrated_template: Path) -> Path:
    database = tmp_path / "service.db"
    shutil.copyfile(migrated_template, database)
    return database


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
async def pg_url() -> AsyncIterator[str]:
    url = make_url(ADMIN_URL)
    dsn = url.set(drivername="postgresql").render_as_string(hide_password=False)
    try:
        admin = await asyncpg.connect(dsn, timeout=5)
    except (OSError, asyncpg.PostgresError) as exc:
        pytest.skip(f"PostgreSQL not reachable at {url.render_as_string()}: {exc}")
    name = f"assay_test_{secrets.token_hex(6)}"
    await admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()

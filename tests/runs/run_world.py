"""The run tests' settings (no rate limit; the database, app and client are ``tests/conftest.py``'s) and a
provisioned world of two organizations, as fixtures a suite's conftest imports rather than copies."""

from __future__ import annotations

from pathlib import Path

import pytest
from runs_helpers import provision_world
from service_helpers import World
from starlette.applications import Starlette

from assay.backend.settings import RateLimitSettings, ServiceSettings
from assay.backend.storage.db import sqlite_url_for


@pytest.fixture
def settings(tmp_path: Path, service_db: Path) -> ServiceSettings:
    # Tests poll runs many times; rate limiting has its own tests (tests/service/test_ratelimit.py).
    return ServiceSettings(
        database_url=sqlite_url_for(service_db),
        data_dir=tmp_path,
        rate_limit=RateLimitSettings(enabled=False),
    )


@pytest.fixture
async def world(app: Starlette) -> World:
    return await provision_world(app.state.services.session_factory)

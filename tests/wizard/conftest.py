"""Fixtures of the wizard tests: the run tests' settings and world (two organizations), shared not copied."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from starlette.applications import Starlette

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "service"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runs"))

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

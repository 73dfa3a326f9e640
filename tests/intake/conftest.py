"""Fixtures of the intake tests: their settings (intake body limits; the database, app and client are
``tests/conftest.py``'s), and the run tests' world (two organizations) with binders and an intake key per
organization."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from starlette.applications import Starlette

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "service"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runs"))

from intake_helpers import MAX_BODY, IntakeWorld, provision_intake
from runs_helpers import provision_world

from assay.backend.settings import RateLimitSettings, ServiceSettings
from assay.backend.storage.db import sqlite_url_for


@pytest.fixture
def settings(tmp_path: Path, service_db: Path) -> ServiceSettings:
    return ServiceSettings(
        database_url=sqlite_url_for(service_db),
        data_dir=tmp_path,
        rate_limit=RateLimitSettings(enabled=False),
        max_intake_body_bytes=MAX_BODY,
        max_sarif_body_bytes=MAX_BODY,
    )


@pytest.fixture
async def iw(app: Starlette) -> IntakeWorld:
    world = await provision_world(app.state.services.session_factory)
    return await provision_intake(world)

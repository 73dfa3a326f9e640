"""Fixtures of the dashboard tests: the run tests' settings and world (two organizations, systems and
keys), shared not copied, plus a user in each organization."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "service"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runs"))

from browser_world import browser, served, served_env
from dashboard_helpers import People, add_user
from run_world import settings, world
from service_helpers import World

__all__ = ["browser", "people", "served", "served_env", "settings", "world"]


@pytest.fixture
async def people(world: World) -> People:
    people = People()
    await add_user(world.sessions, world.org_a, people.ann)
    await add_user(world.sessions, world.org_b, people.bob)
    return people

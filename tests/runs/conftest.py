"""Fixtures of the run tests: their settings and a provisioned world of two organizations (run_world.py,
which the wizard and dashboard suites import too; the world is ``tests/service/service_helpers.py``'s)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "service"))

from run_world import settings, world

__all__ = ["settings", "world"]

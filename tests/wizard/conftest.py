"""Fixtures of the wizard tests: the run tests' settings and world (two organizations), shared not copied."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "service"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runs"))

from run_world import settings, world

__all__ = ["settings", "world"]

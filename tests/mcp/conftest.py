"""Fixtures for the MCP tests: their settings, on a fresh copy of the migrated database (``service_db``).

MCP clients are opened inside each test (an async fixture that yields a Client breaks at teardown with
pytest-asyncio); the embedded service is opened with ``mcp_helpers.embedded``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.backend.settings import ServiceSettings
from assay.backend.storage.db import sqlite_url_for


@pytest.fixture
def settings(tmp_path: Path, service_db: Path) -> ServiceSettings:
    return ServiceSettings(database_url=sqlite_url_for(service_db), data_dir=tmp_path / "data")

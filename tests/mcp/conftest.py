"""Fixtures for the MCP tests: a migrated database template copied per test (keeps the suite fast).

MCP clients are opened inside each test (an async fixture that yields a Client breaks at teardown with
pytest-asyncio); the embedded service is opened with ``mcp_helpers.embedded``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from assay.backend.settings import ServiceSettings
from assay.backend.storage.db import sqlite_url_for
from assay.backend.storage.migrations import upgrade_database


@pytest.fixture(scope="session")
def migrated_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("mcp-template") / "template.db"
    upgrade_database(sqlite_url_for(path))
    return path


@pytest.fixture
def settings(tmp_path: Path, migrated_template: Path) -> ServiceSettings:
    database = tmp_path / "service.db"
    shutil.copyfile(migrated_template, database)
    return ServiceSettings(database_url=sqlite_url_for(database), data_dir=tmp_path / "data")

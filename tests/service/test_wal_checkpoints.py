"""SQLite write-ahead log checkpoints happen in the background, never inside a commit of the service."""

from __future__ import annotations

import asyncio
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from assay.backend.settings import RateLimitSettings, ServiceSettings
from assay.backend.storage.checkpoints import WalCheckpointer
from assay.backend.storage.db import create_engine, sqlite_url_for
from assay.backend.web.app import create_app

LARGE = "x" * (8 * 1024 * 1024)  # 2,000 pages: twice the log size at which SQLite checkpoints by default


async def _engine_with_large_write(database: Path, *, background_checkpoints: bool) -> AsyncEngine:
    engine = create_engine(sqlite_url_for(database), background_checkpoints=background_checkpoints)
    async with engine.begin() as connection:
        await connection.execute(text("CREATE TABLE blob (value TEXT)"))
    async with engine.begin() as connection:
        await connection.execute(text("INSERT INTO blob VALUES (:value)"), {"value": LARGE})
    return engine


async def test_commits_leave_checkpoints_to_the_checkpointer(tmp_path: Path) -> None:
    database = tmp_path / "background.db"
    engine = await _engine_with_large_write(database, background_checkpoints=True)
    try:  # the engine stays open: closing the last connection would checkpoint the log
        assert database.stat().st_size < len(LARGE)  # the commit left its pages in the log
        checkpointer = WalCheckpointer(str(database))
        assert checkpointer.checkpoint_if_written()
        assert database.stat().st_size > len(LARGE)  # copied into the database file
        assert not checkpointer.checkpoint_if_written()  # nothing written since
        async with engine.begin() as connection:
            await connection.execute(text("INSERT INTO blob VALUES ('more')"))
        assert checkpointer.checkpoint_if_written()
        assert checkpointer.checkpoints == 2
    finally:
        await engine.dispose()


async def test_without_a_checkpointer_sqlite_checkpoints_in_the_commit(tmp_path: Path) -> None:
    database = tmp_path / "default.db"
    engine = await _engine_with_large_write(database, background_checkpoints=False)
    try:
        assert database.stat().st_size > len(LARGE)
    finally:
        await engine.dispose()


async def test_the_service_runs_a_checkpointer_for_a_database_file_only(tmp_path: Path) -> None:
    for url, expected in [(sqlite_url_for(tmp_path / "svc.db"), 0), ("sqlite+aiosqlite:///:memory:", 1000)]:
        settings = ServiceSettings(
            database_url=url, data_dir=tmp_path, run_workers=0, rate_limit=RateLimitSettings(enabled=False)
        )
        app = create_app(settings)
        async with app.router.lifespan_context(app):
            async with app.state.services.engine.connect() as connection:
                autocheckpoint = (await connection.execute(text("PRAGMA wal_autocheckpoint"))).scalar_one()
            names = {task.get_name() for task in asyncio.all_tasks()}
            assert autocheckpoint == expected
            assert ("assay-wal-checkpointer" in names) is (expected == 0)
        assert "assay-wal-checkpointer" not in {task.get_name() for task in asyncio.all_tasks()}

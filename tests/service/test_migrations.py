"""Schema by migrations: a fresh database is created on start, and the migrated schema matches the models."""

from __future__ import annotations

from pathlib import Path

import httpx
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect
from sqlalchemy.engine import Connection
from sqlmodel import SQLModel

from assay.backend.settings import ServiceSettings
from assay.backend.storage.db import create_engine, sqlite_url_for
from assay.backend.storage.migrations import HEAD_REVISION, upgrade_database
from assay.backend.web.app import create_app


def _diff(connection: Connection) -> list[object]:
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    return list(compare_metadata(context, SQLModel.metadata))


def _revision(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


async def test_app_start_creates_the_schema_on_a_fresh_database(tmp_path: Path) -> None:
    url = sqlite_url_for(tmp_path / "deep" / "fresh.db")
    app = create_app(ServiceSettings(database_url=url))
    transport = httpx.ASGITransport(app=app)
    async with app.router.lifespan_context(app), httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        assert (await client.get("/healthz")).status_code == 200
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            tables = await connection.run_sync(lambda c: set(inspect(c).get_table_names()))
            assert {"organization", "ai_system", "source_asset", "api_key", "qualified_scan", "legacy_scan"} <= tables
            assert {"evidence_binder", "idempotency_record", "alembic_version"} <= tables
            assert await connection.run_sync(_revision) == HEAD_REVISION
            assert {"dashboard_user", "dashboard_membership", "dashboard_session"} <= tables
            assert "runtime_probe_slot" in tables
            assert "dashboard_invitation" in tables
            assert {"assurance_run", "evaluation", "evaluation_evidence"} <= tables
            assert await connection.run_sync(_diff) == []
            journal = (await connection.exec_driver_sql("PRAGMA journal_mode")).scalar()
            assert journal == "wal"
            assert (await connection.exec_driver_sql("PRAGMA foreign_keys")).scalar() == 1
    finally:
        await engine.dispose()


def test_upgrade_is_idempotent(tmp_path: Path) -> None:
    url = sqlite_url_for(tmp_path / "twice.db")
    upgrade_database(url)
    upgrade_database(url)


def test_head_revision_is_alembics_head(tmp_path: Path) -> None:
    # An up-to-date database is recognised by HEAD_REVISION without loading Alembic: it must be the newest.
    from alembic.script import ScriptDirectory

    from assay.backend.storage.migrations import HEAD_REVISION, alembic_config

    assert ScriptDirectory.from_config(alembic_config()).get_heads() == [HEAD_REVISION]


async def test_an_upgraded_database_is_recognised_at_head(tmp_path: Path) -> None:
    from assay.backend.storage.migrations import HEAD_REVISION, at_head, upgrade_engine

    engine = create_engine(sqlite_url_for(tmp_path / "head.db"))
    try:
        assert not await at_head(engine)
        await upgrade_engine(engine, "0003_intake")
        assert not await at_head(engine)  # an older schema goes through Alembic and is upgraded
        await upgrade_engine(engine)
        assert await at_head(engine)
        async with engine.connect() as connection:
            assert await connection.run_sync(_revision) == HEAD_REVISION
    finally:
        await engine.dispose()

"""Alembic migrations of the service schema, runnable from code (no ``alembic.ini`` needed).

The app's lifespan and every ``assay admin`` command call these before touching the database, so a
fresh database gets the schema and an existing one upgrades in place. To write a new revision after
changing ``models.py``: ``python -m assay.backend.storage.migrations revision "what changed"`` (autogenerates
against a scratch SQLite database at head), then review the generated file.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from assay.backend.storage.db import create_engine

MIGRATIONS_DIR = Path(__file__).resolve().parent
HEAD = "head"
# Serialises concurrent upgrades of one PostgreSQL database (several service processes starting at once).
_PG_MIGRATION_LOCK_ID = 0x61737361  # "assa"


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic config pointing at these migrations, optionally bound to an open connection."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.set_main_option("path_separator", "os")
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def _upgrade_sync(connection: Connection, revision: str) -> None:
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": _PG_MIGRATION_LOCK_ID})
    command.upgrade(alembic_config(connection), revision)


async def upgrade_engine(engine: AsyncEngine, revision: str = HEAD) -> None:
    """Upgrade the database behind ``engine`` to ``revision`` (default: the newest)."""
    async with engine.begin() as connection:
        await connection.run_sync(_upgrade_sync, revision)


def upgrade_database(database_url: str, revision: str = HEAD) -> None:
    """Create or upgrade the schema of the database at ``database_url``. Call outside an event loop."""

    async def _run() -> None:
        engine = create_engine(database_url)
        try:
            await upgrade_engine(engine, revision)
        finally:
            await engine.dispose()

    asyncio.run(_run())


def current_revision_sync(connection: Connection) -> str | None:
    """The revision the connected database is at, or None when it has no schema yet."""
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(connection).get_current_revision()

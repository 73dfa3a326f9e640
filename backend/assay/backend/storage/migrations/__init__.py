"""Alembic migrations of the service schema, runnable from code (no ``alembic.ini`` needed).

The app's lifespan and every ``assay admin`` command call these before touching the database, so a
fresh database gets the schema and an existing one upgrades in place. To write a new revision after
changing ``models.py``: ``python -m assay.backend.storage.migrations revision "what changed"`` (autogenerates
against a scratch SQLite database at head), then review the generated file.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine

from assay.backend.storage.db import create_engine
from assay.backend.storage.revision import HEAD_REVISION

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).resolve().parent
HEAD = "head"
# Serialises concurrent upgrades of one PostgreSQL database (several service processes starting at once).
_PG_MIGRATION_LOCK_ID = 0x61737361  # "assa"


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic config pointing at these migrations, optionally bound to an open connection."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.set_main_option("path_separator", "os")
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def _upgrade_sync(connection: Connection, revision: str) -> None:
    from alembic import command

    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": _PG_MIGRATION_LOCK_ID})
    command.upgrade(alembic_config(connection), revision)


async def upgrade_engine(engine: AsyncEngine, revision: str = HEAD) -> None:
    """Upgrade the database behind ``engine`` to ``revision`` (default: the newest)."""
    if revision == HEAD and await at_head(engine):
        return
    async with engine.begin() as connection:
        await connection.run_sync(_upgrade_sync, revision)


async def at_head(engine: AsyncEngine) -> bool:
    """Whether the database behind ``engine`` is at :data:`HEAD_REVISION` (False when it has no schema yet)."""
    try:
        async with engine.connect() as connection:
            versions = (await connection.execute(text("SELECT version_num FROM alembic_version"))).scalars().all()
    except SQLAlchemyError:  # no alembic_version table: a new database
        return False
    return list(versions) == [HEAD_REVISION]


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

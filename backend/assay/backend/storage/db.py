"""The database engine and session factory: SQLite (aiosqlite) embedded, PostgreSQL (asyncpg) scaled out.

There is no module-level engine: :func:`create_engine` builds one per app (its lifespan owns and disposes
it) or per admin command. Sessions never expire loaded objects on commit, because a lazy reload would
need I/O outside an ``await`` and fails under asyncio.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlmodel.ext.asyncio.session import AsyncSession

# Defined with the settings, so naming the default database imports no SQLAlchemy.
from assay.backend.settings import sqlite_url_for as sqlite_url_for

SessionFactory = async_sessionmaker[AsyncSession]

SUPPORTED_DRIVERS = ("sqlite+aiosqlite", "postgresql+asyncpg")


class DatabaseUrlError(ValueError):
    """The database URL names a driver the service does not support."""


def parse_database_url(database_url: str) -> URL:
    """Parse and check a database URL; raise :class:`DatabaseUrlError` for unsupported drivers."""
    try:
        url = make_url(database_url)
    except ValueError as exc:  # sqlalchemy.exc.ArgumentError is a ValueError subclass
        raise DatabaseUrlError(f"not a database URL: {exc}") from exc
    if url.drivername not in SUPPORTED_DRIVERS:
        raise DatabaseUrlError(
            f"unsupported database driver {url.drivername!r}; use one of: {', '.join(SUPPORTED_DRIVERS)}"
        )
    return url


def create_private_file(path: Path) -> None:
    """Create ``path`` (and its missing parent folder) readable by the owner only, whatever the umask:
    the database holds every organization's Evaluations. SQLite gives its ``-wal`` and ``-shm`` files
    the database file's permissions. An existing file or folder is left as it is (the operator chose)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        return
    # The mode given to open() is filtered by the umask; a umask never adds bits, but be exact.
    path.chmod(0o600)


def create_engine(
    database_url: str, *, sqlite_busy_timeout_ms: int = 5000, background_checkpoints: bool = False
) -> AsyncEngine:
    """An async engine for ``database_url``; SQLite gets WAL, foreign keys and a busy timeout, and with
    ``background_checkpoints`` no automatic WAL checkpoints (the caller runs a ``WalCheckpointer``)."""
    url = parse_database_url(database_url)
    if url.drivername.startswith("sqlite"):
        database = url.database
        if database and database != ":memory:" and not database.startswith("file:"):
            create_private_file(Path(database))
        engine = create_async_engine(url, connect_args={"timeout": sqlite_busy_timeout_ms / 1000})
        _configure_sqlite(engine, sqlite_busy_timeout_ms, background_checkpoints)
        return engine
    return create_async_engine(url, pool_pre_ping=True)


def configure_sqlite_connection(dbapi_connection: Any, busy_timeout_ms: int, background_checkpoints: bool) -> None:
    """The pragmas of every connection the service opens to a SQLite file."""
    cursor = dbapi_connection.cursor()
    # WAL lets readers proceed while one writer commits; foreign keys are off by default in SQLite.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
    cursor.execute("PRAGMA synchronous=NORMAL")
    if background_checkpoints:
        cursor.execute("PRAGMA wal_autocheckpoint=0")
    cursor.close()


def _configure_sqlite(engine: AsyncEngine, busy_timeout_ms: int, background_checkpoints: bool) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, connection_record: Any) -> None:
        configure_sqlite_connection(dbapi_connection, busy_timeout_ms, background_checkpoints)


def sqlite_file_of(database_url: str | URL) -> str | None:
    """The database file of a SQLite URL given by a plain path; None for PostgreSQL, in-memory and URI
    databases."""
    url = make_url(database_url)
    database = url.database
    if not url.drivername.startswith("sqlite") or not database or database == ":memory:":
        return None
    if database.startswith("file:") or url.query:
        return None
    return database


def create_session_factory(engine: AsyncEngine) -> SessionFactory:
    """Sessions bound to ``engine`` that keep loaded objects usable after commit."""
    return async_sessionmaker(engine, class_=AsyncSession, expire_on_commit=False)

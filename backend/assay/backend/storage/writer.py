"""Bulk writes as one synchronous function: the intake batches.

A batch write is many statements (a dedup probe, inserts of records and event ids, the batch row). Through
the async session each statement is several round trips between the event loop and the driver's
connection thread; on SQLite that cost, not SQLite, capped small intake posts at a few dozen a second.
:class:`BatchWriter` runs the whole write function at once where the connection is:

- SQLite (a database file): on a synchronous engine of its own, in one worker thread. Its transactions
  begin ``IMMEDIATE``: a writer takes SQLite's write lock when it starts, and waits for it (up to the
  busy timeout) instead of failing at once when its read snapshot went stale under another writer's
  commit. The function may pause between the bounded transactions of a big batch (``time.sleep`` in
  that thread), leaving the lock to other writers.
- PostgreSQL (and in-memory SQLite): through the app's async engine, ``AsyncConnection.run_sync``; there
  is no database-wide write lock to leave, so pauses are skipped.

A failure rolls the open transaction back; whatever the function committed before stays.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

import anyio
from sqlalchemy import Connection, Engine, event
from sqlalchemy import create_engine as create_sync_engine
from sqlalchemy.ext.asyncio import AsyncEngine

from assay.backend.storage.db import configure_sqlite_connection

T = TypeVar("T")
Pause = Callable[[float], None]


def _no_pause(seconds: float) -> None:
    return None


class BatchWriter:
    """Runs ``fn(connection, *args, pause)`` in one go on the service's database."""

    def __init__(self, engine: AsyncEngine, sqlite_file: str | None, *, busy_timeout_ms: int) -> None:
        self._engine = engine
        self._sync: Engine | None = None
        if sqlite_file is not None:
            self._sync = create_sync_engine(
                f"sqlite:///{sqlite_file}",
                connect_args={"timeout": busy_timeout_ms / 1000, "check_same_thread": False},
            )
            _begin_immediate(self._sync, busy_timeout_ms)

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        if self._sync is not None:
            return await anyio.to_thread.run_sync(self._run_sync, fn, args)
        async with self._engine.connect() as connection:
            return await connection.run_sync(lambda c: fn(c, *args, _no_pause))

    def _run_sync(self, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        assert self._sync is not None
        with self._sync.connect() as connection:
            try:
                return fn(connection, *args, time.sleep)
            except BaseException:
                connection.rollback()
                raise

    def dispose(self) -> None:
        if self._sync is not None:
            self._sync.dispose()


def _begin_immediate(engine: Engine, busy_timeout_ms: int) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, connection_record: Any) -> None:
        configure_sqlite_connection(dbapi_connection, busy_timeout_ms, background_checkpoints=True)
        # The driver's own transaction handling off: SQLAlchemy's begin event says how to begin.
        dbapi_connection.isolation_level = None

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")

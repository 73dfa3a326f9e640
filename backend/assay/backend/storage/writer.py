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

A write of a few rows (a one-event structured post) costs more in the thread hop and SQLAlchemy's
statement handling than in SQLite: :meth:`BatchWriter.run_on_loop` runs such a write on the event loop
itself, through one ``sqlite3`` connection of its own, with plain SQL. It never makes the loop wait:
the connection's busy timeout is 0, so ``BEGIN IMMEDIATE`` either takes the write lock at once or fails
at once, and the caller then writes through :meth:`BatchWriter.run` (which waits, in its thread). In
WAL mode with ``synchronous=NORMAL`` a commit appends to the log without syncing, and checkpoints run
in their own thread (``checkpoints.py``), so such a write holds the loop for a fraction of a
millisecond.
"""

from __future__ import annotations

import functools
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import anyio
from sqlalchemy import Connection, Engine, Table, event, insert
from sqlalchemy import create_engine as create_sync_engine
from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.sql.compiler import SQLCompiler
from sqlmodel import SQLModel

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
        self._file = sqlite_file
        # The loop's own connection (run_on_loop): opened on first use, from the thread that made the writer.
        self._loop_thread = threading.get_ident()
        self._loop: sqlite3.Connection | None = None
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

    def run_on_loop(self, fn: Callable[[sqlite3.Connection], T]) -> T | None:
        """``fn(connection)`` in one IMMEDIATE transaction on the loop's own SQLite connection, committed;
        None when it cannot run there without waiting (not a SQLite file, another thread, the write lock
        held by another writer, or SQLite busy inside): then nothing was written, use :meth:`run`."""
        if self._file is None or threading.get_ident() != self._loop_thread:
            return None
        connection = self._loop
        if connection is None:
            # check_same_thread off only so dispose() may close it from the lifespan's exit.
            connection = sqlite3.connect(self._file, isolation_level=None, check_same_thread=False)
            configure_sqlite_connection(connection, 0, background_checkpoints=True)
            self._loop = connection
        try:
            connection.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError:  # SQLITE_BUSY at once (busy timeout 0)
            return None
        try:
            answer = fn(connection)
            connection.execute("COMMIT")
        except sqlite3.OperationalError:
            _rollback(connection)
            return None
        except BaseException:
            _rollback(connection)
            raise
        return answer

    def dispose(self) -> None:
        if self._loop is not None:
            self._loop.close()
            self._loop = None
        if self._sync is not None:
            self._sync.dispose()


def _rollback(connection: sqlite3.Connection) -> None:
    if connection.in_transaction:  # SQLite rolls some failures back by itself
        connection.execute("ROLLBACK")


def _begin_immediate(engine: Engine, busy_timeout_ms: int) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, connection_record: Any) -> None:
        configure_sqlite_connection(dbapi_connection, busy_timeout_ms, background_checkpoints=True)
        # The driver's own transaction handling off: SQLAlchemy's begin event says how to begin.
        dbapi_connection.isolation_level = None

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")


@dataclass(frozen=True, slots=True)
class PreparedInsert:
    """An INSERT of every column of a table for a ``sqlite3`` connection (:meth:`BatchWriter.run_on_loop`),
    compiled once by SQLAlchemy, with the columns' own bind processors, so the values stored are the
    ones SQLAlchemy would store."""

    sql: str
    columns: tuple[str, ...]
    processors: tuple[Callable[[Any], Any] | None, ...]

    def parameters(self, values: Mapping[str, Any]) -> tuple[Any, ...]:
        return tuple(
            values[name] if processor is None else processor(values[name])
            for name, processor in zip(self.columns, self.processors, strict=True)
        )


@functools.cache
def prepare_insert(model: type[SQLModel]) -> PreparedInsert:
    """The INSERT of every column of ``model``'s table, for a ``sqlite3`` connection."""
    dialect = SQLiteDialect_pysqlite()
    table: Table = model.__table__  # type: ignore[attr-defined]
    compiled = insert(table).compile(dialect=dialect)
    assert isinstance(compiled, SQLCompiler) and compiled.positional
    names = tuple(compiled.positiontup or ())
    processors = tuple(compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect) for name in names)
    return PreparedInsert(sql=compiled.string, columns=names, processors=processors)

"""Short reads on the event loop for the hot request path: API-key lookup and small indexed listings.

Every aiosqlite call is a round trip to a connection thread, and a SQLAlchemy query makes four or five of
them (cursor, execute, fetch, close, rollback on return). Under load those threads fight the event loop
for the GIL, and the answer waits for the interpreter's switch interval: that, not SQLite, capped
authenticated reads at a few hundred requests a second. A point read on an index takes microseconds
inside SQLite, so :class:`LoopReader` runs such reads on the loop itself, through one dedicated
``sqlite3`` connection, with three guards that keep the loop from ever waiting on it:

- ``PRAGMA query_only``: the connection cannot write;
- ``busy_timeout = 0``: a read that would wait for a lock fails at once instead of sleeping;
- a progress handler interrupts any statement after :data:`MAX_VM_STEPS` SQLite VM steps (about half a
  millisecond), so a listing that turned out large is never read on the loop.

A read that fails any guard answers ``None`` and the caller runs the same statement through its normal
(threaded, pooled) session instead.

Every read sees the latest committed data, so a key revoked by ``assay admin`` in another process is
refused on the next request. The answers are kept only while nothing has been committed since:
``PRAGMA data_version`` (a fraction of a SELECT's cost) changes whenever any other connection, in this
process or another, commits to the database, and any change drops every kept answer. Under a read-heavy
load (agents polling), each request then costs one such check instead of its selects. Rows are shared
between the requests that read them, so callers never modify them.

Statements are SQLAlchemy Core selects declared once (:class:`PreparedRead`), compiled once per dialect,
and their values converted by the column types' own result processors, so both paths give the same
Python values. PostgreSQL and in-memory SQLite have no loop reader; they always take the session path.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession
from sqlalchemy.sql.compiler import SQLCompiler

from assay.backend.storage.db import sqlite_file_of

# SQLite calls the progress handler every this many VM steps...
_PROGRESS_EVERY = 500
# ...and a statement is interrupted past this many steps. A key lookup takes about ten, listing a few
# dozen rows a few hundred; 5,000 steps (a sorted listing of a few hundred rows) take about half a
# millisecond, the most a read may hold the loop.
MAX_VM_STEPS = 5_000
# At most this many answers are kept between two commits (all are dropped when the limit is reached).
MAX_KEPT_ANSWERS = 1_024

Row = tuple[Any, ...]
_Processor = Callable[[Any], Any] | None


@dataclass(frozen=True, eq=False, slots=True)
class PreparedRead:
    """A Core select declared once (module level) and run by :meth:`LoopReader.fetch_all` or a session.

    Parameters are named ``bindparam``s; identity is the object, so each declaration is compiled once.
    """

    statement: Select[*tuple[Any, ...]]


@dataclass(frozen=True, slots=True)
class _Compiled:
    compiled: SQLCompiler
    sql: str
    parameter_names: tuple[str, ...]
    bind_processors: tuple[_Processor, ...]
    # (column index, processor) for the columns whose values need converting (JSON, datetimes).
    conversions: tuple[tuple[int, Callable[[Any], Any]], ...]

    def convert(self, rows: list[Row]) -> list[Row]:
        if not self.conversions:
            return rows
        converted = []
        for row in rows:
            values = list(row)
            for index, processor in self.conversions:
                values[index] = processor(values[index])
            converted.append(tuple(values))
        return converted

    def arguments(self, params: Mapping[str, Any]) -> tuple[Any, ...]:
        # construct_params fills in values bound in the statement itself and refuses a missing parameter.
        values = self.compiled.construct_params(dict(params))
        return tuple(
            value if processor is None else processor(value)
            for value, processor in zip(
                (values[name] for name in self.parameter_names), self.bind_processors, strict=True
            )
        )


def _compile(read: PreparedRead, dialect: Dialect) -> _Compiled:
    compiled = read.statement.compile(dialect=dialect)
    if not isinstance(compiled, SQLCompiler) or not compiled.positional:
        raise ValueError("a PreparedRead runs on a dialect with positional parameters")
    if compiled.literal_execute_params or compiled.post_compile_params:
        raise ValueError("a PreparedRead needs plain parameters (no expanding IN lists or literal execution)")
    names = tuple(compiled.positiontup or ())
    binds = tuple(compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect) for name in names)
    results = [
        column.type.dialect_impl(dialect).result_processor(dialect, None) for column in read.statement.selected_columns
    ]
    conversions = tuple((index, processor) for index, processor in enumerate(results) if processor is not None)
    return _Compiled(
        compiled=compiled, sql=compiled.string, parameter_names=names, bind_processors=binds, conversions=conversions
    )


class LoopReader:
    """One read-only SQLite connection used from the event loop's thread only (see the module docstring)."""

    def __init__(self, path: str, dialect: Dialect) -> None:
        self._dialect = dialect
        self._thread = threading.get_ident()
        # Autocommit: each statement is its own read transaction, so no snapshot outlives a read and
        # checkpoints are never held back.
        # fetch_all checks the thread itself (and falls back); close may come from the lifespan's exit.
        self._connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._connection.execute("PRAGMA query_only=ON")
        self._connection.execute("PRAGMA busy_timeout=0")
        self._connection.set_progress_handler(self._progress, _PROGRESS_EVERY)
        self._steps = 0
        self._compiled: dict[PreparedRead, _Compiled] = {}
        # Answers read since the database's data version was last seen to change (module docstring).
        self._data_version: int | None = None
        self._answers: dict[tuple[object, ...], list[Row]] = {}
        self.fallbacks = 0

    def _progress(self) -> int:
        self._steps += _PROGRESS_EVERY
        return 1 if self._steps > MAX_VM_STEPS else 0

    def fetch_all(self, read: PreparedRead, params: Mapping[str, Any]) -> list[Row] | None:
        """All rows of ``read``, or ``None`` when the read must go through a session instead.

        ``None`` when called off the loop's thread, when the database is locked, or when the statement
        ran past :data:`MAX_VM_STEPS`.
        """
        if threading.get_ident() != self._thread:
            return None
        self._steps = 0
        try:
            version = self._connection.execute("PRAGMA data_version").fetchone()[0]
            if version != self._data_version:
                self._answers.clear()
                self._data_version = version
            key = (read, *params.items())
            kept = self._answers.get(key)
            if kept is not None:
                return kept
            compiled = self._compiled.get(read)
            if compiled is None:
                compiled = self._compiled[read] = _compile(read, self._dialect)
            self._steps = 0
            rows: list[Row] = self._connection.execute(compiled.sql, compiled.arguments(params)).fetchall()
        except sqlite3.OperationalError:
            # SQLITE_BUSY/LOCKED (busy_timeout is 0) or SQLITE_INTERRUPT (the step cap): the session path
            # waits and reads without a cap, off the loop.
            self.fallbacks += 1
            return None
        answer = compiled.convert(rows)
        if len(self._answers) >= MAX_KEPT_ANSWERS:
            self._answers.clear()
        self._answers[key] = answer
        return answer

    def close(self) -> None:
        """Close the connection (when no request uses it any more)."""
        self._connection.close()


def open_loop_reader(engine: AsyncEngine) -> LoopReader | None:
    """A :class:`LoopReader` on ``engine``'s SQLite file, or ``None`` (PostgreSQL, in-memory, URI databases).

    Call it on the event loop's thread, after the schema exists.
    """
    database = sqlite_file_of(engine.url)
    return None if database is None else LoopReader(database, engine.dialect)


async def fetch_all_in_session(session: AsyncSession, read: PreparedRead, params: Mapping[str, Any]) -> list[Row]:
    """All rows of ``read`` through ``session``'s connection (and transaction), as plain tuples."""
    connection = await session.connection()
    result = await connection.execute(read.statement, dict(params))
    return [tuple(row) for row in result.all()]

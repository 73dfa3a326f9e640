"""Persisting intake batches atomically and immutably, and reading them back.

Two ways of storing a batch (``intake_batch.content_format``):

- ``otlp-protobuf`` (OTLP traces): :func:`persist_content_batch` stores the checked request itself, in
  chunks of 1 MiB (``intake_content``); its content digest is SHA-256 over those stored bytes. Spans whose
  event id the binder already holds are first removed from it (``otlp_traces.without_spans``).
- ``records`` (every other batch): :func:`persist_batch` stores one normalized record per row.

:func:`persist_batch` pulls normalized records from an adapter (decoding and canonical JSON in a worker
thread, on the loop for a small body), checks and stages them (canonical text, framed) in a spooled
temporary file, then writes them with :func:`_write_records` through the service's ``BatchWriter`` (one
synchronous function, in one worker thread on SQLite): chunk by chunk, the records' event ids are claimed
in ``intake_event`` (unique per binder; ids finished batches hold make duplicates), then the records
written, then the batch row with its counts and content digest. The content digest is SHA-256 over the
RFC 8785 JSON of the array of stored records (``sha256:<hex>``), computed as the records stream, so memory
holds one chunk whatever the batch size.

Up to SLICE_RECORDS records (a content batch: up to SLICE_CONTENT_BYTES too), all in ONE transaction. A
bigger batch is written in bounded transactions (:class:`_Slices`) under an in-flight row
(``intake_inflight``), each claiming its own event ids, the last writing the batch row and removing the
in-flight row: no single request holds SQLite's write lock for long, and the batch becomes visible whole
or not at all (nothing reads rows no batch row names). An event id held by a batch in flight answers 503
(retryable); a failed batch's rows are removed, by its writer or, once its heartbeat is STALE_AFTER old
(a writer that vanished), by the next batch that meets it (:func:`_write_batch`). Triggers (migrations
0003, 0004, 0009) refuse any UPDATE, and any DELETE but of an unfinished batch's rows.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import struct
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import IO, Any

import anyio
import anyio.lowlevel
import orjson
from sqlalchemy import Connection, delete, insert, or_, text, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from assay.backend.canonical import DIGEST_PREFIX, canonical_bytes
from assay.backend.errors import ApiError
from assay.backend.intake.adapters import otlp_traces
from assay.backend.storage.models import (
    IntakeBatch,
    IntakeContent,
    IntakeEvent,
    IntakeInflight,
    IntakeRecord,
    new_id,
    utcnow,
)
from assay.backend.storage.writer import BatchWriter, prepare_insert

logger = logging.getLogger(__name__)
Normalized = tuple[str | None, dict[str, Any]]
BATCH_PREFIX = "ing"
SPOOL_IN_MEMORY = 1024 * 1024
CHUNK = 2000
MAX_EVENT_ID = 255


@dataclass(frozen=True, slots=True)
class IntakeBinder:
    """What intake reads of a binder (``evidence_binder``), as a plain value: an ORM instance costs more
    to build than the rest of a one-event post."""

    id: str
    organization_id: str
    ai_system_id: str | None
    adapter_id: str
    adapter_version: str
    active: bool
    require_event_id: bool
    max_record_bytes: int | None
    mapping: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class BatchFacts:
    """An accepted batch's row (``intake_batch``) as written, as a plain value (the receipt reads it)."""

    id: str
    organization_id: str
    binder_id: str
    ai_system_id: str | None
    api_key_id: str
    producer_id: str
    producer_kind: str
    adapter_id: str
    adapter_version: str
    record_count: int
    duplicate_count: int
    content_digest: str
    content_format: str
    created_at: datetime

    def values(self) -> dict[str, Any]:
        """The row's column values."""
        return {name: getattr(self, name) for name in self.__slots__}


@dataclass(frozen=True, slots=True)
class BatchContext:
    """Who sends the batch and through which binder."""

    organization_id: str
    api_key_id: str
    binder: IntakeBinder
    producer_id: str
    producer_kind: str
    max_record_bytes: int
    now: datetime


@dataclass(frozen=True, slots=True)
class _Encoded:
    event_id: str | None
    text: bytes


def _encode_chunk(records: Iterator[Normalized], context: BatchContext, first_seq: int) -> list[_Encoded]:
    """Up to CHUNK records as canonical JSON, each held to the record limit and the event-id rule."""
    chunk: list[_Encoded] = []
    for event_id, record in records:
        seq = first_seq + len(chunk)
        if event_id is None and context.binder.require_event_id:
            raise ApiError("INVALID_REQUEST", f"Record {seq} has no event id, and the binder requires one.")
        if event_id is not None and len(event_id) > MAX_EVENT_ID:
            raise ApiError("INVALID_REQUEST", f"Record {seq} has an event id longer than {MAX_EVENT_ID} characters.")
        try:
            text = canonical_bytes(record)
        except ValueError as exc:  # integers beyond the JCS range in a submitted event
            raise ApiError(
                "INVALID_REQUEST",
                f"Record {seq} cannot be written as canonical JSON (a number outside the RFC 8785 range).",
            ) from exc
        if len(text) > context.max_record_bytes:
            raise ApiError(
                "INVALID_REQUEST",
                f"Record {seq} is {len(text)} bytes as normalized JSON, over the limit of {context.max_record_bytes}.",
                status=413,
            )
        chunk.append(_Encoded(event_id, text))
        if len(chunk) == CHUNK:
            break
    return chunk


@dataclass(frozen=True, slots=True)
class StoredBatch:
    """What the receipt reports of a persisted batch."""

    row: BatchFacts


def _stage(records: Iterator[Normalized], context: BatchContext, spool: IO[bytes], first: list[_Encoded]) -> int:
    """Read, check and encode every record into ``spool`` (framed: event id, then canonical text), after
    the ``first`` ones, already encoded; their count. Runs in a worker thread (on the loop for a small
    body), before the write transaction opens: the database is locked only while the staged records are
    written, not while the body is decoded."""
    chunk, seen = first, 0
    while True:
        if not chunk:
            chunk = _encode_chunk(records, context, seen)
            if not chunk:
                return seen
        seen += len(chunk)
        for encoded in chunk:
            event = encoded.event_id.encode("utf-8") if encoded.event_id is not None else b""
            marker = len(event) + 1 if encoded.event_id is not None else 0
            spool.write(_FRAME.pack(marker, len(encoded.text)))
            spool.write(event)
            spool.write(encoded.text)
        chunk = []


_FRAME = struct.Struct("<II")


def _staged_chunk(spool: IO[bytes]) -> list[_Encoded]:
    chunk: list[_Encoded] = []
    while len(chunk) < CHUNK:
        head = spool.read(_FRAME.size)
        if not head:
            break
        marker, size = _FRAME.unpack(head)
        event_id = spool.read(marker - 1).decode("utf-8") if marker else None
        chunk.append(_Encoded(event_id, spool.read(size)))
    return chunk


# A batch of more records than this is written in bounded transactions (below); smaller ones in one.
SLICE_RECORDS = 5_000
# Each bounded transaction ends after this long, and the writer then leaves the database to others for
# half as long: SQLite has one write lock, and a writer waiting for it (its busy handler polls with
# growing sleeps) must find it free between two slices of a big batch.
SLICE_SECONDS = 0.1
# A batch of at most this many records from a small body is written on the event loop when it can be
# (BatchWriter.run_on_loop): the thread hop and SQLAlchemy would cost more than the write.
LOOP_RECORDS = 64
# A batch in flight whose heartbeat is older than this is taken for one whose writer vanished (a crashed
# process, a lost replica): the next batch that meets it removes it. A living writer renews the heartbeat
# with each bounded transaction (every SLICE_SECONDS or so, longer only while it waits for the lock, at
# most the busy timeout, or while an OTLP request is checked between two of them).
STALE_AFTER = timedelta(seconds=120)
WRITING, FAILED = "writing", "failed"
_ATTEMPTS = 3
# Rows removed per statement when an unfinished batch is removed (content rows are 1 MiB each).
_REMOVE_ROWS = 5_000
_REMOVE_CONTENT_ROWS = 16
Pause = Callable[[float], None]


class _OwnersInFlightError(Exception):
    """Some of the batch's event ids are claimed by batches still being written."""

    def __init__(self, batch_ids: set[str]) -> None:
        super().__init__(sorted(batch_ids))
        self.batch_ids = batch_ids


class _ReapedError(Exception):
    """This batch's own in-flight row is gone or failed: another writer took it for a vanished one."""


def _busy(message: str) -> ApiError:
    return ApiError("INTERNAL_ERROR", message, status=503, retryable=True, headers={"Retry-After": "1"})


@dataclass(slots=True)
class _Slices:
    """The transactions of one batch write. Unsliced: one transaction, committed with the batch row. Sliced:
    an in-flight row (``intake_inflight``) written with the first records, then a commit whenever a
    transaction has run SLICE_SECONDS, each new transaction renewing the heartbeat first."""

    batch_id: str
    binder_id: str
    sliced: bool
    opened: bool = False
    started: float = field(default_factory=time.monotonic)

    def begin(self, conn: Connection) -> None:
        """Start (or carry on) the batch on a connection."""
        if self.sliced:
            if self.opened:
                self.beat(conn)
            else:
                now = utcnow()
                row = {"batch_id": self.batch_id, "binder_id": self.binder_id, "state": WRITING}
                conn.execute(insert(IntakeInflight), [row | {"started_at": now, "heartbeat_at": now}])
                self.opened = True
        self.started = time.monotonic()

    def beat(self, conn: Connection) -> None:
        statement = (
            update(IntakeInflight)
            .where(col(IntakeInflight.batch_id) == self.batch_id, col(IntakeInflight.state) == WRITING)
            .values(heartbeat_at=utcnow())
        )
        if conn.execute(statement).rowcount != 1:
            raise _ReapedError

    def tick(self, conn: Connection, pause: Pause) -> None:
        """Commit and pause when the transaction has run long enough (sliced only)."""
        if self.sliced and time.monotonic() - self.started > SLICE_SECONDS:
            conn.commit()
            pause((time.monotonic() - self.started) / 2)
            self.begin(conn)

    def finish(self, conn: Connection, row: BatchFacts) -> BatchFacts:
        """The last transaction: the batch row, and the in-flight row gone, at once."""
        if self.sliced:
            gone = delete(IntakeInflight).where(
                col(IntakeInflight.batch_id) == self.batch_id, col(IntakeInflight.state) == WRITING
            )
            if conn.execute(gone).rowcount != 1:
                raise _ReapedError
        conn.execute(insert(IntakeBatch), [row.values()])  # parameters, not values(): compiled once
        conn.commit()
        return row


def _claim_ids(conn: Connection, binder_id: str, batch_id: str, ids: list[str]) -> set[str]:
    """Claim the event ids ``ids`` (distinct) for ``batch_id``; those it got. The others are held by other
    batches: finished ones (duplicates), or batches in flight (_OwnersInFlightError). On PostgreSQL a claim
    another transaction holds uncommitted waits for it to end, so the answer is the committed truth."""
    statement = text(_claim_sql(conn.dialect.name) + " RETURNING event_id")
    claimed: set[str] = set()
    for start in range(0, len(ids), _CLAIM_CHUNK):
        part = orjson.dumps(sorted(ids[start : start + _CLAIM_CHUNK])).decode("utf-8")
        claimed.update(conn.execute(statement, {"binder": binder_id, "batch": batch_id, "ids": part}).scalars())
    if len(claimed) < len(ids):
        held = orjson.dumps([e for e in ids if e not in claimed]).decode("utf-8")
        owners = set(conn.execute(text(_owners_sql(conn.dialect.name)), {"binder": binder_id, "ids": held}).scalars())
        if owners:
            raise _OwnersInFlightError(owners)
    return claimed


def _owners_sql(dialect: str) -> str:
    """The batches in flight that hold any of the event ids in the JSON array ``:ids`` for ``:binder``."""
    if dialect == "postgresql":
        source = "jsonb_array_elements_text(CAST(:ids AS jsonb)) AS j(value)"
    else:
        source = "json_each(:ids) AS j"
    return (
        "SELECT f.batch_id FROM intake_inflight AS f WHERE f.batch_id IN "
        f"(SELECT e.batch_id FROM {source} CROSS JOIN intake_event AS e "
        "WHERE e.binder_id = :binder AND e.event_id = j.value)"
    )


async def _write_batch(
    services: BatchWriter, context: BatchContext, sliced: bool, write: Callable[[_Slices], Awaitable[BatchFacts]]
) -> BatchFacts:
    """Run ``write`` for a new batch id until it stores the batch: an event id held by a batch whose writer
    vanished is freed (that batch removed) and the batch written again; one held by a living batch in
    flight answers 503 (retry later: that batch ends whole, or not at all). A failure removes what a
    sliced write had committed."""
    if sliced:
        await _remove_stale(services)
    for _ in range(_ATTEMPTS):
        slices = _Slices(new_id(BATCH_PREFIX), context.binder.id, sliced)
        try:
            return await write(slices)
        except _OwnersInFlightError as owners:
            await _abandon(services, slices)
            for batch_id in sorted(owners.batch_ids):
                if not await services.run(_remove_batch, batch_id, False):
                    raise _busy(
                        "Another batch carrying some of these event ids is still being written; retry the request."
                    ) from None
        except _ReapedError:
            raise _busy("The batch was written too slowly and was abandoned; retry the request.") from None
        except BaseException:
            with anyio.CancelScope(shield=True):
                await _abandon(services, slices)
            raise
    raise _busy("Concurrent batches kept claiming the same event ids; retry the request.")


async def _abandon(services: BatchWriter, slices: _Slices) -> None:
    """Remove what a failed sliced write committed; left to the staleness rule when that fails too."""
    if not slices.opened:
        return
    try:
        await services.run(_remove_batch, slices.batch_id, True)
    except Exception:
        logger.warning("intake batch %s could not be removed; it goes stale", slices.batch_id, exc_info=True)


async def _remove_stale(services: BatchWriter) -> None:
    """Remove the batches whose writers vanished (any binder's): their rows and claims."""
    for batch_id in await services.run(_stale_batches):
        await services.run(_remove_batch, batch_id, False)


def _stale_batches(conn: Connection, pause: Pause) -> list[str]:
    stale = or_(col(IntakeInflight.state) == FAILED, col(IntakeInflight.heartbeat_at) < utcnow() - STALE_AFTER)
    batch_ids = list(conn.execute(select(IntakeInflight.batch_id).where(stale)).scalars())
    conn.rollback()
    return batch_ids


# Records and content first: an event id freed early could be claimed again while its old record, which
# carries it under the binder's unique (binder, event id) constraint, is still there.
_REMOVE_RECORDS = (
    "DELETE FROM intake_record WHERE batch_id = :batch AND seq IN "
    f"(SELECT seq FROM intake_record WHERE batch_id = :batch LIMIT {_REMOVE_ROWS})"
)
_REMOVE_CONTENT = (
    "DELETE FROM intake_content WHERE batch_id = :batch AND seq IN "
    f"(SELECT seq FROM intake_content WHERE batch_id = :batch LIMIT {_REMOVE_CONTENT_ROWS})"
)
_REMOVE_EVENTS = (
    "DELETE FROM intake_event WHERE binder_id = :binder AND event_id IN "
    f"(SELECT event_id FROM intake_event WHERE batch_id = :batch LIMIT {_REMOVE_ROWS})"
)
_REMOVALS = (_REMOVE_RECORDS, _REMOVE_CONTENT, _REMOVE_EVENTS)


def _remove_batch(conn: Connection, batch_id: str, force: bool, pause: Pause) -> bool:
    """Remove the unfinished batch ``batch_id`` in bounded transactions: marked failed first (``force``: by
    its own writer; otherwise only when it is failed already or its heartbeat is stale), then its claims,
    records and content, then its in-flight row. False when it is alive (not removed); True when removed
    or gone already (finished or removed by another)."""
    mark = update(IntakeInflight).where(col(IntakeInflight.batch_id) == batch_id).values(state=FAILED)
    if not force:
        mark = mark.where(
            or_(col(IntakeInflight.state) == FAILED, col(IntakeInflight.heartbeat_at) < utcnow() - STALE_AFTER)
        )
    if conn.execute(mark).rowcount == 0:
        there = conn.execute(select(IntakeInflight.binder_id).where(col(IntakeInflight.batch_id) == batch_id)).first()
        conn.rollback()
        return there is None
    binder_id = conn.execute(
        select(IntakeInflight.binder_id).where(col(IntakeInflight.batch_id) == batch_id)
    ).scalar_one()
    conn.commit()
    logger.info("removing unfinished intake batch %s", batch_id)
    for sql in _REMOVALS:
        while True:
            started = time.monotonic()
            removed = conn.execute(text(sql), {"binder": binder_id, "batch": batch_id}).rowcount
            conn.commit()
            if not removed:
                break
            pause((time.monotonic() - started) / 2)
    conn.execute(delete(IntakeInflight).where(col(IntakeInflight.batch_id) == batch_id))
    conn.commit()
    return True


@dataclass(slots=True)
class _Tally:
    """A batch write's running account: records kept, duplicates, the event ids taken (held by the binder
    or kept earlier in the batch) and the content digest, computed as the records stream."""

    batch_id: str
    binder_id: str
    stored: int = 0
    duplicates: int = 0
    taken: set[str] = field(default_factory=set)
    digest: Any = field(default_factory=lambda: hashlib.sha256(b"["))

    def wanted(self, chunk: list[_Encoded]) -> list[str]:
        """The chunk's event ids not yet known to be taken, sorted: those to look up in the index."""
        return sorted({e.event_id for e in chunk if e.event_id is not None} - self.taken)

    def keep(self, chunk: list[_Encoded], held: Iterable[str]) -> tuple[list[tuple[int, str | None, bytes]], list[str]]:
        """The chunk's records to store as (seq, event id, text), and their new event ids, given the ids
        of ``wanted`` the binder ``held``; the others count as duplicates."""
        self.taken.update(held)
        kept: list[tuple[int, str | None, bytes]] = []
        new_ids: list[str] = []
        for encoded in chunk:
            event_id = encoded.event_id
            if event_id is not None:
                if event_id in self.taken:
                    self.duplicates += 1
                    continue
                self.taken.add(event_id)
                new_ids.append(event_id)
            if self.stored:
                self.digest.update(b",")
            self.digest.update(encoded.text)
            kept.append((self.stored, event_id, encoded.text))
            self.stored += 1
        return kept, new_ids

    def row(self, context: BatchContext) -> BatchFacts:
        digest = self.digest.copy()
        digest.update(b"]")
        return _batch_row(
            self.batch_id, context, self.stored, self.duplicates, DIGEST_PREFIX + digest.hexdigest(), "records"
        )


async def persist_batch(
    services: BatchWriter, records: Iterator[Normalized], context: BatchContext, *, small: bool = False
) -> StoredBatch:
    """Store the batch ``records`` make, or nothing visible (any ApiError raised while reading them
    aborts it). ``small``: the body is small enough to read on the event loop."""
    first: list[_Encoded] = []
    if small:
        first = _encode_chunk(records, context, 0)
        if len(first) <= LOOP_RECORDS:
            chunk = first
            row = services.run_on_loop(lambda connection: _write_on_loop(connection, chunk, context))
            if row is not None:
                # Yield once: a client posting back to back over an in-process transport would otherwise
                # never let the loop's other tasks run.
                await anyio.lowlevel.checkpoint()
                return StoredBatch(row=row)
    with tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY) as spool:
        if small:
            count = _stage(records, context, spool, first)
        else:
            count = await anyio.to_thread.run_sync(_stage, records, context, spool, first)

        async def write(slices: _Slices) -> BatchFacts:
            spool.seek(0)
            return await services.run(_write_records, spool, context, slices)

        return StoredBatch(row=await _write_batch(services, context, count > SLICE_RECORDS, write))


_HELD_SQL = (
    "SELECT e.event_id, f.batch_id FROM intake_event AS e LEFT JOIN intake_inflight AS f ON f.batch_id = e.batch_id "
    "WHERE e.binder_id = ? AND e.event_id IN ({})"
)


def _write_on_loop(connection: sqlite3.Connection, chunk: list[_Encoded], context: BatchContext) -> BatchFacts | None:
    """The records of ``chunk`` (a small batch) as one batch, through a plain ``sqlite3`` connection in
    the transaction :meth:`BatchWriter.run_on_loop` holds: the same rows :func:`_write_records` writes.
    None, with nothing written, when a batch in flight holds one of its event ids (:func:`_write_batch`
    decides what then)."""
    tally = _Tally(new_id(BATCH_PREFIX), context.binder.id)
    wanted = tally.wanted(chunk)
    held: list[str] = []
    if wanted:
        sql = _HELD_SQL.format(", ".join("?" * len(wanted)))
        rows = connection.execute(sql, (tally.binder_id, *wanted)).fetchall()
        if any(owner is not None for _, owner in rows):
            return None
        held = [r[0] for r in rows]
    kept, new_ids = tally.keep(chunk, held)
    records = prepare_insert(IntakeRecord)
    connection.executemany(
        records.sql,
        [
            records.parameters(
                {
                    "batch_id": tally.batch_id,
                    "seq": seq,
                    "binder_id": tally.binder_id,
                    "event_id": event_id,
                    "record_json": text.decode("utf-8"),
                }
            )
            for seq, event_id, text in kept
        ],
    )
    if new_ids:
        events = prepare_insert(IntakeEvent)
        connection.executemany(
            events.sql,
            [
                events.parameters({"binder_id": tally.binder_id, "event_id": e, "batch_id": tally.batch_id})
                for e in new_ids
            ],
        )
    row = tally.row(context)
    batch = prepare_insert(IntakeBatch)
    connection.execute(batch.sql, batch.parameters(row.values()))
    return row


def _write_records(
    conn: Connection, spool: IO[bytes], context: BatchContext, slices: _Slices, pause: Pause
) -> BatchFacts:
    """Write the staged records of ``spool`` as one batch through ``conn`` (a synchronous connection).

    Chunk by chunk, the chunk's new event ids are claimed first (those held by finished batches make its
    duplicates), then its records written. Unsliced (up to SLICE_RECORDS records): all in one transaction
    with the batch row. Sliced: in bounded transactions of about SLICE_SECONDS each (:class:`_Slices`), each
    claiming its own event ids under the batch's in-flight row; the last one writes the batch row. Until
    it commits no batch row names the records, so nothing reads them."""
    tally = _Tally(slices.batch_id, context.binder.id)
    slices.begin(conn)
    while chunk := _staged_chunk(spool):
        wanted = tally.wanted(chunk)
        held: list[str] = []
        if wanted:
            claimed = _claim_ids(conn, tally.binder_id, tally.batch_id, wanted)
            held = [e for e in wanted if e not in claimed]
        kept, _ = tally.keep(chunk, held)
        if kept:
            conn.execute(
                insert(IntakeRecord),
                [
                    {
                        "batch_id": tally.batch_id,
                        "seq": seq,
                        "binder_id": tally.binder_id,
                        "event_id": event_id,
                        "record_json": text.decode("utf-8"),
                    }
                    for seq, event_id, text in kept
                ],
            )
        slices.tick(conn, pause)
    return slices.finish(conn, tally.row(context))


def _batch_row(
    batch_id: str, context: BatchContext, stored: int, duplicates: int, digest: str, content_format: str
) -> BatchFacts:
    return BatchFacts(
        id=batch_id,
        organization_id=context.organization_id,
        binder_id=context.binder.id,
        ai_system_id=context.binder.ai_system_id,
        api_key_id=context.api_key_id,
        producer_id=context.producer_id,
        producer_kind=context.producer_kind,
        adapter_id=context.binder.adapter_id,
        adapter_version=context.binder.adapter_version,
        record_count=stored,
        duplicate_count=duplicates,
        content_digest=digest,
        content_format=content_format,
        created_at=context.now,
    )


# ----- batches stored as their content ---------------------------------------------------------------

OTLP_PROTOBUF = "otlp-protobuf"
CONTENT_CHUNK = 1024 * 1024
# A content batch bigger than this (or of more than SLICE_RECORDS records) is written in bounded
# transactions, like a big batch of records.
SLICE_CONTENT_BYTES = 4 * CONTENT_CHUNK
# Event ids claimed per statement (sent as one JSON array).
_CLAIM_CHUNK = 2_000
_CONTENT_ROWS = 2


def _claim_sql(dialect: str) -> str:
    """INSERT of the event ids in the JSON array ``:ids`` for ``:binder`` and ``:batch``, skipping held ones."""
    if dialect == "postgresql":
        source = "jsonb_array_elements_text(CAST(:ids AS jsonb)) AS value ORDER BY value"
    else:
        source = "json_each(:ids) WHERE true ORDER BY value"  # WHERE: SQLite's parser needs it before ON CONFLICT
    return (
        f"INSERT INTO intake_event (binder_id, event_id, batch_id) SELECT :binder, value, :batch FROM {source} "
        "ON CONFLICT DO NOTHING"
    )


def _content_rows(file: IO[bytes], batch_id: str, digest: Any, first: int) -> list[dict[str, Any]]:
    """The next rows of content from ``file`` (read with ``os.pread``), chunk ``first`` on, hashed into
    ``digest`` as they are read."""
    rows: list[dict[str, Any]] = []
    fd = file.fileno()
    while len(rows) < _CONTENT_ROWS:
        data = os.pread(fd, CONTENT_CHUNK, (first + len(rows)) * CONTENT_CHUNK)
        if not data:
            break
        digest.update(data)
        rows.append({"batch_id": batch_id, "seq": first + len(rows), "data": data})
    return rows


Rewrite = Callable[[set[int]], tuple[IO[bytes], int]]


async def persist_content_batch(
    services: BatchWriter,
    file: IO[bytes],
    size: int,
    scan: Callable[[], list[bytes]],
    render: Callable[[bytes], str],
    context: BatchContext,
    without: Rewrite,
) -> StoredBatch:
    """Store the content in ``file`` (``size`` bytes) as one batch, or nothing visible. ``scan`` checks it
    (an ApiError refuses it) and returns its records' keys in order, ``render`` makes a key's event id. A
    record whose event id the binder holds, or that repeats an earlier record of the batch, is removed
    from the stored content by ``without`` (given the removed positions) and counted as a duplicate.

    Written like a batch of records (:func:`_write_batch`, :func:`_write_content`). Up to
    SLICE_CONTENT_BYTES, checked first, then written in one transaction (in bounded ones should it hold
    more than SLICE_RECORDS records). Bigger: written in bounded transactions while it is checked (the
    write releases the GIL, the check holds it: two cores share the work), then its event ids claimed."""
    file.fileno()  # a spooled file still in memory moves to disk now, before the scan reads it

    def scan_ids() -> _EventIds:
        ids = [render(k) for k in scan()]
        return _EventIds(ids, sorted(set(ids)))

    keys: _EventIds | None = None
    if size <= SLICE_CONTENT_BYTES:
        keys = await anyio.to_thread.run_sync(scan_ids)
    sliced = keys is None or len(keys.ids) > SLICE_RECORDS

    async def write(slices: _Slices) -> BatchFacts:
        nonlocal keys
        written: str | None = None
        if keys is None:
            scanned = _Scanned()
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(_scan_into, scan_ids, scanned)
                written = await services.run(_put_first, file, slices)
            if scanned.error is not None:
                raise scanned.error
            keys = scanned.keys
        assert keys is not None
        return await services.run(_write_content, file, keys, without, context, slices, written)

    return StoredBatch(row=await _write_batch(services, context, sliced, write))


@dataclass(frozen=True, slots=True)
class _EventIds:
    """A content batch's event ids in order, and the same sorted without repeats."""

    ids: list[str]
    distinct: list[str]


@dataclass(slots=True)
class _Scanned:
    keys: _EventIds | None = None
    error: BaseException | None = None


async def _scan_into(scan: Callable[[], _EventIds], box: _Scanned) -> None:
    try:
        box.keys = await anyio.to_thread.run_sync(scan)
    except Exception as exc:  # handed to the caller once the content write has stopped
        box.error = exc


def _put_content(conn: Connection, content: IO[bytes], slices: _Slices, pause: Pause) -> str:
    """Write ``content`` as the batch's content chunks; its digest."""
    digest = hashlib.sha256()
    seq = 0
    while rows := _content_rows(content, slices.batch_id, digest, seq):
        conn.execute(insert(IntakeContent), rows)
        seq += len(rows)
        slices.tick(conn, pause)
    return DIGEST_PREFIX + digest.hexdigest()


def _put_first(conn: Connection, content: IO[bytes], slices: _Slices, pause: Pause) -> str:
    """A big batch's content, written (and committed) before its event ids are claimed; its digest."""
    slices.begin(conn)
    digest = _put_content(conn, content, slices, pause)
    conn.commit()
    return digest


def _write_content(
    conn: Connection,
    file: IO[bytes],
    keys: _EventIds,
    without: Rewrite,
    context: BatchContext,
    slices: _Slices,
    written: str | None,
    pause: Pause,
) -> BatchFacts:
    """Claim the content's event ids (sorted, in statements of _CLAIM_CHUNK), then write the content (the
    request, or the request without its duplicate records, rewritten between two transactions) unless
    it is ``written`` already (its digest) and has no duplicates, then the batch row, through ``conn``;
    sliced as :class:`_Slices` says. Content written before duplicates were found is removed first."""
    slices.begin(conn)
    ids, distinct = keys.ids, keys.distinct
    claimed: set[str] = set()
    for start in range(0, len(distinct), _CLAIM_CHUNK):
        claimed |= _claim_ids(conn, slices.binder_id, slices.batch_id, distinct[start : start + _CLAIM_CHUNK])
        slices.tick(conn, pause)
    dropped: set[int] = set()
    if len(claimed) < len(ids):
        if slices.sliced:
            conn.commit()  # the write lock is not held while the duplicates are found and removed
        seen: set[str] = set()
        for index, event_id in enumerate(ids):
            if event_id not in claimed or event_id in seen:
                dropped.add(index)
            seen.add(event_id)
    digest = written
    if dropped or digest is None:
        content = file
        if dropped:
            content, _ = without(dropped)
            slices.begin(conn)
        try:
            if written is not None:
                _remove_content(conn, slices, pause)
            digest = _put_content(conn, content, slices, pause)
        finally:
            if content is not file:
                content.close()
    row = _batch_row(slices.batch_id, context, len(ids) - len(dropped), len(dropped), digest, OTLP_PROTOBUF)
    return slices.finish(conn, row)


def _remove_content(conn: Connection, slices: _Slices, pause: Pause) -> None:
    """Remove the content chunks written so far (the batch is in flight: the triggers let it through)."""
    while conn.execute(text(_REMOVE_CONTENT), {"batch": slices.batch_id}).rowcount:
        slices.tick(conn, pause)


class TamperedBatchError(ValueError):
    """A stored batch whose content no longer matches its content digest."""


async def load_content(session: AsyncSession, row: IntakeBatch) -> bytes:
    """A content batch's stored bytes, checked against its digest (TamperedBatchError when they differ)."""
    result = await session.exec(
        select(IntakeContent.data).where(IntakeContent.batch_id == row.id).order_by(col(IntakeContent.seq))
    )
    content = b"".join(result.all())
    if DIGEST_PREFIX + hashlib.sha256(content).hexdigest() != row.content_digest:
        raise TamperedBatchError(f"The stored content of batch {row.id} does not match its content digest.")
    return content


@dataclass(frozen=True, slots=True)
class IngestedBatch:
    """An accepted batch as the evaluation reads it: what produced it and its normalized records."""

    producer_run_id: str
    producer_id: str
    producer_kind: str
    binder_id: str
    ai_system_id: str | None
    adapter_id: str
    adapter_version: str
    content_digest: str
    records: list[dict[str, Any]]


async def load_batch_row(session: AsyncSession, organization_id: str, producer_run_id: str) -> IntakeBatch | None:
    """The organization's batch with this producerRunId; None when missing or another organization's."""
    row = await session.get(IntakeBatch, producer_run_id)
    if row is None or row.organization_id != organization_id:
        return None
    return row


async def iter_record_texts(session: AsyncSession, producer_run_id: str) -> list[str]:
    """The batch's records as stored (RFC 8785 JSON text), in order."""
    result = await session.exec(
        select(IntakeRecord.record_json).where(IntakeRecord.batch_id == producer_run_id).order_by(col(IntakeRecord.seq))
    )
    return list(result.all())


async def load_ingested_batch(
    session: AsyncSession, organization_id: str, producer_run_id: str
) -> IngestedBatch | None:
    """The batch behind a receipt's ``producerRunId`` with its normalized records, in order (a content
    batch's normalized from its checked content); None when it is missing or another organization's."""
    row = await load_batch_row(session, organization_id, producer_run_id)
    if row is None:
        return None
    if row.content_format == OTLP_PROTOBUF:
        records = list(otlp_traces.normalized_spans(await load_content(session, row)))
    else:
        records = [json.loads(t) for t in await iter_record_texts(session, producer_run_id)]
    return IngestedBatch(
        producer_run_id=row.id,
        producer_id=row.producer_id,
        producer_kind=row.producer_kind,
        binder_id=row.binder_id,
        ai_system_id=row.ai_system_id,
        adapter_id=row.adapter_id,
        adapter_version=row.adapter_version,
        content_digest=row.content_digest,
        records=records,
    )

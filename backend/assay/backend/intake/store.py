"""Persisting intake batches atomically and immutably, and reading them back.

Two ways of storing a batch (``intake_batch.content_format``):

- ``otlp-protobuf`` (OTLP traces): :func:`persist_content_batch` stores the checked request itself, in
  chunks of 1 MiB (``intake_content``); its content digest is SHA-256 over those stored bytes. Spans whose
  event id the binder already holds are first removed from it (``otlp_traces.without_spans``).
- ``records`` (every other batch): :func:`persist_batch` stores one normalized record per row.

Either way the batch's event ids are claimed in ``intake_event`` (unique per binder) in the same
transaction as its content and its row, so a failure anywhere leaves nothing behind.

:func:`persist_batch` pulls normalized records from an adapter (decoding and canonical JSON in a worker
thread, on the loop for a small body), checks and stages them (canonical text, framed) in a spooled
temporary file, then writes them with :func:`_write_records` through the service's ``BatchWriter`` (one
synchronous function, in one worker thread on SQLite): records whose event id the binder already holds
(earlier batches, or earlier in this one) are dropped, the rest written, then the batch row with its
counts and content digest. Up to SLICE_RECORDS records, all in ONE transaction; a bigger batch in
bounded transactions, the batch row and event ids last (see :func:`_write_records`), so no single
request holds SQLite's write lock for long. Either way the batch becomes visible whole or not at all. The content
digest is SHA-256 over the RFC 8785 JSON of the array of stored records (``sha256:<hex>``), computed as
the records stream, so memory holds one chunk whatever the batch size. Triggers of migration 0003 refuse
any later UPDATE or DELETE of batches and records.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import struct
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import IO, Any

import anyio
import anyio.lowlevel
import orjson
from sqlalchemy import Connection, bindparam, insert, text
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from assay.backend.canonical import DIGEST_PREFIX, canonical_bytes
from assay.backend.errors import ApiError
from assay.backend.intake.adapters import otlp_traces
from assay.backend.storage.db import SessionFactory
from assay.backend.storage.models import (
    IntakeBatch,
    IntakeContent,
    IntakeEvent,
    IntakeRecord,
    new_id,
)
from assay.backend.storage.writer import BatchWriter, prepare_insert

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


_TAKEN_IDS = select(IntakeEvent.event_id).where(
    col(IntakeEvent.binder_id) == bindparam("binder_id"),
    col(IntakeEvent.event_id).in_(bindparam("event_ids", expanding=True)),
)


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
_ATTEMPTS = 3
Pause = Callable[[float], None]


class BatchRaceError(Exception):
    """Another batch claimed some of this batch's new event ids while it was written: read it again."""


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
        for _ in range(_ATTEMPTS):
            spool.seek(0)
            try:
                return StoredBatch(row=await services.run(_write_records, spool, context, count > SLICE_RECORDS))
            except BatchRaceError:
                continue
    raise ApiError(
        "INTERNAL_ERROR",
        "Concurrent batches kept claiming the same event ids; retry the request.",
        status=503,
        retryable=True,
        headers={"Retry-After": "1"},
    )


_HELD_SQL = "SELECT event_id FROM intake_event WHERE binder_id = ? AND event_id IN ({})"


def _write_on_loop(connection: sqlite3.Connection, chunk: list[_Encoded], context: BatchContext) -> BatchFacts:
    """The records of ``chunk`` (a small batch) as one batch, through a plain ``sqlite3`` connection in
    the transaction :meth:`BatchWriter.run_on_loop` holds: the same rows :func:`_write_records` writes."""
    tally = _Tally(new_id(BATCH_PREFIX), context.binder.id)
    wanted = tally.wanted(chunk)
    held: list[str] = []
    if wanted:
        sql = _HELD_SQL.format(", ".join("?" * len(wanted)))
        held = [r[0] for r in connection.execute(sql, (tally.binder_id, *wanted))]
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


def _write_records(conn: Connection, spool: IO[bytes], context: BatchContext, sliced: bool, pause: Pause) -> BatchFacts:
    """Write the staged records of ``spool`` as one batch through ``conn`` (a synchronous connection).

    Up to SLICE_RECORDS records: one transaction holds the records, their event ids and the batch row, so
    a failure anywhere leaves nothing behind. A bigger batch is written in bounded transactions of at most
    SLICE_SECONDS each (records with no event id in them), then one last transaction claims its event ids
    (read again from ``spool``) and writes the batch row: until that commits, the records belong to no
    batch, and nothing reads them. Should another batch have claimed one of the ids meanwhile, the last
    transaction is rolled back and BatchRaceError raised; the records written stay unreferenced."""
    tally = _Tally(new_id(BATCH_PREFIX), context.binder.id)
    batch_id, binder_id = tally.batch_id, tally.binder_id
    kept_ids = 0
    started = time.monotonic()
    while chunk := _staged_chunk(spool):
        wanted = tally.wanted(chunk)
        held: list[str] = []
        if wanted:
            held = list(conn.execute(_TAKEN_IDS, {"binder_id": binder_id, "event_ids": wanted}).scalars())
        kept, new_ids = tally.keep(chunk, held)
        kept_ids += len(new_ids)
        if kept:
            conn.execute(
                insert(IntakeRecord),
                [
                    {
                        "batch_id": batch_id,
                        "seq": seq,
                        "binder_id": binder_id,
                        # A sliced batch's ids are claimed in its last transaction (intake_event) only.
                        "event_id": None if sliced else event_id,
                        "record_json": text.decode("utf-8"),
                    }
                    for seq, event_id, text in kept
                ],
            )
        if new_ids and not sliced:
            conn.execute(
                insert(IntakeEvent),
                [{"binder_id": binder_id, "event_id": e, "batch_id": batch_id} for e in new_ids],
            )
        if sliced and time.monotonic() - started > SLICE_SECONDS:
            conn.commit()
            pause((time.monotonic() - started) / 2)
            started = time.monotonic()
    if sliced and kept_ids:
        spool.seek(0)
        if _claim_staged(conn, spool, binder_id, batch_id) != kept_ids:
            conn.rollback()
            raise BatchRaceError
    row = tally.row(context)
    conn.execute(insert(IntakeBatch), [row.values()])  # parameters, not values(): compiled once
    conn.commit()
    return row


def _claim_staged(conn: Connection, spool: IO[bytes], binder_id: str, batch_id: str) -> int:
    """Claim, for ``batch_id``, every event id staged in ``spool`` the binder does not hold; how many."""
    statement = text(_claim_sql(conn.dialect.name))
    claimed = 0
    pending: list[str] = []

    def flush() -> int:
        ids = orjson.dumps(sorted(pending)).decode("utf-8")
        pending.clear()
        return int(conn.execute(statement, {"binder": binder_id, "batch": batch_id, "ids": ids}).rowcount)

    while chunk := _staged_chunk(spool):
        pending.extend(e.event_id for e in chunk if e.event_id is not None)
        if len(pending) >= _CLAIM_CHUNK:
            claimed += flush()
    if pending:
        claimed += flush()
    return claimed


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
# Event ids claimed per statement (sent as one JSON array).
_CLAIM_CHUNK = 50_000
_CONTENT_ROWS = 4


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


async def _claim(
    conn: AsyncConnection, binder_id: str, batch_id: str, keys: list[bytes], render: Callable[[bytes], str]
) -> int:
    """Insert the event ids of ``keys`` into the binder's index, skipping those it holds (and repeats);
    how many were new. Each statement's ids are inserted in sorted order: neighbouring ids land in
    neighbouring index pages."""
    statement = text(_claim_sql(conn.dialect.name))
    claimed = 0
    for start in range(0, len(keys), _CLAIM_CHUNK):
        ids = orjson.dumps([render(k) for k in keys[start : start + _CLAIM_CHUNK]]).decode("utf-8")
        result = await conn.execute(statement, {"binder": binder_id, "batch": batch_id, "ids": ids})
        claimed += result.rowcount
    return claimed


async def _held(conn: AsyncConnection, binder_id: str, keys: list[bytes], render: Callable[[bytes], str]) -> set[str]:
    """The event ids of ``keys`` the binder holds (one index probe per id)."""
    if conn.dialect.name == "postgresql":
        source = "jsonb_array_elements_text(CAST(:ids AS jsonb)) AS j(value)"
    else:
        source = "json_each(:ids) AS j"
    # CROSS JOIN: SQLite walks the ids and probes the index, never the binder's whole range.
    statement = text(
        f"SELECT e.event_id FROM {source} CROSS JOIN intake_event AS e "
        "WHERE e.binder_id = :binder AND e.event_id = j.value"
    )
    held: set[str] = set()
    for start in range(0, len(keys), _CLAIM_CHUNK):
        ids = orjson.dumps([render(k) for k in keys[start : start + _CLAIM_CHUNK]]).decode("utf-8")
        result = await conn.execute(statement, {"binder": binder_id, "ids": ids})
        held.update(r[0] for r in result.all())
    return held


def _content_rows(file: IO[bytes], batch_id: str, digest: Any, first: int) -> list[dict[str, Any]]:
    """The next rows of content from ``file`` (read with ``os.pread``, leaving its position to the scan
    that may read it meanwhile), chunk ``first`` on, hashed into ``digest`` as they are read."""
    rows: list[dict[str, Any]] = []
    fd = file.fileno()
    while len(rows) < _CONTENT_ROWS:
        data = os.pread(fd, CONTENT_CHUNK, (first + len(rows)) * CONTENT_CHUNK)
        if not data:
            break
        digest.update(data)
        rows.append({"batch_id": batch_id, "seq": first + len(rows), "data": data})
    return rows


async def _write_content(session: AsyncSession, file: IO[bytes], batch_id: str) -> str:
    """Write ``file`` as the batch's content chunks; its digest."""
    digest = hashlib.sha256()
    seq = 0
    while True:
        rows = await anyio.to_thread.run_sync(_content_rows, file, batch_id, digest, seq)
        if not rows:
            return DIGEST_PREFIX + digest.hexdigest()
        await session.exec(insert(IntakeContent), params=rows)
        seq += len(rows)


Rewrite = Callable[[set[int]], tuple[IO[bytes], int]]


@dataclass(slots=True)
class _Scanned:
    keys: list[bytes] | None = None
    error: BaseException | None = None


async def _scan_into(scan: Callable[[], list[bytes]], box: _Scanned) -> None:
    try:
        box.keys = await anyio.to_thread.run_sync(scan)
    except Exception as exc:  # handed to the caller once the content write has stopped
        box.error = exc


def _repeats(keys: list[bytes]) -> set[int]:
    """Positions of keys that repeat an earlier one."""
    repeats: set[int] = set()
    seen: set[bytes] = set()
    for index, key in enumerate(keys):
        if key in seen:
            repeats.add(index)
        seen.add(key)
    return repeats


async def persist_content_batch(
    sessions: SessionFactory,
    file: IO[bytes],
    scan: Callable[[], list[bytes]],
    render: Callable[[bytes], str],
    context: BatchContext,
    without: Rewrite,
) -> StoredBatch:
    """Store the content in ``file`` as one batch, or nothing. ``scan`` checks it (an ApiError refuses it)
    and returns its records' keys in order, ``render`` makes a key's event id. A record whose event id the
    binder holds, or that repeats an earlier record of the batch, is removed from the stored content by
    ``without`` (given the removed positions) and counted as a duplicate.

    The content is written while it is scanned (the write releases the GIL, the scan holds it: two cores
    share the work), in the transaction that then claims the event ids. Should any of them be taken, that
    transaction is rolled back at once (SQLite's write lock is free again); the ids held are read, the
    content is rewritten without them outside any transaction, and a second transaction claims the rest
    and stores it (again, should another batch have taken ids meanwhile)."""
    batch_id = new_id(BATCH_PREFIX)
    scanned = _Scanned()
    file.fileno()  # a spooled file still in memory moves to disk now, before the scan reads it
    async with sessions() as session:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(_scan_into, scan, scanned)
            digest = await _write_content(session, file, batch_id)
        if scanned.error is not None:
            raise scanned.error
        keys = scanned.keys
        assert keys is not None
        binder_id = context.binder.id
        dropped: set[int] = set()
        claimed = await _claim(await session.connection(), binder_id, batch_id, keys, render)
        while claimed < len(keys) - len(dropped):
            await session.rollback()
            repeats = _repeats(keys)
            held = await _held(await session.connection(), binder_id, sorted(set(keys)), render)
            await session.rollback()
            dropped = repeats | {i for i, k in enumerate(keys) if render(k) in held}
            kept = [k for i, k in enumerate(keys) if i not in dropped]
            rewritten, _ = await anyio.to_thread.run_sync(without, dropped)
            try:
                claimed = await _claim(await session.connection(), binder_id, batch_id, kept, render)
                if claimed == len(kept):
                    digest = await _write_content(session, rewritten, batch_id)
            finally:
                rewritten.close()
        row = _batch_row(batch_id, context, len(keys) - len(dropped), len(dropped), digest, OTLP_PROTOBUF)
        await session.exec(insert(IntakeBatch), params=[row.values()])
        await session.commit()
    return StoredBatch(row=row)


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

"""Persisting intake batches atomically and immutably, and reading them back.

:func:`persist_batch` pulls normalized records from an adapter in chunks (decoding and canonical JSON in
a worker thread), drops records whose event id the binder already holds (earlier batches, or earlier in
this one: the query sees the transaction's own rows), and writes the rest, then the batch row with its
counts and content digest, all in ONE transaction: a failure anywhere leaves nothing behind. Records are
first checked and staged (canonical text, framed) in a spooled temporary file, so the write transaction,
which holds SQLite's write lock, lasts only as long as the inserts themselves. The content
digest is SHA-256 over the RFC 8785 JSON of the array of stored records (``sha256:<hex>``), computed as
the records stream, so memory holds one chunk whatever the batch size. Triggers of migration 0003 refuse
any later UPDATE or DELETE of batches and records.
"""

from __future__ import annotations

import hashlib
import json
import struct
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import IO, Any

import anyio
from sqlalchemy import bindparam, insert
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from assay.backend.canonical import DIGEST_PREFIX, canonical_bytes
from assay.backend.errors import ApiError
from assay.backend.storage.db import SessionFactory
from assay.backend.storage.models import EvidenceBinder, IntakeBatch, IntakeRecord, new_id

Normalized = tuple[str | None, dict[str, Any]]
BATCH_PREFIX = "ing"
SPOOL_IN_MEMORY = 1024 * 1024
CHUNK = 2000
MAX_EVENT_ID = 255


@dataclass(frozen=True, slots=True)
class BatchContext:
    """Who sends the batch and through which binder."""

    organization_id: str
    api_key_id: str
    binder: EvidenceBinder
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


_TAKEN_IDS = select(IntakeRecord.event_id).where(
    col(IntakeRecord.binder_id) == bindparam("binder_id"),
    col(IntakeRecord.event_id).in_(bindparam("event_ids", expanding=True)),
)


@dataclass(frozen=True, slots=True)
class StoredBatch:
    """What the receipt reports of a persisted batch."""

    row: IntakeBatch


def _stage(records: Iterator[Normalized], context: BatchContext, spool: IO[bytes]) -> int:
    """Read, check and encode every record into ``spool`` (framed: event id, then canonical text); their
    count. Runs in a worker thread, before the write transaction opens: the database is locked only
    while the staged records are written, not while the body is decoded."""
    seen = 0
    while True:
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


async def persist_batch(sessions: SessionFactory, records: Iterator[Normalized], context: BatchContext) -> StoredBatch:
    """Store the batch ``records`` make, or nothing (any ApiError raised while reading them aborts it)."""
    with tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY) as spool:
        await anyio.to_thread.run_sync(_stage, records, context, spool)
        spool.seek(0)
        return await _write(sessions, spool, context)


async def _write(sessions: SessionFactory, spool: IO[bytes], context: BatchContext) -> StoredBatch:
    batch_id = new_id(BATCH_PREFIX)
    digest = hashlib.sha256(b"[")
    stored = duplicates = 0
    async with sessions() as session:
        while True:
            chunk = await anyio.to_thread.run_sync(_staged_chunk, spool)
            if not chunk:
                break
            wanted = {e.event_id for e in chunk if e.event_id is not None}
            taken: set[str] = set()
            if wanted:
                rows = await session.exec(
                    _TAKEN_IDS, params={"binder_id": context.binder.id, "event_ids": sorted(wanted)}
                )
                taken = {r for r in rows.all() if r is not None}
            values = []
            for encoded in chunk:
                if encoded.event_id is not None:
                    if encoded.event_id in taken:
                        duplicates += 1
                        continue
                    taken.add(encoded.event_id)
                if stored:
                    digest.update(b",")
                digest.update(encoded.text)
                values.append(
                    {
                        "batch_id": batch_id,
                        "seq": stored,
                        "binder_id": context.binder.id,
                        "event_id": encoded.event_id,
                        "record_json": encoded.text.decode("utf-8"),
                    }
                )
                stored += 1
            if values:
                await session.exec(insert(IntakeRecord), params=values)
        digest.update(b"]")
        row = IntakeBatch(
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
            content_digest=DIGEST_PREFIX + digest.hexdigest(),
            created_at=context.now,
        )
        session.add(row)
        await session.commit()
    return StoredBatch(row=row)


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
    """The batch behind a receipt's ``producerRunId`` with its records parsed, in order; None when it is
    missing or another organization's."""
    row = await load_batch_row(session, organization_id, producer_run_id)
    if row is None:
        return None
    texts = await iter_record_texts(session, producer_run_id)
    return IngestedBatch(
        producer_run_id=row.id,
        producer_id=row.producer_id,
        producer_kind=row.producer_kind,
        binder_id=row.binder_id,
        ai_system_id=row.ai_system_id,
        adapter_id=row.adapter_id,
        adapter_version=row.adapter_version,
        content_digest=row.content_digest,
        records=[json.loads(t) for t in texts],
    )

"""At most N probe sessions per runtime target at once, across runs, workers and replicas.

A session holds one of its target's N slots (``runtime_probe_slot`` rows, primary key target and slot
number) from just before it contacts the target until it has ended. Taking a slot is one INSERT (or, for a
slot whose holder's hold has expired, one conditional UPDATE), so two workers never hold the same slot,
on SQLite or PostgreSQL, in one process or many. A run that finds every slot held waits, polling, for at
most ``wait_seconds``, then fails retryably. A hold expires on its own after the session's time bound
and a margin, so a worker that died while probing never blocks the target for long.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import timedelta

import anyio
from sqlalchemy import delete, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import col

from assay.backend.storage import models
from assay.backend.storage.db import SessionFactory

logger = logging.getLogger(__name__)

# How often a waiting run looks for a free slot again (the holder may be in another process).
POLL_SECONDS = 0.2
# Added to a session's time bound for its hold: closing the session and ending the server's process.
HOLD_MARGIN_SECONDS = 30.0


class TargetBusyError(Exception):
    """Every slot of the target stayed held for the whole wait."""


async def _take(sessions: SessionFactory, target_id: str, holder: str, slots: int, hold_seconds: float) -> int | None:
    """The number of a slot now held by ``holder``, or None when every slot is held."""
    now = models.utcnow()
    expires = now + timedelta(seconds=hold_seconds)
    for slot in range(slots):
        async with sessions() as session:
            session.add(models.RuntimeProbeSlot(target_id=target_id, slot=slot, holder=holder, expires_at=expires))
            try:
                await session.commit()
                return slot
            except IntegrityError:
                await session.rollback()
            stolen = await session.exec(
                update(models.RuntimeProbeSlot)
                .where(
                    col(models.RuntimeProbeSlot.target_id) == target_id,
                    col(models.RuntimeProbeSlot.slot) == slot,
                    # Expired, or held by this same holder (a run taken over after its worker died).
                    (col(models.RuntimeProbeSlot.expires_at) < now) | (col(models.RuntimeProbeSlot.holder) == holder),
                )
                .values(holder=holder, expires_at=expires)
                .execution_options(synchronize_session=False)
            )
            await session.commit()
            if stolen.rowcount:
                return slot
    return None


async def _give_back(sessions: SessionFactory, target_id: str, slot: int, holder: str) -> None:
    async with sessions() as session:
        await session.exec(
            delete(models.RuntimeProbeSlot).where(
                col(models.RuntimeProbeSlot.target_id) == target_id,
                col(models.RuntimeProbeSlot.slot) == slot,
                col(models.RuntimeProbeSlot.holder) == holder,
            )
        )
        await session.commit()


@asynccontextmanager
async def target_slot(
    sessions: SessionFactory,
    target_id: str,
    holder: str,
    *,
    slots: int,
    hold_seconds: float,
    wait_seconds: float,
    waiting: Callable[[], None] = lambda: None,
) -> AsyncIterator[None]:
    """Hold one of ``target_id``'s ``slots`` for the body; ``waiting`` is called once when every slot is
    held at first. TargetBusyError after ``wait_seconds`` without a free slot."""
    deadline = time.monotonic() + wait_seconds
    slot = await _take(sessions, target_id, holder, slots, hold_seconds)
    if slot is None:
        waiting()
    while slot is None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TargetBusyError(target_id)
        await anyio.sleep(min(POLL_SECONDS, remaining))
        slot = await _take(sessions, target_id, holder, slots, hold_seconds)
    try:
        yield
    finally:
        with anyio.CancelScope(shield=True):
            await _give_back(sessions, target_id, slot, holder)

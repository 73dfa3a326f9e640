"""Big batches in flight (issue 21, part 11): each bounded transaction claims its own event ids; an event id
claimed by a batch still being written answers 503 (retryable), one whose writer vanished is freed, and
nothing of an unfinished batch is ever visible. On SQLite and on PostgreSQL."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from intake_helpers import OTLP_TRACES, PROTOBUF, span_export, span_export_json
from sqlalchemy import Connection, text, update
from sqlmodel import col

from assay.backend import provisioning
from assay.backend.intake import store
from assay.backend.intake.binders import create_binder
from assay.backend.settings import RateLimitSettings, ServiceSettings
from assay.backend.storage.db import sqlite_url_for
from assay.backend.storage.models import IntakeInflight, utcnow
from assay.backend.web.app import create_app

STRUCTURED = "/api/ingest/structured"
BIG = store.SLICE_RECORDS + 1


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return sqlite_url_for(tmp_path / "inflight.db")
    return str(request.getfixturevalue("pg_url"))


@dataclass
class Intake:
    app: Any
    client: httpx.AsyncClient
    org: str
    key: str
    binders: dict[str, str]

    def headers(self, **extra: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}", **extra}

    async def post(self, events: list[dict[str, Any]], binder: str = "structured") -> httpx.Response:
        return await self.client.post(
            STRUCTURED, params={"binderId": self.binders[binder]}, json=events, headers=self.headers()
        )

    async def sql(self, statement: str, **params: Any) -> list[Any]:
        async with self.app.state.services.session_factory() as session:
            result = await (await session.connection()).execute(text(statement), params)
            rows = list(result.all()) if result.returns_rows else []
            await session.commit()
            return rows

    async def age(self, batch_id: str) -> None:
        """Make a batch's heartbeat older than the staleness timeout (its writer vanished long ago)."""
        async with self.app.state.services.session_factory() as session:
            stale = utcnow() - store.STALE_AFTER - timedelta(seconds=1)
            await (await session.connection()).execute(
                update(IntakeInflight).where(col(IntakeInflight.batch_id) == batch_id).values(heartbeat_at=stale)
            )
            await session.commit()


@pytest.fixture
async def intake(database_url: str, tmp_path: Path) -> AsyncIterator[Intake]:
    settings = ServiceSettings(
        database_url=database_url, data_dir=tmp_path, run_workers=0, rate_limit=RateLimitSettings(enabled=False)
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        async with app.state.services.session_factory() as session:
            org = await provisioning.create_organization(session, "Acme")
            key = await provisioning.create_api_key(session, org.id, purpose="evidence-intake")
            binders = {
                name: (await create_binder(session, org.id, source_system=name, adapter_id=adapter)).id
                for name, adapter in (("structured", "structured"), ("other", "structured"), ("otlp", "otlp"))
            }
            await session.commit()
        # A crashed writer answers 500: the client sees it rather than the test raising it.
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://i") as client:
            yield Intake(app, client, org.id, key.api_key, binders)


class _CrashError(RuntimeError):
    """The writer's process died here."""


def _crash_after_first_slice(monkeypatch: pytest.MonkeyPatch) -> None:
    """The next big batch's writer dies right after its first bounded transaction committed, before it
    could remove anything (as a killed process would)."""
    original = store._Slices.tick

    def tick(self: store._Slices, conn: Connection, pause: store.Pause) -> None:
        original(self, conn, pause)
        raise _CrashError

    async def no_cleanup(services: object, slices: object) -> None:
        return None

    monkeypatch.setattr(store, "SLICE_SECONDS", 0.0)
    monkeypatch.setattr(store._Slices, "tick", tick)
    monkeypatch.setattr(store, "_abandon", no_cleanup)


def _events(count: int, prefix: str = "e") -> list[dict[str, Any]]:
    return [{"eventId": f"{prefix}{n}", "n": n} for n in range(count)]


def _assert_busy(answer: httpx.Response) -> None:
    assert answer.status_code == 503, answer.text
    assert answer.headers["Retry-After"] == "1"
    error = answer.json()["error"]
    assert error["retryable"] is True and error["code"] == "INTERNAL_ERROR"
    assert "still being written" in error["message"]


async def _inflight(intake: Intake) -> list[str]:
    return [r[0] for r in await intake.sql("SELECT batch_id FROM intake_inflight")]


async def _rows_of(intake: Intake, batch_id: str) -> tuple[int, int, int]:
    counts = []
    for table in ("intake_record", "intake_event", "intake_content"):
        rows = await intake.sql(f"SELECT count(*) FROM {table} WHERE batch_id = :b", b=batch_id)
        counts.append(rows[0][0])
    return counts[0], counts[1], counts[2]


async def test_a_vanished_writers_ids_answer_503_until_stale_then_are_freed(
    intake: Intake, monkeypatch: pytest.MonkeyPatch
) -> None:
    _crash_after_first_slice(monkeypatch)
    crashed = await intake.post(_events(BIG))
    assert crashed.status_code == 500
    monkeypatch.undo()
    [batch_id] = await _inflight(intake)
    records, claims, _ = await _rows_of(intake, batch_id)
    assert records == claims == store.CHUNK  # the first slice: its records and its own claims
    # Nothing of it is visible: no receipt, and what a run reads of a producerRunId finds nothing.
    async with intake.app.state.services.session_factory() as session:
        assert await store.load_ingested_batch(session, intake.org, batch_id) is None
    assert await intake.sql("SELECT id FROM intake_batch") == []
    # Its writer may still be alive (the heartbeat is fresh): the same event id again is a 503.
    _assert_busy(await intake.post([{"eventId": "e1"}]))
    _assert_busy(await intake.post(_events(BIG)))
    # Finished rows stay immutable; an unfinished batch's are not the finished ones'.
    with pytest.raises(Exception, match="immutable"):
        await intake.sql("UPDATE intake_record SET record_json = '{}' WHERE batch_id = :b", b=batch_id)
    # Past the staleness timeout the batch is removed by the next batch that meets its ids.
    await intake.age(batch_id)
    again = await intake.post([{"eventId": "e1"}])
    assert again.status_code == 201, again.text
    assert (again.json()["recordCount"], again.json()["duplicateCount"]) == (1, 0)
    assert await _rows_of(intake, batch_id) == (0, 0, 0) and await _inflight(intake) == []
    whole = await intake.post(_events(BIG))
    assert whole.status_code == 201, whole.text
    assert (whole.json()["recordCount"], whole.json()["duplicateCount"]) == (BIG - 1, 1)


async def test_a_stale_batch_is_removed_when_any_big_batch_starts(
    intake: Intake, monkeypatch: pytest.MonkeyPatch
) -> None:
    _crash_after_first_slice(monkeypatch)
    assert (await intake.post(_events(BIG))).status_code == 500
    monkeypatch.undo()
    [batch_id] = await _inflight(intake)
    await intake.age(batch_id)
    other = await intake.post(_events(BIG, prefix="x"), binder="other")
    assert other.status_code == 201, other.text
    assert await _rows_of(intake, batch_id) == (0, 0, 0) and await _inflight(intake) == []
    # A finished batch's rows cannot be removed, even by naming it in flight.
    finished = other.json()["producerRunId"]
    await intake.sql(
        "INSERT INTO intake_inflight (batch_id, binder_id, state, started_at, heartbeat_at) "
        "VALUES (:b, :binder, 'failed', :t, :t)",
        b=finished,
        binder=intake.binders["other"],
        t=utcnow(),
    )
    with pytest.raises(Exception, match="immutable"):
        await intake.sql("DELETE FROM intake_record WHERE batch_id = :b", b=finished)


async def test_a_failed_big_batch_leaves_nothing(intake: Intake) -> None:
    # A record refused (a number beyond RFC 8785's range) after 5,001 good ones: a 400, and nothing of the
    # batch left behind, neither claims nor an in-flight row.
    events = [*_events(BIG), {"eventId": "bad", "n": 10**30}]
    answer = await intake.post(events)
    assert answer.status_code == 400, answer.text
    assert await _inflight(intake) == [] and await intake.sql("SELECT count(*) FROM intake_event") == [(0,)]


async def test_big_otlp_exports_are_written_whole_and_deduplicated(intake: Intake) -> None:
    headers = intake.headers(**PROTOBUF, **{"X-Binder-Id": intake.binders["otlp"]})

    async def send(body: bytes, **extra: str) -> tuple[int, int, str]:
        answer = await intake.client.post(OTLP_TRACES, content=body, headers=headers | extra)
        assert answer.status_code == 200, answer.text
        return (
            int(answer.headers["assay-record-count"]),
            int(answer.headers["assay-duplicate-count"]),
            answer.headers["assay-producer-run-id"],
        )

    count = store.SLICE_RECORDS + 1000
    first = span_export(0, count)
    stored, duplicates, batch_id = await send(first.SerializeToString())
    assert (stored, duplicates) == (count, 0)
    async with intake.app.state.services.session_factory() as session:
        batch = await store.load_ingested_batch(session, intake.org, batch_id)
    assert batch is not None and len(batch.records) == count
    # Half new, half sent before (OTLP/JSON this time): the stored content is the new half only.
    stored, duplicates, batch_id = await send(
        span_export_json(count // 2, count), **{"Content-Type": "application/json"}
    )
    assert (stored, duplicates) == (count // 2, count - count // 2)
    async with intake.app.state.services.session_factory() as session:
        batch = await store.load_ingested_batch(session, intake.org, batch_id)
    assert batch is not None and len(batch.records) == count // 2
    assert await _inflight(intake) == []


async def test_a_duplicate_of_a_living_batch_in_flight_answers_503_then_counts_as_a_duplicate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # SQLite: the big batch's writer runs in its own thread, held here after its first slice committed.
    settings = ServiceSettings(
        database_url=sqlite_url_for(tmp_path / "living.db"),
        data_dir=tmp_path,
        run_workers=0,
        rate_limit=RateLimitSettings(enabled=False),
    )
    app = create_app(settings)
    reached, release = threading.Event(), threading.Event()
    original = store._Slices.tick

    def tick(self: store._Slices, conn: Connection, pause: store.Pause) -> None:
        def held(seconds: float) -> None:  # between two slices: the write lock is free
            if not reached.is_set():
                reached.set()
                assert release.wait(30)

        original(self, conn, held)

    monkeypatch.setattr(store, "SLICE_SECONDS", 0.0)
    monkeypatch.setattr(store._Slices, "tick", tick)
    async with app.router.lifespan_context(app):
        async with app.state.services.session_factory() as session:
            org = await provisioning.create_organization(session, "Acme")
            key = await provisioning.create_api_key(session, org.id, purpose="evidence-intake")
            binder = await create_binder(session, org.id, source_system="s", adapter_id="structured")
            await session.commit()
        headers = {"Authorization": f"Bearer {key.api_key}"}
        params = {"binderId": binder.id}
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://i") as client:
            answers: list[httpx.Response] = []

            async def big() -> None:
                answers.append(await client.post(STRUCTURED, params=params, json=_events(BIG), headers=headers))

            with anyio.fail_after(60):
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(big)
                    assert await anyio.to_thread.run_sync(reached.wait, 30)
                    try:
                        _assert_busy(
                            await client.post(STRUCTURED, params=params, json=[{"eventId": "e1"}], headers=headers)
                        )
                        fresh = await client.post(STRUCTURED, params=params, json=[{"eventId": "new"}], headers=headers)
                        assert fresh.status_code == 201, fresh.text
                    finally:
                        release.set()
            assert answers[0].status_code == 201, answers[0].text
            after = await client.post(STRUCTURED, params=params, json=[{"eventId": "e1"}], headers=headers)
            assert (after.json()["recordCount"], after.json()["duplicateCount"]) == (0, 1)


async def test_a_big_otlp_export_refused_after_its_content_was_written_leaves_nothing(intake: Intake) -> None:
    # Over 4 MiB: written while it is checked; the check then finds it truncated (a 400) and the content
    # written meanwhile is removed with its in-flight row.
    body = span_export(0, 40_000).SerializeToString() + b"\x0a\x10"
    headers = intake.headers(**PROTOBUF, **{"X-Binder-Id": intake.binders["otlp"]})
    answer = await intake.client.post(OTLP_TRACES, content=body, headers=headers)
    assert answer.status_code == 400, answer.text
    assert await _inflight(intake) == []
    for table in ("intake_content", "intake_event", "intake_batch"):
        assert await intake.sql(f"SELECT count(*) FROM {table}") == [(0,)], table

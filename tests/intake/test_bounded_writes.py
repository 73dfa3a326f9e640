"""A big batch is written in bounded transactions on SQLite: other writers keep writing meanwhile, and
the batch is still one batch, whole, deduplicated like any other."""

from __future__ import annotations

import json
from collections.abc import Awaitable
from pathlib import Path

import anyio
import httpx
from intake_helpers import OTLP_TRACES, span_export

from assay.backend import provisioning
from assay.backend.intake import store
from assay.backend.intake.binders import create_binder
from assay.backend.settings import ServiceSettings
from assay.backend.storage.db import sqlite_url_for
from assay.backend.web.app import create_app

LINES = 100_000


async def _while_small_posts(
    client: httpx.AsyncClient,
    big: Awaitable[httpx.Response],
    binder_id: str,
    headers: dict[str, str],
) -> tuple[httpx.Response, list[int]]:
    """The answer to the ``big`` post, and the statuses of the small posts (one structured event each, to
    ``binder_id``) sent one after another from its start until it is answered (at least one)."""
    small_statuses: list[int] = []
    done = anyio.Event()

    async def post_small() -> None:
        number = 0
        while not done.is_set() or number == 0:
            number += 1
            small = await client.post(
                "/api/ingest/structured",
                params={"binderId": binder_id},
                json=[{"eventId": f"small-{number}"}],
                headers=headers,
            )
            small_statuses.append(small.status_code)

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(post_small)
        try:
            answer = await big
        finally:
            done.set()
    return answer, small_statuses


async def test_other_writers_are_not_locked_out_by_a_big_batch(tmp_path: Path) -> None:
    # A short busy timeout: a writer kept waiting longer than this fails (503), so every small post
    # succeeding means none waited for the whole big batch (100,000 lines: seconds of writing in one
    # transaction; 1.5 s leaves room for the batch's last transaction, which claims every event id).
    settings = ServiceSettings(
        database_url=sqlite_url_for(tmp_path / "bounded.db"),
        data_dir=tmp_path,
        run_workers=0,
        sqlite_busy_timeout_ms=1500,
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        async with app.state.services.session_factory() as session:
            org = await provisioning.create_organization(session, "Acme")
            key = await provisioning.create_api_key(session, org.id, purpose="evidence-intake")
            log = await create_binder(session, org.id, source_system="l", adapter_id="log")
            events = await create_binder(session, org.id, source_system="s", adapter_id="structured")
            await session.commit()
        headers = {"Authorization": f"Bearer {key.api_key}"}
        big = b"".join(b"line %d of a big batch\n" % n for n in range(LINES))
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://b") as client:
            with anyio.fail_after(60):
                post_big = client.post(
                    "/api/ingest/log",
                    params={"binderId": log.id},
                    content=big,
                    headers=headers | {"Content-Type": "text/plain"},
                )
                answer, small_statuses = await _while_small_posts(client, post_big, events.id, headers)
        assert answer.status_code == 201, answer.text
        receipt = answer.json()
        assert receipt["recordCount"] == LINES
        assert small_statuses and set(small_statuses) == {201}, small_statuses
        # Whole and in order: the stored records are the lines sent.
        async with app.state.services.session_factory() as session:
            texts = await store.iter_record_texts(session, receipt["producerRunId"])
        assert len(texts) == LINES
        assert json.loads(texts[-1])["line"] == f"line {LINES - 1} of a big batch"


async def test_a_big_batch_with_event_ids_is_deduplicated_like_a_small_one(tmp_path: Path) -> None:
    settings = ServiceSettings(database_url=sqlite_url_for(tmp_path / "ids.db"), data_dir=tmp_path, run_workers=0)
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        async with app.state.services.session_factory() as session:
            org = await provisioning.create_organization(session, "Acme")
            key = await provisioning.create_api_key(session, org.id, purpose="evidence-intake")
            binder = await create_binder(session, org.id, source_system="s", adapter_id="structured")
            await session.commit()
        headers = {"Authorization": f"Bearer {key.api_key}"}
        count = store.SLICE_RECORDS * 2
        body = [{"eventId": f"e{n}", "n": n} for n in range(count)] + [{"eventId": "e0", "n": "repeat"}]
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://b") as client:
            first = await client.post(
                "/api/ingest/structured", params={"binderId": binder.id}, json=body, headers=headers
            )
            assert first.status_code == 201, first.text
            assert (first.json()["recordCount"], first.json()["duplicateCount"]) == (count, 1)
            again = await client.post(
                "/api/ingest/structured",
                params={"binderId": binder.id},
                json=[*body[:10], {"eventId": "new"}],
                headers=headers,
            )
            assert (again.json()["recordCount"], again.json()["duplicateCount"]) == (1, 10)


async def test_a_big_otlp_trace_export_leaves_the_write_lock_to_other_writers(tmp_path: Path) -> None:
    # 100,000 spans (about 40 MB): one transaction took seconds (2 s for 200,000 spans, issue 21); written
    # in bounded transactions, a small post waiting for the lock gets it well within the busy timeout.
    settings = ServiceSettings(
        database_url=sqlite_url_for(tmp_path / "otlp.db"),
        data_dir=tmp_path,
        run_workers=0,
        sqlite_busy_timeout_ms=1000,
    )
    app = create_app(settings)
    spans = 100_000
    async with app.router.lifespan_context(app):
        async with app.state.services.session_factory() as session:
            org = await provisioning.create_organization(session, "Acme")
            key = await provisioning.create_api_key(session, org.id, purpose="evidence-intake")
            otlp = await create_binder(session, org.id, source_system="o", adapter_id="otlp")
            events = await create_binder(session, org.id, source_system="s", adapter_id="structured")
            await session.commit()
        headers = {"Authorization": f"Bearer {key.api_key}"}
        traces = headers | {"Content-Type": "application/x-protobuf", "X-Binder-Id": otlp.id}
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://b") as client:
            with anyio.fail_after(120):
                post_big = client.post(OTLP_TRACES, content=span_export(0, spans).SerializeToString(), headers=traces)
                answer, small_statuses = await _while_small_posts(client, post_big, events.id, headers)
            assert answer.status_code == 200, answer.text
            assert answer.headers["assay-record-count"] == str(spans)
            assert small_statuses and set(small_statuses) == {201}, small_statuses
            # Sent again in part (written while checked, then found to hold duplicates: rewritten).
            overlap = await client.post(
                OTLP_TRACES, content=span_export(spans - 10_000, 20_000).SerializeToString(), headers=traces
            )
            assert overlap.status_code == 200, overlap.text
            assert (overlap.headers["assay-record-count"], overlap.headers["assay-duplicate-count"]) == (
                "10000",
                "10000",
            )
        async with app.state.services.session_factory() as session:
            whole = await store.load_ingested_batch(session, org.id, answer.headers["assay-producer-run-id"])
            part = await store.load_ingested_batch(session, org.id, overlap.headers["assay-producer-run-id"])
        assert whole is not None and len(whole.records) == spans
        assert part is not None and len(part.records) == 10_000

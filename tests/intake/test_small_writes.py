"""A small structured post is written on the event loop when SQLite's write lock is free, and through the
waiting writer otherwise: another writer holding the lock past the busy timeout gets it a 503 in the
envelope (retryable), never a 500, and nothing of it is stored."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import httpx

from assay.backend import provisioning
from assay.backend.intake.binders import create_binder
from assay.backend.settings import ServiceSettings
from assay.backend.storage.db import sqlite_url_for
from assay.backend.web.app import create_app


async def test_a_small_post_waits_for_a_held_write_lock_then_answers_503_and_stores_nothing(tmp_path: Path) -> None:
    database = tmp_path / "small.db"
    settings = ServiceSettings(
        database_url=sqlite_url_for(database), data_dir=tmp_path, run_workers=0, sqlite_busy_timeout_ms=200
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        async with app.state.services.session_factory() as session:
            org = await provisioning.create_organization(session, "Acme")
            key = await provisioning.create_api_key(session, org.id, purpose="evidence-intake")
            binder = await create_binder(session, org.id, source_system="s", adapter_id="structured")
            await session.commit()
        headers = {"Authorization": f"Bearer {key.api_key}"}
        event = [{"eventId": "e-1", "type": "tool_call", "tool": "refund"}]
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://b") as client:

            async def post() -> httpx.Response:
                return await client.post(
                    "/api/ingest/structured", params={"binderId": binder.id}, json=event, headers=headers
                )

            holder = sqlite3.connect(database, isolation_level=None)
            try:
                holder.execute("BEGIN IMMEDIATE")
                refused = await post()
            finally:
                holder.execute("ROLLBACK")
                holder.close()
            assert refused.status_code == 503, refused.text
            assert refused.json()["error"]["code"] == "INTERNAL_ERROR"
            assert refused.json()["error"]["retryable"] is True
            assert refused.headers["retry-after"] == "1"
            first = await post()
            again = await post()
    assert first.status_code == 201, first.text
    assert (first.json()["recordCount"], first.json()["duplicateCount"]) == (1, 0)
    assert again.status_code == 201, again.text
    assert (again.json()["recordCount"], again.json()["duplicateCount"]) == (0, 1)

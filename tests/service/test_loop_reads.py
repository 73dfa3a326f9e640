"""The loop reader: short reads on the event loop, the same answers as the session path, kept only until
the next commit.

Revocation and expiry must hold on the very next request however the key is read, including when the
change comes from another connection (``assay admin`` runs in another process).
"""

from __future__ import annotations

import dataclasses
import sqlite3
from datetime import timedelta
from pathlib import Path

import anyio
import httpx
import pytest
from service_helpers import World, assert_error, bearer
from sqlalchemy import column, select, table
from sqlalchemy.ext.asyncio import create_async_engine
from sqlmodel import col
from starlette.applications import Starlette

from assay.backend import provisioning, schemas
from assay.backend.api.discovery import SYSTEMS_OF_ORGANIZATION, ai_system_out
from assay.backend.api_keys import hash_api_key
from assay.backend.settings import ServiceSettings
from assay.backend.storage import loop_reads, models
from assay.backend.storage.db import create_engine, create_session_factory
from assay.backend.storage.loop_reads import LoopReader, PreparedRead, fetch_all_in_session
from assay.backend.web.auth import KEY_BY_HASH


def _reader(app: Starlette) -> LoopReader:
    reader = app.state.services.reader
    assert isinstance(reader, LoopReader)
    return reader


def _without_sessions(app: Starlette) -> None:
    """Make any session the app opens fail, to prove a route read everything on the loop."""

    def no_session() -> None:
        raise AssertionError("a session was opened")

    app.state.services = dataclasses.replace(app.state.services, session_factory=no_session)


async def _reference_systems_body(world: World, organization_id: str) -> bytes:
    # The body as the ORM implementation built it before the loop reader existed.
    async with world.sessions() as session:
        rows = await session.exec(
            select(models.AiSystem)
            .where(col(models.AiSystem.organization_id) == organization_id)
            .order_by(col(models.AiSystem.created_at), col(models.AiSystem.id))
        )
        systems = [ai_system_out(row) for row in rows.scalars()]
    return schemas.SystemList(systems=systems).model_dump_json().encode()


async def test_systems_are_read_on_the_loop_byte_identical_to_the_orm_body(
    app: Starlette, client: httpx.AsyncClient, world: World
) -> None:
    expected = await _reference_systems_body(world, world.org_a)
    _without_sessions(app)
    response = await client.get("/api/v1/systems", headers=bearer(world.agent_key_a))
    assert response.status_code == 200
    assert response.content == expected
    assert _reader(app).fallbacks == 0


async def test_without_a_loop_reader_the_session_path_gives_the_same_bytes(
    app: Starlette, client: httpx.AsyncClient, world: World
) -> None:
    on_loop = await client.get("/api/v1/systems", headers=bearer(world.agent_key_a))
    app.state.services = dataclasses.replace(app.state.services, reader=None)
    through_session = await client.get("/api/v1/systems", headers=bearer(world.agent_key_a))
    assert through_session.status_code == 200
    assert through_session.content == on_loop.content == await _reference_systems_body(world, world.org_a)


async def test_loop_and_session_reads_give_equal_values(app: Starlette, world: World) -> None:
    reader = _reader(app)
    params = {"key_hash": hash_api_key(world.agent_key_a)}
    on_loop = reader.fetch_all(KEY_BY_HASH, params)
    async with world.sessions() as session:
        through_session = await fetch_all_in_session(session, KEY_BY_HASH, params)
    assert on_loop == through_session
    assert on_loop is not None and len(on_loop) == 1
    key_id, organization_id, scopes, *_ = on_loop[0]
    assert (key_id, organization_id) == (world.key_ids[world.agent_key_a], world.org_a)
    assert "system:read" in scopes
    systems = reader.fetch_all(SYSTEMS_OF_ORGANIZATION, {"organization_id": world.org_a})
    assert systems is not None and [row[0] for row in systems] == [world.system_a, world.system_a2]
    assert all(row[5].utcoffset() == timedelta(0) for row in systems)  # aware UTC, like the ORM gives


async def test_revocation_through_another_connection_applies_on_the_next_request(
    app: Starlette, client: httpx.AsyncClient, world: World, settings: ServiceSettings
) -> None:
    _without_sessions(app)
    assert (await client.get("/api/v1/systems", headers=bearer(world.agent_key_a))).status_code == 200
    # A separate engine, as `assay admin key revoke` in another process would use.
    other = create_engine(settings.database_url)
    try:
        async with create_session_factory(other)() as session:
            await provisioning.revoke_api_key(session, world.key_ids[world.agent_key_a])
            await session.commit()
    finally:
        await other.dispose()
    assert_error(await client.get("/api/v1/systems", headers=bearer(world.agent_key_a)), 401, "UNAUTHORIZED")
    assert (await client.get("/api/v1/systems", headers=bearer(world.agent_key_b))).status_code == 200
    assert _reader(app).fallbacks == 0


async def test_any_commit_ends_the_kept_answers(
    app: Starlette, client: httpx.AsyncClient, world: World, settings: ServiceSettings
) -> None:
    _without_sessions(app)
    first = await client.get("/api/v1/systems", headers=bearer(world.agent_key_a))
    assert first.content == await _reference_systems_body(world, world.org_a)
    # Another connection of this process (the app's own pool) adds a system...
    async with world.sessions() as session:
        await provisioning.create_ai_system(session, world.org_a, "added later")
        await session.commit()
    second = await client.get("/api/v1/systems", headers=bearer(world.agent_key_a))
    assert b"added later" in second.content
    assert second.content == await _reference_systems_body(world, world.org_a)
    # ...and a plain sqlite3 connection, as another process would, renames one.
    # In a thread: the app's run worker writes on this loop now and then, and a write made on the loop
    # itself would wait for a lock that only the blocked loop can release.
    database = settings.database_url.split("///", 1)[1]

    def rename_elsewhere() -> None:
        other = sqlite3.connect(database, isolation_level=None)
        try:
            other.execute("UPDATE ai_system SET name = 'renamed elsewhere' WHERE id = ?", (world.system_a,))
        finally:
            other.close()

    await anyio.to_thread.run_sync(rename_elsewhere)
    third = await client.get("/api/v1/systems", headers=bearer(world.agent_key_a))
    assert b"renamed elsewhere" in third.content and b"added later" in third.content
    assert _reader(app).fallbacks == 0


async def test_a_repeated_read_runs_no_select_until_something_is_committed(app: Starlette, world: World) -> None:
    reader = _reader(app)
    params = {"organization_id": world.org_a}
    statements: list[str] = []
    reader._connection.set_trace_callback(statements.append)
    first = reader.fetch_all(SYSTEMS_OF_ORGANIZATION, params)
    assert any(s.startswith("SELECT") for s in statements)
    statements.clear()
    assert reader.fetch_all(SYSTEMS_OF_ORGANIZATION, params) == first
    assert statements == ["PRAGMA data_version"]
    async with world.sessions() as session:
        await provisioning.create_ai_system(session, world.org_a, "one more")
        await session.commit()
    statements.clear()
    after = reader.fetch_all(SYSTEMS_OF_ORGANIZATION, params)
    assert any(s.startswith("SELECT") for s in statements)
    assert after is not None and first is not None and len(after) == len(first) + 1


async def test_a_key_is_refused_on_the_first_request_after_it_expires(
    client: httpx.AsyncClient, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = await world.key(["system:read"], expires_in=timedelta(hours=1))
    assert (await client.get("/api/v1/systems", headers=bearer(key))).status_code == 200
    later = models.utcnow() + timedelta(hours=1, seconds=1)
    monkeypatch.setattr("assay.backend.web.routing.utcnow", lambda: later)
    assert_error(await client.get("/api/v1/systems", headers=bearer(key)), 401, "UNAUTHORIZED")


async def test_a_statement_past_the_step_cap_falls_back_to_the_session(
    app: Starlette, client: httpx.AsyncClient, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with world.sessions() as session:
        for n in range(150):
            await provisioning.create_ai_system(session, world.org_a, f"bulk {n:03d}")
        await session.commit()
    expected = await _reference_systems_body(world, world.org_a)
    monkeypatch.setattr(loop_reads, "MAX_VM_STEPS", 1000)
    reader = _reader(app)
    assert reader.fetch_all(SYSTEMS_OF_ORGANIZATION, {"organization_id": world.org_a}) is None
    before = reader.fallbacks
    response = await client.get("/api/v1/systems", headers=bearer(world.agent_key_a))
    assert response.status_code == 200 and response.content == expected
    assert reader.fallbacks == before + 1  # the key lookup fit under the cap; the listing did not


async def test_a_locked_database_is_not_waited_for_on_the_loop(tmp_path: Path) -> None:
    path = tmp_path / "locked.db"
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("CREATE TABLE t (x INTEGER)")
    writer.execute("INSERT INTO t VALUES (1)")
    engine = create_async_engine(f"sqlite+aiosqlite:///{path}")
    read = PreparedRead(select(table("t", column("x")).c.x))
    reader = LoopReader(str(path), engine.dialect)
    try:
        assert reader.fetch_all(read, {}) == [(1,)]
        # Rollback-journal mode: an exclusive lock keeps readers out; busy_timeout=0 means no wait at all.
        writer.execute("BEGIN EXCLUSIVE")
        assert reader.fetch_all(read, {}) is None
        assert reader.fallbacks == 1
        writer.execute("ROLLBACK")
        assert reader.fetch_all(read, {}) == [(1,)]
    finally:
        reader.close()
        writer.close()
        await engine.dispose()


async def test_the_loop_reader_refuses_other_threads_and_writes(app: Starlette, world: World) -> None:
    reader = _reader(app)
    params = {"organization_id": world.org_a}
    assert await anyio.to_thread.run_sync(reader.fetch_all, SYSTEMS_OF_ORGANIZATION, params) is None
    with pytest.raises(sqlite3.OperationalError, match=r"readonly|read-only|query_only"):
        reader._connection.execute("DELETE FROM api_key")
    assert reader.fetch_all(SYSTEMS_OF_ORGANIZATION, params) is not None


async def test_no_loop_reader_for_memory_or_postgres_databases() -> None:
    for url in ("sqlite+aiosqlite:///:memory:", "postgresql+asyncpg://u@127.0.0.1/db"):
        engine = create_async_engine(url)
        try:
            assert loop_reads.open_loop_reader(engine) is None
        finally:
            await engine.dispose()

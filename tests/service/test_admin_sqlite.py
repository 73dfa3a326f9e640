"""``assay admin`` on a SQLite database at the newest schema goes through the standard library's sqlite3
(start-up, issue 21): the rows it writes are the rows the ORM writes, and the service accepts its keys."""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
from datetime import UTC, timedelta
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from service_helpers import World, assert_error, bearer

from assay.backend import provisioning
from assay.backend.api_keys import hash_api_key
from assay.backend.provisioning_sqlite import open_at_head
from assay.backend.scopes import PURPOSE_SCOPES
from assay.backend.settings import ServiceSettings
from assay.backend.storage import models
from assay.server.commands import admin

_STORED_TIME = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}")


def _admin(capsys: pytest.CaptureFixture[str], url: str, *argv: str) -> tuple[int, dict[str, Any]]:
    parser = argparse.ArgumentParser(prog="assay")
    admin.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["admin", *argv, "--database-url", url, "--json"])
    code = args.handler(args)
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert code == 0 or "error" in result, (code, captured)
    return code, result


def _raw(path: str, table: str, row_id: str) -> dict[str, Any]:
    with sqlite3.connect(path) as connection:
        connection.row_factory = sqlite3.Row
        return dict(connection.execute(f"SELECT * FROM {table} WHERE id = ?", (row_id,)).fetchone())


def _opens_at_head(url: str) -> bool:
    """Whether provisioning takes the sqlite3 path on ``url``; the write lock it took is released."""
    probe = open_at_head(url)
    if probe is None:
        return False
    probe.execute("ROLLBACK")
    probe.close()
    return True


async def _admin_beside(capsys: pytest.CaptureFixture[str], url: str, *argv: str) -> tuple[int, dict[str, Any]]:
    """The command run in a thread, as a separate process would: the service's lifespan tasks (its WAL
    checkpoints) run in this test's event loop and must go on while the command waits for the write lock."""
    return await anyio.to_thread.run_sync(lambda: _admin(capsys, url, *argv))


def _same_shape(written: dict[str, Any], reference: dict[str, Any]) -> None:
    assert written.keys() == reference.keys()
    for column, value in written.items():
        assert type(value) is type(reference[column]), column
        if column.endswith("_at") and value is not None:
            assert _STORED_TIME.fullmatch(value) and _STORED_TIME.fullmatch(reference[column]), column


async def test_rows_written_without_sqlalchemy_read_back_through_the_orm_and_the_api(
    capsys: pytest.CaptureFixture[str], settings: ServiceSettings, client: httpx.AsyncClient, world: World
) -> None:
    url = settings.database_url
    path = url.removeprefix("sqlite+aiosqlite:///")
    # The database is at the newest schema: this is the sqlite3 path. Probed in a thread, like the commands
    # below: open_at_head waits for the write lock, and the service's lifespan tasks (in this event loop)
    # must go on meanwhile.
    assert await anyio.to_thread.run_sync(_opens_at_head, url)

    code, org = await _admin_beside(capsys, url, "org", "create", "Initech")
    assert code == 0, org
    code, system = await _admin_beside(
        capsys, url, "system", "create", "--org", org["organizationId"], "--name", "Ops", "--criticality", "high"
    )
    assert code == 0, system
    code, issued = await _admin_beside(
        capsys,
        url,
        "key",
        "create",
        "--org",
        org["organizationId"],
        "--purpose",
        "assurance-agent",
        "--expires-in",
        "1h",
    )
    assert code == 0
    key = issued["apiKey"]

    # The service accepts the key for that organization only, and sees the system as the ORM wrote it.
    response = await client.get("/api/v1/systems", headers=bearer(key))
    assert response.status_code == 200
    [listed] = response.json()["systems"]
    assert listed["aiSystemId"] == system["aiSystemId"] and listed["criticality"] == "high"
    assert listed["createdAt"].endswith("Z")

    # Through the ORM: the same types and values a row written by provisioning has.
    async with world.sessions() as session:
        record = await session.get(models.ApiKey, issued["keyId"])
        assert record is not None
        assert record.organization_id == org["organizationId"] and record.key_hash == hash_api_key(key)
        assert record.scopes == sorted(PURPOSE_SCOPES["assurance-agent"]) and record.environment == "live"
        assert record.display_prefix == key[:13] and record.revoked_at is None
        assert record.created_at.tzinfo == UTC and record.expires_at == record.created_at + timedelta(hours=1)
        orm_key = await provisioning.create_api_key(
            session, org["organizationId"], purpose="assurance-agent", expires_in=timedelta(hours=1)
        )
        orm_org = await provisioning.create_organization(session, "Reference")
        orm_system = await provisioning.create_ai_system(session, org["organizationId"], "Ref", criticality="high")
        await session.commit()
    assert key not in json.dumps(_raw(path, "api_key", issued["keyId"]))  # only its hash is stored
    _same_shape(_raw(path, "api_key", issued["keyId"]), _raw(path, "api_key", orm_key.record.id))
    assert _raw(path, "api_key", issued["keyId"])["scopes"] == _raw(path, "api_key", orm_key.record.id)["scopes"]
    _same_shape(_raw(path, "organization", org["organizationId"]), _raw(path, "organization", orm_org.id))
    _same_shape(_raw(path, "ai_system", system["aiSystemId"]), _raw(path, "ai_system", orm_system.id))

    # Revoked through the sqlite3 path: refused at once; revoking twice keeps the first time.
    code, revoked = await _admin_beside(capsys, url, "key", "revoke", issued["keyId"])
    assert code == 0 and revoked["revokedAt"].endswith("Z")
    assert_error(await client.get("/api/v1/systems", headers=bearer(key)), 401, "UNAUTHORIZED")
    assert await _admin_beside(capsys, url, "key", "revoke", issued["keyId"]) == (0, revoked)
    async with world.sessions() as session:
        record = await session.get(models.ApiKey, issued["keyId"])
        assert record is not None and record.revoked_at is not None
        assert record.revoked_at.isoformat().replace("+00:00", "Z") == revoked["revokedAt"]

    # Refusals are the ORM path's, and write nothing.
    code, failed = await _admin_beside(
        capsys, url, "key", "create", "--org", "org_missing", "--purpose", "assurance-agent"
    )
    assert code == 1 and failed["error"]["code"] == "NOT_FOUND"
    code, failed = await _admin_beside(capsys, url, "system", "create", "--org", org["organizationId"], "--name", " ")
    assert code == 1 and failed["error"]["code"] == "INVALID"


def test_a_new_or_older_database_takes_the_migrations(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, service_db: Path
) -> None:
    new = f"sqlite+aiosqlite:///{tmp_path / 'new.db'}"
    assert open_at_head(new) is None
    code, org = _admin(capsys, new, "org", "create", "First")  # creates the schema (the full path)
    assert code == 0 and org["organizationId"].startswith("org_")
    with sqlite3.connect(service_db) as connection:
        connection.execute("UPDATE alembic_version SET version_num = '0006_assessments'")
    older = f"sqlite+aiosqlite:///{service_db}"
    assert open_at_head(older) is None
    assert open_at_head("postgresql+asyncpg://localhost/test") is None
    assert open_at_head(f"sqlite+aiosqlite:///file:{service_db}?mode=ro&uri=true") is None

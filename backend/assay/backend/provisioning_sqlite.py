"""``assay admin`` on a SQLite database already at the newest schema, with the standard library's sqlite3.

SQLAlchemy, SQLModel and the data model take several times ``pip --version`` to import, which a one-row
write does not need. :func:`open_at_head` opens the database only when it is a plain SQLite file whose
``alembic_version`` is :data:`HEAD_REVISION`; anything else (a new file, an older schema, PostgreSQL, a URI
database) gets ``None`` and goes through :mod:`assay.backend.provisioning` and the migrations, the one
definition of the schema. Rows are written as SQLAlchemy writes them (naive UTC timestamps to the
microsecond, JSON lists by ``json.dumps``); a test reads them back through the ORM and the API.
Each operation runs in one ``BEGIN IMMEDIATE`` transaction, committed by the caller.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from assay.backend.api_keys import Environment, display_prefix, generate_api_key, hash_api_key
from assay.backend.provisioning_rules import ProvisioningError, check_label, check_name, resolve_scopes
from assay.backend.scopes import Purpose
from assay.backend.storage.revision import HEAD_REVISION
from assay.backend.storage.values import new_id, utcnow

_SQLITE_PREFIXES = ("sqlite+aiosqlite:///", "sqlite:///")


def sqlite_file(database_url: str) -> Path | None:
    """The database file of a SQLite URL naming a plain file path, else None."""
    for prefix in _SQLITE_PREFIXES:
        if database_url.startswith(prefix):
            path = database_url[len(prefix) :]
            if path and path != ":memory:" and not path.startswith("file:") and "?" not in path:
                return Path(path)
    return None


def open_at_head(database_url: str, *, busy_timeout_ms: int = 5000) -> sqlite3.Connection | None:
    """A connection to the SQLite file of ``database_url`` when it exists and its schema is at
    :data:`HEAD_REVISION`; None when the full path (SQLAlchemy and the migrations) must serve it."""
    path = sqlite_file(database_url)
    if path is None or not path.is_file():
        return None
    connection = sqlite3.connect(path, timeout=busy_timeout_ms / 1000, isolation_level=None)
    try:
        # The pragmas of every service connection that matter to a short write (storage/db.py).
        connection.execute("PRAGMA foreign_keys=ON")
        connection.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        connection.execute("PRAGMA synchronous=NORMAL")
        versions = [row[0] for row in connection.execute("SELECT version_num FROM alembic_version")]
    except sqlite3.Error:  # no alembic_version table (a new or foreign file): the migrations decide
        connection.close()
        return None
    if versions != [HEAD_REVISION]:
        connection.close()
        return None
    connection.execute("BEGIN IMMEDIATE")
    return connection


def _stored(value: datetime) -> str:
    """A timestamp as SQLAlchemy's SQLite ``DateTime`` stores it: naive UTC, to the microsecond."""
    return value.astimezone(UTC).replace(tzinfo=None).strftime("%Y-%m-%d %H:%M:%S.%f")


def _require_organization(connection: sqlite3.Connection, organization_id: str) -> None:
    if connection.execute("SELECT 1 FROM organization WHERE id = ?", (organization_id,)).fetchone() is None:
        raise ProvisioningError("NOT_FOUND", f"no organization {organization_id!r}")


def create_organization(connection: sqlite3.Connection, name: str) -> str:
    """A new organization; its id."""
    org_id = new_id("org")
    connection.execute(
        "INSERT INTO organization (id, name, created_at) VALUES (?, ?, ?)",
        (org_id, check_name(name, "the organization name"), _stored(utcnow())),
    )
    return org_id


def create_ai_system(
    connection: sqlite3.Connection,
    organization_id: str,
    name: str,
    *,
    system_type: str | None = None,
    criticality: str | None = None,
) -> str:
    """A new AI System of an organization; its id."""
    _require_organization(connection, organization_id)
    system_id = new_id("sys")
    connection.execute(
        "INSERT INTO ai_system (id, organization_id, name, system_type, criticality, lifecycle_status, created_at)"
        " VALUES (?, ?, ?, ?, ?, NULL, ?)",
        (
            system_id,
            organization_id,
            check_name(name, "the AI System name"),
            check_label(system_type, "the system type"),
            check_label(criticality, "the criticality"),
            _stored(utcnow()),
        ),
    )
    return system_id


def create_api_key(
    connection: sqlite3.Connection,
    organization_id: str,
    *,
    purpose: Purpose | None = None,
    scopes: Iterable[str] | None = None,
    expires_in: timedelta | None = None,
    environment: Environment = "live",
) -> tuple[str, str]:
    """Issue a key for an organization: (its id, the key). The key is the only copy of the secret."""
    _require_organization(connection, organization_id)
    granted = resolve_scopes(purpose, scopes)
    created = utcnow()
    secret = generate_api_key(environment)
    key_id = new_id("key")
    connection.execute(
        "INSERT INTO api_key (id, organization_id, key_hash, display_prefix, environment, purpose, scopes,"
        " created_at, expires_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)",
        (
            key_id,
            organization_id,
            hash_api_key(secret),
            display_prefix(secret),
            environment,
            purpose,
            json.dumps(list(granted)),
            _stored(created),
            _stored(created + expires_in) if expires_in is not None else None,
        ),
    )
    return key_id, secret


def revoke_api_key(connection: sqlite3.Connection, key_id: str) -> datetime:
    """Revoke a key at once; revoking twice keeps the first revocation time, which is returned."""
    row = connection.execute("SELECT revoked_at FROM api_key WHERE id = ?", (key_id,)).fetchone()
    if row is None:
        raise ProvisioningError("NOT_FOUND", f"no API key {key_id!r}")
    if row[0] is not None:
        return datetime.fromisoformat(row[0]).replace(tzinfo=UTC)
    revoked = utcnow()
    connection.execute("UPDATE api_key SET revoked_at = ? WHERE id = ?", (_stored(revoked), key_id))
    return revoked

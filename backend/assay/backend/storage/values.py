"""Row values every table shares: ids and timestamps. Standard library only (the SQLite provisioning
path writes them without SQLModel)."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime


def utcnow() -> datetime:
    """The current time, timezone-aware UTC, to the microsecond."""
    return datetime.now(UTC)


def new_id(prefix: str) -> str:
    """A random, unguessable row identifier such as ``sys_5f0c2a9e1b7d4c33a8e1``.

    Row ids are never part of a digest, so randomness costs no determinism; unguessable ids also keep
    one organization from probing another's.
    """
    return f"{prefix}_{secrets.token_hex(10)}"

"""API keys: their format, how they are stored, scopes and purposes, and bearer authentication.

A key is ``svc_live_`` or ``svc_test_`` followed by 32 random bytes in URL-safe base64 (43 characters,
256 bits). Only its SHA-256 is stored. A slow password hash buys nothing for a secret with 256 bits of
entropy, and a plain digest lets a request find its key with one indexed lookup.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col

from assay.backend.api_keys import KEY_PREFIXES, hash_api_key
from assay.backend.errors import ApiError
from assay.backend.scopes import Scope
from assay.backend.storage.loop_reads import PreparedRead, Row, fetch_all_in_session
from assay.backend.storage.models import ApiKey

_SECRET_MIN, _SECRET_MAX = 43, 128
_KEY_PATTERN = re.compile(rf"svc_(?:live|test)_[A-Za-z0-9_-]{{{_SECRET_MIN},{_SECRET_MAX}}}")
_SECRET_ALPHABET = re.compile(r"[A-Za-z0-9_-]*")
_BEARER_CHALLENGE = 'Bearer realm="assay"'
_INVALID_KEY = "The API key is not valid: it is unknown, revoked or expired."


@dataclass(frozen=True, slots=True)
class Principal:
    """The caller behind a valid key. ``organization_id`` is the only organization a request acts in."""

    key_id: str
    organization_id: str
    scopes: frozenset[str]
    environment: str


def is_well_formed_key(api_key: str) -> bool:
    """Whether ``api_key`` has the shape of a key this service issues."""
    return _KEY_PATTERN.fullmatch(api_key) is not None


def key_shape_problem(api_key: str) -> str | None:
    """What is wrong with the shape of ``api_key`` (never quoting it), or None when it is well formed."""
    prefix = next((p for p in KEY_PREFIXES.values() if api_key.startswith(p)), None)
    if prefix is None:
        return "an API key starts with svc_live_ or svc_test_, and this one does not"
    secret = api_key[len(prefix) :]
    if not _SECRET_ALPHABET.fullmatch(secret):
        return (
            f"after {prefix} a key holds only letters, digits, '-' and '_', and this one holds other characters "
            "(a quote, space or line break copied with it?)"
        )
    if len(secret) < _SECRET_MIN:
        return (
            f"a key has at least {_SECRET_MIN} characters after {prefix}, and this one has {len(secret)} (cut short?)"
        )
    if len(secret) > _SECRET_MAX:
        return f"a key has at most {_SECRET_MAX} characters after {prefix}, and this one has {len(secret)}"
    return None


def unauthorized(message: str) -> ApiError:
    """A 401 with the bearer challenge."""
    return ApiError("UNAUTHORIZED", message, headers={"WWW-Authenticate": _BEARER_CHALLENGE})


def bearer_token(authorization: str | None) -> str:
    """The key in an ``Authorization: Bearer <key>`` header; 401 when missing or malformed."""
    if not authorization:
        raise unauthorized("An API key is required: send 'Authorization: Bearer <API key>'.")
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer":
        sent = "the key without 'Bearer '" if scheme.startswith("svc_") else "another scheme"
        raise unauthorized(f"The Authorization header must be 'Bearer <API key>'; it carries {sent}.")
    if not token:
        raise unauthorized("The Authorization header must be 'Bearer <API key>'; the key after 'Bearer' is missing.")
    if not is_well_formed_key(token):
        raise unauthorized(f"The API key is malformed: {key_shape_problem(token) or 'not an Assay key'}.")
    return token


# The key record by its hash: read on every request (no cache), so revocation and expiry apply at once.
KEY_BY_HASH = PreparedRead(
    select(
        col(ApiKey.id),
        col(ApiKey.organization_id),
        col(ApiKey.scopes),
        col(ApiKey.environment),
        col(ApiKey.expires_at),
        col(ApiKey.revoked_at),
    ).where(col(ApiKey.key_hash) == bindparam("key_hash"))
)

FetchAll = Callable[[PreparedRead, Mapping[str, Any]], Awaitable[Sequence[Row]]]


async def authenticate_with(fetch_all: FetchAll, authorization: str | None, now: datetime) -> Principal:
    """The principal of a request's bearer key, read with ``fetch_all``; 401 for a missing, malformed,
    unknown, revoked or expired key. ``fetch_all`` runs :data:`KEY_BY_HASH` (see ``RequestContext.fetch_all``).
    """
    token = bearer_token(authorization)
    rows = await fetch_all(KEY_BY_HASH, {"key_hash": hash_api_key(token)})
    # One message for unknown, revoked and expired keys: the answer must not tell a guesser which it hit.
    if not rows:
        raise unauthorized(_INVALID_KEY)
    key_id, organization_id, scopes, environment, expires_at, revoked_at = rows[0]
    if revoked_at is not None or (expires_at is not None and expires_at <= now):
        raise unauthorized(_INVALID_KEY)
    return Principal(key_id=key_id, organization_id=organization_id, scopes=frozenset(scopes), environment=environment)


async def authenticate(session: AsyncSession, authorization: str | None, now: datetime) -> Principal:
    """The principal of a request's bearer key, read through ``session``; 401 as :func:`authenticate_with`."""

    async def fetch_all(read: PreparedRead, params: Mapping[str, Any]) -> list[Row]:
        return await fetch_all_in_session(session, read, params)

    return await authenticate_with(fetch_all, authorization, now)


def require_scope(principal: Principal, scope: Scope) -> None:
    """403 INSUFFICIENT_SCOPE unless the key carries ``scope``."""
    if scope not in principal.scopes:
        raise ApiError(
            "INSUFFICIENT_SCOPE",
            f"This API key lacks the scope '{scope}' that this route requires.",
            headers={"WWW-Authenticate": f'{_BEARER_CHALLENGE}, error="insufficient_scope", scope="{scope}"'},
        )

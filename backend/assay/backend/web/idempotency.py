"""``Idempotency-Key``: remember the first successful answer and replay it for the same request.

Records are scoped to organization + API key + route and live ``idempotency_ttl_seconds`` (24 hours,
contract part 8). The request is identified by the canonical digest of its JSON body, so whitespace or
member order do not matter but any change of value does (409 IDEMPOTENCY_CONFLICT).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from assay.backend.errors import ApiError
from assay.backend.storage.models import IdempotencyRecord
from assay.backend.web.auth import Principal
from assay.backend.web.routing import Parameter

HEADER = "idempotency-key"
_KEY_PATTERN = re.compile(r"[\x21-\x7e]{1,255}")


def header_parameter(replay: str) -> Parameter:
    """The ``Idempotency-Key`` header of a route that takes one, for the OpenAPI document; ``replay``
    says how that route answers a retry."""
    return Parameter(
        "Idempotency-Key",
        "header",
        "Optional retry-safe key: 1 to 255 visible ASCII characters (else 400), scoped to the organization, the "
        f"API key and this route, kept 24 hours. The same key with the same JSON payload (compared in RFC 8785 "
        f"canonical form) {replay}; the same key with another payload answers 409 IDEMPOTENCY_CONFLICT.",
        required=False,
        schema={"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[\\x21-\\x7E]{1,255}$"},
    )


@dataclass(frozen=True, slots=True)
class StoredAnswer:
    status: int
    body: str
    resource_id: str


def idempotency_key(request: Request) -> str | None:
    """The request's ``Idempotency-Key``, if any: 1 to 255 visible ASCII characters, else 400."""
    value = request.headers.get(HEADER)
    if value is None:
        return None
    if _KEY_PATTERN.fullmatch(value) is None:
        raise ApiError("INVALID_REQUEST", "Idempotency-Key must be 1 to 255 visible ASCII characters.")
    return value


async def _find(session: AsyncSession, principal: Principal, route: str, key: str) -> IdempotencyRecord | None:
    result = await session.exec(
        select(IdempotencyRecord)
        .where(IdempotencyRecord.organization_id == principal.organization_id)
        .where(IdempotencyRecord.api_key_id == principal.key_id)
        .where(IdempotencyRecord.route == route)
        .where(IdempotencyRecord.idempotency_key == key)
    )
    return result.first()


async def lookup(
    session: AsyncSession,
    principal: Principal,
    route: str,
    key: str,
    request_digest: str,
    *,
    now: datetime,
    ttl_seconds: int,
) -> StoredAnswer | None:
    """The stored answer for a retry of the same request; None for a new one; 409 for a different payload.

    An expired record is deleted here (flushed, committed with the caller's transaction) so the key can
    be used again.
    """
    record = await _find(session, principal, route, key)
    if record is None:
        return None
    if record.created_at + timedelta(seconds=ttl_seconds) <= now:
        await session.delete(record)
        await session.flush()
        return None
    if record.request_digest != request_digest:
        raise ApiError(
            "IDEMPOTENCY_CONFLICT", "This Idempotency-Key was already used with a different request payload."
        )
    return StoredAnswer(status=record.response_status, body=record.response_body, resource_id=record.resource_id)


def remember(
    session: AsyncSession,
    principal: Principal,
    route: str,
    key: str,
    request_digest: str,
    answer: StoredAnswer,
    *,
    now: datetime,
) -> None:
    """Add the record of a successful answer to the session (committed with the resource it created)."""
    session.add(
        IdempotencyRecord(
            organization_id=principal.organization_id,
            api_key_id=principal.key_id,
            route=route,
            idempotency_key=key,
            request_digest=request_digest,
            response_status=answer.status,
            response_body=answer.body,
            resource_id=answer.resource_id,
            created_at=now,
        )
    )


async def lookup_after_race(
    session: AsyncSession, principal: Principal, route: str, key: str, request_digest: str
) -> StoredAnswer | None:
    """After losing an insert race on the same key: the winner's answer, or 409 for a different payload."""
    record = await _find(session, principal, route, key)
    if record is None:
        return None
    if record.request_digest != request_digest:
        raise ApiError(
            "IDEMPOTENCY_CONFLICT", "This Idempotency-Key was already used with a different request payload."
        )
    return StoredAnswer(status=record.response_status, body=record.response_body, resource_id=record.resource_id)

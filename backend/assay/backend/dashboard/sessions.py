"""Signed-in sessions and sign-in throttling, kept in the database so that every replica agrees.

A session is a random 256-bit token in an HttpOnly cookie; the database keeps only its SHA-256, so a
read of the table does not hand out sessions. Every sign-in makes a new token (whatever cookie the browser
sent before is ended: no session fixation). A session ends at sign-out, after ``IDLE_TIMEOUT`` without a
request, after ``LIFETIME`` in any case, and at once when its user is disabled.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from assay.backend.roles import ROLES, Role, at_least
from assay.backend.storage.models import DashboardSession, DashboardUser, LoginFailure, Membership

LIFETIME = timedelta(hours=12)
IDLE_TIMEOUT = timedelta(hours=2)
# last_seen_at is written at most this often: a page view is a read, not a write, most of the time.
TOUCH_EVERY = timedelta(minutes=1)
THROTTLE_WINDOW = timedelta(minutes=15)
# Failed sign-ins allowed per email, and per client address, within THROTTLE_WINDOW.
MAX_FAILURES_PER_EMAIL = 5
MAX_FAILURES_PER_CLIENT = 30
_TOKEN_BYTES = 32


@dataclass(frozen=True, slots=True)
class SignedIn:
    """The user behind a valid session cookie, and their role in each of their organizations."""

    session_id: str
    user_id: str
    email: str
    csrf_token: str
    roles: dict[str, Role]

    def member_of(self, organization_id: str) -> bool:
        return organization_id in self.roles

    def can(self, organization_id: str, needed: Role) -> bool:
        """Whether the user holds at least ``needed`` in the organization (owners and admins manage people,
        systems, sources and keys; members start runs and record decisions; viewers read)."""
        role = self.roles.get(organization_id)
        return role is not None and at_least(role, needed)


def token_digest(token: str) -> str:
    """The stored form of a session token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(_TOKEN_BYTES)


async def start_session(session: AsyncSession, user_id: str, now: datetime) -> tuple[str, DashboardSession]:
    """A new session of ``user_id``: its cookie token (shown only here) and its row."""
    token = new_token()
    row = DashboardSession(
        id=token_digest(token),
        user_id=user_id,
        csrf_token=new_token(),
        created_at=now,
        last_seen_at=now,
        expires_at=now + LIFETIME,
    )
    session.add(row)
    await session.flush()
    return token, row


async def end_session(session: AsyncSession, token: str | None) -> None:
    """End the session of ``token`` (no-op for an unknown or missing token)."""
    if token:
        await session.exec(delete(DashboardSession).where(col(DashboardSession.id) == token_digest(token)))


async def resolve(session: AsyncSession, token: str | None, now: datetime) -> SignedIn | None:
    """The signed-in user of a session token, or None when it is missing, unknown, expired, idle too long or
    its user is disabled. An ended session's row is removed. Commits only when it writes."""
    if not token or len(token) > 100:
        return None
    row = await session.get(DashboardSession, token_digest(token))
    if row is None:
        return None
    user = await session.get(DashboardUser, row.user_id)
    if user is None or user.disabled_at is not None or row.expires_at <= now or row.last_seen_at + IDLE_TIMEOUT <= now:
        await session.delete(row)
        await session.commit()
        return None
    if now - row.last_seen_at >= TOUCH_EVERY:
        row.last_seen_at = now
        session.add(row)
        await session.commit()
    memberships = (await session.exec(select(Membership).where(Membership.user_id == user.id))).all()
    roles: dict[str, Role] = {
        m.organization_id: m.role for m in memberships if m.role in ROLES and m.disabled_at is None
    }
    return SignedIn(session_id=row.id, user_id=user.id, email=user.email, csrf_token=row.csrf_token, roles=roles)


async def throttled(session: AsyncSession, email: str, client: str, now: datetime) -> bool:
    """Whether sign-in is refused for now: too many recent failures for this email or from this client."""
    since = now - THROTTLE_WINDOW
    by_email = await session.exec(
        select(func.count()).select_from(LoginFailure).where(LoginFailure.email == email, col(LoginFailure.at) > since)
    )
    if by_email.one() >= MAX_FAILURES_PER_EMAIL:
        return True
    by_client = await session.exec(
        select(func.count())
        .select_from(LoginFailure)
        .where(LoginFailure.client == client, col(LoginFailure.at) > since)
    )
    return by_client.one() >= MAX_FAILURES_PER_CLIENT


async def record_failure(session: AsyncSession, email: str, client: str, now: datetime) -> None:
    """Count a failed sign-in, and forget failures older than the window."""
    await session.exec(delete(LoginFailure).where(col(LoginFailure.at) <= now - THROTTLE_WINDOW))
    session.add(LoginFailure(email=email[:254], client=client[:64], at=now))
    await session.flush()


async def clear_failures(session: AsyncSession, email: str) -> None:
    """A successful sign-in forgives the email's earlier failures."""
    await session.exec(delete(LoginFailure).where(col(LoginFailure.email) == email))

"""Invitation links: an owner or admin (or ``assay admin user invite``) invites an email to an organization
with a role; the link carries a random 256-bit token, of which only the SHA-256 is stored. A link works once,
until it expires (7 days unless asked otherwise, at most 30), unless it is revoked or a newer invitation of
the same email to the same organization replaces it. Opening it lets the person set their password (or, when
the email already has an account, confirm theirs) and signs them in.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from assay.backend.dashboard import sessions, users
from assay.backend.provisioning import ProvisioningError
from assay.backend.storage.models import DashboardInvitation, DashboardUser, Membership, Organization, new_id

LIFETIME = timedelta(days=7)
MAX_LIFETIME = timedelta(days=30)
# The issuer recorded for invitations made on the command line.
COMMAND_LINE = "assay admin"


@dataclass(frozen=True, slots=True)
class IssuedInvitation:
    """A new invitation. ``token`` exists only here: the database keeps its hash."""

    record: DashboardInvitation
    token: str


async def issue(
    session: AsyncSession,
    organization_id: str,
    email: str,
    role: str,
    *,
    issued_by: str,
    actor_role: str,
    now: datetime,
    lifetime: timedelta = LIFETIME,
) -> IssuedInvitation:
    """A new invitation of ``email`` to the organization with ``role``; an earlier pending invitation of the
    same email to the same organization is revoked (the newest link is the one that works). ``actor_role`` is
    the issuer's role (``owner`` for the command line): only an owner invites owners."""
    email = users.normalise_email(email)
    if (problem := users.email_problem(email)) is not None:
        raise ProvisioningError("INVALID", problem)
    users.check_may_grant(actor_role, role)
    if not timedelta(0) < lifetime <= MAX_LIFETIME:
        raise ProvisioningError("INVALID", f"an invitation lasts at most {MAX_LIFETIME.days} days")
    if await session.get(Organization, organization_id) is None:
        raise ProvisioningError("NOT_FOUND", f"no organization {organization_id!r}")
    existing = await users.user_by_email(session, email)
    if existing is not None:
        if existing.disabled_at is not None:
            raise ProvisioningError("CONFLICT", f"the account {email} is disabled")
        if await session.get(Membership, (existing.id, organization_id)) is not None:
            raise ProvisioningError("CONFLICT", f"{email} is already a member of this organization")
    await session.exec(
        update(DashboardInvitation)
        .where(col(DashboardInvitation.organization_id) == organization_id)
        .where(col(DashboardInvitation.email) == email)
        .where(col(DashboardInvitation.used_at).is_(None))
        .where(col(DashboardInvitation.revoked_at).is_(None))
        .values(revoked_at=now)
    )
    token = sessions.new_token()
    record = DashboardInvitation(
        id=new_id("inv"),
        organization_id=organization_id,
        email=email,
        role=role,
        token_hash=sessions.token_digest(token),
        issued_by=issued_by[:254],
        created_at=now,
        expires_at=now + lifetime,
    )
    session.add(record)
    await session.flush()
    return IssuedInvitation(record=record, token=token)


async def pending(session: AsyncSession, organization_id: str, now: datetime) -> list[DashboardInvitation]:
    """The organization's invitations that still work, newest first."""
    rows = await session.exec(
        select(DashboardInvitation)
        .where(DashboardInvitation.organization_id == organization_id)
        .where(col(DashboardInvitation.used_at).is_(None))
        .where(col(DashboardInvitation.revoked_at).is_(None))
        .where(col(DashboardInvitation.expires_at) > now)
        .order_by(col(DashboardInvitation.created_at).desc(), col(DashboardInvitation.id))
    )
    return list(rows.all())


async def revoke(session: AsyncSession, organization_id: str, invitation_id: str, now: datetime) -> DashboardInvitation:
    """Withdraw an invitation of the organization (revoking twice keeps the first time)."""
    record = await session.get(DashboardInvitation, invitation_id)
    if record is None or record.organization_id != organization_id:
        raise ProvisioningError("NOT_FOUND", "There is no such invitation.")
    if record.revoked_at is None and record.used_at is None:
        record.revoked_at = now
        session.add(record)
        await session.flush()
    return record


async def usable(session: AsyncSession, token: str, now: datetime) -> DashboardInvitation | None:
    """The invitation of ``token`` when it can still be accepted; None when unknown, used, revoked or expired
    (one answer for all four: the link page does not tell which)."""
    if not token or len(token) > 100:
        return None
    record = (
        await session.exec(
            select(DashboardInvitation).where(DashboardInvitation.token_hash == sessions.token_digest(token))
        )
    ).first()
    if record is None or record.used_at is not None or record.revoked_at is not None or record.expires_at <= now:
        return None
    return record


async def accept(
    session: AsyncSession, invitation: DashboardInvitation, user: DashboardUser, now: datetime
) -> Membership:
    """Use the invitation for ``user`` (new or existing, already checked by the caller): marks it used (once:
    a second acceptance, even a concurrent one, finds it used) and adds the membership. The caller commits."""
    claimed = await session.exec(
        update(DashboardInvitation)
        .where(col(DashboardInvitation.id) == invitation.id)
        .where(col(DashboardInvitation.used_at).is_(None))
        .where(col(DashboardInvitation.revoked_at).is_(None))
        .where(col(DashboardInvitation.expires_at) > now)
        .values(used_at=now)
    )
    if claimed.rowcount != 1:
        raise ProvisioningError("NOT_FOUND", "This invitation can no longer be used.")
    if user.disabled_at is not None:
        raise ProvisioningError("CONFLICT", "This account is disabled.")
    if await session.get(Membership, (user.id, invitation.organization_id)) is not None:
        raise ProvisioningError("CONFLICT", "This account is already a member of the organization.")
    membership = Membership(
        user_id=user.id, organization_id=invitation.organization_id, role=invitation.role, created_at=now
    )
    session.add(membership)
    await session.flush()
    return membership

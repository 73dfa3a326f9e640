"""Dashboard users: their passwords, their role in each organization, and the operations of
``assay admin user``.

Passwords are hashed with Argon2id through argon2-cffi (the reference C implementation of the Password
Hashing Competition winner, with RFC 9106's parameters by default): a memory-hard hash makes every guess
at a stolen database cost 64 MiB and tens of milliseconds, where a plain digest (fine for 256-bit API keys,
web/auth.py) would let a GPU try billions of human passwords a second. The stored form is the PHC string
(``$argon2id$v=19$m=...,t=...,p=...$salt$hash``), so parameters can be raised later and old hashes still
verify, and are rehashed at the next sign-in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING

from sqlalchemy import delete
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from assay.backend.provisioning import ProvisioningError
from assay.backend.roles import ROLES, Role, at_least
from assay.backend.storage.models import DashboardSession, DashboardUser, Membership, Organization, new_id, utcnow

if TYPE_CHECKING:
    from argon2 import PasswordHasher

MIN_PASSWORD = 12
MAX_PASSWORD = 1024
MAX_EMAIL = 254
# One "@", something on each side, a dot in the domain, no spaces or controls: what a sign-in form needs. The
# address is an account name here (nothing is mailed), so the full RFC 5322 grammar would only admit typos.
_EMAIL = re.compile(r"[^@\s\x00-\x1f\x7f]+@[^@\s\x00-\x1f\x7f]+\.[^@\s\x00-\x1f\x7f]+")


@cache
def hasher() -> PasswordHasher:
    """The one Argon2id hasher (RFC 9106 low-memory profile: 64 MiB, 3 passes, 4 lanes)."""
    from argon2 import PasswordHasher

    return PasswordHasher()


@cache
def _dummy_hash() -> str:
    # Verified against when the email is unknown, so an unknown address costs the same time as a wrong password.
    return hasher().hash("assay-no-such-user-placeholder")


def hash_password(password: str) -> str:
    """The stored form of ``password`` (Argon2id PHC string)."""
    return hasher().hash(password)


def check_password(password_hash: str | None, password: str) -> bool:
    """Whether ``password`` matches ``password_hash``; with None, spends the same time and answers False."""
    from argon2.exceptions import InvalidHashError, VerificationError

    try:
        return hasher().verify(password_hash or _dummy_hash(), password) and password_hash is not None
    except (VerificationError, InvalidHashError):
        return False


def needs_rehash(password_hash: str) -> bool:
    """Whether a hash was made with weaker parameters than today's."""
    return hasher().check_needs_rehash(password_hash)


def normalise_email(email: str) -> str:
    """An email as stored and compared: trimmed and lowercased."""
    return email.strip().lower()


def email_problem(email: str) -> str | None:
    """What is wrong with an (already normalised) email, or None."""
    if not email or len(email) > MAX_EMAIL:
        return f"an email has 1 to {MAX_EMAIL} characters"
    if _EMAIL.fullmatch(email) is None:
        return "not an email address (name@example.com)"
    return None


def password_problem(password: str) -> str | None:
    """What is wrong with a new password, or None."""
    if len(password) < MIN_PASSWORD:
        return f"a password has at least {MIN_PASSWORD} characters"
    if len(password) > MAX_PASSWORD:
        return f"a password has at most {MAX_PASSWORD} characters"
    return None


class NotAllowedError(Exception):
    """An operation the acting user's role does not allow (the page answers 403 with ``message``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True, slots=True)
class UserRow:
    """One membership as ``assay admin user list`` shows it."""

    user_id: str
    email: str
    organization_id: str
    role: str
    created_at: datetime
    disabled: bool


async def user_by_email(session: AsyncSession, email: str) -> DashboardUser | None:
    return (await session.exec(select(DashboardUser).where(DashboardUser.email == normalise_email(email)))).first()


async def create_user(
    session: AsyncSession, organization_id: str, email: str, role: str, password: str
) -> tuple[DashboardUser, Membership]:
    """A user with ``role`` in an organization. An existing user (same email) is given the membership only
    when ``password`` is theirs: adding an organization never silently takes over someone's account."""
    email = normalise_email(email)
    if (problem := email_problem(email)) is not None:
        raise ProvisioningError("INVALID", problem)
    if role not in ROLES:
        raise ProvisioningError("INVALID", f"unknown role {role!r}; use one of: {', '.join(ROLES)}")
    if await session.get(Organization, organization_id) is None:
        raise ProvisioningError("NOT_FOUND", f"no organization {organization_id!r}")
    user = await user_by_email(session, email)
    if user is None:
        if (problem := password_problem(password)) is not None:
            raise ProvisioningError("INVALID", problem)
        user = DashboardUser(id=new_id("usr"), email=email, password_hash=hash_password(password))
        session.add(user)
        await session.flush()
    else:
        if user.disabled_at is not None:
            raise ProvisioningError("CONFLICT", f"user {email} is disabled")
        if await session.get(Membership, (user.id, organization_id)) is not None:
            raise ProvisioningError("CONFLICT", f"user {email} is already a member of {organization_id}")
        if not check_password(user.password_hash, password):
            raise ProvisioningError(
                "CONFLICT",
                f"user {email} exists and the password given is not theirs; give their password to add them to "
                "another organization",
            )
    membership = Membership(user_id=user.id, organization_id=organization_id, role=role)
    session.add(membership)
    await session.flush()
    return user, membership


async def list_users(session: AsyncSession, organization_id: str | None = None) -> list[UserRow]:
    """Every membership (of one organization, or all), by organization then email."""
    query = select(DashboardUser, Membership).where(col(Membership.user_id) == col(DashboardUser.id))
    if organization_id is not None:
        query = query.where(Membership.organization_id == organization_id)
    rows = (await session.exec(query)).all()
    return sorted(
        (
            UserRow(
                user_id=user.id,
                email=user.email,
                organization_id=membership.organization_id,
                role=membership.role,
                created_at=membership.created_at,
                disabled=user.disabled_at is not None or membership.disabled_at is not None,
            )
            for user, membership in rows
        ),
        key=lambda r: (r.organization_id, r.email),
    )


async def disable_user(session: AsyncSession, email: str) -> DashboardUser:
    """Disable a user: no further sign-in, and every open session ends now."""
    user = await user_by_email(session, email)
    if user is None:
        raise ProvisioningError("NOT_FOUND", f"no user {normalise_email(email)!r}")
    if user.disabled_at is None:
        user.disabled_at = utcnow()
        session.add(user)
    await session.exec(delete(DashboardSession).where(col(DashboardSession.user_id) == user.id))
    await session.flush()
    return user


async def roles_of(session: AsyncSession, user_id: str) -> dict[str, Role]:
    """The user's role in each organization they belong to."""
    rows = (await session.exec(select(Membership).where(Membership.user_id == user_id))).all()
    return {m.organization_id: m.role for m in rows if m.role in ROLES and m.disabled_at is None}


@dataclass(frozen=True, slots=True)
class Member:
    """One person of an organization as its people page shows them."""

    user_id: str
    email: str
    role: str
    joined_at: datetime
    # Disabled in this organization (by an owner or admin), or the whole account (``assay admin user disable``).
    disabled_here: bool
    account_disabled: bool

    @property
    def active(self) -> bool:
        return not self.disabled_here and not self.account_disabled


async def members(session: AsyncSession, organization_id: str) -> list[Member]:
    """The organization's members: owners first, then by role and email."""
    rows = (
        await session.exec(
            select(DashboardUser, Membership)
            .where(col(Membership.user_id) == col(DashboardUser.id))
            .where(Membership.organization_id == organization_id)
        )
    ).all()
    rank: dict[str, int] = {role: i for i, role in enumerate(ROLES)}
    return sorted(
        (
            Member(
                user_id=user.id,
                email=user.email,
                role=membership.role,
                joined_at=membership.created_at,
                disabled_here=membership.disabled_at is not None,
                account_disabled=user.disabled_at is not None,
            )
            for user, membership in rows
        ),
        key=lambda m: (rank.get(m.role, len(rank)), m.email),
    )


async def _target(session: AsyncSession, organization_id: str, user_id: str) -> Membership:
    membership = await session.get(Membership, (user_id, organization_id))
    if membership is None:
        raise ProvisioningError("NOT_FOUND", "That person is not a member of this organization.")
    return membership


def check_may_grant(actor_role: str, role: str) -> None:
    """Refuse a role the actor may not hand out: only an owner makes owners."""
    if role not in ROLES:
        raise ProvisioningError("INVALID", f"unknown role {role!r}; use one of: {', '.join(ROLES)}")
    if not at_least(actor_role, "admin"):
        raise NotAllowedError("Only owners and admins manage people.")
    if role == "owner" and actor_role != "owner":
        raise NotAllowedError("Only an owner can make someone an owner.")


def _check_may_manage(actor_role: str, target: Membership) -> None:
    if not at_least(actor_role, "admin"):
        raise NotAllowedError("Only owners and admins manage people.")
    if target.role == "owner" and actor_role != "owner":
        raise NotAllowedError("Only an owner can change or disable an owner.")


async def _is_last_active_owner(session: AsyncSession, target: Membership) -> bool:
    if target.role != "owner" or target.disabled_at is not None:
        return False
    others = (
        await session.exec(
            select(Membership.user_id)
            .join(DashboardUser, col(DashboardUser.id) == col(Membership.user_id))
            .where(Membership.organization_id == target.organization_id)
            .where(Membership.role == "owner")
            .where(col(Membership.disabled_at).is_(None))
            .where(col(DashboardUser.disabled_at).is_(None))
            .where(Membership.user_id != target.user_id)
        )
    ).first()
    return others is None


async def change_role(
    session: AsyncSession, organization_id: str, actor_role: str, user_id: str, role: str
) -> Membership:
    """Give a member another role. Only an owner makes owners or changes an owner's role; the last active
    owner keeps the role (an organization always has someone who can manage it)."""
    check_may_grant(actor_role, role)
    target = await _target(session, organization_id, user_id)
    _check_may_manage(actor_role, target)
    if target.role == role:
        return target
    if await _is_last_active_owner(session, target):
        raise ProvisioningError(
            "CONFLICT", "The last active owner cannot be given another role. Make someone else an owner first."
        )
    target.role = role
    session.add(target)
    await session.flush()
    return target


async def set_member_disabled(
    session: AsyncSession,
    organization_id: str,
    actor_role: str,
    actor_id: str,
    user_id: str,
    disabled: bool,
    now: datetime,
) -> Membership:
    """Disable a member in this organization (their pages of it close at once; their account and other
    organizations are untouched), or enable them again. Nobody disables themselves or the last active owner."""
    target = await _target(session, organization_id, user_id)
    _check_may_manage(actor_role, target)
    if disabled:
        if user_id == actor_id:
            raise ProvisioningError("CONFLICT", "You cannot disable yourself.")
        if await _is_last_active_owner(session, target):
            raise ProvisioningError(
                "CONFLICT", "The last active owner cannot be disabled. Make someone else an owner first."
            )
        if target.disabled_at is None:
            target.disabled_at = now
    else:
        target.disabled_at = None
    session.add(target)
    await session.flush()
    return target

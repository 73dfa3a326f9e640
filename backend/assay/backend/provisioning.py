"""The operations behind ``assay admin`` and the dashboard's provisioning pages: organizations, AI Systems,
source assets and API keys.

The command line's admin surface; the dashboard's pages call the same functions. Each function works in the
caller's session and flushes, leaving the commit to the caller. Failures raise :class:`ProvisioningError` with
a stable ``code`` and a message fit for a terminal and a page. A remote git source's deploy credential is
sealed before it reaches the session and never appears in a message.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import anyio
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from assay.backend.api_keys import Environment, display_prefix, generate_api_key, hash_api_key
from assay.backend.provisioning_rules import ProvisioningError as ProvisioningError
from assay.backend.provisioning_rules import check_label, check_name, resolve_scopes
from assay.backend.provisioning_rules import parse_duration as parse_duration
from assay.backend.scans.sources import normalise_repo
from assay.backend.scopes import Purpose
from assay.backend.settings import GitFetchSettings
from assay.backend.storage.models import (
    SOURCE_STATUSES,
    AiSystem,
    ApiKey,
    Organization,
    SourceAsset,
    SourceStatus,
    new_id,
    utcnow,
)

# An AI System's lifecycleStatus once it is retired (final; docs/dashboard.md, "Retiring an AI System").
SYSTEM_RETIRED = "RETIRED"


@dataclass(frozen=True, slots=True)
class IssuedKey:
    """A newly created key. ``api_key`` exists only here: the database keeps its hash."""

    record: ApiKey
    api_key: str


async def _organization(session: AsyncSession, organization_id: str) -> Organization:
    org = await session.get(Organization, organization_id)
    if org is None:
        raise ProvisioningError("NOT_FOUND", f"no organization {organization_id!r}")
    return org


async def create_organization(session: AsyncSession, name: str) -> Organization:
    """A new organization."""
    org = Organization(id=new_id("org"), name=check_name(name, "the organization name"))
    session.add(org)
    await session.flush()
    return org


async def create_ai_system(
    session: AsyncSession,
    organization_id: str,
    name: str,
    *,
    system_type: str | None = None,
    criticality: str | None = None,
    lifecycle_status: str | None = None,
) -> AiSystem:
    """A new AI System of an organization."""
    await _organization(session, organization_id)
    system = AiSystem(
        id=new_id("sys"),
        organization_id=organization_id,
        name=check_name(name, "the AI System name"),
        system_type=check_label(system_type, "the system type"),
        criticality=check_label(criticality, "the criticality"),
        lifecycle_status=check_label(lifecycle_status, "the lifecycle status"),
    )
    session.add(system)
    await session.flush()
    return system


async def ai_system(session: AsyncSession, organization_id: str, ai_system_id: str) -> AiSystem:
    """The organization's AI System; NOT_FOUND for a missing one and another organization's alike."""
    system = await session.get(AiSystem, ai_system_id)
    if system is None or system.organization_id != organization_id:
        raise ProvisioningError("NOT_FOUND", f"no AI System {ai_system_id!r} in organization {organization_id!r}")
    return system


def require_active(system: AiSystem) -> None:
    """CONFLICT when the AI System is retired: it takes no new sources, targets, binders, scans or runs."""
    if system.lifecycle_status == SYSTEM_RETIRED:
        raise ProvisioningError("CONFLICT", f"AI System {system.id} is retired; it cannot be changed or given more")


async def update_ai_system(
    session: AsyncSession,
    organization_id: str,
    ai_system_id: str,
    *,
    name: str,
    system_type: str | None,
    criticality: str | None,
) -> AiSystem:
    """Rename an AI System and set its type and criticality (blank: none). A retired system is final."""
    system = await ai_system(session, organization_id, ai_system_id)
    require_active(system)
    system.name = check_name(name, "the AI System name")
    system.system_type = check_label(system_type, "the system type")
    system.criticality = check_label(criticality, "the criticality")
    session.add(system)
    await session.flush()
    return system


async def add_source(
    session: AsyncSession,
    organization_id: str,
    ai_system_id: str,
    repo: str,
    *,
    branch: str | None = None,
    credential: str | None = None,
    key_dir: Path | None = None,
    remote_only: bool = False,
) -> SourceAsset:
    """Bind a source repository (local path or git URL) to an AI System, PENDING until verified.

    ``credential`` (a git remote's HTTPS token or SSH private key) is sealed under the secret key of
    ``key_dir``. ``remote_only`` refuses anything but an https or ssh remote (``--git``, the dashboard)."""
    from assay.backend.scans import remote, remote_sources

    require_active(await ai_system(session, organization_id, ai_system_id))
    try:
        kind, stored = await anyio.to_thread.run_sync(normalise_repo, repo)
    except ValueError as exc:
        raise ProvisioningError("INVALID", str(exc)) from exc
    if branch is not None and not branch.strip():
        raise ProvisioningError("INVALID", "the branch cannot be empty")
    sealed: bytes | None = None
    credential_kind: str | None = None
    if kind == "git" and (remote_only or credential is not None or _has_userinfo_password(stored)):
        try:
            remote.parse_remote(stored)
            if branch is not None:
                branch = remote.check_branch(branch)
        except ValueError as exc:
            raise ProvisioningError("INVALID", str(exc)) from exc
    elif remote_only:
        raise ProvisioningError("INVALID", "a git remote is an https:// or ssh:// URL (or user@host:path)")
    if credential is not None:
        if kind != "git":
            raise ProvisioningError("INVALID", "a credential goes with a git remote, not a local path")
        try:
            parsed = remote_sources.parse_credential(stored, credential)
        except ValueError as exc:
            raise ProvisioningError("INVALID", str(exc)) from exc
        try:
            sealed = await anyio.to_thread.run_sync(remote_sources.seal_credential, key_dir, parsed)
        except (OSError, RuntimeError) as exc:
            raise ProvisioningError("INVALID", f"the credential cannot be sealed: {exc}") from exc
        credential_kind = parsed.kind
    existing = await session.exec(
        select(SourceAsset)
        .where(SourceAsset.ai_system_id == ai_system_id)
        .where(SourceAsset.repo == stored)
        .where(SourceAsset.branch == branch if branch is not None else SourceAsset.branch.is_(None))  # type: ignore[union-attr]
        .where(SourceAsset.status != "RETIRED")
    )
    duplicate = existing.first()
    if duplicate is not None:
        raise ProvisioningError("CONFLICT", f"{stored} is already bound to this AI System as {duplicate.id}")
    source = SourceAsset(
        id=new_id("src"),
        organization_id=organization_id,
        ai_system_id=ai_system_id,
        repo=stored,
        repo_kind=kind,
        branch=branch,
        status="PENDING",
        credential_kind=credential_kind,
        sealed_credential=sealed,
    )
    session.add(source)
    await session.flush()
    return source


def _has_userinfo_password(url: str) -> bool:
    """A URL like ``https://user:token@host/...``: a secret that would be stored and shown in clear."""
    _scheme, sep, rest = url.partition("://")
    return bool(sep) and ":" in rest.split("/", 1)[0].rpartition("@")[0]


async def _source(session: AsyncSession, source_id: str) -> SourceAsset:
    source = await session.get(SourceAsset, source_id)
    if source is None:
        raise ProvisioningError("NOT_FOUND", f"no source asset {source_id!r}")
    return source


async def set_source_status(session: AsyncSession, source_id: str, status: SourceStatus) -> SourceAsset:
    """Move a source to ``status``. RETIRED is final; a local path must exist to be VERIFIED."""
    if status not in SOURCE_STATUSES:
        raise ProvisioningError("INVALID", f"unknown source status {status!r}")
    source = await _source(session, source_id)
    if source.status == "RETIRED" and status != "RETIRED":
        raise ProvisioningError("CONFLICT", f"source {source_id} is retired; bind the repository again instead")
    if status == "VERIFIED" and source.repo_kind == "local" and not await anyio.Path(source.repo).is_dir():
        raise ProvisioningError("INVALID", f"cannot verify {source.repo}: it does not exist or is not a directory")
    if source.status != status:
        source.status = status
        source.updated_at = utcnow()
        session.add(source)
        await session.flush()
    return source


async def verify_source(
    session: AsyncSession,
    source_id: str,
    *,
    key_dir: Path | None = None,
    git: GitFetchSettings | None = None,
) -> SourceAsset:
    """Mark a source VERIFIED. A local path must exist; a git remote must be fetched: its branch (else its
    default branch) listed and its tip fetched within the bounds of ``git``, with its credential. A
    failure leaves the status as it was and raises the fetch's error code (AUTH_FAILED, BRANCH_NOT_FOUND,
    UNREACHABLE, TOO_LARGE, TIMEOUT, REFUSED, FAILED)."""
    source = await _source(session, source_id)
    if source.repo_kind != "git" or source.status == "RETIRED":
        return await set_source_status(session, source_id, "VERIFIED")
    from assay.backend.scans import remote, remote_sources

    try:
        remote.parse_remote(source.repo)
    except ValueError as exc:
        raise ProvisioningError("INVALID", f"cannot verify {source.repo} by fetching it: {exc}") from exc
    try:
        verified = await anyio.to_thread.run_sync(
            remote_sources.verify_remote, source, key_dir, git or GitFetchSettings()
        )
    except remote.GitFetchError as exc:
        raise ProvisioningError(exc.code, f"cannot verify {source.repo}: {exc.message}") from exc
    source.status = "VERIFIED"
    source.verified_commit = verified.commit
    source.updated_at = utcnow()
    session.add(source)
    await session.flush()
    return source


async def set_source_credential(
    session: AsyncSession, source_id: str, credential: str | None, *, key_dir: Path | None = None
) -> SourceAsset:
    """Replace (or with None, remove) a git source's credential; the source is PENDING until verified again."""
    from assay.backend.scans import remote_sources

    source = await _source(session, source_id)
    if source.repo_kind != "git":
        raise ProvisioningError("INVALID", "a credential goes with a git remote, not a local path")
    if source.status == "RETIRED":
        raise ProvisioningError("CONFLICT", f"source {source_id} is retired; bind the repository again instead")
    if credential is None:
        source.sealed_credential, source.credential_kind = None, None
    else:
        try:
            parsed = remote_sources.parse_credential(source.repo, credential)
        except ValueError as exc:
            raise ProvisioningError("INVALID", str(exc)) from exc
        try:
            source.sealed_credential = await anyio.to_thread.run_sync(remote_sources.seal_credential, key_dir, parsed)
        except (OSError, RuntimeError) as exc:
            raise ProvisioningError("INVALID", f"the credential cannot be sealed: {exc}") from exc
        source.credential_kind = parsed.kind
    source.status = "PENDING"
    source.verified_commit = None
    source.updated_at = utcnow()
    session.add(source)
    await session.flush()
    return source


async def retire_source(session: AsyncSession, source_id: str) -> SourceAsset:
    """Mark a source RETIRED; it can no longer be scanned."""
    return await set_source_status(session, source_id, "RETIRED")


async def create_api_key(
    session: AsyncSession,
    organization_id: str,
    *,
    purpose: Purpose | None = None,
    scopes: Iterable[str] | None = None,
    expires_in: timedelta | None = None,
    environment: Environment = "live",
    now: datetime | None = None,
) -> IssuedKey:
    """Issue a key for an organization. The returned ``api_key`` is the only copy of the secret."""
    await _organization(session, organization_id)
    granted = resolve_scopes(purpose, scopes)
    created = now or utcnow()
    secret = generate_api_key(environment)
    record = ApiKey(
        id=new_id("key"),
        organization_id=organization_id,
        key_hash=hash_api_key(secret),
        display_prefix=display_prefix(secret),
        environment=environment,
        purpose=purpose,
        scopes=list(granted),
        created_at=created,
        expires_at=created + expires_in if expires_in is not None else None,
    )
    session.add(record)
    await session.flush()
    return IssuedKey(record=record, api_key=secret)


async def revoke_api_key(
    session: AsyncSession, key_id: str, *, organization_id: str | None = None, now: datetime | None = None
) -> ApiKey:
    """Revoke a key at once; revoking twice keeps the first revocation time. With ``organization_id``, a key
    of another organization is as missing as an unknown one."""
    record = await session.get(ApiKey, key_id)
    if record is None or (organization_id is not None and record.organization_id != organization_id):
        raise ProvisioningError("NOT_FOUND", f"no API key {key_id!r}")
    if record.revoked_at is None:
        record.revoked_at = now or utcnow()
        session.add(record)
        await session.flush()
    return record


async def list_api_keys(session: AsyncSession, organization_id: str) -> list[ApiKey]:
    """The organization's keys, newest first (revoked and expired ones too: the record of what was issued)."""
    rows = await session.exec(
        select(ApiKey)
        .where(ApiKey.organization_id == organization_id)
        .order_by(col(ApiKey.created_at).desc(), col(ApiKey.id))
    )
    return list(rows.all())

"""What each ``assay admin`` command does to the service database (its parser is ``commands/admin.py``).

Imported only when an admin command runs: it loads the database stack.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from sqlmodel.ext.asyncio.session import AsyncSession

from assay.backend import provisioning
from assay.backend.storage.db import create_engine, create_session_factory
from assay.backend.storage.migrations import upgrade_engine
from assay.backend.storage.models import SourceAsset

Action = Callable[[AsyncSession, argparse.Namespace], Awaitable[dict[str, Any]]]


async def org_create(session: AsyncSession, args: argparse.Namespace) -> dict[str, Any]:
    org = await provisioning.create_organization(session, args.name)
    return {"organizationId": org.id}


async def system_create(session: AsyncSession, args: argparse.Namespace) -> dict[str, Any]:
    system = await provisioning.create_ai_system(
        session, args.org, args.name, system_type=args.system_type, criticality=args.criticality
    )
    return {"aiSystemId": system.id}


def _source_summary(source: SourceAsset) -> dict[str, Any]:
    summary: dict[str, Any] = {"sourceAssetId": source.id, "status": source.status}
    if source.repo_kind == "git":
        summary["credential"] = source.credential_kind or "none"
        if source.verified_commit is not None:
            summary["verifiedCommit"] = source.verified_commit
    return summary


def _credential_from_stdin() -> str:
    # Everything on stdin (an SSH key is several lines); never echoed, never on the command line.
    return sys.stdin.read(64 * 1024)


async def source_add(session: AsyncSession, args: argparse.Namespace) -> dict[str, Any]:
    from assay.server.settings import read_environment

    credential: str | None = None
    if args.credential_stdin:
        if args.git is None:
            raise provisioning.ProvisioningError("INVALID", "--credential-stdin goes with --git URL")
        credential = await anyio.to_thread.run_sync(_credential_from_stdin)
        if not credential.strip():
            raise provisioning.ProvisioningError("INVALID", "no credential on stdin (--credential-stdin)")
    source = await provisioning.add_source(
        session,
        args.org,
        args.system,
        args.git if args.git is not None else args.repo,
        branch=args.branch,
        credential=credential,
        key_dir=read_environment().key_directory() if credential is not None else None,
        remote_only=args.git is not None,
    )
    return _source_summary(source)


async def source_verify(session: AsyncSession, args: argparse.Namespace) -> dict[str, Any]:
    from assay.server.settings import read_environment

    environment = read_environment()
    source = await provisioning.verify_source(
        session, args.source_id, key_dir=environment.key_directory(), git=environment.git
    )
    return _source_summary(source)


async def source_credential(session: AsyncSession, args: argparse.Namespace) -> dict[str, Any]:
    from assay.server.settings import read_environment

    credential: str | None = None
    if args.credential_stdin:
        credential = await anyio.to_thread.run_sync(_credential_from_stdin)
        if not credential.strip():
            raise provisioning.ProvisioningError("INVALID", "no credential on stdin (--credential-stdin)")
    source = await provisioning.set_source_credential(
        session, args.source_id, credential, key_dir=read_environment().key_directory()
    )
    return _source_summary(source)


async def source_retire(session: AsyncSession, args: argparse.Namespace) -> dict[str, Any]:
    source = await provisioning.retire_source(session, args.source_id)
    return {"sourceAssetId": source.id, "status": source.status}


async def source_set_status(session: AsyncSession, args: argparse.Namespace) -> dict[str, Any]:
    source = await provisioning.set_source_status(session, args.source_id, args.status)
    return {"sourceAssetId": source.id, "status": source.status}


async def key_create(session: AsyncSession, args: argparse.Namespace) -> dict[str, Any]:
    expires_in = provisioning.parse_duration(args.expires_in) if args.expires_in else None
    scopes = [s for s in args.scopes.split(",") if s.strip()] if args.scopes is not None else None
    issued = await provisioning.create_api_key(
        session,
        args.org,
        purpose=args.purpose,
        scopes=scopes,
        expires_in=expires_in,
        environment="test" if args.test else "live",
    )
    return {"keyId": issued.record.id, "apiKey": issued.api_key}


async def key_revoke(session: AsyncSession, args: argparse.Namespace) -> dict[str, Any]:
    record = await provisioning.revoke_api_key(session, args.key_id)
    assert record.revoked_at is not None
    return {"keyId": record.id, "revokedAt": record.revoked_at.isoformat().replace("+00:00", "Z")}


async def binder_create(session: AsyncSession, args: argparse.Namespace) -> dict[str, Any]:
    from assay.backend.intake import binders  # the intake adapters: only for binder commands

    created = await binders.create_binder(
        session,
        args.org,
        source_system=args.source_system,
        adapter_id=args.adapter,
        ai_system_id=args.system,
        domain=args.domain,
        authority_role=args.authority_role,
        classes=args.classes,
        max_record_bytes=args.max_record_bytes,
        require_event_id=args.require_event_id,
        line_regex=args.line_regex,
    )
    return binders.binder_summary(created)


async def binder_list(session: AsyncSession, args: argparse.Namespace) -> dict[str, Any]:
    from assay.backend.intake import binders  # the intake adapters: only for binder commands

    return {"binders": [binders.binder_summary(b) for b in await binders.list_binders(session, args.org)]}


async def binder_deactivate(session: AsyncSession, args: argparse.Namespace) -> dict[str, Any]:
    from assay.backend.intake import binders  # the intake adapters: only for binder commands

    binder = await binders.deactivate_binder(session, args.binder_id)
    return {"binderId": binder.id, "active": binder.active}


async def target_add(session: AsyncSession, args: argparse.Namespace) -> dict[str, Any]:
    from assay.backend.runtime import targets  # only for target commands
    from assay.server.settings import read_environment

    environment = read_environment()
    spec = targets.TargetSpec(
        mcp_url=args.mcp_url,
        mcp_command=args.mcp_command,
        agent_url=args.agent_url,
        protocol=args.protocol,
        headers=args.header,
    )
    created = await targets.add_target(
        session,
        args.org,
        args.system,
        spec,
        key_dir=environment.key_directory(),
        allowed_networks=environment.runtime_allowed_networks,
    )
    return targets.summary(created)


async def target_list(session: AsyncSession, args: argparse.Namespace) -> dict[str, Any]:
    from assay.backend.runtime import targets  # only for target commands

    return {"targets": [targets.summary(t) for t in await targets.list_targets(session, args.org, args.system)]}


async def target_verify(session: AsyncSession, args: argparse.Namespace) -> dict[str, Any]:
    from assay.backend.runtime import targets  # only for target commands

    return targets.summary(await targets.verify_target(session, args.target_id))


async def target_consent(session: AsyncSession, args: argparse.Namespace) -> dict[str, Any]:
    from assay.backend.runtime import targets  # only for target commands

    suites = targets.parse_suites(args.suites)
    return targets.summary(await targets.consent_target(session, args.target_id, suites))


async def target_retire(session: AsyncSession, args: argparse.Namespace) -> dict[str, Any]:
    from assay.backend.runtime import targets  # only for target commands

    return targets.summary(await targets.retire_target(session, args.target_id))


def _password_from_stdin() -> str:
    # One line, without its line ending: `printf %s "$PW" | ...` and `echo "$PW" | ...` both work.
    line = sys.stdin.readline()
    return line.removesuffix("\n").removesuffix("\r")


async def user_create(session: AsyncSession, args: argparse.Namespace) -> dict[str, Any]:
    from assay.backend.dashboard import users  # the password hasher: only for user commands

    password = await anyio.to_thread.run_sync(_password_from_stdin)
    if not password:
        raise provisioning.ProvisioningError("INVALID", "no password on stdin (--password-stdin reads its first line)")
    user, membership = await users.create_user(session, args.org, args.email, args.role, password)
    return {
        "userId": user.id,
        "email": user.email,
        "organizationId": membership.organization_id,
        "role": membership.role,
    }


async def user_invite(session: AsyncSession, args: argparse.Namespace) -> dict[str, Any]:
    from assay.backend.dashboard import invitations, urls
    from assay.backend.storage.models import utcnow
    from assay.server.settings import public_url, read_environment

    base = public_url(args.public_url, read_environment())
    lifetime = provisioning.parse_duration(args.expires_in) if args.expires_in else invitations.LIFETIME
    issued = await invitations.issue(
        session,
        args.org,
        args.email,
        args.role,
        issued_by=invitations.COMMAND_LINE,
        actor_role="owner",
        now=utcnow(),
        lifetime=lifetime,
    )
    record = issued.record
    return {
        "invitationId": record.id,
        "email": record.email,
        "organizationId": record.organization_id,
        "role": record.role,
        "expiresAt": record.expires_at.isoformat().replace("+00:00", "Z"),
        "invitationLink": (base or "") + urls.invitation(issued.token),
    }


async def user_list(session: AsyncSession, args: argparse.Namespace) -> dict[str, Any]:
    from assay.backend.dashboard import users

    return {
        "users": [
            {
                "userId": row.user_id,
                "email": row.email,
                "organizationId": row.organization_id,
                "role": row.role,
                "disabled": row.disabled,
            }
            for row in await users.list_users(session, args.org)
        ]
    }


async def user_disable(session: AsyncSession, args: argparse.Namespace) -> dict[str, Any]:
    from assay.backend.dashboard import users

    user = await users.disable_user(session, args.email)
    assert user.disabled_at is not None
    return {"userId": user.id, "email": user.email, "disabledAt": user.disabled_at.isoformat().replace("+00:00", "Z")}


async def execute(url: str, action: Action, args: argparse.Namespace) -> dict[str, Any]:
    """Bring the schema of ``url`` up to date, then run ``action`` in one committed transaction."""
    engine = create_engine(url)
    try:
        await upgrade_engine(engine)
        async with create_session_factory(engine)() as session:
            result = await action(session, args)
            await session.commit()
            return result
    finally:
        await engine.dispose()


# ``GROUP ACTION`` as typed on the command line -> what it does.
ACTIONS: dict[str, Action] = {
    "target add": target_add,
    "target list": target_list,
    "target verify": target_verify,
    "target consent": target_consent,
    "target retire": target_retire,
    "org create": org_create,
    "system create": system_create,
    "source add": source_add,
    "source verify": source_verify,
    "source credential": source_credential,
    "source retire": source_retire,
    "source set-status": source_set_status,
    "key create": key_create,
    "key revoke": key_revoke,
    "binder create": binder_create,
    "binder list": binder_list,
    "binder deactivate": binder_deactivate,
    "user create": user_create,
    "user invite": user_invite,
    "user list": user_list,
    "user disable": user_disable,
}

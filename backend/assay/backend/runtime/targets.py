"""Runtime targets: adding, listing, verifying, consenting to and retiring them, and deciding whether one
may be probed now (docs/runtime.md).

A target is bound to an AI System like a source. It is probed only when it is VERIFIED (an operator
confirmed the organization owns it), not RETIRED, and every requested suite is consented. Its header
secrets are sealed at rest (:mod:`assay.backend.runtime.secrets`); every read returns their names only.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from assay.backend.provisioning import ProvisioningError, ai_system, require_active
from assay.backend.runtime import network, secrets
from assay.backend.runtime.names import PROTOCOLS as PROTOCOLS  # the names parsers list, re-exported
from assay.backend.runtime.names import SUITES as SUITES
from assay.backend.storage.models import RuntimeTarget, new_id, utcnow

PLANNED_SUITES: tuple[str, ...] = ()
AGENT_SUITES: tuple[str, ...] = ("agent",)
# ``active`` calls the server's tools: only when a run asks for it (and the target is consented to it).
DEFAULT_SUITES: tuple[str, ...] = ("catalogue", "poisoning", "annotations")
_HEADER_NAME = re.compile(r"[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}")
_MAX_HEADERS = 20
_MAX_HEADER_VALUE = 8192


@dataclass(frozen=True, slots=True)
class TargetSpec:
    """What ``target add`` was given: exactly one of the three addresses."""

    mcp_url: str | None = None
    mcp_command: str | None = None
    agent_url: str | None = None
    protocol: str | None = None
    headers: Sequence[str] = ()


def parse_headers(pairs: Sequence[str]) -> dict[str, str]:
    """``NAME=VALUE`` pairs as a dict; ProvisioningError naming a malformed one (never its value)."""
    headers: dict[str, str] = {}
    if len(pairs) > _MAX_HEADERS:
        raise ProvisioningError("INVALID", f"at most {_MAX_HEADERS} headers")
    for index, pair in enumerate(pairs, 1):
        name, sep, value = pair.partition("=")
        name = name.strip()
        if not sep or not _HEADER_NAME.fullmatch(name):
            raise ProvisioningError("INVALID", f"header {index} must be NAME=VALUE with a valid header name")
        if len(value) > _MAX_HEADER_VALUE or any(c in value for c in "\r\n\0"):
            raise ProvisioningError("INVALID", f"header {name}: the value is too long or holds line breaks")
        headers[name] = value
    return headers


def command_argv(command: str) -> list[str]:
    """The argv of an ``mcp-command`` target (shell quoting rules; never run through a shell)."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise ProvisioningError("INVALID", f"--mcp-command does not parse: {exc}") from exc
    if not argv:
        raise ProvisioningError("INVALID", "--mcp-command is empty")
    return argv


def summary(target: RuntimeTarget) -> dict[str, Any]:
    """A target as every read shows it: header names, never their values."""
    return {
        "targetId": target.id,
        "aiSystemId": target.ai_system_id,
        "kind": target.kind,
        "address": target.address,
        "protocol": target.protocol,
        "status": target.status,
        "consentedSuites": list(target.consented_suites),
        "headerNames": list(target.header_names),
    }


async def add_target(
    session: AsyncSession,
    organization_id: str,
    ai_system_id: str,
    spec: TargetSpec,
    *,
    key_dir: Path | None,
    allowed_networks: Sequence[network.Network] = (),
) -> RuntimeTarget:
    """Bind a new PENDING target to an AI System of the organization."""
    require_active(await ai_system(session, organization_id, ai_system_id))
    given = [v for v in (spec.mcp_url, spec.mcp_command, spec.agent_url) if v is not None]
    if len(given) != 1:
        raise ProvisioningError("INVALID", "give exactly one of --mcp-url, --mcp-command, --agent-url")
    headers = parse_headers(spec.headers)
    if spec.mcp_command is not None:
        command_argv(spec.mcp_command)
        if headers:
            raise ProvisioningError("INVALID", "--header goes with a URL target, not --mcp-command")
        kind, address, protocol = "mcp-command", spec.mcp_command.strip(), "mcp"
    else:
        url = (spec.mcp_url or spec.agent_url or "").strip()
        kind = "mcp-url" if spec.mcp_url is not None else "agent-url"
        protocol = "mcp" if kind == "mcp-url" else (spec.protocol or "")
        if kind == "agent-url" and protocol not in PROTOCOLS:
            raise ProvisioningError("INVALID", f"--agent-url needs --protocol ({', '.join(PROTOCOLS)})")
        try:
            await anyio.to_thread.run_sync(network.check_url, url, allowed_networks)
        except ValueError as exc:  # NetworkRefusedError included
            raise ProvisioningError("INVALID", str(exc)) from exc
        address = url
    if spec.protocol is not None and kind != "agent-url":
        raise ProvisioningError("INVALID", "--protocol goes with --agent-url")
    if len(address) > 4096:
        raise ProvisioningError("INVALID", "the target address is longer than 4096 characters")
    try:
        sealed = secrets.seal(key_dir, headers) if headers else None
    except secrets.SecretKeyError as exc:
        raise ProvisioningError("INVALID", str(exc)) from exc
    target = RuntimeTarget(
        id=new_id("tgt"),
        organization_id=organization_id,
        ai_system_id=ai_system_id,
        kind=kind,
        address=address,
        protocol=protocol,
        header_names=sorted(headers),
        sealed_headers=sealed,
    )
    session.add(target)
    await session.flush()
    return target


async def _get(session: AsyncSession, target_id: str) -> RuntimeTarget:
    target = await session.get(RuntimeTarget, target_id)
    if target is None:
        raise ProvisioningError("NOT_FOUND", f"no runtime target {target_id}")
    return target


async def list_targets(
    session: AsyncSession, organization_id: str | None, ai_system_id: str | None
) -> list[RuntimeTarget]:
    query = select(RuntimeTarget).order_by(col(RuntimeTarget.created_at), col(RuntimeTarget.id))
    if organization_id is not None:
        query = query.where(RuntimeTarget.organization_id == organization_id)
    if ai_system_id is not None:
        query = query.where(RuntimeTarget.ai_system_id == ai_system_id)
    return list((await session.exec(query)).all())


async def _change(session: AsyncSession, target_id: str, **values: Any) -> RuntimeTarget:
    target = await _get(session, target_id)
    if target.status == "RETIRED":
        raise ProvisioningError("CONFLICT", f"runtime target {target_id} is retired (final)")
    for name, value in values.items():
        setattr(target, name, value)
    target.updated_at = utcnow()
    session.add(target)
    await session.flush()
    return target


async def verify_target(session: AsyncSession, target_id: str) -> RuntimeTarget:
    """The operator confirms the organization owns the target: PENDING -> VERIFIED."""
    return await _change(session, target_id, status="VERIFIED")


async def retire_target(session: AsyncSession, target_id: str) -> RuntimeTarget:
    """RETIRED is final: the target is never probed again."""
    target = await _change(session, target_id, status="RETIRED")
    return target


def parse_suites(text: str) -> list[str]:
    """A comma-separated suite list, in pack order; ProvisioningError naming an unknown or unbuilt suite."""
    names = [s.strip() for s in text.split(",") if s.strip()]
    if not names:
        raise ProvisioningError("INVALID", f"name at least one suite ({', '.join(SUITES)})")
    for name in names:
        if name in PLANNED_SUITES:
            raise ProvisioningError("INVALID", f"the {name} suite is not available in this deployment")
        if name not in SUITES:
            raise ProvisioningError("INVALID", f"unknown suite {name!r}; suites: {', '.join(SUITES)}")
    return [s for s in SUITES if s in names]


async def consent_target(session: AsyncSession, target_id: str, suites: Sequence[str]) -> RuntimeTarget:
    """Record the owner's consent to exactly these suites (replacing earlier consent)."""
    return await _change(session, target_id, consented_suites=list(suites), consented_at=utcnow())


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a target may not be probed now: a contract error code and a message naming the target."""

    code: str
    message: str


@dataclass(frozen=True, slots=True)
class Admission:
    """Whether a target may be probed now: ``refusal`` None when it may, and for a URL target the address
    its host resolved to, checked (the only one the session contacts)."""

    refusal: Refusal | None
    pinned: str | None = None


def admission(
    target: RuntimeTarget, suites: Sequence[str], *, allow_commands: bool, allowed_networks: Sequence[network.Network]
) -> Admission:
    """Whether ``target`` may be probed with ``suites`` now, and at which address. Network resolution
    included (blocking: call off the event loop)."""
    if target.status == "RETIRED":
        return Admission(
            Refusal("SOURCE_UNAVAILABLE", f"Runtime target {target.id} is retired; it is never probed again.")
        )
    if target.status != "VERIFIED":
        return Admission(
            Refusal(
                "SOURCE_NOT_VERIFIED",
                f"Runtime target {target.id} is not verified (assay admin target verify {target.id}); it is never "
                "probed.",
            )
        )
    missing = [s for s in suites if s not in target.consented_suites]
    if missing:
        return Admission(
            Refusal(
                "CONSENT_REQUIRED",
                f"Runtime target {target.id} has no consent for suite(s) {', '.join(missing)} "
                f"(assay admin target consent {target.id} --suites {','.join(suites)}).",
            )
        )
    if (target.kind == "agent-url") != (list(suites) == ["agent"]):
        return Admission(
            Refusal(
                "INVALID_REQUEST",
                "The agent suite applies to agent-url targets, and only it does; the other suites probe MCP servers.",
            )
        )
    if target.kind == "mcp-command" and not allow_commands:
        return Admission(
            Refusal(
                "INVALID_REQUEST",
                "mcp-command targets run only in the embedded and local modes; a shared service starts them only "
                "when its operator sets ASSAY_RUNTIME_ALLOW_COMMANDS=1.",
            )
        )
    if target.kind in ("mcp-url", "agent-url"):
        try:
            pinned = network.check_url(target.address, allowed_networks)
        except ValueError as exc:
            return Admission(Refusal("INVALID_REQUEST", f"Runtime target {target.id}: {exc}."))
        return Admission(None, str(pinned))
    return Admission(None)


def probe_refusal(
    target: RuntimeTarget, suites: Sequence[str], *, allow_commands: bool, allowed_networks: Sequence[network.Network]
) -> Refusal | None:
    """None when ``target`` may be probed with ``suites`` now, else why not (see :func:`admission`)."""
    return admission(target, suites, allow_commands=allow_commands, allowed_networks=allowed_networks).refusal

"""The MCP server's connection to the assurance service: embedded (in-process) or remote.

Embedded (the default): the whole service runs in this process (``create_app`` with its lifespan entered
here: ``httpx.ASGITransport`` does not run it) and tool calls reach it through httpx over the in-process
ASGI transport, so embedded and remote speak the same contract through one client. On first use for a
workspace it provisions a local organization, an AI System named after the folder (the folder bound as a
VERIFIED local source) and an ``assurance-agent`` key, says so on stderr, and remembers them in
``<data dir>/mcp-workspaces.json`` (owner-only; it holds the key, which is never printed or logged).
Later starts reuse them; a key that no longer authenticates is replaced.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TextIO

import anyio
import httpx
from sqlalchemy.engine import make_url
from starlette.applications import Starlette

from assay.backend import provisioning
from assay.backend.engines.static.cache import MemoryCache
from assay.backend.errors import ApiError
from assay.backend.intake import binders
from assay.backend.runtime import targets
from assay.backend.settings import ServiceSettings
from assay.backend.storage import models
from assay.backend.storage.db import SessionFactory
from assay.backend.web.app import create_app
from assay.backend.web.auth import authenticate
from assay.tools.client import AssayClient, AssayError, RetryPolicy, Sleep
from assay.tools.context import AssayBinding, IntakeAccess, IntakeProvider, TargetProvider
from assay.tools.resolve import workspace_system_finder

STATE_FILE = "mcp-workspaces.json"
STATE_VERSION = 1
ORGANIZATION_NAME = "Local"


@dataclass(frozen=True, slots=True)
class WorkspaceRecord:
    """What was provisioned for one workspace in one database."""

    organizationId: str
    aiSystemId: str
    sourceAssetId: str
    keyId: str
    apiKey: str


@dataclass(frozen=True, slots=True)
class EmbeddedService:
    """The running in-process service, the binding the tools use, and the workspace's records."""

    app: Starlette
    binding: AssayBinding
    record: WorkspaceRecord

    @property
    def session_factory(self) -> SessionFactory:
        sessions: SessionFactory = self.app.state.services.session_factory
        return sessions


def database_key(database_url: str) -> str:
    """The state file's key for a database: a digest, so no password is written down twice."""
    return hashlib.sha256(database_url.encode("utf-8")).hexdigest()[:16]


def _read_state(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {"version": STATE_VERSION, "databases": {}}
    except (OSError, ValueError) as exc:
        raise RuntimeError(f"cannot read {path}: {exc}; move it away to provision afresh") from exc
    if not isinstance(value, dict) or value.get("version") != STATE_VERSION:
        raise RuntimeError(f"{path} is not a state file of this version; move it away to provision afresh")
    return value


def _write_state(path: Path, state: dict[str, Any]) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(state, fh, indent=2, sort_keys=True)
    tmp.chmod(0o600)
    tmp.replace(path)


@contextlib.contextmanager
def _state_lock(data_dir: Path) -> Iterator[None]:
    # Two servers started at once for the same workspace must not both provision it.
    fd = os.open(data_dir / f".{STATE_FILE}.lock", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


async def _key_works(sessions: SessionFactory, api_key: str) -> bool:
    async with sessions() as session:
        try:
            await authenticate(session, f"Bearer {api_key}", models.utcnow())
        except ApiError:
            return False
    return True


async def _system_exists(sessions: SessionFactory, record: WorkspaceRecord) -> bool:
    async with sessions() as session:
        system = await session.get(models.AiSystem, record.aiSystemId)
    return system is not None and system.organization_id == record.organizationId


async def provision_workspace(
    sessions: SessionFactory, database_url: str, data_dir: Path, workspace: Path, *, log: TextIO = sys.stderr
) -> WorkspaceRecord:
    """The organization, AI System, verified source and key of ``workspace``: reused, or provisioned now."""
    await anyio.Path(data_dir).mkdir(mode=0o700, parents=True, exist_ok=True)
    path = data_dir / STATE_FILE
    shown = make_url(database_url).render_as_string(hide_password=True)
    with _state_lock(data_dir):
        state = _read_state(path)
        database = state["databases"].setdefault(database_key(database_url), {"workspaces": {}})
        stored = database["workspaces"].get(str(workspace))
        record = WorkspaceRecord(**stored) if stored else None
        if record is not None and await _system_exists(sessions, record):
            if await _key_works(sessions, record.apiKey):
                print(f"assay mcp: workspace {workspace} is AI System {record.aiSystemId} ({shown})", file=log)
                return record
            async with sessions() as session:
                key = await provisioning.create_api_key(session, record.organizationId, purpose="assurance-agent")
                await session.commit()
            record = WorkspaceRecord(**{**asdict(record), "keyId": key.record.id, "apiKey": key.api_key})
            print(
                f"assay mcp: the stored key of {workspace} no longer works; issued assurance-agent key "
                f"{key.record.id} (kept in {path})",
                file=log,
            )
        else:
            async with sessions() as session:
                org_id = database.get("organizationId")
                if org_id is None or await session.get(models.Organization, org_id) is None:
                    org_id = (await provisioning.create_organization(session, ORGANIZATION_NAME)).id
                system = await provisioning.create_ai_system(session, org_id, workspace.name or "workspace")
                source = await provisioning.add_source(session, org_id, system.id, str(workspace))
                await provisioning.verify_source(session, source.id)
                key = await provisioning.create_api_key(session, org_id, purpose="assurance-agent")
                await session.commit()
            database["organizationId"] = org_id
            record = WorkspaceRecord(org_id, system.id, source.id, key.record.id, key.api_key)
            print(
                f"assay mcp: first use of {workspace}: provisioned organization {org_id}, AI System {system.id} "
                f"'{system.name}' with the folder bound as verified local source {source.id}, and assurance-agent "
                f"key {key.record.id} (kept in {path}, owner-only) in {shown}",
                file=log,
            )
        database["workspaces"][str(workspace)] = asdict(record)
        _write_state(path, state)
        return record


class EmbeddedIntake:
    """Binders and an ingest key of the embedded service, made on first use: an ``evidence-intake`` key for
    the workspace's organization (once per process, never written anywhere) and one binder per AI System
    and adapter (an active one made earlier is reused), so an agent can attach local evidence files."""

    def __init__(self, app: Starlette, organization_id: str) -> None:
        self._app = app
        self._sessions: SessionFactory = app.state.services.session_factory
        self._organization_id = organization_id
        self._lock = anyio.Lock()
        self._client: AssayClient | None = None
        self._binders: dict[tuple[str, str], str] = {}

    async def __call__(self, ai_system_id: str, adapter_id: str) -> IntakeAccess:
        async with self._lock:
            if self._client is None:
                async with self._sessions() as session:
                    key = await provisioning.create_api_key(session, self._organization_id, purpose="evidence-intake")
                    await session.commit()
                self._client = AssayClient.embedded(self._app, key.api_key)
            binder_id = self._binders.get((ai_system_id, adapter_id))
            if binder_id is None:
                async with self._sessions() as session:
                    found = [
                        b
                        for b in await binders.list_binders(session, self._organization_id)
                        if b.active and b.adapter_id == adapter_id and b.ai_system_id == ai_system_id
                    ]
                    binder = found[0] if found else None
                    if binder is None:
                        binder = await binders.create_binder(
                            session,
                            self._organization_id,
                            source_system="assay-mcp",
                            adapter_id=adapter_id,
                            ai_system_id=ai_system_id,
                        )
                        await session.commit()
                binder_id = self._binders[(ai_system_id, adapter_id)] = binder.id
            return IntakeAccess(binder_id, self._client)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()


class EmbeddedTargets:
    """Runtime targets of the embedded service, made on first use for the workspace's organization: one per
    AI System and address (a live one made earlier is reused), verified and consented to the default
    suites, because the local developer asking for the probe is the operator who consents."""

    def __init__(self, app: Starlette, organization_id: str) -> None:
        self._sessions: SessionFactory = app.state.services.session_factory
        self._settings: ServiceSettings = app.state.services.settings
        self._organization_id = organization_id
        self._lock = anyio.Lock()

    async def __call__(self, ai_system_id: str, address: str) -> str:
        kind = "url" if address.startswith(("http://", "https://")) else "command"
        async with self._lock, self._sessions() as session:
            try:
                existing = [
                    t
                    for t in await targets.list_targets(session, self._organization_id, ai_system_id)
                    if t.address == address and t.status != "RETIRED"
                ]
                target = existing[0] if existing else None
                if target is None:
                    spec = (
                        targets.TargetSpec(mcp_url=address)
                        if kind == "url"
                        else targets.TargetSpec(mcp_command=address)
                    )
                    target = await targets.add_target(
                        session,
                        self._organization_id,
                        ai_system_id,
                        spec,
                        key_dir=self._settings.key_directory(),
                        allowed_networks=self._settings.runtime_allowed_networks,
                    )
                missing = [s for s in targets.SUITES if s not in target.consented_suites]
                if missing:
                    await targets.consent_target(session, target.id, [*target.consented_suites, *missing])
                if target.status != "VERIFIED":
                    await targets.verify_target(session, target.id)
                await session.commit()
            except provisioning.ProvisioningError as exc:
                raise AssayError("INVALID_REQUEST", exc.message) from exc
            return target.id


@asynccontextmanager
async def open_embedded(
    settings: ServiceSettings,
    workspace: Path,
    *,
    caller_keys: bool = False,
    confine_paths: bool = False,
    log: TextIO = sys.stderr,
) -> AsyncIterator[EmbeddedService]:
    """Start the service in-process on ``settings`` and bind ``workspace`` to it (provisioned on first use)."""
    if settings.data_dir is None:
        raise ValueError("the embedded service needs a data directory")
    workspace = Path(await anyio.Path(workspace).resolve())
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        sessions: SessionFactory = app.state.services.session_factory
        record = await provision_workspace(sessions, settings.database_url, settings.data_dir, workspace, log=log)
        client = AssayClient.embedded(app, record.apiKey)
        # With caller keys each call acts for its caller's organization: binders are then looked up with
        # the caller's key, never made for the workspace's organization.
        intake = None if caller_keys else EmbeddedIntake(app, record.organizationId)
        provider: IntakeProvider | None = intake
        runtime_targets: TargetProvider | None = None if caller_keys else EmbeddedTargets(app, record.organizationId)
        try:
            bound = AssayBinding(
                client=client,
                workspace=workspace,
                ai_system_id=record.aiSystemId,
                caller_keys=caller_keys,
                confine_paths=confine_paths,
                scan_cache=MemoryCache(),
                intake=provider,
                targets=runtime_targets,
            )
            yield EmbeddedService(app=app, binding=bound, record=record)
        finally:
            await client.aclose()
            if intake is not None:
                await intake.aclose()


@asynccontextmanager
async def open_remote(
    base_url: str,
    api_key: str,
    *,
    workspace: Path | None = None,
    ai_system_id: str | None = None,
    caller_keys: bool = False,
    confine_paths: bool = False,
    transport: httpx.AsyncBaseTransport | None = None,
    retry: RetryPolicy | None = None,
    sleep: Sleep | None = None,
) -> AsyncIterator[AssayBinding]:
    """A binding to a running service (``assay serve`` or any service speaking the contract)."""
    options: dict[str, Any] = {"transport": transport, "retry": retry}
    if sleep is not None:
        options["sleep"] = sleep
    client = AssayClient(base_url, api_key, **options)
    root = Path(await anyio.Path(workspace).resolve()) if workspace is not None else None
    # Nobody named the workspace's system: find it when a call needs it (over HTTP each caller has its own
    # key and organization, so there is no one workspace system to find).
    finder = workspace_system_finder(root) if root is not None and ai_system_id is None and not caller_keys else None
    try:
        yield AssayBinding(
            client=client,
            workspace=root,
            ai_system_id=ai_system_id,
            caller_keys=caller_keys,
            confine_paths=confine_paths,
            scan_cache=MemoryCache(),
            find_system=finder,
        )
    finally:
        await client.aclose()

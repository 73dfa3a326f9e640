"""Connections of the MCP server to the assurance service: embedded (in-process) or remote.

Embedded: the whole service runs in this process on SQLite in the data directory. On first use for a
workspace it provisions a local organization, an AI System named after the folder (the folder bound as
a verified local source) and an ``assurance-agent`` key, and says so on stderr. What belongs to which
workspace is kept in ``<data dir>/workspaces.json`` (mode 0600; it holds the local key, which is never
logged). Tool calls reach the service through httpx over an in-process ASGI transport, so embedded and
remote speak the same contract through one client.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx

from assay.backend import provisioning
from assay.backend.app import create_app
from assay.backend.db import sqlite_url_for
from assay.backend.settings import ServiceSettings
from assay.tools.client import AssayClient
from assay.tools.context import AssayContext

STATE_FILE = "workspaces.json"


def _load_state(data_dir: Path) -> dict[str, Any]:
    path = data_dir / STATE_FILE
    try:
        value: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return value
    except (OSError, ValueError):
        return {}


def _save_state(data_dir: Path, state: dict[str, Any]) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    tmp = data_dir / f".{STATE_FILE}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(state, fh, indent=2, sort_keys=True)
    tmp.replace(data_dir / STATE_FILE)


async def _provision(settings: ServiceSettings, app: Any, workspace: Path, data_dir: Path) -> dict[str, str]:
    state = _load_state(data_dir)
    entry: dict[str, str] | None = state.get("workspaces", {}).get(str(workspace))
    sessions = app.state.services.session_factory
    if entry is not None:
        async with sessions() as session:
            from assay.backend.models import AiSystem

            if await session.get(AiSystem, entry["aiSystemId"]) is not None:
                return entry
    async with sessions() as session:
        org_id = state.get("organizationId")
        if org_id is None:
            org_id = (await provisioning.create_organization(session, "Local")).id
        system = await provisioning.create_ai_system(session, org_id, workspace.name or "workspace")
        source = await provisioning.add_source(session, org_id, system.id, str(workspace))
        await provisioning.verify_source(session, source.id)
        key = await provisioning.create_api_key(session, org_id, purpose="assurance-agent")
        await session.commit()
    entry = {"aiSystemId": system.id, "sourceAssetId": source.id, "apiKey": key.api_key}
    state["organizationId"] = org_id
    state.setdefault("workspaces", {})[str(workspace)] = entry
    _save_state(data_dir, state)
    print(
        f"assay: provisioned a local organization, AI System {system.id} for {workspace} (bound as a verified "
        f"local source) and an assurance-agent key, kept in {data_dir / STATE_FILE}",
        file=sys.stderr,
    )
    return entry


@asynccontextmanager
async def embedded_context(
    workspace: Path, data_dir: Path, database_url: str | None = None
) -> AsyncIterator[AssayContext]:
    settings = ServiceSettings(database_url=database_url or sqlite_url_for(data_dir / "assay.db"), data_dir=data_dir)
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        entry = await _provision(settings, app, workspace, data_dir)
        client = AssayClient("http://assay.embedded", entry["apiKey"], transport=httpx.ASGITransport(app=app))
        try:
            yield AssayContext(client=client, workspace=workspace, ai_system_id=entry["aiSystemId"])
        finally:
            await client.aclose()


@asynccontextmanager
async def remote_context(
    base_url: str,
    api_key: str,
    workspace: Path | None,
    ai_system_id: str | None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> AsyncIterator[AssayContext]:
    client = AssayClient(base_url, api_key, transport=transport)
    try:
        yield AssayContext(client=client, workspace=workspace, ai_system_id=ai_system_id)
    finally:
        await client.aclose()

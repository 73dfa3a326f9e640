"""Which AI System a workspace belongs to, on a remote service, when nobody said.

Discovery only (contract 4.3): the caller's AI Systems and the source repositories bound to each. A system
whose bound source is this workspace (its git remote, or its absolute path for a service on the same
machine) is the workspace's system. One match is used; none or several is an error that says what to pass.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import anyio

from assay.tools.client import AssayClient, AssayError

_SCP = re.compile(r"^(?:[^@/]+@)?([^:/]+):(.+)$")


def repository_key(reference: str) -> str:
    """A git remote reduced to host and path, so ``git@host:o/r.git`` and ``https://host/o/r`` are one."""
    text = reference.strip()
    parts = urlsplit(text)
    if parts.scheme and parts.netloc:
        host, path = parts.hostname or "", parts.path
    else:
        match = _SCP.match(text)
        if match is None:
            return text.rstrip("/")
        host, path = match.group(1), match.group(2)
    path = path.strip("/").removesuffix(".git")
    return f"{host.lower()}/{path.lower()}"


def _matches(source: Mapping[str, Any], remote: str | None, workspace: Path) -> bool:
    if source.get("status") == "RETIRED":
        return False
    repo = str(source.get("repo") or "")
    if source.get("repoKind") == "git":
        return remote is not None and repository_key(repo) == repository_key(remote)
    return repo == str(workspace)


def bundle_remote(bundle: Mapping[str, Any]) -> str | None:
    """The git remote an Evidence Bundle records for its workspace, if any."""
    identity = bundle.get("sourceIdentity") or {}
    remote = identity.get("gitRemote")
    return remote if isinstance(remote, str) and remote else None


async def resolve_system(api: AssayClient, workspace: Path, remote: str | None) -> str:
    """The aiSystemId of the caller's system bound to ``workspace`` (or its git ``remote``); AssayError when
    there is not exactly one."""
    systems = (await api.get_json("/api/v1/systems")).get("systems") or []
    found: list[str] = []
    for system in systems:
        system_id = str(system["aiSystemId"])
        listed = await api.get_json(f"/api/v1/systems/{quote(system_id, safe='')}/evaluation-sources")
        if any(_matches(source, remote, workspace) for source in listed.get("sources") or []):
            found.append(system_id)
    where = f"its git remote {remote}" if remote else f"the folder {workspace}"
    if len(found) == 1:
        return found[0]
    if not found:
        raise AssayError(
            "AI_SYSTEM_NOT_FOUND",
            f"no AI System of this key's organization has {where} bound as a source",
            next_step="pass the system id (--system-id or ASSAY_SYSTEM_ID), or have an operator bind the "
            "repository: assay admin source add --system SYS --repo URL.",
        )
    raise AssayError(
        "SOURCE_AMBIGUOUS",
        f"{len(found)} AI Systems have {where} bound: {', '.join(found)}",
        next_step="pass one of them (--system-id or ASSAY_SYSTEM_ID).",
    )


def workspace_system_finder(workspace: Path) -> Callable[[AssayClient], Awaitable[str]]:
    """Finds the AI System bound to ``workspace`` (through discovery) on first need and keeps the answer;
    a failure (the service down, no bound system) is raised to that call and tried again on the next."""
    found: list[str] = []

    async def find(api: AssayClient) -> str:
        if not found:
            # Imported here: the engine's git reader is not needed until a call needs the system.
            from assay.backend.engines.static.identity import git_identity

            remote = (await anyio.to_thread.run_sync(git_identity, workspace)).remote
            found.append(await resolve_system(api, workspace, remote))
        return found[0]

    return find

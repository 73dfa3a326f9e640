"""Helpers of the runtime tests: binding targets, creating runtime runs, reading their Evaluations."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from runs_helpers import RUNS, create, wait
from service_helpers import World, bearer
from starlette.applications import Starlette

from assay.backend.runtime import targets

EVALUATIONS = "/api/v1/assurance/evaluations"
ROOT = Path(__file__).resolve().parents[2]
# The real peers, installed by `make peers`: the MCP reference servers (npm) and mcp-server-everything-wrong
# (PyPI, in its own virtual environment: it needs the 1.x SDK).
NODE_BIN = ROOT / "tests" / "runtime" / "peers" / "node_modules" / ".bin"
EVERYTHING_WRONG = ROOT / ".peers-venv" / "bin" / "mcp-server-everything-wrong"


def peer(path: Path) -> str:
    """The absolute path of an installed peer, or skip (install them with `make peers`)."""
    if not path.exists():
        pytest.skip(f"{path.name} is not installed (make peers)")
    return str(path)


async def add_target(
    app: Starlette,
    world: World,
    *,
    command: str | None = None,
    url: str | None = None,
    headers: tuple[str, ...] = (),
    suites: tuple[str, ...] = targets.SUITES,
    verify: bool = True,
    system: str | None = None,
) -> str:
    """Bind a target to system A (verified and consented unless told otherwise); its id."""
    settings = app.state.services.settings
    async with world.sessions() as session:
        target = await targets.add_target(
            session,
            world.org_a,
            system or world.system_a,
            targets.TargetSpec(mcp_command=command, mcp_url=url, headers=headers),
            key_dir=settings.key_directory(),
            allowed_networks=settings.runtime_allowed_networks,
        )
        if suites:
            await targets.consent_target(session, target.id, list(suites))
        if verify:
            await targets.verify_target(session, target.id)
        await session.commit()
    return target.id


def runtime_body(world: World, target_id: str, **config: Any) -> dict[str, Any]:
    return {"aiSystemId": world.system_a, "engines": {"runtime": {"enabled": True, "targetId": target_id, **config}}}


async def run_to_end(
    client: httpx.AsyncClient, world: World, body: dict[str, Any], seconds: float = 120
) -> dict[str, Any]:
    created = await create(client, world.agent_key_a, body)
    assert created.status_code == 202, created.text
    return await wait(client, world.agent_key_a, created.json()["runId"], seconds=seconds)


async def evaluation(client: httpx.AsyncClient, world: World, envelope: dict[str, Any]) -> dict[str, Any]:
    """The Evaluation payload behind a completed run (the full Master Report's source)."""
    assert envelope["status"] == "COMPLETED", envelope
    evaluation_id = envelope["evaluation"]["evaluationId"]
    response = await client.get(f"{EVALUATIONS}/{evaluation_id}/agent-audit", headers=bearer(world.agent_key_a))
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


__all__ = ["RUNS", "add_target", "evaluation", "peer", "run_to_end", "runtime_body"]

"""Helpers of the run tests: binding example sources, creating runs, polling them with a deadline."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import anyio
import httpx
from service_helpers import World, bearer

from assay.backend import provisioning
from assay.backend.storage.db import SessionFactory

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
RUNS = "/api/v1/assurance/runs"
EVALUATIONS = "/api/v1/assurance/evaluations"
STATIC = {"engines": {"static": {"enabled": True}}}


def copy_example(name: str, into: Path) -> Path:
    """A private copy of ``examples/<name>`` (tests may remove or change it)."""
    target = into / name
    shutil.copytree(EXAMPLES / name, target)
    return target


async def bind(
    sessions: SessionFactory,
    org: str,
    system: str,
    repo: Path | str,
    *,
    verify: bool = True,
    branch: str | None = None,
) -> str:
    """Bind ``repo`` to ``system`` as a SOURCE_REPOSITORY (verified unless told otherwise); its id."""
    async with sessions() as session:
        source = await provisioning.add_source(session, org, system, str(repo), branch=branch)
        if verify:
            await provisioning.verify_source(session, source.id)
        await session.commit()
    return source.id


async def create(client: httpx.AsyncClient, key: str, body: dict[str, Any], **headers: str) -> httpx.Response:
    return await client.post(RUNS, json=body, headers={**bearer(key), **headers})


async def wait(client: httpx.AsyncClient, key: str, run_id: str, *, seconds: float = 60) -> dict[str, Any]:
    """Poll the run until it is COMPLETED or FAILED, within ``seconds``."""
    with anyio.fail_after(seconds):
        while True:
            response = await client.get(f"{RUNS}/{run_id}", headers=bearer(key))
            assert response.status_code == 200, response.text
            body: dict[str, Any] = response.json()
            if body["status"] in ("COMPLETED", "FAILED"):
                return body
            await anyio.sleep(0.01)


async def completed_run(client: httpx.AsyncClient, world: World, tmp_path: Path, example: str) -> dict[str, Any]:
    """Bind a copy of ``example`` to system A, run it, and return the completed envelope."""
    await bind(world.sessions, world.org_a, world.system_a, copy_example(example, tmp_path))
    created = await create(client, world.agent_key_a, {"aiSystemId": world.system_a, **STATIC})
    assert created.status_code == 202, created.text
    done = await wait(client, world.agent_key_a, created.json()["runId"])
    assert done["status"] == "COMPLETED", done
    return done


async def provision_world(sessions: SessionFactory) -> World:
    """Organizations A and B, AI Systems (two in A, one in B) and an assurance-agent key for each."""
    world = World(sessions=sessions)
    async with sessions() as session:
        org_a = await provisioning.create_organization(session, "Acme")
        org_b = await provisioning.create_organization(session, "Globex")
        world.org_a, world.org_b = org_a.id, org_b.id
        world.system_a = (await provisioning.create_ai_system(session, org_a.id, "Ops agent")).id
        world.system_a2 = (await provisioning.create_ai_system(session, org_a.id, "Support agent")).id
        world.system_b = (await provisioning.create_ai_system(session, org_b.id, "Globex agent")).id
        a = await provisioning.create_api_key(session, org_a.id, purpose="assurance-agent")
        b = await provisioning.create_api_key(session, org_b.id, purpose="assurance-agent")
        await session.commit()
    world.agent_key_a, world.agent_key_b = a.api_key, b.api_key
    world.key_ids[a.api_key], world.key_ids[b.api_key] = a.record.id, b.record.id
    return world

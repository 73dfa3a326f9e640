"""Another organization's resource is a 404 identical to a missing one: status, body and headers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from service_bundles import make_submission
from service_helpers import World, bearer

from assay.backend import provisioning


def _fingerprint(response: httpx.Response) -> tuple[int, bytes, list[tuple[str, str]]]:
    return response.status_code, response.content, sorted(response.headers.multi_items())


async def _pair(client: httpx.AsyncClient, key: str, method: str, foreign: str, missing: str, body: Any = None) -> None:
    a = await client.request(method, foreign, json=body(foreign) if callable(body) else body, headers=bearer(key))
    b = await client.request(method, missing, json=body(missing) if callable(body) else body, headers=bearer(key))
    assert a.status_code == 404
    assert _fingerprint(a) == _fingerprint(b)


async def test_foreign_system_sources_look_missing(client: httpx.AsyncClient, world: World) -> None:
    await _pair(
        client,
        world.agent_key_a,
        "GET",
        f"/api/v1/systems/{world.system_b}/evaluation-sources",
        "/api/v1/systems/sys_00000000000000000000/evaluation-sources",
    )


async def test_foreign_scan_looks_missing(client: httpx.AsyncClient, world: World) -> None:
    created = await client.post(
        "/api/v1/scans", json=make_submission(world.system_b), headers=bearer(world.agent_key_b)
    )
    assert created.status_code == 201
    foreign = created.json()["scanId"]
    assert (await client.get(f"/api/v1/scans/{foreign}", headers=bearer(world.agent_key_b))).status_code == 200
    await _pair(client, world.agent_key_a, "GET", f"/api/v1/scans/{foreign}", "/api/v1/scans/scan_00000000000000000000")


async def test_submitting_for_a_foreign_system_looks_like_a_missing_one(
    client: httpx.AsyncClient, world: World
) -> None:
    a = await client.post("/api/v1/scans", json=make_submission(world.system_b), headers=bearer(world.agent_key_a))
    b = await client.post(
        "/api/v1/scans", json=make_submission("sys_00000000000000000000"), headers=bearer(world.agent_key_a)
    )
    assert a.status_code == 404 and _fingerprint(a) == _fingerprint(b)


async def test_foreign_verified_source_looks_unbound_to_the_legacy_trigger(
    client: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    (tmp_path / "theirs").mkdir()
    async with world.sessions() as session:
        source = await provisioning.add_source(session, world.org_b, world.system_b, str(tmp_path / "theirs"))
        await provisioning.verify_source(session, source.id)
        await session.commit()

    def body(repo: str) -> dict[str, Any]:
        return {"repoUrl": repo, "branch": "main", "framework": "auto", "commitSha": "abcdef1"}

    a = await client.post("/api/ci/scan", json=body(str(tmp_path / "theirs")), headers=bearer(world.agent_key_a))
    b = await client.post("/api/ci/scan", json=body(str(tmp_path / "nobody")), headers=bearer(world.agent_key_a))
    assert a.status_code == 404 and _fingerprint(a) == _fingerprint(b)

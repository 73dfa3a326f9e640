"""POST /assurance/runs refuses every request the contract (2.1) or this deployment cannot honour, with
the contract's codes; nothing is skipped silently and no run is created by a refused request."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest
from runs_helpers import RUNS, STATIC, bind, copy_example, create
from service_bundles import make_submission
from service_helpers import World, assert_error, bearer, make_git_tree

from assay.backend import provisioning


@pytest.mark.parametrize(
    ("body", "status", "code", "fragment"),
    [
        ({"engines": {"static": {"enabled": True}}}, 400, "INVALID_REQUEST", "aiSystemId"),
        ({"aiSystemId": "{a}"}, 400, "INVALID_REQUEST", "engines"),
        ({"aiSystemId": "sys_missing", **STATIC}, 404, "AI_SYSTEM_NOT_FOUND", ""),
        ({"aiSystemId": "{a}", **STATIC, "surprise": 1}, 400, "INVALID_REQUEST", "surprise"),
        ({"aiSystemId": "{a}", "engines": {"static": {"enabled": True, "depth": 3}}}, 400, "INVALID_REQUEST", "depth"),
        ({"aiSystemId": "{a}", "engines": {"static": {"enabled": "yes"}}}, 400, "INVALID_REQUEST", "enabled"),
        ({"aiSystemId": "{a}", "engines": {"static": {"executionMode": "cron"}}}, 400, "INVALID_REQUEST", ""),
        ({"aiSystemId": "{a}", **STATIC, "jurisdiction": "mars"}, 400, "INVALID_REQUEST", "jurisdiction"),
        (
            {"aiSystemId": "{a}", "engines": {"runtime": {"enabled": True}, "static": {"enabled": True}}},
            400,
            "SOURCE_NOT_VERIFIED",
            "no runtime target",
        ),
        (
            {"aiSystemId": "{a}", "engines": {"runtime": {"suites": ["catalogue"], "maxRequests": 0}}},
            400,
            "INVALID_REQUEST",
            "maxRequests",
        ),
        (
            {"aiSystemId": "{a}", "engines": {"wizard": {"enabled": True, "framework": "eu_ai_act"}}},
            400,
            "INVALID_REQUEST",
            "engines.wizard needs assessmentId",
        ),
        ({"aiSystemId": "{a}", "engines": {}}, 400, "INVALID_REQUEST", "No engine is enabled"),
        ({"aiSystemId": "{a}", "engines": {"static": {"enabled": False}}}, 400, "INVALID_REQUEST", "No engine"),
        (
            {"aiSystemId": "{a}", "engines": {"runtime": {"enabled": False}, "wizard": {"enabled": False}}},
            400,
            "INVALID_REQUEST",
            "No engine is enabled",
        ),
        (
            {"aiSystemId": "{a}", "engines": {"static": {"executionMode": "ui"}}},
            400,
            "INVALID_REQUEST",
            "started from the dashboard",
        ),
        (
            {"aiSystemId": "{a}", "engines": {"static": {"executionMode": "ci-triggered"}}},
            400,
            "INVALID_REQUEST",
            "not available",
        ),
        (
            {"aiSystemId": "{a}", "engines": {"static": {"executionMode": "ci-attached"}}},
            400,
            "INVALID_REQUEST",
            "attachedScanId",
        ),
        ({"aiSystemId": "{a}", "engines": {"static": {"executionMode": "reused"}}}, 400, "INVALID_REQUEST", "attached"),
        (
            {"aiSystemId": "{a}", "engines": {"static": {"executionMode": "api", "attachedScanId": "qscan_x"}}},
            400,
            "INVALID_REQUEST",
            "fresh scan",
        ),
        (
            {"aiSystemId": "{a}", "engines": {"static": {"attachedScanId": "qscan_missing"}}},
            404,
            "RESOURCE_NOT_FOUND",
            "",
        ),
        (
            {
                "aiSystemId": "{a}",
                **STATIC,
                "externalEvidenceAttachments": [{"producerId": "structured-ingress", "producerRunId": "p1"}],
            },
            404,
            "RESOURCE_NOT_FOUND",
            "attached evidence",
        ),
        (
            {
                "aiSystemId": "{a}",
                **STATIC,
                "externalEvidenceAttachments": [{"producerId": "sarif-import", "producerRunId": "p1"}],
            },
            404,
            "RESOURCE_NOT_FOUND",
            "attached evidence",
        ),
        (
            {
                "aiSystemId": "{a}",
                **STATIC,
                "externalEvidenceAttachments": [{"producerId": "ci-cd-scanner", "producerRunId": "p1"}],
            },
            404,
            "RESOURCE_NOT_FOUND",
            "attached evidence",
        ),
        (
            {
                "aiSystemId": "{a}",
                **STATIC,
                "externalEvidenceAttachments": [{"producerId": "otel", "producerRunId": "p1"}],
            },
            400,
            "INVALID_REQUEST",
            "",
        ),
        (
            {"aiSystemId": "{a}", **STATIC, "externalEvidenceAttachments": [{"producerId": "sarif-import"}]},
            400,
            "INVALID_REQUEST",
            "producerRunId",
        ),
        ({"aiSystemId": "{a}", **STATIC}, 400, "SOURCE_NOT_VERIFIED", "no bound source"),
        (
            {"aiSystemId": "{a}", "engines": {"static": {"repositoryUrl": "https://evil.example.com/x.git"}}},
            400,
            "INVALID_REQUEST",
            "arbitrary URLs are rejected",
        ),
    ],
)
async def test_validation_errors(
    client: httpx.AsyncClient, world: World, body: dict[str, Any], status: int, code: str, fragment: str
) -> None:
    payload = json.loads(json.dumps(body).replace("{a}", world.system_a))
    error = assert_error(await create(client, world.agent_key_a, payload), status, code)
    assert fragment in error["message"]
    assert (await client.get(RUNS, headers=bearer(world.agent_key_a))).json()["total"] == 0


async def test_body_must_be_a_json_object(client: httpx.AsyncClient, world: World) -> None:
    headers = {**bearer(world.agent_key_a), "Content-Type": "application/json"}
    for raw in (b"[]", b"{", b"null"):
        assert_error(await client.post(RUNS, content=raw, headers=headers), 400, "INVALID_REQUEST")


async def test_source_resolution_errors(client: httpx.AsyncClient, world: World, tmp_path: Path) -> None:
    key, system = world.agent_key_a, world.system_a
    repo = copy_example("research-assistant", tmp_path)
    pending = await bind(world.sessions, world.org_a, system, repo, verify=False)
    by_id = {"aiSystemId": system, "engines": {"static": {"sourceAssetId": pending}}}
    assert_error(await create(client, key, by_id), 400, "SOURCE_NOT_VERIFIED")
    assert_error(await create(client, key, {"aiSystemId": system, **STATIC}), 400, "SOURCE_NOT_VERIFIED")
    async with world.sessions() as session:
        await provisioning.set_source_status(session, pending, "CONFLICTED")
        await session.commit()
    assert_error(await create(client, key, by_id), 409, "SOURCE_CONFLICTED")
    async with world.sessions() as session:
        await provisioning.retire_source(session, pending)
        await session.commit()
    assert_error(await create(client, key, by_id), 409, "SOURCE_UNAVAILABLE")
    by_url = {"aiSystemId": system, "engines": {"static": {"repositoryUrl": str(repo)}}}
    assert_error(await create(client, key, by_url), 409, "SOURCE_UNAVAILABLE")  # only a retired one matches

    # Two verified sources: naming neither is ambiguous; naming one by URL works.
    first = copy_example("ops-agent", tmp_path)
    second = copy_example("support-agent-ts", tmp_path)
    await bind(world.sessions, world.org_a, system, first)
    await bind(world.sessions, world.org_a, system, second)
    assert_error(await create(client, key, {"aiSystemId": system, **STATIC}), 400, "SOURCE_AMBIGUOUS")
    named = {"aiSystemId": system, "engines": {"static": {"repositoryUrl": str(second)}}}
    assert (await create(client, key, named)).status_code == 202
    # A relative path means nothing on the server: never resolved against its working directory.
    relative = {"aiSystemId": system, "engines": {"static": {"repositoryUrl": "support-agent-ts"}}}
    assert_error(await create(client, key, relative), 400, "INVALID_REQUEST")
    # A bound path that has gone away.
    shutil.rmtree(first)
    gone = {"aiSystemId": system, "engines": {"static": {"repositoryUrl": str(first)}}}
    assert_error(await create(client, key, gone), 409, "SOURCE_UNAVAILABLE")


async def test_branch_errors(client: httpx.AsyncClient, world: World, tmp_path: Path) -> None:
    key, system = world.agent_key_a, world.system_a2
    tree = tmp_path / "git-tree"
    make_git_tree(tree, branch="main")
    on_main = await bind(world.sessions, world.org_a, system, tree, branch="main")
    ok = {"aiSystemId": system, "engines": {"static": {"sourceAssetId": on_main, "branch": "main"}}}
    assert (await create(client, key, ok)).status_code == 202
    other_branch = {"aiSystemId": system, "engines": {"static": {"sourceAssetId": on_main, "branch": "dev"}}}
    assert_error(await create(client, key, other_branch), 409, "SOURCE_CONFLICTED")
    # Bound to a branch that is not checked out: the branch the binding needs is missing.
    not_git = copy_example("research-assistant", tmp_path)
    wrong = await bind(world.sessions, world.org_a, system, not_git, branch="release")
    body = {"aiSystemId": system, "engines": {"static": {"sourceAssetId": wrong}}}
    assert_error(await create(client, key, body), 400, "BRANCH_REQUIRED")
    # A git remote bound without a branch is fetched at a branch the run names (tests/sources), or not at all.
    remote = await bind(world.sessions, world.org_a, system, "https://git.example.com/acme/agent.git", verify=False)
    async with world.sessions() as session:
        await provisioning.set_source_status(session, remote, "VERIFIED")
        await session.commit()
    body = {"aiSystemId": system, "engines": {"static": {"sourceAssetId": remote}}}
    error = assert_error(await create(client, key, body), 400, "BRANCH_REQUIRED")
    assert "engines.static.branch" in error["message"]
    short = {"aiSystemId": system, "engines": {"static": {"sourceAssetId": remote, "commitSha": "abc1234"}}}
    assert_error(await create(client, key, short), 400, "INVALID_REQUEST")


async def test_sources_and_scans_of_other_systems_and_organizations(
    client: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    key = world.agent_key_a
    theirs = await bind(world.sessions, world.org_b, world.system_b, copy_example("ops-agent", tmp_path))
    sibling = await bind(world.sessions, world.org_a, world.system_a2, copy_example("research-assistant", tmp_path))
    missing = {"aiSystemId": world.system_a, "engines": {"static": {"sourceAssetId": "src_00000000000000000000"}}}
    expected = await create(client, key, missing)
    assert_error(expected, 404, "RESOURCE_NOT_FOUND")
    for source in (theirs, sibling):
        got = await create(
            client, key, {"aiSystemId": world.system_a, "engines": {"static": {"sourceAssetId": source}}}
        )
        assert got.status_code == 404 and got.content == expected.content

    # Another organization's AI System is indistinguishable from a missing one.
    foreign = await create(client, key, {"aiSystemId": world.system_b, **STATIC})
    absent = await create(client, key, {"aiSystemId": "sys_00000000000000000000", **STATIC})
    assert_error(foreign, 404, "AI_SYSTEM_NOT_FOUND")
    assert foreign.content == absent.content

    # Attached scans: another system's is 400, another organization's is the same 404 as a missing one.
    scan_b = await client.post("/api/v1/scans", json=make_submission(world.system_b), headers=bearer(world.agent_key_b))
    scan_a2 = await client.post("/api/v1/scans", json=make_submission(world.system_a2), headers=bearer(key))
    assert scan_b.status_code == scan_a2.status_code == 201
    attach = {"aiSystemId": world.system_a, "engines": {"static": {"attachedScanId": scan_a2.json()["scanId"]}}}
    assert_error(await create(client, key, attach), 400, "INVALID_REQUEST")
    foreign_scan = await create(
        client, key, {"aiSystemId": world.system_a, "engines": {"static": {"attachedScanId": scan_b.json()["scanId"]}}}
    )
    missing_scan = await create(
        client,
        key,
        {"aiSystemId": world.system_a, "engines": {"static": {"attachedScanId": "qscan_00000000000000000000"}}},
    )
    assert_error(foreign_scan, 404, "RESOURCE_NOT_FOUND")
    assert foreign_scan.content == missing_scan.content
    mixed = {
        "aiSystemId": world.system_a2,
        "engines": {"static": {"attachedScanId": scan_a2.json()["scanId"], "sourceAssetId": sibling}},
    }
    assert_error(await create(client, key, mixed), 400, "INVALID_REQUEST")

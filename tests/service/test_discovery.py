"""Discovery: AI Systems, the evaluation-sources eligibility preflight, evidence binders."""

from __future__ import annotations

import shutil
from pathlib import Path

import httpx
from service_helpers import World, assert_error, bearer, make_git_tree

from assay.backend import provisioning
from assay.backend.storage import models


async def test_systems_lists_the_callers_systems_in_creation_order(client: httpx.AsyncClient, world: World) -> None:
    response = await client.get("/api/v1/systems", headers=bearer(world.agent_key_a))
    assert response.status_code == 200
    systems = response.json()["systems"]
    assert [s["aiSystemId"] for s in systems] == [world.system_a, world.system_a2]
    first = systems[0]
    assert set(first) == {"aiSystemId", "name", "systemType", "criticality", "lifecycleStatus", "createdAt"}
    assert first["name"] == "Ops agent" and first["criticality"] == "high" and first["systemType"] is None
    assert first["createdAt"].endswith("Z")
    other = await client.get("/api/v1/systems", headers=bearer(world.agent_key_b))
    assert [s["aiSystemId"] for s in other.json()["systems"]] == [world.system_b]


async def _add(world: World, repo: str, *, branch: str | None = None, status: str | None = None) -> str:
    async with world.sessions() as session:
        source = await provisioning.add_source(session, world.org_a, world.system_a, repo, branch=branch)
        if status is not None:
            await provisioning.set_source_status(session, source.id, status)  # type: ignore[arg-type]
        await session.commit()
    return source.id


async def test_evaluation_sources_explain_eligibility(client: httpx.AsyncClient, world: World, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    gone = tmp_path / "gone"
    gone.mkdir()
    on_main = tmp_path / "on-main"
    make_git_tree(on_main, "main")
    on_dev = tmp_path / "on-dev"
    make_git_tree(on_dev, "dev")
    ids = {
        "eligible": await _add(world, str(plain), status="VERIFIED"),
        "pending": await _add(world, str(plain), branch="x"),
        "gone": await _add(world, str(gone), status="VERIFIED"),
        "conflicted": await _add(world, str(on_main), branch="other", status="CONFLICTED"),
        "retired": await _add(world, str(on_dev), status="RETIRED"),
        "git": await _add(world, "https://example.com/acme/agent.git", status="VERIFIED"),
        "git_branch": await _add(world, "git@example.com:acme/agent.git", branch="main", status="VERIFIED"),
        "git_unfetchable": await _add(world, "git://example.com/acme/agent.git", branch="main", status="VERIFIED"),
        "on_branch": await _add(world, str(on_main), branch="main", status="VERIFIED"),
        "off_branch": await _add(world, str(on_dev), branch="main", status="VERIFIED"),
        "unavailable": await _add(world, str(on_main), branch="release", status="UNAVAILABLE"),
    }
    shutil.rmtree(gone)
    response = await client.get(
        f"/api/v1/systems/{world.system_a}/evaluation-sources", headers=bearer(world.agent_key_a)
    )
    assert response.status_code == 200
    body = response.json()
    assert body["aiSystemId"] == world.system_a
    by_id = {s["sourceAssetId"]: s for s in body["sources"]}
    assert set(by_id) == set(ids.values())

    def reasons(name: str) -> list[str]:
        return [r["code"] for r in by_id[ids[name]]["reasons"]]

    assert by_id[ids["eligible"]]["eligibleForFreshScan"] is True and reasons("eligible") == []
    assert by_id[ids["on_branch"]]["eligibleForFreshScan"] is True
    assert reasons("pending") == ["unverified", "branch_missing"]
    assert reasons("gone") == ["unavailable"]
    assert reasons("conflicted") == ["conflicted", "branch_missing"]
    assert reasons("retired") == ["retired"]
    # A git remote is fetched for a fresh scan: at its bound branch, or one the run names.
    assert reasons("git") == ["branch_missing"]
    assert reasons("git_branch") == []
    assert reasons("git_unfetchable") == ["unavailable"]
    assert reasons("off_branch") == ["branch_missing"]
    assert reasons("unavailable") == ["unavailable", "branch_missing"]
    for source in body["sources"]:
        assert source["eligibleForFreshScan"] is (source["reasons"] == [])
        assert source["kind"] == "SOURCE_REPOSITORY"
    assert by_id[ids["git"]]["repoKind"] == "git" and by_id[ids["git"]]["repo"] == "https://example.com/acme/agent.git"
    assert by_id[ids["eligible"]]["repoKind"] == "local" and by_id[ids["eligible"]]["repo"] == str(plain.resolve())
    assert by_id[ids["pending"]]["status"] == "PENDING" and by_id[ids["retired"]]["status"] == "RETIRED"


async def test_evaluation_sources_of_a_missing_system_is_404(client: httpx.AsyncClient, world: World) -> None:
    response = await client.get("/api/v1/systems/sys_missing/evaluation-sources", headers=bearer(world.agent_key_a))
    assert_error(response, 404, "AI_SYSTEM_NOT_FOUND")


async def test_binders_list_is_the_full_shape_and_organization_bound(client: httpx.AsyncClient, world: World) -> None:
    empty = await client.get("/api/v1/evidence/binders", headers=bearer(world.agent_key_a))
    assert empty.status_code == 200
    assert empty.json() == {
        "binders": [],
        "intake": {
            "authentication": "bearer",
            "requiredScope": "evidence:ingest",
            "routes": {
                "structured": "/api/ingest/structured",
                "logs": "/api/ingest/log",
                "otlpTraces": "/api/otlp/v1/traces",
                "otlpMetrics": "/api/otlp/v1/metrics",
                "otlpLogs": "/api/otlp/v1/logs",
            },
        },
    }
    async with world.sessions() as session:
        for org, name in ((world.org_a, "a"), (world.org_b, "b")):
            session.add(
                models.EvidenceBinder(
                    id=f"bnd_{name}",
                    organization_id=org,
                    ai_system_id=world.system_a if org == world.org_a else world.system_b,
                    source_system="github-actions",
                    adapter_id="otlp-genai",
                    adapter_version="1.0.0",
                    binder_version="1",
                    access_method="push",
                    supported_evidence_classes=["runtime.trace"],
                    can_establish=["OBSERVED"],
                    cannot_establish=["POLICY_AUTHORIZED"],
                    limitations=[{"code": "sampled", "detail": "1 in 10 traces"}],
                    max_record_bytes=65536,
                )
            )
        await session.commit()
    listed = (await client.get("/api/v1/evidence/binders", headers=bearer(world.agent_key_a))).json()["binders"]
    assert [b["binderId"] for b in listed] == ["bnd_a"]
    assert listed[0] == {
        "binderId": "bnd_a",
        "sourceSystem": "github-actions",
        "domain": None,
        "aiSystemId": world.system_a,
        "adapterId": "otlp-genai",
        "adapterVersion": "1.0.0",
        "binderVersion": "1",
        "accessMethod": "push",
        "active": True,
        "sourceAuthorityRole": None,
        "supportedEvidenceClasses": ["runtime.trace"],
        "canEstablish": ["OBSERVED"],
        "cannotEstablish": ["POLICY_AUTHORIZED"],
        "coverageSemantics": None,
        "requireEventId": False,
        "maxRecordBytes": 65536,
        "limitations": [{"code": "sampled", "detail": "1 in 10 traces"}],
    }

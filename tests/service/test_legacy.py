"""Legacy trigger (POST /api/ci/scan): only bound, verified sources are scanned; arbitrary URLs never."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest
from service_bundles import make_bundle
from service_helpers import World, assert_error, bearer, make_git_tree

from assay.backend import provisioning
from assay.backend.api import legacy
from assay.backend.canonical import canonical_bytes
from assay.backend.engines.static.scan import CanonicalBundle
from assay.backend.scans.bundle import EvidenceBundle
from assay.backend.scans.sources import read_git_head


@pytest.fixture
def engine_calls(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Replace the static engine with a fake that reports the tree's real git coordinates."""
    calls: list[Path] = []

    def fake_engine(path: Path) -> CanonicalBundle:
        calls.append(path)
        head = read_git_head(path)
        bundle = make_bundle(commit=head.commit if head else None, branch=head.branch if head else None)
        return CanonicalBundle(bundle=EvidenceBundle.model_validate(bundle), canonical=canonical_bytes(bundle))

    monkeypatch.setattr(legacy, "run_static_engine", fake_engine)
    return calls


async def _bind(
    world: World,
    repo: str,
    *,
    org: str | None = None,
    system: str | None = None,
    branch: str | None = None,
    status: str | None = "VERIFIED",
) -> str:
    async with world.sessions() as session:
        source = await provisioning.add_source(
            session, org or world.org_a, system or world.system_a, repo, branch=branch
        )
        if status is not None:
            await provisioning.set_source_status(session, source.id, status)  # type: ignore[arg-type]
        await session.commit()
    return source.id


def _body(repo: str, commit: str = "abcdef1", branch: str = "main", **extra: Any) -> dict[str, Any]:
    return {"repoUrl": repo, "branch": branch, "framework": "auto", "commitSha": commit, **extra}


async def _trigger(
    client: httpx.AsyncClient, world: World, body: dict[str, Any], key: str | None = None
) -> httpx.Response:
    return await client.post("/api/ci/scan", json=body, headers=bearer(key or world.agent_key_a))


async def test_verified_local_git_source_is_scanned_and_recorded(
    client: httpx.AsyncClient, world: World, tmp_path: Path, engine_calls: list[Path]
) -> None:
    commit = make_git_tree(tmp_path / "repo")
    source_id = await _bind(world, str(tmp_path / "repo"), branch="main")
    response = await _trigger(client, world, _body(str(tmp_path / "repo"), commit[:12], framework="openai-agents"))
    assert response.status_code == 201, response.text
    record = response.json()
    assert set(record) == {"scanId", "status", "repoUrl", "branch", "framework", "createdAt"}
    assert record["status"] == "COMPLETED" and record["scanId"].startswith("lscan_")
    assert record["framework"] == "openai-agents" and record["branch"] == "main"
    assert engine_calls == [tmp_path / "repo"]
    read = (await client.get(f"/api/v1/scans/{record['scanId']}", headers=bearer(world.agent_key_a))).json()
    assert read["kind"] == "legacy-trigger" and read["origin"] == "service" and read["sourceAssetId"] == source_id
    assert read["aiSystemId"] == world.system_a and read["sourceIdentity"]["gitCommit"] == commit
    assert read["attach"] == {"executionMode": "reused", "attachedScanId": record["scanId"]}


async def test_relative_or_differently_written_paths_match_only_in_absolute_form(
    client: httpx.AsyncClient, world: World, tmp_path: Path, engine_calls: list[Path]
) -> None:
    (tmp_path / "plain").mkdir()
    await _bind(world, str(tmp_path / "plain"))
    assert (await _trigger(client, world, _body(str(tmp_path / "plain" / ".." / "plain")))).status_code == 201
    assert_error(await _trigger(client, world, _body("plain")), 404, "RESOURCE_NOT_FOUND")


async def test_unbound_url_is_never_scanned(client: httpx.AsyncClient, world: World, engine_calls: list[Path]) -> None:
    for repo in ("https://evil.example/x.git", "/etc", "file:///etc"):
        assert_error(await _trigger(client, world, _body(repo)), 404, "RESOURCE_NOT_FOUND")
    assert engine_calls == []


@pytest.mark.parametrize(
    ("status", "http_status", "code"),
    [
        ("PENDING", 400, "SOURCE_NOT_VERIFIED"),
        ("RETIRED", 400, "SOURCE_NOT_VERIFIED"),
        ("CONFLICTED", 409, "SOURCE_CONFLICTED"),
        ("UNAVAILABLE", 409, "SOURCE_UNAVAILABLE"),
    ],
)
async def test_unverified_sources_are_refused(
    client: httpx.AsyncClient,
    world: World,
    tmp_path: Path,
    engine_calls: list[Path],
    status: str,
    http_status: int,
    code: str,
) -> None:
    (tmp_path / "plain").mkdir()
    await _bind(world, str(tmp_path / "plain"), status=None if status == "PENDING" else status)
    assert_error(await _trigger(client, world, _body(str(tmp_path / "plain"))), http_status, code)
    assert engine_calls == []


async def test_git_remotes_that_cannot_be_fetched_are_unavailable(
    client: httpx.AsyncClient, world: World, engine_calls: list[Path]
) -> None:
    # Fetching a reachable remote is tests/sources' (a real git server); here nothing answers, or the
    # remote's protocol is one this service never fetches.
    unreachable = "https://127.0.0.1:1/acme/agent.git"
    await _bind(world, unreachable, branch="main")
    error = assert_error(await _trigger(client, world, _body(unreachable)), 409, "SOURCE_UNAVAILABLE")
    assert "cannot be reached" in error["message"] and error["retryable"] is True
    refused = "git://127.0.0.1:1/acme/agent.git"
    await _bind(world, refused, branch="main")
    error = assert_error(await _trigger(client, world, _body(refused)), 409, "SOURCE_UNAVAILABLE")
    assert "only https:// and ssh://" in error["message"]
    assert engine_calls == []


async def test_vanished_path_is_unavailable(
    client: httpx.AsyncClient, world: World, tmp_path: Path, engine_calls: list[Path]
) -> None:
    (tmp_path / "plain").mkdir()
    await _bind(world, str(tmp_path / "plain"))
    shutil.rmtree(tmp_path / "plain")
    assert_error(await _trigger(client, world, _body(str(tmp_path / "plain"))), 409, "SOURCE_UNAVAILABLE")


async def test_branch_and_commit_must_match_the_work_tree(
    client: httpx.AsyncClient, world: World, tmp_path: Path, engine_calls: list[Path]
) -> None:
    commit = make_git_tree(tmp_path / "repo", "main")
    await _bind(world, str(tmp_path / "repo"))
    error = assert_error(
        await _trigger(client, world, _body(str(tmp_path / "repo"), commit, branch="dev-7f3a91")),
        409,
        "SOURCE_CONFLICTED",
    )
    assert "7f3a91" not in error["message"]  # messages never echo submitted values (docs/api.md)
    assert_error(await _trigger(client, world, _body(str(tmp_path / "repo"), "0000000")), 409, "SOURCE_CONFLICTED")
    assert engine_calls == []


async def test_source_bound_to_another_branch_is_refused(
    client: httpx.AsyncClient, world: World, tmp_path: Path, engine_calls: list[Path]
) -> None:
    make_git_tree(tmp_path / "repo", "dev-7f3a91")
    await _bind(world, str(tmp_path / "repo"), branch="main")
    error = assert_error(
        await _trigger(client, world, _body(str(tmp_path / "repo"), branch="dev-7f3a91")), 400, "INVALID_REQUEST"
    )
    assert "7f3a91" not in error["message"]  # messages never echo submitted values (docs/api.md)


async def test_repo_verified_for_two_systems_is_ambiguous(
    client: httpx.AsyncClient, world: World, tmp_path: Path, engine_calls: list[Path]
) -> None:
    (tmp_path / "plain").mkdir()
    await _bind(world, str(tmp_path / "plain"))
    await _bind(world, str(tmp_path / "plain"), system=world.system_a2)
    assert_error(await _trigger(client, world, _body(str(tmp_path / "plain"))), 400, "SOURCE_AMBIGUOUS")


@pytest.mark.parametrize(
    "body",
    [
        {"repoUrl": "/x", "branch": "main", "framework": "auto"},
        {"repoUrl": "/x", "branch": "main", "framework": "cobol", "commitSha": "abcdef1"},
        {"repoUrl": "/x", "branch": "main", "framework": "auto", "commitSha": "not-hex"},
        {"repoUrl": "/x", "branch": "", "framework": "auto", "commitSha": "abcdef1"},
        {"repoUrl": 7, "branch": "main", "framework": "auto", "commitSha": "abcdef1"},
        {"repoUrl": "/x", "branch": "main", "framework": "auto", "commitSha": "abcdef1", "token": "t"},
    ],
)
async def test_bad_trigger_bodies_are_400(client: httpx.AsyncClient, world: World, body: dict[str, Any]) -> None:
    assert_error(await _trigger(client, world, body), 400, "INVALID_REQUEST")


async def test_oversized_trigger_body_is_400(client: httpx.AsyncClient, world: World) -> None:
    body = _body("/x", padding="y" * 70_000)
    assert_error(await _trigger(client, world, body), 400, "INVALID_REQUEST")


async def test_real_static_engine_scans_a_tiny_tree(client: httpx.AsyncClient, world: World, tmp_path: Path) -> None:
    try:
        from assay.backend.engines.static.scan import scan_tree  # noqa: F401
    except ImportError as exc:  # the engine is being written in parallel; the route is tested with a fake above
        pytest.skip(f"static engine not importable yet: {exc}")
    commit = make_git_tree(tmp_path / "repo")
    await _bind(world, str(tmp_path / "repo"))
    response = await _trigger(client, world, _body(str(tmp_path / "repo"), commit))
    assert response.status_code == 201, response.text
    read = (await client.get(f"/api/v1/scans/{response.json()['scanId']}", headers=bearer(world.agent_key_a))).json()
    assert read["qualifiedEvidence"]["contentHash"].startswith("sha256:")
    assert read["sourceIdentity"]["gitCommit"] == commit

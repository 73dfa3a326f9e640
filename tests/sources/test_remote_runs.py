"""Remote git sources end to end against a real git server (git http-backend over HTTPS, basic auth):
connected with a sealed deploy credential, verified by fetching, scanned by executionMode api runs (and the
legacy trigger) at a branch or a commit, in a throwaway directory that is gone afterwards."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest
from git_server import TOKEN, USER, GitServer, git, publish
from runs_helpers import EXAMPLES, create, wait
from service_helpers import World, assert_error, bearer
from starlette.applications import Starlette

from assay.backend import provisioning
from assay.backend.settings import ServiceSettings
from assay.backend.storage import models

GOOD = f"{USER}:{TOKEN}"


async def connect(
    world: World,
    settings: ServiceSettings,
    url: str,
    *,
    credential: str | None = GOOD,
    branch: str | None = None,
    verify: bool = True,
) -> str:
    """Connect ``url`` to system A with ``credential`` (verified by fetching unless told otherwise); its id."""
    async with world.sessions() as session:
        source = await provisioning.add_source(
            session,
            world.org_a,
            world.system_a,
            url,
            branch=branch,
            credential=credential,
            key_dir=settings.key_directory(),
            remote_only=True,
        )
        await session.commit()
    if verify:
        async with world.sessions() as session:
            await provisioning.verify_source(session, source.id, key_dir=settings.key_directory(), git=settings.git)
            await session.commit()
    return source.id


async def verify_error(world: World, settings: ServiceSettings, source_id: str) -> provisioning.ProvisioningError:
    async with world.sessions() as session:
        with pytest.raises(provisioning.ProvisioningError) as caught:
            await provisioning.verify_source(session, source_id, key_dir=settings.key_directory(), git=settings.git)
        source = await session.get(models.SourceAsset, source_id)
        assert source is not None and source.status == "PENDING" and source.verified_commit is None
    return caught.value


def leftovers(folder: Path) -> list[Path]:
    """What the service's fetches left in their temporary directory (nothing, ever)."""
    return sorted(folder.iterdir())


def database_bytes(settings: ServiceSettings) -> bytes:
    return Path(settings.database_url.removeprefix("sqlite+aiosqlite:///")).read_bytes()


def example_work(tmp_path: Path, name: str) -> Path:
    work = tmp_path / f"work-{name}"
    shutil.copytree(EXAMPLES / name, work)
    return work


async def run_done(client: httpx.AsyncClient, world: World, static: dict[str, Any]) -> dict[str, Any]:
    created = await create(client, world.agent_key_a, {"aiSystemId": world.system_a, "engines": {"static": static}})
    assert created.status_code == 202, created.text
    return await wait(client, world.agent_key_a, created.json()["runId"])


async def summary_of(client: httpx.AsyncClient, world: World, done: dict[str, Any]) -> dict[str, Any]:
    assert done["status"] == "COMPLETED", done
    response = await client.get(done["links"]["summary"], headers=bearer(world.agent_key_a))
    assert response.status_code == 200
    summary: dict[str, Any] = response.json()
    return summary


async def test_a_good_credential_verifies_and_runs_scan_the_fetched_code_at_a_branch_or_a_commit(
    client: httpx.AsyncClient,
    app: Starlette,
    world: World,
    settings: ServiceSettings,
    git_server: GitServer,
    tmp_path: Path,
    scratch: Path,
) -> None:
    # First the research assistant (ALLOW), then the ops agent's tools on top of it (BLOCK).
    work = example_work(tmp_path, "research-assistant")
    calm = publish(git_server, "agent", work)
    shutil.copytree(EXAMPLES / "ops-agent", work / "ops", dirs_exist_ok=True)
    risky = publish(git_server, "agent", work)
    url = git_server.url("agent")

    source_id = await connect(world, settings, url, branch="main")
    async with world.sessions() as session:
        source = await session.get(models.SourceAsset, source_id)
        assert source is not None
        assert (
            source.status == "VERIFIED" and source.verified_commit == risky and source.credential_kind == "https-token"
        )
        # Sealed at rest: the token is nowhere in the row (nor in the database file).
        assert source.sealed_credential is not None and TOKEN.encode() not in source.sealed_credential
    assert TOKEN.encode() not in database_bytes(settings)
    assert leftovers(scratch) == []

    at_tip = await summary_of(client, world, await run_done(client, world, {"sourceAssetId": source_id}))
    assert at_tip["disposition"] == "BLOCK"
    identity = at_tip["identity"]
    assert identity["commit"] == risky and identity["branch"] == "main" and identity["dirty"] is False
    assert identity["repository"] == url

    by_url = await run_done(client, world, {"executionMode": "api", "repositoryUrl": url, "branch": "main"})
    assert (await summary_of(client, world, by_url))["disposition"] == "BLOCK"

    at_commit = await summary_of(
        client, world, await run_done(client, world, {"sourceAssetId": source_id, "commitSha": calm})
    )
    assert at_commit["disposition"] == "ALLOW"
    assert at_commit["identity"]["commit"] == calm and at_commit["identity"]["branch"] is None

    # Every fetch happened in a throwaway directory that is gone.
    assert leftovers(scratch) == []
    assert git_server.requests and all("auth=True" in r for r in git_server.requests[-3:])


async def test_runs_name_a_branch_for_a_source_bound_to_none_and_fail_clearly_on_a_missing_one(
    client: httpx.AsyncClient, world: World, settings: ServiceSettings, git_server: GitServer, tmp_path: Path
) -> None:
    publish(git_server, "ops", example_work(tmp_path, "ops-agent"))
    source_id = await connect(world, settings, git_server.url("ops"))
    body = {"aiSystemId": world.system_a, "engines": {"static": {"sourceAssetId": source_id}}}
    assert_error(await create(client, world.agent_key_a, body), 400, "BRANCH_REQUIRED")
    done = await run_done(client, world, {"sourceAssetId": source_id, "branch": "main"})
    assert (await summary_of(client, world, done))["disposition"] == "BLOCK"
    failed = await run_done(client, world, {"sourceAssetId": source_id, "branch": "release"})
    assert failed["status"] == "FAILED"
    assert failed["failure"]["code"] == "SOURCE_UNAVAILABLE" and "no such branch" in failed["failure"]["message"]
    bad = {"aiSystemId": world.system_a, "engines": {"static": {"sourceAssetId": source_id, "branch": "a..b"}}}
    assert_error(await create(client, world.agent_key_a, bad), 400, "INVALID_REQUEST")


async def test_a_wrong_credential_a_missing_branch_and_a_missing_repository_are_clear_errors(
    world: World, settings: ServiceSettings, git_server: GitServer, tmp_path: Path, scratch: Path
) -> None:
    publish(git_server, "ops", example_work(tmp_path, "ops-agent"))
    url = git_server.url("ops")
    wrong = "deploy:not-the-token-at-all"
    source_id = await connect(world, settings, url, credential=wrong, verify=False)
    error = await verify_error(world, settings, source_id)
    assert error.code == "AUTH_FAILED" and "refused the credential" in error.message
    assert "not-the-token" not in error.message and TOKEN not in error.message
    # Without a credential: the same refusal. With the right one (replaced, sealed anew): verified.
    async with world.sessions() as session:
        await provisioning.set_source_credential(session, source_id, None, key_dir=settings.key_directory())
        await session.commit()
    assert (await verify_error(world, settings, source_id)).code == "AUTH_FAILED"
    async with world.sessions() as session:
        await provisioning.set_source_credential(session, source_id, GOOD, key_dir=settings.key_directory())
        verified = await provisioning.verify_source(
            session, source_id, key_dir=settings.key_directory(), git=settings.git
        )
        assert verified.status == "VERIFIED"
        await session.commit()
    missing = await connect(world, settings, url, branch="release", verify=False)
    error = await verify_error(world, settings, missing)
    assert error.code == "BRANCH_NOT_FOUND" and "release" in error.message
    error = await verify_error(world, settings, await connect(world, settings, git_server.url("nope"), verify=False))
    assert error.code == "UNREACHABLE" and "no such repository" in error.message
    assert leftovers(scratch) == []


async def test_a_repository_larger_than_the_bound_is_refused_without_filling_the_disk(
    world: World, settings: ServiceSettings, git_server: GitServer, tmp_path: Path, scratch: Path
) -> None:
    bound = settings.git.max_bytes
    # Incompressible: the pack itself passes the bound while it arrives.
    noisy = tmp_path / "noisy"
    noisy.mkdir()
    (noisy / "blob.bin").write_bytes(__import__("os").urandom(3 * bound))
    publish(git_server, "noisy", noisy)
    error = await verify_error(world, settings, await connect(world, settings, git_server.url("noisy"), verify=False))
    assert error.code == "TOO_LARGE" and "ASSAY_GIT_MAX_BYTES" in error.message
    # A compression bomb: a small pack whose tree is many times the bound is refused before checkout.
    bomb = tmp_path / "bomb"
    bomb.mkdir()
    for index in range(4):
        (bomb / f"zeros-{index}.bin").write_bytes(bytes(bound))
    publish(git_server, "bomb", bomb)
    pack_bytes = sum(p.stat().st_size for p in (git_server.root / "bomb.git").rglob("*") if p.is_file())
    assert pack_bytes < bound
    error = await verify_error(world, settings, await connect(world, settings, git_server.url("bomb"), verify=False))
    assert error.code == "TOO_LARGE"
    assert leftovers(scratch) == []


async def test_a_hostile_repository_is_read_never_executed(
    client: httpx.AsyncClient,
    world: World,
    settings: ServiceSettings,
    git_server: GitServer,
    tmp_path: Path,
    scratch: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    marker = tmp_path / "executed"
    # The machine's git configuration (what a careless fetch would inherit) defines a smudge filter and a
    # hooks directory that would leave a marker; the repository asks for that filter, names a submodule
    # and carries a symlink out of the tree.
    evil_home = tmp_path / "evil-home"
    hooks = evil_home / "hooks"
    hooks.mkdir(parents=True)
    for hook in ("post-checkout", "post-merge", "reference-transaction", "fsmonitor-watchman"):
        (hooks / hook).write_text(f"#!/bin/sh\ntouch {marker}\n")
        (hooks / hook).chmod(0o755)
    config = evil_home / ".gitconfig"
    config.write_text(
        f'[filter "evil"]\n\tsmudge = touch {marker}; cat\n\trequired = true\n'
        f"[core]\n\thooksPath = {hooks}\n\tfsmonitor = {hooks / 'fsmonitor-watchman'}\n"
        f'[filter "lfs"]\n\tsmudge = touch {marker}; cat\n\tprocess = touch {marker}\n'
    )
    monkeypatch.setenv("HOME", str(evil_home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))

    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "payload.py").write_text("print('submodule')\n")
    publish(git_server, "inner", inner)
    work = example_work(tmp_path, "research-assistant")
    (work / ".gitattributes").write_text("* filter=evil\n*.bin filter=lfs diff=lfs merge=lfs -text\n")
    (work / "model.bin").write_text("version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 1\n")
    (work / "leak").symlink_to("/etc/passwd")
    publish(git_server, "hostile", work)
    git(
        work,
        "submodule",
        "add",
        "--quiet",
        str(git_server.root / "inner.git"),
        "vendor/inner",
        env={"GIT_ALLOW_PROTOCOL": "file"},
    )
    sha = publish(git_server, "hostile", work)

    source_id = await connect(world, settings, git_server.url("hostile"), branch="main")
    done = await run_done(client, world, {"sourceAssetId": source_id})
    summary = await summary_of(client, world, done)
    assert summary["identity"]["commit"] == sha
    assert not marker.exists()
    assert leftovers(scratch) == []
    # The submodule was never fetched: the server saw no request for it.
    assert not any("/inner.git" in r for r in git_server.requests[-20:] if "hostile" not in r)


async def test_the_legacy_trigger_fetches_the_branch_tip_and_checks_the_commit(
    client: httpx.AsyncClient, world: World, settings: ServiceSettings, git_server: GitServer, tmp_path: Path
) -> None:
    sha = publish(git_server, "ops", example_work(tmp_path, "ops-agent"))
    url = git_server.url("ops")
    await connect(world, settings, url, branch="main")
    key = await world.key(["scan:create", "scan:read"], org=world.org_a)
    body = {"repoUrl": url, "branch": "main", "framework": "auto", "commitSha": sha}
    response = await client.post("/api/ci/scan", json=body, headers=bearer(key))
    assert response.status_code == 201, response.text
    scan = await client.get(f"/api/v1/scans/{response.json()['scanId']}", headers=bearer(key))
    assert scan.status_code == 200 and scan.json()["commitSha"] == sha
    moved = {**body, "commitSha": "0" * 40}
    assert_error(await client.post("/api/ci/scan", json=moved, headers=bearer(key)), 409, "SOURCE_CONFLICTED")

"""Remote git sources over SSH against a real OpenSSH daemon (ssh_server.py): a deploy key connected and
sealed, verified by fetching, scanned by an executionMode api run; a wrong key, a host key the service
does not trust, and a missing branch are clear errors; the key file never outlives the fetch."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from git_server import publish
from runs_helpers import EXAMPLES, create, wait
from service_helpers import World, bearer
from ssh_server import SshGitServer, keygen, serve_ssh_git, sshd_missing

from assay.backend import provisioning
from assay.backend.settings import GitFetchSettings, ServiceSettings
from assay.backend.storage import models

pytestmark = pytest.mark.skipif(sshd_missing() is not None, reason=sshd_missing() or "")


@pytest.fixture
def ssh_git(tmp_path: Path) -> Iterator[SshGitServer]:
    with serve_ssh_git(tmp_path / "ssh-server") as server:
        yield server


@pytest.fixture
def git_settings(ssh_git: SshGitServer, tmp_path: Path) -> GitFetchSettings:
    """The service trusts the SSH server's host key (and nothing else) through its known_hosts file."""
    known_hosts = tmp_path / "known_hosts"
    known_hosts.write_text(ssh_git.host_key_line)
    return GitFetchSettings(max_bytes=2 * 1024 * 1024, timeout_seconds=60, known_hosts=known_hosts)


def leftovers(folder: Path) -> list[Path]:
    """What the service's fetches left in their temporary directory (nothing, ever: not the key file)."""
    return sorted(folder.iterdir())


def key_material(key: str) -> list[str]:
    """Pieces of a private key that must never appear in a message: its base64 lines."""
    return [line for line in key.splitlines() if line and not line.startswith("-----")]


async def connect(
    world: World, settings: ServiceSettings, url: str, credential: str, *, branch: str | None = "main"
) -> str:
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
    return source.id


async def verify(world: World, settings: ServiceSettings, source_id: str) -> models.SourceAsset:
    async with world.sessions() as session:
        source = await provisioning.verify_source(
            session, source_id, key_dir=settings.key_directory(), git=settings.git
        )
        await session.commit()
    return source


async def verify_error(world: World, settings: ServiceSettings, source_id: str) -> provisioning.ProvisioningError:
    async with world.sessions() as session:
        with pytest.raises(provisioning.ProvisioningError) as caught:
            await provisioning.verify_source(session, source_id, key_dir=settings.key_directory(), git=settings.git)
        source = await session.get(models.SourceAsset, source_id)
        assert source is not None and source.status == "PENDING" and source.verified_commit is None
    return caught.value


def published(ssh_git: SshGitServer, tmp_path: Path, example: str = "ops-agent") -> str:
    work = tmp_path / f"work-{example}"
    shutil.copytree(EXAMPLES / example, work)
    return publish(ssh_git, "agent", work)


async def test_a_deploy_key_verifies_and_a_run_scans_the_code_fetched_over_ssh(
    client: httpx.AsyncClient,
    world: World,
    settings: ServiceSettings,
    ssh_git: SshGitServer,
    tmp_path: Path,
    scratch: Path,
) -> None:
    sha = published(ssh_git, tmp_path)
    url = ssh_git.url("agent")
    source_id = await connect(world, settings, url, ssh_git.deploy_key)
    source = await verify(world, settings, source_id)
    assert source.status == "VERIFIED" and source.verified_commit == sha and source.credential_kind == "ssh-key"
    assert source.sealed_credential is not None
    assert all(line.encode() not in source.sealed_credential for line in key_material(ssh_git.deploy_key))
    # The key file (and the whole fetch directory) is gone once the fetch is done.
    assert leftovers(scratch) == []
    # The real sshd accepted this deploy key.
    assert "Accepted publickey" in ssh_git.log_text()

    created = await create(
        client, world.agent_key_a, {"aiSystemId": world.system_a, "engines": {"static": {"sourceAssetId": source_id}}}
    )
    assert created.status_code == 202, created.text
    done: dict[str, Any] = await wait(client, world.agent_key_a, created.json()["runId"])
    assert done["status"] == "COMPLETED", done
    summary = (await client.get(done["links"]["summary"], headers=bearer(world.agent_key_a))).json()
    assert summary["disposition"] == "BLOCK"  # the ops agent's shell and payment tools
    # The Evaluation names the remote without its user name.
    assert summary["identity"]["repository"] == url.replace(f"{ssh_git.user}@", "", 1)
    assert summary["identity"]["commit"] == sha and summary["identity"]["branch"] == "main"
    assert leftovers(scratch) == []


async def test_a_wrong_key_is_auth_failed_without_key_material_in_the_message(
    world: World, settings: ServiceSettings, ssh_git: SshGitServer, tmp_path: Path, scratch: Path
) -> None:
    published(ssh_git, tmp_path)
    wrong = keygen(tmp_path / "not-authorized", "not-authorized")
    source_id = await connect(world, settings, ssh_git.url("agent"), wrong)
    error = await verify_error(world, settings, source_id)
    assert error.code == "AUTH_FAILED" and "refused the credential" in error.message
    for line in key_material(wrong) + key_material(ssh_git.deploy_key):
        assert line not in error.message
    # Neither the key nor the path of the file it was written to for ssh.
    assert "PRIVATE KEY" not in error.message and "deploy-key" not in error.message
    assert leftovers(scratch) == []


async def test_an_unknown_host_key_is_refused_and_never_trusted_on_first_use(
    world: World, settings: ServiceSettings, ssh_git: SshGitServer, tmp_path: Path, scratch: Path
) -> None:
    published(ssh_git, tmp_path)
    assert settings.git.known_hosts is not None
    known_hosts = settings.git.known_hosts
    # The service trusts another key for this host and port (and a key of another host), not the server's.
    keygen(tmp_path / "other-host", "other")
    other = (tmp_path / "other-host.pub").read_text().split()
    untrusted = f"[127.0.0.1]:{ssh_git.port} {other[0]} {other[1]}\ngit.example.com {other[0]} {other[1]}\n"
    known_hosts.write_text(untrusted)
    source_id = await connect(world, settings, ssh_git.url("agent"), ssh_git.deploy_key)
    error = await verify_error(world, settings, source_id)
    assert error.code == "REFUSED" and "ASSAY_GIT_KNOWN_HOSTS" in error.message
    # Only another host's key: still refused, and the file is left as it was (no trust on first use).
    known_hosts.write_text(f"git.example.com {other[0]} {other[1]}\n")
    error = await verify_error(world, settings, source_id)
    assert error.code == "REFUSED" and "ASSAY_GIT_KNOWN_HOSTS" in error.message
    assert known_hosts.read_text() == f"git.example.com {other[0]} {other[1]}\n"
    # The refusal came before any key was offered: sshd never accepted one.
    assert "Accepted publickey" not in ssh_git.log_text()
    assert leftovers(scratch) == []
    # With the server's key trusted, the same source verifies.
    known_hosts.write_text(ssh_git.host_key_line)
    assert (await verify(world, settings, source_id)).status == "VERIFIED"


async def test_a_missing_branch_over_ssh_is_branch_not_found(
    world: World, settings: ServiceSettings, ssh_git: SshGitServer, tmp_path: Path, scratch: Path
) -> None:
    published(ssh_git, tmp_path)
    source_id = await connect(world, settings, ssh_git.url("agent"), ssh_git.deploy_key, branch="release")
    error = await verify_error(world, settings, source_id)
    assert error.code == "BRANCH_NOT_FOUND" and "release" in error.message
    assert leftovers(scratch) == []

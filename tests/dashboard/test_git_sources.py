"""Connecting a git repository from the sources page, against a real git server (tests/sources/git_server.py:
git http-backend over HTTPS with basic auth): an owner connects it with a deploy credential in a password
field and verifies it (the service fetches it); a wrong credential is a clear page that never shows the
credential; a member sees no form and is refused a POST."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
from dashboard_helpers import add_user, csrf_of, sign_in
from service_helpers import World
from sqlmodel import select
from starlette.applications import Starlette

from assay.backend.settings import GitFetchSettings, RateLimitSettings, ServiceSettings
from assay.backend.storage.db import sqlite_url_for
from assay.backend.storage.models import SourceAsset

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sources"))

from git_server import TOKEN, USER, GitServer, publish, serve_git

OWNER = "olive@acme.example"
MEMBER = "ann@acme.example"


@pytest.fixture
def git_server(tmp_path: Path) -> Iterator[GitServer]:
    with serve_git(tmp_path / "git-server") as server:
        yield server


@pytest.fixture
def settings(tmp_path: Path, service_db: Path, git_server: GitServer) -> ServiceSettings:
    return ServiceSettings(
        database_url=sqlite_url_for(service_db),
        data_dir=tmp_path / "data",
        rate_limit=RateLimitSettings(enabled=False),
        git=GitFetchSettings(max_bytes=4 * 1024 * 1024, timeout_seconds=60, ca_file=git_server.ca_file),
    )


@asynccontextmanager
async def signed_in(app: Starlette, email: str) -> AsyncIterator[tuple[httpx.AsyncClient, str]]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://assay.test") as client:
        assert (await sign_in(client, email)).status_code == 303
        yield client, csrf_of((await client.get("/dashboard")).text)


async def sources_of(world: World) -> list[SourceAsset]:
    async with world.sessions() as session:
        rows = await session.exec(select(SourceAsset).where(SourceAsset.ai_system_id == world.system_a))
        return list(rows.all())


def published(git_server: GitServer, tmp_path: Path) -> str:
    work = tmp_path / "work"
    work.mkdir()
    (work / "agent.py").write_text("import subprocess\n\n\ndef run(cmd):\n    return subprocess.run(cmd)\n")
    return publish(git_server, "agent", work)


async def test_an_owner_connects_and_verifies_a_git_repository_with_a_sealed_credential(
    app: Starlette, world: World, git_server: GitServer, tmp_path: Path
) -> None:
    sha = published(git_server, tmp_path)
    await add_user(world.sessions, world.org_a, OWNER, role="owner")
    page_url = f"/dashboard/systems/{world.system_a}/sources"
    url = git_server.url("agent")
    async with signed_in(app, OWNER) as (client, csrf):
        page = await client.get(page_url)
        assert page.status_code == 200 and "Connect a git repository" in page.text
        assert 'type="password"' in page.text and 'name="credential"' in page.text

        form = {"csrf_token": csrf, "kind": "git", "url": url, "branch": "main", "credential": "deploy:wrong"}
        assert (await client.post(page_url, data=form)).status_code == 303
        (source,) = await sources_of(world)
        assert (source.repo, source.repo_kind, source.status, source.credential_kind) == (
            url,
            "git",
            "PENDING",
            "https-token",
        )
        listed = await client.get(page_url)
        assert "credential: HTTPS token (sealed)" in listed.text and "deploy:wrong" not in listed.text

        # A wrong credential: a clear page (400), the status unchanged, the credential nowhere.
        verify = f"{page_url}/{source.id}/verify"
        refused = await client.post(verify, data={"csrf_token": csrf})
        assert refused.status_code == 400 and "refused the credential" in refused.text
        assert "deploy:wrong" not in refused.text
        assert (await sources_of(world))[0].status == "PENDING"

        # The right one, on a second binding of another branch name: fetched and verified.
        good = {**form, "branch": "", "credential": f"{USER}:{TOKEN}"}
        assert (await client.post(page_url, data=good)).status_code == 303
        second = next(s for s in await sources_of(world) if s.branch is None)
        assert (await client.post(f"{page_url}/{second.id}/verify", data={"csrf_token": csrf})).status_code == 303
        verified = next(s for s in await sources_of(world) if s.id == second.id)
        assert verified.status == "VERIFIED" and verified.verified_commit == sha
        listed = await client.get(page_url)
        assert f"fetched at <code>{sha[:12]}</code>" in listed.text and TOKEN not in listed.text

        # Refused input writes nothing and never fills a credential back in.
        for bad, words in (
            ({**good, "url": "http://127.0.0.1/agent.git"}, "https:// and ssh:// git remotes"),
            ({**good, "url": url.replace("https://", f"https://{USER}:{TOKEN}@")}, "carries credentials"),
            ({**good, "url": url, "credential": "two\nlines"}, "one line"),
        ):
            answer = await client.post(page_url, data=bad)
            assert answer.status_code == 400 and words in answer.text, answer.text
            assert TOKEN not in answer.text and "two\nlines" not in answer.text
        assert len(await sources_of(world)) == 2


async def test_a_member_sees_no_git_form_and_is_refused(app: Starlette, world: World, git_server: GitServer) -> None:
    await add_user(world.sessions, world.org_a, MEMBER, role="member")
    page_url = f"/dashboard/systems/{world.system_a}/sources"
    async with signed_in(app, MEMBER) as (client, csrf):
        page = await client.get(page_url)
        assert page.status_code == 200 and "Connect a git repository" not in page.text
        form = {"csrf_token": csrf, "kind": "git", "url": git_server.url("agent"), "credential": f"{USER}:{TOKEN}"}
        assert (await client.post(page_url, data=form)).status_code == 403
        # A forged CSRF token is refused too, whoever sends it.
        assert (await client.post(page_url, data={**form, "csrf_token": "forged"})).status_code == 403
    assert await sources_of(world) == []

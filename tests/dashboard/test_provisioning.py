"""The provisioning pages through HTTP with a signed-in browser's cookies: owners and admins create and edit
AI Systems, connect, verify and retire sources, retire a system; members read without forms and are refused
(403) when they post anyway; another organization's system is the same 404 as a missing one; bad input
answers a clear page and writes nothing."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from dashboard_helpers import People, add_user
from provisioning_helpers import add_owner, signed_in, sources_of, systems_of
from service_helpers import World, bearer
from starlette.applications import Starlette


@pytest.fixture
async def owner(world: World) -> str:
    return await add_owner(world)


async def test_an_owner_creates_a_system_connects_verifies_and_retires_a_local_source(
    app: Starlette, world: World, owner: str, tmp_path: Path
) -> None:
    checkout = tmp_path / "agent"
    checkout.mkdir()
    async with signed_in(app, owner) as (client, csrf):
        home = await client.get("/dashboard")
        systems_page = f"/dashboard/organizations/{world.org_a}/systems"
        assert systems_page in home.text
        listed = await client.get(systems_page)
        assert listed.status_code == 200 and "New AI System" in listed.text
        created = await client.post(
            systems_page,
            data={"csrf_token": csrf, "name": "  Billing agent ", "system_type": "agent", "criticality": "high"},
        )
        assert created.status_code == 303
        new = next(s for s in await systems_of(world, world.org_a) if s.name == "Billing agent")
        assert (new.system_type, new.criticality, new.lifecycle_status) == ("agent", "high", None)
        sources_page = f"/dashboard/systems/{new.id}/sources"
        assert created.headers["location"] == sources_page

        page = await client.get(sources_page)
        assert page.status_code == 200 and "No source connected yet." in page.text
        added = await client.post(sources_page, data={"csrf_token": csrf, "kind": "local", "path": str(checkout)})
        assert added.status_code == 303 and added.headers["location"] == sources_page
        (source,) = await sources_of(world, new.id)
        assert (source.repo, source.repo_kind, source.status) == (str(checkout), "local", "PENDING")
        page = await client.get(sources_page)
        assert str(checkout) in page.text and "PENDING" in page.text
        assert f"{sources_page}/{source.id}/verify" in page.text

        verified = await client.post(f"{sources_page}/{source.id}/verify", data={"csrf_token": csrf})
        assert verified.status_code == 303
        assert (await sources_of(world, new.id))[0].status == "VERIFIED"
        # The same path again is refused by the backend's rule: 409, nothing added.
        again = await client.post(sources_page, data={"csrf_token": csrf, "kind": "local", "path": str(checkout)})
        assert again.status_code == 409 and "already bound" in again.text
        assert len(await sources_of(world, new.id)) == 1

        retired = await client.post(f"{sources_page}/{source.id}/retire", data={"csrf_token": csrf})
        assert retired.status_code == 303
        assert (await sources_of(world, new.id))[0].status == "RETIRED"
        page = await client.get(sources_page)
        assert f"{source.id}/verify" not in page.text and f"{source.id}/retire" not in page.text


async def test_members_read_without_forms_and_a_post_from_them_is_refused(
    app: Starlette, world: World, people: People, tmp_path: Path
) -> None:
    async with signed_in(app, people.ann) as (client, csrf):
        systems_page = f"/dashboard/organizations/{world.org_a}/systems"
        listed = await client.get(systems_page)
        assert listed.status_code == 200
        assert "<form" not in listed.text.split("</header>", 1)[1]
        assert "your role (member) reads them" in listed.text
        for path in (f"/dashboard/systems/{world.system_a}/sources", f"/dashboard/systems/{world.system_a}/settings"):
            page = await client.get(path)
            assert page.status_code == 200
            assert "<form" not in page.text.split("</header>", 1)[1], path
        before = await systems_of(world, world.org_a)
        refused = await client.post(systems_page, data={"csrf_token": csrf, "name": "Sneaky"})
        assert refused.status_code == 403
        assert "Only owners and admins of this organization can create AI Systems" in refused.text
        assert "Your role is member" in refused.text
        refused = await client.post(
            f"/dashboard/systems/{world.system_a}/sources", data={"csrf_token": csrf, "path": str(tmp_path)}
        )
        assert refused.status_code == 403
        refused = await client.post(
            f"/dashboard/systems/{world.system_a}/retire", data={"csrf_token": csrf, "confirm": "retire"}
        )
        assert refused.status_code == 403
        assert await systems_of(world, world.org_a) == before
        assert all(s.lifecycle_status is None for s in before)


async def test_another_organizations_system_is_the_same_404_as_a_missing_one(
    app: Starlette, world: World, people: People, owner: str
) -> None:
    await add_user(world.sessions, world.org_b, "bea@globex.example", role="owner")
    async with signed_in(app, "bea@globex.example") as (client, csrf):
        for suffix in ("sources", "settings"):
            missing = await client.get(f"/dashboard/systems/sys_missing/{suffix}")
            foreign = await client.get(f"/dashboard/systems/{world.system_a}/{suffix}")
            assert missing.status_code == foreign.status_code == 404
            assert foreign.text == missing.text
        missing = await client.get("/dashboard/organizations/org_missing/systems")
        foreign = await client.get(f"/dashboard/organizations/{world.org_a}/systems")
        assert missing.status_code == foreign.status_code == 404 and foreign.text == missing.text
        posted = await client.post(
            f"/dashboard/organizations/{world.org_a}/systems", data={"csrf_token": csrf, "name": "X"}
        )
        assert posted.status_code == 404 and posted.text == missing.text
        posted = await client.post(
            f"/dashboard/systems/{world.system_a}/retire", data={"csrf_token": csrf, "confirm": "retire"}
        )
        assert posted.status_code == 404
    assert all(s.lifecycle_status is None for s in await systems_of(world, world.org_a))
    # A source of one system is not reachable through another system's page, even in the same organization.
    async with signed_in(app, owner) as (client, csrf):
        async with world.sessions() as session:
            from assay.backend import provisioning

            source = await provisioning.add_source(session, world.org_a, world.system_a, "/tmp")
            await session.commit()
        crossed = await client.post(
            f"/dashboard/systems/{world.system_a2}/sources/{source.id}/retire", data={"csrf_token": csrf}
        )
        assert crossed.status_code == 404
        assert (await sources_of(world, world.system_a))[0].status == "PENDING"


@pytest.mark.parametrize(
    ("name", "status", "words"),
    [
        ("", 400, "the AI System name must be 1 to 200 characters"),
        ("   ", 400, "the AI System name must be 1 to 200 characters"),
        ("n" * 201, 400, "the AI System name must be 1 to 200 characters"),
    ],
)
async def test_an_empty_or_over_long_name_is_a_clear_400_and_writes_nothing(
    app: Starlette, world: World, owner: str, name: str, status: int, words: str
) -> None:
    async with signed_in(app, owner) as (client, csrf):
        before = await systems_of(world, world.org_a)
        answer = await client.post(
            f"/dashboard/organizations/{world.org_a}/systems", data={"csrf_token": csrf, "name": name}
        )
        assert answer.status_code == status
        assert words[:1].upper() + words[1:] in answer.text
        assert await systems_of(world, world.org_a) == before
        long_type = await client.post(
            f"/dashboard/organizations/{world.org_a}/systems",
            data={"csrf_token": csrf, "name": "Fine", "system_type": "t" * 101},
        )
        assert long_type.status_code == 400 and "The system type must be at most 100 characters" in long_type.text
        assert await systems_of(world, world.org_a) == before


async def test_html_and_script_in_every_field_come_back_escaped(
    app: Starlette, world: World, owner: str, tmp_path: Path
) -> None:
    evil = '<script>alert("x")</script><b onmouseover=alert(1)>'
    folder = tmp_path / evil.replace("/", "_")
    folder.mkdir()
    async with signed_in(app, owner) as (client, csrf):
        await client.post(
            f"/dashboard/organizations/{world.org_a}/systems",
            data={"csrf_token": csrf, "name": evil, "system_type": evil, "criticality": evil},
        )
        system = next(s for s in await systems_of(world, world.org_a) if s.name == evil)
        added = await client.post(
            f"/dashboard/systems/{system.id}/sources", data={"csrf_token": csrf, "path": str(folder), "branch": evil}
        )
        assert added.status_code == 303
        # A refused form shows what was typed, escaped too.
        refused = await client.post(
            f"/dashboard/organizations/{world.org_a}/systems",
            data={"csrf_token": csrf, "name": "", "system_type": evil},
        )
        pages = [
            await client.get(f"/dashboard/organizations/{world.org_a}/systems"),
            await client.get(f"/dashboard/systems/{system.id}/sources"),
            await client.get(f"/dashboard/systems/{system.id}/settings"),
            await client.get(f"/dashboard/systems/{system.id}"),
            await client.get("/dashboard"),
            refused,
        ]
        for page in pages:
            assert "<script>" not in page.text and "<b onmouseover" not in page.text, page.url
            assert "&lt;script&gt;alert(" in page.text, page.url


async def test_forged_or_missing_csrf_and_cross_site_posts_are_403_and_write_nothing(
    app: Starlette, world: World, owner: str, tmp_path: Path
) -> None:
    async with signed_in(app, owner) as (client, csrf):
        systems_page = f"/dashboard/organizations/{world.org_a}/systems"
        before = await systems_of(world, world.org_a)
        for data in ({"name": "A"}, {"csrf_token": "forged-" + csrf[7:], "name": "A"}, {"csrf_token": "", "name": "A"}):
            answer = await client.post(systems_page, data=data)
            assert answer.status_code == 403 and "expired or did not come from this page" in answer.text
        cross = await client.post(
            systems_page, data={"csrf_token": csrf, "name": "A"}, headers={"Origin": "https://evil.example"}
        )
        assert cross.status_code == 403
        forged = await client.post(
            f"/dashboard/systems/{world.system_a}/retire", data={"csrf_token": "x" * 43, "confirm": "retire"}
        )
        assert forged.status_code == 403
        assert await systems_of(world, world.org_a) == before


async def test_oversized_and_unreadable_forms_are_refused(app: Starlette, world: World, owner: str) -> None:
    async with signed_in(app, owner) as (client, csrf):
        systems_page = f"/dashboard/organizations/{world.org_a}/systems"
        before = await systems_of(world, world.org_a)
        huge = await client.post(systems_page, data={"csrf_token": csrf, "name": "x" * 9000})
        assert huge.status_code == 413 and "too large" in huge.text
        many = await client.post(systems_page, data={"csrf_token": csrf, **{f"f{i}": "1" for i in range(30)}})
        assert many.status_code == 400
        wrong_type = await client.post(systems_page, json={"csrf_token": csrf, "name": "x"})
        assert wrong_type.status_code == 415
        assert await systems_of(world, world.org_a) == before


async def test_a_local_source_must_be_an_absolute_path_and_exist_to_be_verified(
    app: Starlette, world: World, owner: str, tmp_path: Path
) -> None:
    async with signed_in(app, owner) as (client, csrf):
        page = f"/dashboard/systems/{world.system_a2}/sources"
        for path in ("relative/dir", "https://git.example/repo.git", "  "):
            answer = await client.post(page, data={"csrf_token": csrf, "kind": "local", "path": path})
            assert answer.status_code == 400, path
            assert 'role="alert"' in answer.text
        assert await sources_of(world, world.system_a2) == []
        gone = tmp_path / "gone"
        gone.mkdir()
        assert (await client.post(page, data={"csrf_token": csrf, "path": str(gone)})).status_code == 303
        gone.rmdir()
        (source,) = await sources_of(world, world.system_a2)
        refused = await client.post(f"{page}/{source.id}/verify", data={"csrf_token": csrf})
        assert refused.status_code == 400 and "does not exist or is not a directory" in refused.text
        assert (await sources_of(world, world.system_a2))[0].status == "PENDING"


async def test_editing_a_system_and_retiring_it_for_good(
    app: Starlette, client: httpx.AsyncClient, world: World, owner: str, tmp_path: Path
) -> None:
    async with signed_in(app, owner) as (browser, csrf):
        settings = f"/dashboard/systems/{world.system_a2}/settings"
        page = await browser.get(settings)
        assert page.status_code == 200 and "Retiring is final" in page.text
        saved = await browser.post(
            settings, data={"csrf_token": csrf, "name": "Renamed", "system_type": "", "criticality": "low"}
        )
        assert saved.status_code == 303
        system = next(s for s in await systems_of(world, world.org_a) if s.id == world.system_a2)
        assert (system.name, system.system_type, system.criticality) == ("Renamed", None, "low")
        blank = await browser.post(settings, data={"csrf_token": csrf, "name": " "})
        assert blank.status_code == 400
        await browser.post(
            f"/dashboard/systems/{world.system_a2}/sources", data={"csrf_token": csrf, "path": str(tmp_path)}
        )
        unconfirmed = await browser.post(f"/dashboard/systems/{world.system_a2}/retire", data={"csrf_token": csrf})
        assert unconfirmed.status_code == 400 and "Tick the box" in unconfirmed.text
        assert (await sources_of(world, world.system_a2))[0].status == "PENDING"
        retired = await browser.post(
            f"/dashboard/systems/{world.system_a2}/retire", data={"csrf_token": csrf, "confirm": "retire"}
        )
        assert retired.status_code == 303
        system = next(s for s in await systems_of(world, world.org_a) if s.id == world.system_a2)
        assert system.lifecycle_status == "RETIRED"
        assert (await sources_of(world, world.system_a2))[0].status == "RETIRED"
        page = await browser.get(settings)
        assert "This AI System is retired" in page.text and "Retire AI System" not in page.text
        edit = await browser.post(settings, data={"csrf_token": csrf, "name": "Again"})
        assert edit.status_code == 409 and "is retired" in edit.text
        add = await browser.post(
            f"/dashboard/systems/{world.system_a2}/sources", data={"csrf_token": csrf, "path": str(tmp_path)}
        )
        assert add.status_code == 409
    # The API agrees: the system is listed as RETIRED and takes no new run.
    systems = await client.get("/api/v1/systems", headers=bearer(world.agent_key_a))
    listed = {s["aiSystemId"]: s for s in systems.json()["systems"]}
    assert listed[world.system_a2]["lifecycleStatus"] == "RETIRED"
    run = await client.post(
        "/api/v1/assurance/runs",
        json={"aiSystemId": world.system_a2, "engines": {"static": {"enabled": True}}},
        headers=bearer(world.agent_key_a),
    )
    assert run.status_code == 400 and re.search("is retired; it takes no new runs", run.text)

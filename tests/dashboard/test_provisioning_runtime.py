"""The runtime targets and evidence binders pages through HTTP: owners and admins add, verify, consent to
and retire URL targets (header values sealed, never shown) and create and deactivate binders; members read;
another organization's target or binder is the same 404 as a missing one; bad input writes nothing."""

from __future__ import annotations

import httpx
import pytest
from dashboard_helpers import People, add_user
from provisioning_helpers import add_owner, signed_in
from service_helpers import World, bearer
from sqlmodel import select
from starlette.applications import Starlette

from assay.backend.storage.models import EvidenceBinder, RuntimeTarget

# A global address literal: checked without DNS, never contacted by these tests.
URL = "https://1.1.1.1/mcp"


@pytest.fixture
async def owner(world: World) -> str:
    return await add_owner(world)


async def _targets(world: World, system: str) -> list[RuntimeTarget]:
    async with world.sessions() as session:
        return list((await session.exec(select(RuntimeTarget).where(RuntimeTarget.ai_system_id == system))).all())


async def _binders(world: World, system: str) -> list[EvidenceBinder]:
    async with world.sessions() as session:
        return list((await session.exec(select(EvidenceBinder).where(EvidenceBinder.ai_system_id == system))).all())


async def test_an_owner_adds_verifies_consents_and_retires_a_runtime_target(
    app: Starlette, world: World, owner: str
) -> None:
    page = f"/dashboard/systems/{world.system_a}/targets"
    async with signed_in(app, owner) as (client, csrf):
        empty = await client.get(page)
        assert empty.status_code == 200 and "No runtime target yet." in empty.text
        added = await client.post(
            page,
            data={
                "csrf_token": csrf,
                "kind": "mcp-url",
                "url": URL,
                "protocol": "",
                "headers": "X-Token=s3cret-value\n",
            },
        )
        assert added.status_code == 303, added.text
        (target,) = await _targets(world, world.system_a)
        assert (target.kind, target.address, target.status, target.header_names) == (
            "mcp-url",
            URL,
            "PENDING",
            ["X-Token"],
        )
        assert target.sealed_headers is not None and b"s3cret-value" not in target.sealed_headers
        listed = await client.get(page)
        assert URL in listed.text and "X-Token" in listed.text and "s3cret-value" not in listed.text

        assert (await client.post(f"{page}/{target.id}/verify", data={"csrf_token": csrf})).status_code == 303
        none = await client.post(f"{page}/{target.id}/consent", data={"csrf_token": csrf})
        assert none.status_code == 400 and "Tick at least one suite" in none.text
        consent = await client.post(
            f"{page}/{target.id}/consent",
            data={"csrf_token": csrf, "suite_catalogue": "on", "suite_poisoning": "on", "suite_agent": "on"},
        )
        assert consent.status_code == 303
        (target,) = await _targets(world, world.system_a)
        assert (target.status, target.consented_suites) == ("VERIFIED", ["catalogue", "poisoning"])
        assert (await client.post(f"{page}/{target.id}/retire", data={"csrf_token": csrf})).status_code == 303
        again = await client.post(f"{page}/{target.id}/verify", data={"csrf_token": csrf})
        assert again.status_code == 409 and "retired (final)" in again.text
        assert (await _targets(world, world.system_a))[0].status == "RETIRED"


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"kind": "mcp-url", "url": "http://127.0.0.1:9/mcp"}, "loopback"),
        ({"kind": "mcp-url", "url": ""}, "Give the target&#39;s URL"),
        ({"kind": "mcp-command", "url": "rm -rf /"}, "Choose an MCP server or an agent endpoint"),
        ({"kind": "agent-url", "url": URL}, "needs --protocol"),
        ({"kind": "mcp-url", "url": URL, "headers": "not a header"}, "NAME=VALUE"),
    ],
)
async def test_a_refused_target_writes_nothing_and_never_echoes_header_values(
    app: Starlette, world: World, owner: str, data: dict[str, str], words: str
) -> None:
    page = f"/dashboard/systems/{world.system_a}/targets"
    async with signed_in(app, owner) as (client, csrf):
        answer = await client.post(page, data={"csrf_token": csrf, "headers": "Authorization=Bearer hush", **data})
        assert answer.status_code == 400 and words in answer.text, answer.text[-1500:]
        assert "hush" not in answer.text
    assert await _targets(world, world.system_a) == []


async def test_an_owner_creates_and_deactivates_a_binder_the_api_lists(
    app: Starlette, client: httpx.AsyncClient, world: World, owner: str
) -> None:
    page = f"/dashboard/systems/{world.system_a}/binders"
    async with signed_in(app, owner) as (browser, csrf):
        assert "No binder bound to this AI System yet." in (await browser.get(page)).text
        bad = await browser.post(
            page, data={"csrf_token": csrf, "source_system": "ops", "adapter": "structured", "max_record_bytes": "-5"}
        )
        assert bad.status_code == 400 and "whole number of bytes" in bad.text
        bad = await browser.post(page, data={"csrf_token": csrf, "source_system": " ", "adapter": "structured"})
        assert bad.status_code == 400 and "The source system must be 1 to 100 characters" in bad.text
        bad = await browser.post(page, data={"csrf_token": csrf, "source_system": "ops", "adapter": "nope"})
        assert bad.status_code == 400 and "Unknown adapter" in bad.text
        assert await _binders(world, world.system_a) == []
        created = await browser.post(
            page,
            data={
                "csrf_token": csrf,
                "source_system": "ops-agent-prod",
                "adapter": "structured",
                "require_event_id": "on",
            },
        )
        assert created.status_code == 303
        (binder,) = await _binders(world, world.system_a)
        assert (binder.source_system, binder.adapter_id, binder.active, binder.require_event_id) == (
            "ops-agent-prod",
            "structured",
            True,
            True,
        )
        listed = await browser.get(page)
        assert binder.id in listed.text and "active" in listed.text
        # The API lists it as the contract's EvidenceBinderList.
        key = await world.key(["source:read"])
        api = await client.get("/api/v1/evidence/binders", headers=bearer(key))
        assert any(b["binderId"] == binder.id and b["aiSystemId"] == world.system_a for b in api.json()["binders"])
        gone = await browser.post(f"{page}/{binder.id}/deactivate", data={"csrf_token": csrf})
        assert gone.status_code == 303
        assert (await _binders(world, world.system_a))[0].active is False
        assert "/deactivate" not in (await browser.get(page)).text


async def test_members_read_targets_and_binders_and_strangers_get_the_same_404(
    app: Starlette, world: World, people: People, owner: str
) -> None:
    async with signed_in(app, owner) as (client, csrf):
        await client.post(
            f"/dashboard/systems/{world.system_a}/targets", data={"csrf_token": csrf, "kind": "mcp-url", "url": URL}
        )
        await client.post(
            f"/dashboard/systems/{world.system_a}/binders",
            data={"csrf_token": csrf, "source_system": "ops", "adapter": "log"},
        )
    (target,) = await _targets(world, world.system_a)
    (binder,) = await _binders(world, world.system_a)
    async with signed_in(app, people.ann) as (member, csrf):
        for kind in ("targets", "binders"):
            page = await member.get(f"/dashboard/systems/{world.system_a}/{kind}")
            assert page.status_code == 200 and "<form" not in page.text.split("</header>", 1)[1]
        for path in (
            f"/dashboard/systems/{world.system_a}/targets/{target.id}/retire",
            f"/dashboard/systems/{world.system_a}/binders/{binder.id}/deactivate",
        ):
            refused = await member.post(path, data={"csrf_token": csrf})
            assert refused.status_code == 403 and "Only owners and admins" in refused.text
    await add_user(world.sessions, world.org_b, "bea@globex.example", role="owner")
    async with signed_in(app, "bea@globex.example") as (stranger, csrf):
        missing = await stranger.get("/dashboard/systems/sys_missing/targets")
        for path in (f"/dashboard/systems/{world.system_a}/targets", f"/dashboard/systems/{world.system_a}/binders"):
            answer = await stranger.get(path)
            assert answer.status_code == 404 and answer.text == missing.text
        # Their own system's page does not reach organization A's target or binder either.
        for path in (
            f"/dashboard/systems/{world.system_b}/targets/{target.id}/retire",
            f"/dashboard/systems/{world.system_b}/binders/{binder.id}/deactivate",
        ):
            assert (await stranger.post(path, data={"csrf_token": csrf})).status_code == 404
    assert (await _targets(world, world.system_a))[0].status == "PENDING"
    assert (await _binders(world, world.system_a))[0].active is True


async def test_retiring_a_system_retires_its_targets_and_deactivates_its_binders(
    app: Starlette, world: World, owner: str
) -> None:
    async with signed_in(app, owner) as (client, csrf):
        await client.post(
            f"/dashboard/systems/{world.system_a2}/targets", data={"csrf_token": csrf, "kind": "mcp-url", "url": URL}
        )
        await client.post(
            f"/dashboard/systems/{world.system_a2}/binders",
            data={"csrf_token": csrf, "source_system": "ops", "adapter": "log"},
        )
        retired = await client.post(
            f"/dashboard/systems/{world.system_a2}/retire", data={"csrf_token": csrf, "confirm": "retire"}
        )
        assert retired.status_code == 303
        assert [t.status for t in await _targets(world, world.system_a2)] == ["RETIRED"]
        assert [b.active for b in await _binders(world, world.system_a2)] == [False]
        for kind, data in (
            ("targets", {"kind": "mcp-url", "url": URL}),
            ("binders", {"source_system": "ops", "adapter": "log"}),
        ):
            page = await client.get(f"/dashboard/systems/{world.system_a2}/{kind}")
            assert "This AI System is retired" in page.text
            refused = await client.post(
                f"/dashboard/systems/{world.system_a2}/{kind}", data={"csrf_token": csrf, **data}
            )
            assert refused.status_code == 409 and "is retired" in refused.text
        assert len(await _targets(world, world.system_a2)) == 1 and len(await _binders(world, world.system_a2)) == 1

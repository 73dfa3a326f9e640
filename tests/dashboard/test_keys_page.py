"""The API keys page of an organization, through HTTP as a browser uses it: an owner creates a key (its
secret shown once, on a no-store answer), revokes it after a confirmation page, and the API refuses it from
then on; viewers read the list without forms and are refused (403) when they post anyway; another
organization's keys are the same 404 as a missing organization; forged CSRF, oversized forms and stale
sessions change nothing."""

from __future__ import annotations

import logging
import re

import httpx
import pytest
from dashboard_helpers import People, add_user, csrf_of, sign_in
from service_helpers import World, bearer
from sqlmodel import select
from starlette.applications import Starlette

from assay.backend.storage.models import ApiKey

OWNER = "olive@acme.example"
VIEWER = "vic@acme.example"
_SECRET = re.compile(r'<textarea id="api-key"[^>]*>(svc_live_[A-Za-z0-9_-]+)</textarea>')


def _browser(app: Starlette) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://assay.test")


async def _keys(world: World, org: str) -> list[ApiKey]:
    async with world.sessions() as session:
        return list((await session.exec(select(ApiKey).where(ApiKey.organization_id == org))).all())


@pytest.fixture
async def staff(world: World, people: People) -> None:
    await add_user(world.sessions, world.org_a, OWNER, "owner")
    await add_user(world.sessions, world.org_a, VIEWER, "viewer")


async def test_an_owner_creates_a_key_sees_it_once_revokes_it_and_the_api_refuses_it(
    app: Starlette, world: World, staff: None, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="assay")
    page_url = f"/dashboard/organizations/{world.org_a}/keys"
    async with _browser(app) as owner:
        assert (await sign_in(owner, OWNER)).status_code == 303
        home = await owner.get("/dashboard")
        assert page_url in home.text
        page = await owner.get(page_url)
        assert page.status_code == 200 and "Create a key" in page.text
        before = {k.id for k in await _keys(world, world.org_a)}

        created = await owner.post(
            page_url, data={"csrf_token": csrf_of(page.text), "purpose": "assurance-agent", "expiry": "30d"}
        )
        assert created.status_code == 201, created.text
        assert created.headers["cache-control"] == "no-store"
        secret = _SECRET.search(created.text)
        assert secret is not None and "only time the key is shown" in created.text
        api_key = secret.group(1)
        (new,) = [k for k in await _keys(world, world.org_a) if k.id not in before]
        assert new.purpose == "assurance-agent" and "scan:create" in new.scopes and "evidence:ingest" not in new.scopes
        assert new.expires_at is not None and 29 <= (new.expires_at - new.created_at).days <= 30
        assert api_key not in new.key_hash and new.id in created.text

        # The key works on the API...
        assert (await owner.get("/api/v1/systems", headers=bearer(api_key))).status_code == 200
        # ...and is never shown again: the list shows its id and first characters only.
        again = await owner.get(page_url)
        assert again.status_code == 200 and new.id in again.text
        assert api_key not in again.text and new.display_prefix in again.text

        confirm = await owner.get(f"{page_url}/{new.id}/revoke")
        assert confirm.status_code == 200 and "Revoke this key" in confirm.text and api_key not in confirm.text
        revoked = await owner.post(f"{page_url}/{new.id}/revoke", data={"csrf_token": csrf_of(confirm.text)})
        assert revoked.status_code == 303 and revoked.headers["location"] == f"{page_url}?revoked={new.id}"
        after = await owner.get(revoked.headers["location"])
        assert "is revoked" in after.text and f"{new.id} is revoked" in after.text

    refused = await httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t").get(
        "/api/v1/systems", headers=bearer(api_key)
    )
    assert refused.status_code == 401
    assert all(api_key not in record.getMessage() and api_key not in str(record.__dict__) for record in caplog.records)


async def test_a_viewer_reads_the_keys_without_forms_and_is_refused_when_posting(
    app: Starlette, world: World, staff: None
) -> None:
    page_url = f"/dashboard/organizations/{world.org_a}/keys"
    key_id = world.key_ids.get(world.agent_key_a) or (await _keys(world, world.org_a))[0].id
    before = await _keys(world, world.org_a)
    async with _browser(app) as viewer:
        await sign_in(viewer, VIEWER)
        page = await viewer.get(page_url)
        assert page.status_code == 200 and key_id in page.text
        assert "Create a key" not in page.text and "Revoke" not in page.text
        csrf = csrf_of(page.text)
        answer = await viewer.post(page_url, data={"csrf_token": csrf, "purpose": "assurance-agent", "expiry": "7d"})
        assert answer.status_code == 403 and "Only owners and admins of this organization can" in answer.text
        assert (await viewer.get(f"{page_url}/{key_id}/revoke")).status_code == 403
        assert (await viewer.post(f"{page_url}/{key_id}/revoke", data={"csrf_token": csrf})).status_code == 403
    after = await _keys(world, world.org_a)
    assert len(after) == len(before) and all(k.revoked_at is None for k in after)


async def test_another_organizations_keys_are_the_same_404_as_a_missing_one(
    app: Starlette, world: World, people: People
) -> None:
    key_of_a = (await _keys(world, world.org_a))[0].id
    async with _browser(app) as bob:
        await sign_in(bob, people.bob)
        csrf = csrf_of((await bob.get("/dashboard")).text)
        missing = await bob.get("/dashboard/organizations/org_nope/keys")
        assert missing.status_code == 404
        for answer in (
            await bob.get(f"/dashboard/organizations/{world.org_a}/keys"),
            await bob.post(f"/dashboard/organizations/{world.org_a}/keys", data={"csrf_token": csrf}),
            await bob.get(f"/dashboard/organizations/{world.org_a}/keys/{key_of_a}/revoke"),
            await bob.post(f"/dashboard/organizations/{world.org_a}/keys/{key_of_a}/revoke", data={"csrf_token": csrf}),
            # A key of A through B's own page is as missing as an unknown key.
            await bob.get(f"/dashboard/organizations/{world.org_b}/keys/{key_of_a}/revoke"),
            await bob.post(f"/dashboard/organizations/{world.org_b}/keys/{key_of_a}/revoke", data={"csrf_token": csrf}),
        ):
            assert answer.status_code == 404 and answer.text == missing.text
    assert all(k.revoked_at is None for k in await _keys(world, world.org_a))


async def test_forged_csrf_oversized_forms_bad_choices_and_stale_sessions_create_nothing(
    app: Starlette, world: World, staff: None
) -> None:
    page_url = f"/dashboard/organizations/{world.org_a}/keys"
    before = len(await _keys(world, world.org_a))
    async with _browser(app) as owner:
        await sign_in(owner, OWNER)
        csrf = csrf_of((await owner.get(page_url)).text)
        forged = await owner.post(page_url, data={"csrf_token": "x" * 43, "purpose": "assurance-agent", "expiry": "7d"})
        assert forged.status_code == 403 and "expired or did not come from this page" in forged.text
        cross = await owner.post(
            page_url,
            data={"csrf_token": csrf, "purpose": "assurance-agent", "expiry": "7d"},
            headers={"Origin": "https://evil.example"},
        )
        assert cross.status_code == 403
        huge = await owner.post(page_url, data={"csrf_token": csrf, "purpose": "a" * 9000, "expiry": "7d"})
        assert huge.status_code == 413
        bad = await owner.post(
            page_url, data={"csrf_token": csrf, "purpose": "<script>x</script>", "expiry": "forever"}
        )
        assert bad.status_code == 400 and "Choose a purpose and an expiry" in bad.text and "<script>x" not in bad.text
    async with _browser(app) as stale:
        stale.cookies.set("assay_session", "a-session-that-ended-long-ago")
        answer = await stale.post(page_url, data={"csrf_token": csrf, "purpose": "assurance-agent", "expiry": "7d"})
        assert answer.status_code == 303 and answer.headers["location"].startswith("/dashboard/login?next=")
    assert len(await _keys(world, world.org_a)) == before

"""The people page and invitation links, through HTTP as a browser uses them: roles and their rules (only an
owner makes or manages owners, the last active owner stays, nobody disables themselves), disabling a member
in one organization, invitations issued, opened, accepted once and refused (410, one page) when used,
revoked, expired or unknown; an existing account joins with its own password. Emails with markup are shown
as text; forged CSRF and viewers' posts change nothing."""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta

import httpx
import pytest
from dashboard_helpers import PASSWORD, People, add_user, csrf_of, hidden_fields, session_cookie, sign_in
from service_helpers import World
from sqlmodel import select
from starlette.applications import Starlette

from assay.backend.dashboard import invitations
from assay.backend.storage.models import DashboardInvitation, DashboardUser, Membership, utcnow

OWNER = "olive@acme.example"
ADMIN = "adam@acme.example"
VIEWER = "vic@acme.example"
NEW_PASSWORD = "a brand new passphrase"
_LINK = re.compile(r'<textarea id="invitation-link"[^>]*>([^<]+)</textarea>')


def _main(html: str) -> str:
    return html[html.index("<main") :]


def _browser(app: Starlette) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://assay.test")


@pytest.fixture
async def staff(world: World, people: People) -> None:
    await add_user(world.sessions, world.org_a, OWNER, "owner")
    await add_user(world.sessions, world.org_a, ADMIN, "admin")
    await add_user(world.sessions, world.org_a, VIEWER, "viewer")


async def _user_id(world: World, email: str) -> str:
    async with world.sessions() as session:
        user = (await session.exec(select(DashboardUser).where(DashboardUser.email == email))).one()
        return user.id


async def _membership(world: World, email: str, org: str) -> Membership | None:
    async with world.sessions() as session:
        return await session.get(Membership, (await _user_id(world, email), org))


@asynccontextmanager
async def _signed_in(app: Starlette, email: str) -> AsyncIterator[httpx.AsyncClient]:
    async with _browser(app) as client:
        assert (await sign_in(client, email)).status_code == 303
        yield client


async def test_roles_change_within_the_rules_and_a_disabled_member_loses_the_organization_at_once(
    app: Starlette, world: World, people: People, staff: None
) -> None:
    people_url = f"/dashboard/organizations/{world.org_a}/people"
    ann_id, owner_id, admin_id = [await _user_id(world, e) for e in (people.ann, OWNER, ADMIN)]
    async with _signed_in(app, ADMIN) as admin, _signed_in(app, people.ann) as ann:
        page = await admin.get(people_url)
        assert page.status_code == 200
        assert all(email in page.text for email in (people.ann, OWNER, ADMIN, VIEWER))
        assert 'value="owner"' not in page.text  # an admin is not offered the owner role
        assert "Only an owner manages an owner." in page.text
        csrf = csrf_of(page.text)

        # An admin cannot make anyone an owner, nor change or disable an owner.
        raised = await admin.post(f"{people_url}/{ann_id}/role", data={"csrf_token": csrf, "role": "owner"})
        assert raised.status_code == 403 and "Only an owner can make someone an owner." in raised.text
        demoted = await admin.post(f"{people_url}/{owner_id}/role", data={"csrf_token": csrf, "role": "viewer"})
        assert demoted.status_code == 403 and "Only an owner can change or disable an owner." in demoted.text
        assert (await admin.post(f"{people_url}/{owner_id}/disable", data={"csrf_token": csrf})).status_code == 403
        assert (await admin.post(f"{people_url}/{admin_id}/disable", data={"csrf_token": csrf})).status_code == 409
        unknown = await admin.post(f"{people_url}/{ann_id}/role", data={"csrf_token": csrf, "role": "root"})
        assert unknown.status_code == 400 and "Unknown role" in unknown.text

        # An admin changes a member's role, then disables her: her pages of Acme close at once.
        changed = await admin.post(f"{people_url}/{ann_id}/role", data={"csrf_token": csrf, "role": "viewer"})
        assert changed.status_code == 303 and changed.headers["location"] == f"{people_url}?done=role"
        assert "The role is changed." in (await admin.get(changed.headers["location"])).text
        membership = await _membership(world, people.ann, world.org_a)
        assert membership is not None and membership.role == "viewer"
        assert (await ann.get(people_url)).status_code == 200
        disabled = await admin.post(f"{people_url}/{ann_id}/disable", data={"csrf_token": csrf})
        assert disabled.status_code == 303
        assert (await ann.get(people_url)).status_code == 404
        assert "Acme" not in (await ann.get("/dashboard")).text
        listed = await admin.get(people_url)
        assert f'<tr id="member-{ann_id}">' in listed.text and ">disabled</span>" in listed.text
        assert (await admin.post(f"{people_url}/{ann_id}/enable", data={"csrf_token": csrf})).status_code == 303
        assert (await ann.get(people_url)).status_code == 200

    async with _signed_in(app, OWNER) as owner:
        csrf = csrf_of((await owner.get(people_url)).text)
        # The last active owner can neither step down nor be disabled...
        alone = await owner.post(f"{people_url}/{owner_id}/role", data={"csrf_token": csrf, "role": "admin"})
        assert alone.status_code == 409 and "last active owner" in alone.text
        assert (await owner.post(f"{people_url}/{owner_id}/disable", data={"csrf_token": csrf})).status_code == 409
        # ...until there is another: an owner makes the admin an owner, then steps down.
        made = await owner.post(f"{people_url}/{admin_id}/role", data={"csrf_token": csrf, "role": "owner"})
        assert made.status_code == 303
        assert (
            await owner.post(f"{people_url}/{owner_id}/role", data={"csrf_token": csrf, "role": "admin"})
        ).status_code == 303
    roles = {e: (await _membership(world, e, world.org_a)) for e in (OWNER, ADMIN)}
    assert {e: m.role for e, m in roles.items() if m is not None} == {OWNER: "admin", ADMIN: "owner"}


async def test_viewers_forged_forms_and_other_organizations_change_nobody(
    app: Starlette, world: World, people: People, staff: None
) -> None:
    people_url = f"/dashboard/organizations/{world.org_a}/people"
    ann_id = await _user_id(world, people.ann)
    async with _signed_in(app, VIEWER) as viewer:
        page = await viewer.get(people_url)
        assert page.status_code == 200 and people.ann in page.text
        assert "Change role" not in page.text and "Create invitation link" not in page.text
        csrf = csrf_of(page.text)
        for path, data in (
            (f"{people_url}/{ann_id}/role", {"role": "admin"}),
            (f"{people_url}/{ann_id}/disable", {}),
            (f"{people_url}/invitations", {"email": "eve@acme.example", "role": "owner"}),
        ):
            answer = await viewer.post(path, data={"csrf_token": csrf, **data})
            assert answer.status_code == 403 and "Only owners and admins of this organization can" in answer.text
    async with _signed_in(app, OWNER) as owner:
        forged = await owner.post(f"{people_url}/{ann_id}/role", data={"csrf_token": "forged", "role": "admin"})
        assert forged.status_code == 403
    async with _signed_in(app, people.bob) as bob:
        csrf = csrf_of((await bob.get("/dashboard")).text)
        missing = await bob.get("/dashboard/organizations/org_nope/people")
        for answer in (
            await bob.get(people_url),
            await bob.post(f"{people_url}/{ann_id}/role", data={"csrf_token": csrf, "role": "viewer"}),
            await bob.post(
                f"{people_url}/invitations", data={"csrf_token": csrf, "email": "x@y.example", "role": "viewer"}
            ),
        ):
            assert answer.status_code == 404 and answer.text == missing.text
    membership = await _membership(world, people.ann, world.org_a)
    assert membership is not None and membership.role == "member" and membership.disabled_at is None
    async with world.sessions() as session:
        assert (await session.exec(select(DashboardInvitation))).all() == []


async def test_an_invitation_link_sets_a_password_signs_in_once_and_then_is_gone(
    app: Starlette, world: World, people: People, staff: None, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="assay")
    people_url = f"/dashboard/organizations/{world.org_a}/people"
    async with _signed_in(app, ADMIN) as admin:
        csrf = csrf_of((await admin.get(people_url)).text)
        owner_invite = await admin.post(
            f"{people_url}/invitations", data={"csrf_token": csrf, "email": "x@acme.example", "role": "owner"}
        )
        assert owner_invite.status_code == 403
        member_again = await admin.post(
            f"{people_url}/invitations", data={"csrf_token": csrf, "email": people.ann, "role": "viewer"}
        )
        assert member_again.status_code == 409 and "already a member" in member_again.text
        issued = await admin.post(
            f"{people_url}/invitations", data={"csrf_token": csrf, "email": " Nia@Acme.Example ", "role": "member"}
        )
        assert issued.status_code == 201 and issued.headers["cache-control"] == "no-store"
        found = _LINK.search(issued.text)
        assert found is not None
        link = found.group(1)
        assert link.startswith("http://assay.test/dashboard/invitations/")
        listed = await admin.get(people_url)
        assert "nia@acme.example" in listed.text and link not in listed.text  # shown once
    token = link.rsplit("/", 1)[1]
    async with world.sessions() as session:
        (record,) = (await session.exec(select(DashboardInvitation))).all()
        assert token not in record.token_hash and record.issued_by == ADMIN and record.role == "member"
        assert timedelta(days=7) - (record.expires_at - record.created_at) < timedelta(seconds=5)

    path = link.removeprefix("http://assay.test")
    async with _browser(app) as nia:
        form = await nia.get(path)
        assert form.status_code == 200 and "Join Acme" in form.text and "nia@acme.example" in form.text
        fields = hidden_fields(form.text)
        short = await nia.post(path, data={**fields, "password": "short", "password_again": "short"})
        assert short.status_code == 400 and "at least 12 characters" in short.text
        differ = await nia.post(path, data={**fields, "password": NEW_PASSWORD, "password_again": NEW_PASSWORD + "!"})
        assert differ.status_code == 400 and "The two passwords differ." in differ.text
        stale = await nia.post(
            path, data={"csrf_token": "x" * 43, "password": NEW_PASSWORD, "password_again": NEW_PASSWORD}
        )
        assert stale.status_code == 403
        joined = await nia.post(path, data={**fields, "password": NEW_PASSWORD, "password_again": NEW_PASSWORD})
        assert joined.status_code == 303 and joined.headers["location"] == "/dashboard"
        assert session_cookie(nia) is not None
        home = await nia.get("/dashboard")
        assert home.status_code == 200 and "nia@acme.example" in home.text and "Acme" in home.text
        again = await nia.get(path)
        assert again.status_code == 410
        reused = await nia.post(path, data={**fields, "password": NEW_PASSWORD, "password_again": NEW_PASSWORD})
        assert reused.status_code == 410
    membership = await _membership(world, "nia@acme.example", world.org_a)
    assert membership is not None and membership.role == "member"
    # The access log names the route template: the token never reaches a log line.
    assert any("/dashboard/invitations/{token}" in r.getMessage() for r in caplog.records)
    assert all(token not in r.getMessage() and token not in str(r.__dict__) for r in caplog.records)
    async with _browser(app) as fresh:
        assert (await sign_in(fresh, "nia@acme.example", NEW_PASSWORD)).status_code == 303
        unknown = await fresh.get("/dashboard/invitations/not-a-real-token")
        assert unknown.status_code == 410 and _main(unknown.text) == _main(again.text)


async def test_revoked_replaced_and_expired_invitations_are_gone_and_an_account_joins_with_its_password(
    app: Starlette, world: World, people: People, staff: None
) -> None:
    people_url = f"/dashboard/organizations/{world.org_a}/people"
    async with _signed_in(app, OWNER) as owner:
        csrf = csrf_of((await owner.get(people_url)).text)

        async def invite(email: str, role: str = "viewer") -> str:
            answer = await owner.post(
                f"{people_url}/invitations", data={"csrf_token": csrf, "email": email, "role": role}
            )
            assert answer.status_code == 201, answer.text
            found = _LINK.search(answer.text)
            assert found is not None
            return found.group(1).removeprefix("http://assay.test")

        first = await invite("zed@acme.example")
        second = await invite("zed@acme.example")  # replaces the first
        listed = await owner.get(people_url)
        assert listed.text.count("<td>zed@acme.example</td>") == 1
        invitation_id = re.search(r'id="invitation-(inv_[0-9a-f]+)"', listed.text)
        assert invitation_id is not None
        revoked = await owner.post(
            f"{people_url}/invitations/{invitation_id.group(1)}/revoke", data={"csrf_token": csrf}
        )
        assert revoked.status_code == 303
        bob_link = await invite(people.bob, "admin")  # an existing account (member of Globex)

    async with world.sessions() as session:
        expired = await invitations.issue(
            session,
            world.org_a,
            "old@acme.example",
            "viewer",
            issued_by="test",
            actor_role="owner",
            now=utcnow() - timedelta(days=8),
        )
        await session.commit()
    async with _browser(app) as visitor:
        gone = [await visitor.get(p) for p in (first, second, f"/dashboard/invitations/{expired.token}")]
        assert [g.status_code for g in gone] == [410, 410, 410]
        assert len({g.text for g in gone}) == 1 and "cannot be used" in gone[0].text

        form = await visitor.get(bob_link)
        assert (
            form.status_code == 200
            and "already has an Assay account" in form.text
            and "password_again" not in form.text
        )
        fields = hidden_fields(form.text)
        wrong = await visitor.post(bob_link, data={**fields, "password": "somebody else's password"})
        assert wrong.status_code == 401 and "not the password of this account" in wrong.text
        joined = await visitor.post(bob_link, data={**fields, "password": PASSWORD})
        assert joined.status_code == 303
        home = await visitor.get("/dashboard")
        assert "Acme" in home.text and "Globex" in home.text
    membership = await _membership(world, people.bob, world.org_a)
    assert membership is not None and membership.role == "admin"


async def test_markup_in_an_email_is_shown_as_text(app: Starlette, world: World, staff: None) -> None:
    people_url = f"/dashboard/organizations/{world.org_a}/people"
    hostile = '<script>alert(1)</script>"onmouseover="x@evil.example'
    async with _signed_in(app, OWNER) as owner:
        csrf = csrf_of((await owner.get(people_url)).text)
        answer = await owner.post(
            f"{people_url}/invitations", data={"csrf_token": csrf, "email": hostile, "role": "viewer"}
        )
        assert answer.status_code == 201, answer.text
        assert "<script>alert(1)" not in answer.text and '"onmouseover="' not in answer.text
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in answer.text
        link = _LINK.search(answer.text)
        assert link is not None
        listed = await owner.get(people_url)
        assert "<script>alert(1)" not in listed.text and "&lt;script&gt;" in listed.text
    async with _browser(app) as visitor:
        form = await visitor.get(link.group(1).removeprefix("http://assay.test"))
        assert form.status_code == 200 and "<script>alert(1)" not in form.text and "&lt;script&gt;" in form.text

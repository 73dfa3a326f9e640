"""Signing in and out of the dashboard, through HTTP as a browser does: cookies, CSRF, fixation, stale
sessions, throttling, open redirects, oversized forms and escaping."""

from __future__ import annotations

import httpx
import pytest
from dashboard_helpers import LOGIN, PASSWORD, People, csrf_of, hidden_fields, session_cookie, sign_in
from service_helpers import World
from sqlmodel import select
from starlette.applications import Starlette

from assay.backend.dashboard import sessions, users
from assay.backend.storage.models import DashboardSession


async def test_sign_in_sets_a_locked_down_session_cookie_and_goes_to_the_dashboard(
    client: httpx.AsyncClient, people: People
) -> None:
    page = await client.get(LOGIN)
    assert page.status_code == 200
    assert 'name="email"' in page.text and 'name="password"' in page.text
    assert any("csrf" in name for name in hidden_fields(page.text))
    assert '<label for="email">' in page.text and '<label for="password">' in page.text

    answer = await sign_in(client, people.ann)
    assert answer.status_code == 303
    assert answer.headers["location"] == "/dashboard"
    cookie = next(c for c in answer.headers.get_list("set-cookie") if c.startswith("assay_session="))
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Path=/" in cookie
    assert "Secure" not in cookie  # plain HTTP: a Secure cookie would never come back

    home = await client.get("/dashboard")
    assert home.status_code == 200
    assert people.ann in home.text and "Sign out" in home.text


async def test_behind_tls_the_cookie_is_secure_and_host_only(app: Starlette, people: People) -> None:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="https://assay.test") as client:
        answer = await sign_in(client, people.ann)
        assert answer.status_code == 303
        cookie = next(c for c in answer.headers.get_list("set-cookie") if "assay_session=" in c)
        assert cookie.startswith("__Host-assay_session=")
        assert "Secure" in cookie and "HttpOnly" in cookie and "Domain" not in cookie
        home = await client.get("/dashboard")
        assert home.status_code == 200
        assert home.headers["strict-transport-security"].startswith("max-age=")


async def test_a_wrong_password_and_an_unknown_email_get_the_same_refusal(
    client: httpx.AsyncClient, people: People
) -> None:
    wrong = await sign_in(client, people.ann, "not the password at all")
    unknown = await sign_in(client, "nobody@acme.example", PASSWORD)
    assert wrong.status_code == unknown.status_code == 401
    assert "do not match an active account" in wrong.text and "do not match an active account" in unknown.text
    assert session_cookie(client) is None
    assert (await client.get("/dashboard")).status_code == 303


async def test_a_disabled_user_cannot_sign_in_and_their_sessions_end(
    client: httpx.AsyncClient, world: World, people: People
) -> None:
    assert (await sign_in(client, people.ann)).status_code == 303
    assert (await client.get("/dashboard")).status_code == 200
    async with world.sessions() as session:
        await users.disable_user(session, people.ann)
        await session.commit()
    answer = await client.get("/dashboard")
    assert answer.status_code == 303 and answer.headers["location"].startswith(LOGIN)
    assert (await sign_in(client, people.ann)).status_code == 401


async def test_a_forged_or_missing_csrf_token_is_refused(client: httpx.AsyncClient, people: People) -> None:
    page = await client.get(LOGIN)
    form = hidden_fields(page.text)
    forged = await client.post(LOGIN, data={**form, "csrf_token": "x" * 43, "email": people.ann, "password": PASSWORD})
    assert forged.status_code == 403
    missing = await client.post(LOGIN, data={"email": people.ann, "password": PASSWORD})
    assert missing.status_code == 403
    client.cookies.clear()
    # A token from another browser's form, without that browser's cookie.
    no_cookie = await client.post(LOGIN, data={**form, "email": people.ann, "password": PASSWORD})
    assert no_cookie.status_code == 403
    assert session_cookie(client) is None


async def test_a_sign_in_posted_from_another_site_is_refused(client: httpx.AsyncClient, people: People) -> None:
    page = await client.get(LOGIN)
    data = {**hidden_fields(page.text), "email": people.ann, "password": PASSWORD}
    answer = await client.post(LOGIN, data=data, headers={"Origin": "https://evil.example"})
    assert answer.status_code == 403
    answer = await client.post(LOGIN, data=data, headers={"Sec-Fetch-Site": "cross-site"})
    assert answer.status_code == 403
    assert session_cookie(client) is None
    same = await client.post(LOGIN, data=data, headers={"Origin": "http://assay.test"})
    assert same.status_code == 303


async def test_sign_in_rotates_the_session_so_a_planted_one_is_worthless(
    app: Starlette, client: httpx.AsyncClient, people: People
) -> None:
    # The attacker signs in and plants their session token in the victim's browser...
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://assay.test") as attacker:
        assert (await sign_in(attacker, people.bob)).status_code == 303
        planted = session_cookie(attacker)
    assert planted is not None
    client.cookies.set("assay_session", planted, domain="assay.test")
    # ... then the victim signs in: a new token, and the planted one no longer opens anything.
    assert (await sign_in(client, people.ann)).status_code == 303
    fresh = session_cookie(client)
    assert fresh is not None and fresh != planted
    home = await client.get("/dashboard")
    assert people.ann in home.text
    async with httpx.AsyncClient(transport=transport, base_url="http://assay.test") as attacker:
        attacker.cookies.set("assay_session", planted, domain="assay.test")
        assert (await attacker.get("/dashboard")).status_code == 303


async def test_an_invented_session_token_is_not_accepted(client: httpx.AsyncClient, people: People) -> None:
    client.cookies.set("assay_session", "A" * 43, domain="assay.test")
    answer = await client.get("/dashboard")
    assert answer.status_code == 303 and answer.headers["location"] == f"{LOGIN}?next=/dashboard"


@pytest.mark.parametrize("field", ["expires_at", "last_seen_at"])
async def test_an_expired_or_idle_session_sends_the_user_to_sign_in(
    client: httpx.AsyncClient, world: World, people: People, field: str
) -> None:
    assert (await sign_in(client, people.ann)).status_code == 303
    async with world.sessions() as session:
        row = (await session.exec(select(DashboardSession))).one()
        setattr(
            row, field, getattr(row, field) - (sessions.LIFETIME if field == "expires_at" else sessions.IDLE_TIMEOUT)
        )
        session.add(row)
        await session.commit()
    answer = await client.get("/dashboard/systems/anything")
    assert answer.status_code == 303
    assert answer.headers["location"] == f"{LOGIN}?next=/dashboard/systems/anything"
    async with world.sessions() as session:
        assert (await session.exec(select(DashboardSession))).all() == []


async def test_sign_out_needs_the_sessions_csrf_token_and_ends_the_session(
    client: httpx.AsyncClient, people: People
) -> None:
    assert (await sign_in(client, people.ann)).status_code == 303
    home = await client.get("/dashboard")
    token = session_cookie(client)
    refused = await client.post("/dashboard/logout", data={"csrf_token": "forged"})
    assert refused.status_code == 403
    assert (await client.get("/dashboard")).status_code == 200
    out = await client.post("/dashboard/logout", data={"csrf_token": csrf_of(home.text)})
    assert out.status_code == 303 and out.headers["location"] == LOGIN
    assert session_cookie(client) is None
    client.cookies.set("assay_session", token or "", domain="assay.test")
    assert (await client.get("/dashboard")).status_code == 303


async def test_repeated_failures_throttle_sign_in_even_with_the_right_password(
    client: httpx.AsyncClient, people: People
) -> None:
    for _ in range(sessions.MAX_FAILURES_PER_EMAIL):
        assert (await sign_in(client, people.ann, "wrong password, try again")).status_code == 401
    throttled = await sign_in(client, people.ann)
    assert throttled.status_code == 429
    assert "Too many failed sign-ins" in throttled.text
    assert session_cookie(client) is None
    # Another account is not locked by ann's failures.
    assert (await sign_in(client, people.bob)).status_code == 303


@pytest.mark.parametrize(
    "target",
    [
        "https://evil.example/",
        "//evil.example/dashboard",
        "/\\evil.example",
        "\\\\evil.example",
        "javascript:alert(1)",
        "/dashboard/../api/v1/assurance/runs",
        "/api/v1/assurance/runs",
        "http:/dashboard",
        "/dashboard\r\nSet-Cookie: x=1",
        "/dashboard\t//evil.example",
        "https:evil.example",
    ],
)
async def test_next_never_leaves_the_dashboard(client: httpx.AsyncClient, people: People, target: str) -> None:
    answer = await sign_in(client, people.ann, next_target=target)
    assert answer.status_code == 303
    assert answer.headers["location"] == "/dashboard"


async def test_next_within_the_dashboard_is_followed_with_its_query(client: httpx.AsyncClient, people: People) -> None:
    signed_out = await client.get("/dashboard/systems/sys_x", params={"page": "2"})
    assert signed_out.status_code == 303
    login_url = signed_out.headers["location"]
    assert login_url.startswith(LOGIN)
    page = await client.get(login_url)
    form = hidden_fields(page.text)
    assert form["next"] == "/dashboard/systems/sys_x?page=2"
    answer = await client.post(LOGIN, data={**form, "email": people.ann, "password": PASSWORD})
    assert answer.headers["location"] == "/dashboard/systems/sys_x?page=2"


async def test_oversized_odd_and_malformed_forms_are_refused_cleanly(client: httpx.AsyncClient, people: People) -> None:
    page = await client.get(LOGIN)
    form = hidden_fields(page.text)
    huge = await client.post(LOGIN, data={**form, "email": people.ann, "password": "x" * 20_000})
    assert huge.status_code == 413 and "too large" in huge.text
    many = await client.post(LOGIN, data={**form, **{f"f{i}": "1" for i in range(50)}})
    assert many.status_code == 400
    as_json = await client.post(LOGIN, json={"email": people.ann, "password": PASSWORD})
    assert as_json.status_code == 415
    broken = await client.post(
        LOGIN, content=b"email=%ff%fe&password=x", headers={"Content-Type": "application/x-www-form-urlencoded"}
    )
    assert broken.status_code == 400
    assert session_cookie(client) is None


async def test_what_a_user_typed_comes_back_escaped(client: httpx.AsyncClient, people: People) -> None:
    hostile = '"><script>alert(1)</script>@x.example'
    answer = await sign_in(client, hostile, "whatever it is")
    assert answer.status_code == 401
    assert "<script>alert(1)</script>" not in answer.text
    assert "&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;@x.example" in answer.text


async def test_pages_carry_a_content_security_policy_and_are_not_cached(
    client: httpx.AsyncClient, people: People
) -> None:
    for response in (await client.get(LOGIN), await client.get("/dashboard")):
        csp = response.headers["content-security-policy"]
        assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp and "script-src" not in csp
        assert response.headers["x-frame-options"] == "DENY"
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["cache-control"] == "no-store"
    css = await client.get("/dashboard/static/dashboard.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")


async def test_unknown_dashboard_paths_ask_for_sign_in_then_answer_404(
    client: httpx.AsyncClient, people: People
) -> None:
    assert (await client.get("/dashboard/no/such/page")).status_code == 303
    assert (await sign_in(client, people.ann)).status_code == 303
    missing = await client.get("/dashboard/no/such/page")
    assert missing.status_code == 404
    assert missing.headers["content-type"].startswith("text/html")
    assert "not shared with you" in missing.text


def test_roles_rank_from_owner_down_to_viewer() -> None:
    from assay.backend.roles import at_least

    assert at_least("owner", "admin") and at_least("admin", "admin") and at_least("member", "viewer")
    assert not at_least("member", "admin") and not at_least("viewer", "member")
    assert not at_least("root", "viewer")

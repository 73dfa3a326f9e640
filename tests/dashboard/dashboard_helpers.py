"""Helpers of the dashboard tests: people in two organizations, and signing in as a browser does (read the
form, send its hidden fields back with the cookies it set)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import httpx

from assay.backend.dashboard import users
from assay.backend.storage.db import SessionFactory
from assay.backend.storage.models import DashboardUser, Membership, new_id

PASSWORD = "correct horse battery staple"
LOGIN = "/dashboard/login"
_HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)">')


@dataclass
class People:
    """ann is a member of organization A, bob of organization B."""

    ann: str = "ann@acme.example"
    bob: str = "bob@globex.example"


@cache
def _password_hash() -> str:
    # Argon2 is slow on purpose (about a second on a loaded test machine): hash the shared password once.
    return users.hash_password(PASSWORD)


async def add_user(sessions: SessionFactory, org: str, email: str, role: str = "member") -> None:
    """A user with ``role`` in ``org`` whose password is PASSWORD (rows written directly; the command line's
    path through ``users.create_user`` has its own tests)."""
    async with sessions() as session:
        user = DashboardUser(id=new_id("usr"), email=email, password_hash=_password_hash())
        session.add(user)
        await session.flush()
        session.add(Membership(user_id=user.id, organization_id=org, role=role))
        await session.commit()


def hidden_fields(html: str) -> dict[str, str]:
    """The hidden inputs of a page's forms (name -> value, unescaped)."""
    return {name: value.replace("&amp;", "&") for name, value in _HIDDEN.findall(html)}


def session_cookie(client: httpx.AsyncClient) -> str | None:
    return client.cookies.get("assay_session") or client.cookies.get("__Host-assay_session")


async def sign_in(
    client: httpx.AsyncClient, email: str, password: str = PASSWORD, *, next_target: str | None = None
) -> httpx.Response:
    """Open the sign-in page and submit its form; the answer (a 303 on success) is not followed."""
    page = await client.get(LOGIN, params={"next": next_target} if next_target is not None else None)
    assert page.status_code == 200, page.text
    form = hidden_fields(page.text)
    assert "csrf_token" in form
    return await client.post(LOGIN, data={**form, "email": email, "password": password})


def csrf_of(html: str) -> str:
    """The CSRF token in a signed-in page's sign-out form."""
    return hidden_fields(html)["csrf_token"]

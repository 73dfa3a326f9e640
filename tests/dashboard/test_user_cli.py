"""``assay admin user`` through the real command line (a subprocess, the password on stdin), then signing
in to the dashboard of a service on the same database."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from dashboard_helpers import sign_in

from assay.backend.settings import RateLimitSettings, ServiceSettings
from assay.backend.storage.db import sqlite_url_for
from assay.backend.web.app import create_app

PASSWORD = "a long enough passphrase"
pytestmark = pytest.mark.slow


def _assay(db: str, *argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ASSAY_DATABASE_URL": db}
    return subprocess.run(
        [sys.executable, "-m", "assay.server.cli", "admin", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def _json(result: subprocess.CompletedProcess[str]) -> Any:
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


async def test_users_created_listed_and_disabled_by_the_cli_sign_in_or_not(tmp_path: Path) -> None:
    db = sqlite_url_for(tmp_path / "assay.db")
    org = _json(_assay(db, "org", "create", "Acme", "--json"))["organizationId"]
    other = _json(_assay(db, "org", "create", "Globex", "--json"))["organizationId"]

    created = _json(
        _assay(
            db,
            "user",
            "create",
            "--org",
            org,
            "--email",
            " Ann@Acme.Example ",
            "--role",
            "admin",
            "--password-stdin",
            "--json",
            stdin=PASSWORD + "\n",
        )
    )
    assert created["email"] == "ann@acme.example" and created["role"] == "admin"
    assert PASSWORD not in json.dumps(created)

    # The same person in a second organization: only with their own password.
    wrong = _assay(
        db,
        "user",
        "create",
        "--org",
        other,
        "--email",
        "ann@acme.example",
        "--role",
        "viewer",
        "--password-stdin",
        stdin="somebody else's password\n",
    )
    assert wrong.returncode == 1 and "not theirs" in wrong.stderr
    _json(
        _assay(
            db,
            "user",
            "create",
            "--org",
            other,
            "--email",
            "ann@acme.example",
            "--role",
            "viewer",
            "--password-stdin",
            "--json",
            stdin=PASSWORD,
        )
    )

    for argv, stdin, message in [
        (("--role", "viewer", "--email", "short@acme.example"), "short\n", "at least 12 characters"),
        (("--role", "viewer", "--email", "not-an-email"), PASSWORD, "not an email address"),
        (("--role", "viewer", "--email", "empty@acme.example"), "", "no password on stdin"),
    ]:
        refused = _assay(db, "user", "create", "--org", org, *argv, "--password-stdin", "--json", stdin=stdin)
        assert refused.returncode == 1, refused.stderr
        assert message in json.loads(refused.stdout)["error"]["message"]
    bad_role = _assay(
        db,
        "user",
        "create",
        "--org",
        org,
        "--email",
        "x@acme.example",
        "--role",
        "root",
        "--password-stdin",
        stdin=PASSWORD,
    )
    assert bad_role.returncode == 2 and "invalid choice" in bad_role.stderr
    no_org = _assay(
        db,
        "user",
        "create",
        "--org",
        "org_missing",
        "--email",
        "x@acme.example",
        "--role",
        "viewer",
        "--password-stdin",
        stdin=PASSWORD,
    )
    assert no_org.returncode == 1 and "no organization" in no_org.stderr

    listed = _json(_assay(db, "user", "list", "--json"))["users"]
    assert sorted((u["organizationId"], u["role"]) for u in listed) == sorted([(org, "admin"), (other, "viewer")])
    assert all(u["email"] == "ann@acme.example" and not u["disabled"] for u in listed)
    only_org = _json(_assay(db, "user", "list", "--org", org, "--json"))["users"]
    assert [u["role"] for u in only_org] == ["admin"]
    human = _assay(db, "user", "list")
    assert human.returncode == 0 and "ann@acme.example" in human.stdout and "admin" in human.stdout

    app = create_app(ServiceSettings(database_url=db, data_dir=tmp_path, rate_limit=RateLimitSettings(enabled=False)))
    transport = httpx.ASGITransport(app=app)
    async with app.router.lifespan_context(app), httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        assert (await sign_in(client, "ann@acme.example", PASSWORD)).status_code == 303
        home = await client.get("/dashboard")
        assert home.status_code == 200 and "Acme" in home.text and "Globex" in home.text

        disabled = _json(_assay(db, "user", "disable", "ANN@acme.example", "--json"))
        assert disabled["email"] == "ann@acme.example" and disabled["disabledAt"].endswith("Z")
        assert (await client.get("/dashboard")).status_code == 303
        assert (await sign_in(client, "ann@acme.example", PASSWORD)).status_code == 401
    assert all(u["disabled"] for u in _json(_assay(db, "user", "list", "--json"))["users"])
    missing = _assay(db, "user", "disable", "nobody@acme.example")
    assert missing.returncode == 1 and "no user" in missing.stderr


async def test_user_invite_prints_a_link_once_that_signs_the_person_in(tmp_path: Path) -> None:
    db = sqlite_url_for(tmp_path / "assay.db")
    org = _json(_assay(db, "org", "create", "Acme", "--json"))["organizationId"]

    def invite(*argv: str, public_url: str | None = None) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if k != "ASSAY_PUBLIC_URL"}
        env["ASSAY_DATABASE_URL"] = db
        if public_url is not None:
            env["ASSAY_PUBLIC_URL"] = public_url
        return subprocess.run(
            [sys.executable, "-m", "assay.server.cli", "admin", "user", "invite", "--org", org, *argv],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )

    issued = _json(
        invite("--email", " Nia@Acme.Example ", "--role", "owner", "--json", public_url="https://assay.test/")
    )
    assert issued["email"] == "nia@acme.example" and issued["role"] == "owner" and issued["expiresAt"].endswith("Z")
    link = issued["invitationLink"]
    assert link.startswith("https://assay.test/dashboard/invitations/") and issued["invitationId"].startswith("inv_")

    # Without a public address: the path, and a word on how to get a whole link.
    human = invite("--email", "zed@acme.example", "--role", "viewer")
    assert human.returncode == 0, human.stderr
    assert "invitationLink: /dashboard/invitations/" in human.stdout and "ASSAY_PUBLIC_URL" in human.stderr
    bad_url = invite("--email", "zed@acme.example", "--role", "viewer", "--json", public_url="ftp://assay.test")
    assert bad_url.returncode == 2 and "ASSAY_PUBLIC_URL must be an http(s) address" in bad_url.stdout
    too_long = invite("--email", "zed@acme.example", "--role", "viewer", "--expires-in", "31d", "--json")
    assert too_long.returncode == 1 and "at most 30 days" in json.loads(too_long.stdout)["error"]["message"]
    bad_email = invite("--email", "not-an-email", "--role", "viewer", "--json")
    assert bad_email.returncode == 1 and json.loads(bad_email.stdout)["error"]["code"] == "INVALID"

    app = create_app(ServiceSettings(database_url=db, data_dir=tmp_path, rate_limit=RateLimitSettings(enabled=False)))
    transport = httpx.ASGITransport(app=app)
    path = link.removeprefix("https://assay.test")
    async with app.router.lifespan_context(app), httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        form = await client.get(path)
        assert form.status_code == 200 and "Join Acme" in form.text
        fields = {"csrf_token": client.cookies["assay_login_csrf"], "password": PASSWORD, "password_again": PASSWORD}
        joined = await client.post(path, data=fields)
        assert joined.status_code == 303 and joined.headers["location"] == "/dashboard"
        home = await client.get("/dashboard")
        assert home.status_code == 200 and "nia@acme.example" in home.text and "Acme" in home.text
        assert (await client.get(path)).status_code == 410
    listed = _json(_assay(db, "user", "list", "--json"))["users"]
    assert [(u["email"], u["role"]) for u in listed] == [("nia@acme.example", "owner")]

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

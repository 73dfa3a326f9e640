"""``assay admin target``: adding, listing, verifying, consenting to and retiring runtime targets; header
secrets sealed at rest and never read back; restricted networks refused unless an operator allows them."""

from __future__ import annotations

import argparse
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from assay.backend.storage.db import sqlite_url_for
from assay.server.commands import admin
from assay.server.settings import (
    ENV_DATA_DIR,
    ENV_DATABASE_URL,
    ENV_RUNTIME_ALLOWED_NETWORKS,
    SettingsError,
    read_environment,
)

SECRET = "Bearer s3cr3t-token-value"


def run_admin(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    parser = argparse.ArgumentParser(prog="assay")
    admin.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["admin", *argv, "--json"])
    code = args.handler(args)
    captured = capsys.readouterr()
    lines = captured.out.strip().splitlines()
    assert len(lines) == 1, captured.out
    return code, json.loads(lines[0]), captured.err


@pytest.fixture
def system(capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    monkeypatch.setenv(ENV_DATABASE_URL, sqlite_url_for(tmp_path / "admin.db"))
    monkeypatch.setenv(ENV_DATA_DIR, str(tmp_path / "data"))
    monkeypatch.setenv(ENV_RUNTIME_ALLOWED_NETWORKS, "127.0.0.0/8")
    _, org, _ = run_admin(capsys, "org", "create", "Acme")
    _, sys_, _ = run_admin(capsys, "system", "create", "--org", org["organizationId"], "--name", "Agent")
    return org["organizationId"], sys_["aiSystemId"]


def test_target_lifecycle_keeps_header_secrets_sealed(
    capsys: pytest.CaptureFixture[str], system: tuple[str, str], tmp_path: Path
) -> None:
    org, sys_id = system
    code, added, err = run_admin(
        capsys, "target", "add", "--org", org, "--system", sys_id,
        "--mcp-url", "http://127.0.0.1:9/mcp", "--header", f"Authorization={SECRET}",
    )  # fmt: skip
    assert code == 0, err
    target_id = added["targetId"]
    assert added["status"] == "PENDING" and added["headerNames"] == ["Authorization"]
    assert added["kind"] == "mcp-url" and added["consentedSuites"] == []
    code, consented, _ = run_admin(capsys, "target", "consent", target_id, "--suites", "poisoning,catalogue")
    assert code == 0 and consented["consentedSuites"] == ["catalogue", "poisoning"]  # pack order
    code, verified, _ = run_admin(capsys, "target", "verify", target_id)
    assert code == 0 and verified["status"] == "VERIFIED"
    code, listed, _ = run_admin(capsys, "target", "list", "--org", org)
    assert [t["targetId"] for t in listed["targets"]] == [target_id]
    code, retired, _ = run_admin(capsys, "target", "retire", target_id)
    assert code == 0 and retired["status"] == "RETIRED"
    code, again, _ = run_admin(capsys, "target", "verify", target_id)
    assert code == 1 and again["error"]["code"] == "CONFLICT"
    # The secret is in no output, and not in the database file in clear.
    assert SECRET not in json.dumps([added, consented, verified, listed, retired])
    raw = (tmp_path / "admin.db").read_bytes()
    assert b"s3cr3t-token-value" not in raw
    with sqlite3.connect(tmp_path / "admin.db") as db:
        (sealed,) = db.execute("SELECT sealed_headers FROM runtime_target").fetchone()
    assert sealed and b"s3cr3t" not in sealed
    key = tmp_path / "data" / "keys" / "runtime-secrets.key"
    assert key.stat().st_mode & 0o077 == 0


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://169.254.169.254/latest/meta-data", "metadata"),
        ("http://10.1.2.3/mcp", "private"),
        ("http://[::1]:8000/mcp", "loopback"),
        ("http://0.0.0.0/mcp", "unspecified"),
        ("http://user:pw@example.com/mcp", "credentials"),
        ("file:///etc/passwd", "http"),
    ],
)
def test_restricted_and_malformed_addresses_are_refused(
    capsys: pytest.CaptureFixture[str], system: tuple[str, str], url: str, why: str
) -> None:
    org, sys_id = system
    code, out, _ = run_admin(capsys, "target", "add", "--org", org, "--system", sys_id, "--mcp-url", url)
    assert code == 1 and out["error"]["code"] == "INVALID"
    assert why in out["error"]["message"]


def test_bad_requests_name_what_is_wrong(capsys: pytest.CaptureFixture[str], system: tuple[str, str]) -> None:
    org, sys_id = system
    base = ("target", "add", "--org", org, "--system", sys_id)
    code, out, _ = run_admin(capsys, *base, "--agent-url", "http://127.0.0.1:9/v1/chat/completions")
    assert code == 1 and "--protocol" in out["error"]["message"]
    code, out, _ = run_admin(capsys, *base, "--mcp-command", "npx 'unclosed")
    assert code == 1 and "does not parse" in out["error"]["message"]
    code, out, _ = run_admin(capsys, *base, "--mcp-url", "http://127.0.0.1:9/", "--header", "Bad Name=x")
    assert code == 1 and "header 1" in out["error"]["message"] and "x" not in out["error"]["message"].split()
    code, out, _ = run_admin(capsys, "target", "add", "--org", org, "--system", "sys_nope", "--mcp-command", "x")
    assert code == 1 and out["error"]["code"] == "NOT_FOUND"
    code, added, _ = run_admin(capsys, *base, "--mcp-command", "python -m server")
    assert code == 0 and added["kind"] == "mcp-command"
    code, out, _ = run_admin(capsys, "target", "consent", added["targetId"], "--suites", "agent,active")
    assert code == 0 and out["consentedSuites"] == ["active", "agent"]
    code, out, _ = run_admin(capsys, "target", "consent", added["targetId"], "--suites", "bogus")
    assert code == 1 and "unknown suite" in out["error"]["message"]


def test_allowed_networks_must_be_cidrs() -> None:
    with pytest.raises(SettingsError, match="not a CIDR"):
        read_environment({ENV_RUNTIME_ALLOWED_NETWORKS: "127.0.0.0/8,localhost"})
    assert len(read_environment({ENV_RUNTIME_ALLOWED_NETWORKS: "127.0.0.0/8, ::1/128"}).runtime_allowed_networks) == 2

"""``assay admin`` in process: provisioning commands, their JSON output and their failures."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from assay.backend import provisioning
from assay.backend.storage.db import sqlite_url_for
from assay.backend.web.auth import is_well_formed_key
from assay.server.commands import admin
from assay.server.settings import ENV_DATABASE_URL


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="assay")
    admin.register(parser.add_subparsers(dest="command", required=True))
    return parser


def run_admin(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    args = _parser().parse_args(["admin", *argv])
    code = args.handler(args)
    captured = capsys.readouterr()
    lines = captured.out.strip().splitlines()
    assert len(lines) == 1, captured.out  # exactly one JSON object
    return code, json.loads(lines[0]), captured.err


@pytest.fixture
def db_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    url = sqlite_url_for(tmp_path / "admin.db")
    monkeypatch.setenv(ENV_DATABASE_URL, url)
    return url


def test_full_provisioning_flow_prints_one_json_object_each(
    capsys: pytest.CaptureFixture[str], db_url: str, tmp_path: Path
) -> None:
    code, org, _ = run_admin(capsys, "org", "create", "Acme", "--json")
    assert code == 0 and set(org) == {"organizationId"}
    code, system, _ = run_admin(
        capsys, "--json", "system", "create", "--org", org["organizationId"], "--name", "Ops", "--criticality", "high"
    )
    assert code == 0 and set(system) == {"aiSystemId"}
    repo = tmp_path / "repo"
    repo.mkdir()
    relative = Path("repo")
    import os

    cwd = Path.cwd()
    os.chdir(tmp_path)
    try:
        code, source, _ = run_admin(
            capsys, "source", "add", "--org", org["organizationId"], "--system", system["aiSystemId"],
            "--repo", str(relative), "--branch", "main", "--json",
        )  # fmt: skip
    finally:
        os.chdir(cwd)
    assert code == 0 and source["status"] == "PENDING" and set(source) == {"sourceAssetId", "status"}
    assert run_admin(capsys, "source", "verify", source["sourceAssetId"], "--json")[1]["status"] == "VERIFIED"
    code, key, err = run_admin(
        capsys, "key", "create", "--org", org["organizationId"], "--purpose", "assurance-agent", "--expires-in", "30d",
        "--json",
    )  # fmt: skip
    assert code == 0 and set(key) == {"keyId", "apiKey"}
    assert key["apiKey"].startswith("svc_live_") and is_well_formed_key(key["apiKey"])
    assert key["apiKey"] not in err
    code, test_key, _ = run_admin(
        capsys, "key", "create", "--org", org["organizationId"], "--scopes", "scan:read,evidence:ingest", "--test",
        "--json",
    )  # fmt: skip
    assert code == 0 and test_key["apiKey"].startswith("svc_test_")
    code, revoked, _ = run_admin(capsys, "key", "revoke", key["keyId"], "--json")
    assert code == 0 and revoked["keyId"] == key["keyId"] and revoked["revokedAt"].endswith("Z")
    code, retired, _ = run_admin(capsys, "source", "retire", source["sourceAssetId"], "--json")
    assert retired["status"] == "RETIRED"
    code, error, _ = run_admin(capsys, "source", "verify", source["sourceAssetId"], "--json")
    assert code == 1 and error["error"]["code"] == "CONFLICT"


def test_local_paths_are_stored_absolute_and_git_urls_as_given() -> None:
    from assay.backend.scans.sources import normalise_repo

    assert normalise_repo("https://example.com/a/b.git") == ("git", "https://example.com/a/b.git")
    assert normalise_repo("git@example.com:a/b.git") == ("git", "git@example.com:a/b.git")
    kind, path = normalise_repo("some/dir")
    assert kind == "local" and Path(path).is_absolute() and path.endswith("some/dir")


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (("system", "create", "--org", "org_missing", "--name", "X"), "NOT_FOUND"),
        (("key", "create", "--org", "org_missing", "--purpose", "assurance-agent"), "NOT_FOUND"),
        (("key", "revoke", "key_missing"), "NOT_FOUND"),
        (("source", "verify", "src_missing"), "NOT_FOUND"),
    ],
)
def test_failures_are_one_json_error_object(
    capsys: pytest.CaptureFixture[str], db_url: str, argv: tuple[str, ...], code: str
) -> None:
    exit_code, body, err = run_admin(capsys, *argv, "--json")
    assert exit_code == 1 and body["error"]["code"] == code and err


def test_bad_scope_and_duration_are_refused(capsys: pytest.CaptureFixture[str], db_url: str) -> None:
    _, org, _ = run_admin(capsys, "org", "create", "Acme", "--json")
    exit_code, body, _ = run_admin(
        capsys, "key", "create", "--org", org["organizationId"], "--scopes", "admin:all", "--json"
    )
    assert exit_code == 1 and body["error"]["code"] == "INVALID"
    exit_code, body, _ = run_admin(
        capsys,
        "key",
        "create",
        "--org",
        org["organizationId"],
        "--scopes",
        "scan:read",
        "--expires-in",
        "soon",
        "--json",
    )
    assert exit_code == 1 and body["error"]["code"] == "INVALID"


def test_verify_refuses_a_missing_local_path(capsys: pytest.CaptureFixture[str], db_url: str, tmp_path: Path) -> None:
    _, org, _ = run_admin(capsys, "org", "create", "Acme", "--json")
    _, system, _ = run_admin(capsys, "system", "create", "--org", org["organizationId"], "--name", "S", "--json")
    _, source, _ = run_admin(
        capsys, "source", "add", "--org", org["organizationId"], "--system", system["aiSystemId"],
        "--repo", str(tmp_path / "absent"), "--json",
    )  # fmt: skip
    exit_code, body, _ = run_admin(capsys, "source", "verify", source["sourceAssetId"], "--json")
    assert exit_code == 1 and body["error"]["code"] == "INVALID"


def test_human_output_shows_the_key_once(capsys: pytest.CaptureFixture[str], db_url: str) -> None:
    _, org, _ = run_admin(capsys, "org", "create", "Acme", "--json")
    args = _parser().parse_args(["admin", "key", "create", "--org", org["organizationId"], "--scopes", "scan:read"])
    assert args.handler(args) == 0
    captured = capsys.readouterr()
    assert captured.out.count("svc_live_") == 1 and "shown once" in captured.err


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("90m", 5400),
        ("12h", 43200),
        ("30d", 2592000),
        ("2w", 1209600),
        ("30s", 30),
        ("1h30m", 5400),
        ("1d12h", 129600),
        ("2w1d1h1m1s", 1299661),
        (" 1H30M ", 5400),
    ],
)
def test_durations(text: str, seconds: int) -> None:
    assert provisioning.parse_duration(text).total_seconds() == seconds


@pytest.mark.parametrize(
    "text", ["", "0d", "10", "5y", "-1d", "1.5h", "0h0m", "30m1h", "1h1h", "\uff13\uff10s", "1 h", "999999999w"]
)
def test_bad_durations(text: str) -> None:
    with pytest.raises(provisioning.ProvisioningError):
        provisioning.parse_duration(text)


def test_a_database_written_by_a_newer_assay_is_a_clear_error_not_a_traceback(
    capsys: pytest.CaptureFixture[str], db_url: str, tmp_path: Path
) -> None:
    import sqlite3

    assert run_admin(capsys, "org", "create", "Acme", "--json")[0] == 0
    with sqlite3.connect(tmp_path / "admin.db") as connection:
        connection.execute("UPDATE alembic_version SET version_num = '0099_from_the_future'")
    code, body, err = run_admin(capsys, "org", "create", "Beta", "--json")
    assert code == 1 and body["error"]["code"] == "DATABASE"
    assert "revision this Assay does not know" in body["error"]["message"] and "0099_from_the_future" in err
    assert "Traceback" not in err

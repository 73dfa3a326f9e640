"""Binders: ``assay admin binder`` create, list, deactivate; the contract's listing never shows mappings."""

from __future__ import annotations

import sys
from pathlib import Path

import httpx
import pytest
from intake_helpers import IntakeWorld
from service_helpers import bearer

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "service"))
from test_admin_cli import run_admin

from assay.backend.intake.adapters import ADAPTERS
from assay.backend.storage.db import sqlite_url_for
from assay.server.settings import ENV_DATABASE_URL

CONTRACT_MEMBERS = {
    "binderId",
    "sourceSystem",
    "domain",
    "aiSystemId",
    "adapterId",
    "adapterVersion",
    "binderVersion",
    "accessMethod",
    "active",
    "sourceAuthorityRole",
    "supportedEvidenceClasses",
    "canEstablish",
    "cannotEstablish",
    "coverageSemantics",
    "requireEventId",
    "maxRecordBytes",
    "limitations",
}


def test_admin_binder_commands(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_DATABASE_URL, sqlite_url_for(tmp_path / "admin.db"))
    _, org, _ = run_admin(capsys, "org", "create", "Acme", "--json")
    _, system, _ = run_admin(capsys, "system", "create", "--org", org["organizationId"], "--name", "Ops", "--json")
    code, binder, _ = run_admin(
        capsys,
        "binder", "create", "--org", org["organizationId"], "--source-system", "prod-gateway", "--adapter", "log",
        "--system", system["aiSystemId"], "--domain", "payments", "--authority-role", "observer",
        "--classes", "runtime.log", "--max-record-bytes", "4096", "--require-event-id",
        "--line-regex", r"(?P<level>\w+) (?P<eventId>\S+) (?P<message>.*)", "--json",
    )  # fmt: skip
    assert code == 0
    assert binder["adapterId"] == "log" and binder["active"] is True and binder["requireEventId"] is True
    assert binder["maxRecordBytes"] == 4096 and binder["aiSystemId"] == system["aiSystemId"]
    code, listed, _ = run_admin(capsys, "binder", "list", "--org", org["organizationId"], "--json")
    assert code == 0 and [b["binderId"] for b in listed["binders"]] == [binder["binderId"]]
    code, off, _ = run_admin(capsys, "binder", "deactivate", binder["binderId"], "--json")
    assert code == 0 and off == {"binderId": binder["binderId"], "active": False}
    for bad in (
        ["--adapter", "otlp", "--classes", "static.finding"],
        ["--adapter", "otlp", "--line-regex", "(?P<a>x)"],
        ["--adapter", "log", "--line-regex", "no groups"],
        ["--adapter", "log", "--max-record-bytes", "0"],
        ["--adapter", "otlp", "--system", "sys_missing"],
    ):
        code, error, _ = run_admin(
            capsys, "binder", "create", "--org", org["organizationId"], "--source-system", "x", *bad, "--json"
        )
        assert code == 1 and error["error"]["code"] in ("INVALID", "NOT_FOUND"), bad


async def test_listing_has_the_contracts_members_and_no_mapping(client: httpx.AsyncClient, iw: IntakeWorld) -> None:
    regex = r"(?P<level>\w+) (?P<secretGroupName>.*)"
    await iw.binder("log", line_regex=regex)
    response = await client.get("/api/v1/evidence/binders", headers=bearer(iw.world.agent_key_a))
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"binders", "intake"}
    assert len(body["binders"]) == 5
    for item in body["binders"]:
        assert set(item) == CONTRACT_MEMBERS
        spec = ADAPTERS[item["adapterId"]]
        assert item["canEstablish"] == list(spec.can_establish) and item["cannotEstablish"] == list(
            spec.cannot_establish
        )
        assert item["coverageSemantics"] == dict(spec.coverage_semantics)
        assert item["accessMethod"] == "push" and item["active"] is True
    assert "secretGroupName" not in response.text and "lineRegex" not in response.text
    # The intake key (evidence:ingest only) cannot list binders: source:read is required (contract 5.4).
    denied = await client.get("/api/v1/evidence/binders", headers=bearer(iw.ingest_key_a))
    assert denied.status_code == 403

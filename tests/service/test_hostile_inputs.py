"""Inputs of the reliability battery (issue 21, part 11), on SQLite and on PostgreSQL: each one answers a
4xx in the contract's envelope, within a bounded time, and never a 500."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx
import pytest
from service_bundles import make_submission
from service_helpers import assert_error, bearer

from assay.backend import provisioning
from assay.backend.intake.binders import create_binder
from assay.backend.settings import ServiceSettings
from assay.backend.storage.db import sqlite_url_for
from assay.backend.web.app import create_app

# Every request here is answered well within this; a hang or a runaway parse fails the test.
BOUND_SECONDS = 10
DEEP = 10_000
JSON = {"Content-Type": "application/json"}


@dataclass
class Battery:
    client: httpx.AsyncClient
    system: str
    agent: dict[str, str]
    intake: dict[str, str]
    structured: str
    log: str
    otlp: str

    async def post(self, path: str, body: bytes, headers: dict[str, str], **params: str) -> httpx.Response:
        with anyio.fail_after(BOUND_SECONDS):
            return await self.client.post(path, content=body, headers=headers, params=params)

    async def get(self, path: str, headers: dict[str, str], **params: str) -> httpx.Response:
        with anyio.fail_after(BOUND_SECONDS):
            return await self.client.get(path, headers=headers, params=params)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgres":
        url: str = request.getfixturevalue("pg_url")
        return url
    return sqlite_url_for(tmp_path / "battery.db")


@pytest.fixture
async def battery(database_url: str, tmp_path: Path) -> AsyncIterator[Battery]:
    url = database_url
    app = create_app(ServiceSettings(database_url=url, data_dir=tmp_path, run_workers=0))
    async with app.router.lifespan_context(app):
        async with app.state.services.session_factory() as session:
            org = await provisioning.create_organization(session, "Acme")
            system = await provisioning.create_ai_system(session, org.id, "Ops agent")
            agent = await provisioning.create_api_key(session, org.id, purpose="assurance-agent")
            intake = await provisioning.create_api_key(session, org.id, purpose="evidence-intake")
            binders = [
                await create_binder(session, org.id, source_system=name, adapter_id=name, ai_system_id=system.id)
                for name in ("structured", "log", "otlp")
            ]
            await session.commit()
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://battery") as client:
            yield Battery(
                client,
                system.id,
                bearer(agent.api_key),
                bearer(intake.api_key),
                *(b.id for b in binders),
            )


def _run(system: str, runtime: str) -> bytes:
    return f'{{"aiSystemId":"{system}","engines":{{"runtime":{{"enabled":true,"windowHours":{runtime}}}}}}}'.encode()


async def test_numbers_beyond_the_interoperable_range_are_400(battery: Battery) -> None:
    for system in (battery.system, "sys_unknown"):
        for number in (str(2**53), str(-(2**60)), "1" * 5000, "1e400"):
            answer = await battery.post("/api/v1/assurance/runs", _run(system, number), battery.agent | JSON)
            error = assert_error(answer, 400, "INVALID_REQUEST")
            assert "interoperable" in error["message"] or "not valid JSON" in error["message"]
    events = b'[{"eventId":"n1","count":%d}]' % 2**60
    answer = await battery.post("/api/ingest/structured", events, battery.intake | JSON, binderId=battery.structured)
    assert_error(answer, 400, "INVALID_REQUEST")


async def test_a_lone_surrogate_is_400_in_every_json_format(battery: Battery) -> None:
    params = {"binderId": battery.structured}
    for body, kind in (
        (b'[{"eventId":"s1","note":"\\ud800"}]', "application/json"),
        (b'[{"eventId":"s2","note":"x\\udc00"}]', "application/json"),
        (b'{"events":[{"\\ud83d":"key"}]}', "application/json"),
        (b'{"eventId":"s3","note":"\\ud800"}\n', "application/x-ndjson"),
    ):
        answer = await battery.post("/api/ingest/structured", body, battery.intake | {"Content-Type": kind}, **params)
        assert "surrogate" in assert_error(answer, 400, "INVALID_REQUEST")["message"]
    runs = b'{"aiSystemId":"sys_\\ud800","engines":{"static":{"enabled":true}}}'
    assert_error(await battery.post("/api/v1/assurance/runs", runs, battery.agent | JSON), 400, "INVALID_REQUEST")
    # A proper pair is a character like any other.
    paired = b'[{"eventId":"s4","note":"\\ud83d\\ude00"}]'
    answer = await battery.post("/api/ingest/structured", paired, battery.intake | JSON, **params)
    assert answer.status_code == 201, answer.text


async def test_query_numbers_of_any_length_or_script_are_400(battery: Battery) -> None:
    for page in ("9" * 5000, "\u0663", "\u00b2", "-1", "0"):
        answer = await battery.get("/api/v1/assurance/evaluations/ev_missing/agent-audit", battery.agent, page=page)
        assert_error(answer, 400, "INVALID_REQUEST")
        answer = await battery.get(f"/api/v1/evidence/binders/{battery.structured}/receipts", battery.agent, limit=page)
        assert_error(answer, 400, "INVALID_REQUEST")


async def test_json_nested_ten_thousand_deep_is_400_on_every_route(battery: Battery) -> None:
    deep_object = b'{"a":' * DEEP + b"1" + b"}" * DEEP
    deep_array = b"[" * DEEP + b"]" * DEEP
    for path, body, headers, params in (
        ("/api/v1/assurance/runs", deep_object, battery.agent, {}),
        ("/api/v1/scans", deep_object, battery.agent, {}),
        (
            "/api/ingest/structured",
            b'[{"eventId":"d","a":' + deep_array + b"}]",
            battery.intake,
            {"binderId": battery.structured},
        ),
        (
            "/api/ingest/structured",
            deep_object + b"\n",
            battery.intake | {"Content-Type": "application/x-ndjson"},
            {"binderId": battery.structured},
        ),
        ("/api/otlp/v1/traces", b'{"resourceSpans":' + deep_array + b"}", battery.intake, {"binderId": battery.otlp}),
        (
            "/api/otlp/v1/logs",
            b'{"resourceLogs":[{"resource":' + deep_object + b"}]}",
            battery.intake,
            {"binderId": battery.otlp},
        ),
    ):
        answer = await battery.post(path, body, JSON | headers, **params)
        assert_error(answer, 400, "INVALID_REQUEST")
    # Within the documented depth, nesting is fine.
    nested = b'[{"eventId":"ok","a":' + b"[" * 60 + b"]" * 60 + b"}]"
    answer = await battery.post("/api/ingest/structured", nested, battery.intake | JSON, binderId=battery.structured)
    assert answer.status_code == 201, answer.text


async def test_nul_in_ids_and_parameters_is_400(battery: Battery) -> None:
    runs = b'{"aiSystemId":"sys_\\u0000x","engines":{"static":{"enabled":true}}}'
    assert_error(await battery.post("/api/v1/assurance/runs", runs, battery.agent | JSON), 400, "INVALID_REQUEST")
    for path in (
        "/api/v1/assurance/runs/run_%00x",
        "/api/v1/scans/scan_%00x",
        "/api/v1/systems/sys_%00x/evaluation-sources",
        "/api/v1/assurance/evaluations/ev_%00x/summary",
    ):
        assert_error(await battery.get(path, battery.agent), 400, "INVALID_REQUEST")
    assert_error(await battery.get("/api/v1/assurance/runs", battery.agent, status="\x00"), 400, "INVALID_REQUEST")
    legacy = {
        "repoUrl": "https://example.com/r.git",
        "branch": "main\x00",
        "framework": "langgraph",
        "commitSha": "a" * 40,
    }
    answer = await battery.post("/api/ci/scan", json.dumps(legacy).encode(), battery.agent | JSON)
    assert_error(answer, 400, "INVALID_REQUEST")
    answer = await battery.post(
        "/api/v1/scans", json.dumps(make_submission(battery.system, branch="main\x00")).encode(), battery.agent | JSON
    )
    assert_error(answer, 400, "INVALID_REQUEST")
    events = b'[{"eventId":"e\\u0000"}]'
    answer = await battery.post("/api/ingest/structured", events, battery.intake | JSON, binderId=battery.structured)
    assert_error(answer, 400, "INVALID_REQUEST")
    answer = await battery.post("/api/ingest/structured", b"[]", battery.intake | JSON, binderId="bnd_\x00")
    assert_error(answer, 400, "INVALID_REQUEST")
    # A NUL inside an event's values is data: stored (canonical JSON escapes it), never a failure.
    events = b'[{"eventId":"e2","note":"a\\u0000b"}]'
    answer = await battery.post("/api/ingest/structured", events, battery.intake | JSON, binderId=battery.structured)
    assert answer.status_code == 201, answer.text


async def test_otlp_json_of_the_wrong_shape_is_400(battery: Battery) -> None:
    for body in (
        b'{"resourceSpans":[[[[]]]]}',
        b'{"resourceSpans":{"a":1}}',
        b'{"resourceSpans":[{"scopeSpans":[[]]}]}',
        b'{"resourceSpans":[{"scopeSpans":[{"spans":[1,2]}]}]}',
    ):
        answer = await battery.post("/api/otlp/v1/traces", body, battery.intake | JSON, binderId=battery.otlp)
        assert_error(answer, 400, "INVALID_REQUEST")
    answer = await battery.post(
        "/api/otlp/v1/logs", b'{"resourceLogs":[[]]}', battery.intake | JSON, binderId=battery.otlp
    )
    assert_error(answer, 400, "INVALID_REQUEST")
    # Null lists read as empty (the protobuf JSON mapping), and unknown members are ignored.
    answer = await battery.post(
        "/api/otlp/v1/traces", b'{"resourceSpans":null,"extra":[[1]]}', battery.intake | JSON, binderId=battery.otlp
    )
    assert answer.status_code == 200, answer.text


async def test_an_over_long_log_line_is_413_as_documented(battery: Battery) -> None:
    body = b"short line\n" + b"x" * (1024 * 1024 + 1) + b"\n"
    text = {"Content-Type": "text/plain"}
    answer = await battery.post("/api/ingest/log", body, battery.intake | text, binderId=battery.log)
    assert "record limit" in assert_error(answer, 413, "INVALID_REQUEST")["message"]


async def test_a_wrong_method_names_every_method_of_the_path(battery: Battery) -> None:
    with anyio.fail_after(BOUND_SECONDS):
        answer = await battery.client.request("OPTIONS", "/api/v1/assurance/runs", headers=battery.agent)
    assert_error(answer, 405, "INVALID_REQUEST")
    assert {m.strip() for m in answer.headers["allow"].split(",")} >= {"GET", "POST"}

"""Runs and frozen Evaluations through the HTTP API: the canonical chain over the example systems,
validation errors, idempotency (replay, conflict, the 50-way race), pagination, cross-organization 404s,
immutability and byte-identical re-evaluation."""

from __future__ import annotations

import asyncio
import io
import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import httpx
import pypdf
import pytest
from service_helpers import World, assert_error, bearer
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from starlette.applications import Starlette

from assay.backend import models, provisioning
from assay.backend.passport.verify import verify_passport
from assay.backend.runs.plan import RunPlan
from assay.backend.settings import RateLimitSettings, ServiceSettings

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
RUNS = "/api/v1/assurance/runs"


@pytest.fixture
def settings(settings: ServiceSettings) -> ServiceSettings:
    """The module polls runs many times: rate limiting (tested in test_errors) is off here."""
    return replace(settings, rate_limit=RateLimitSettings(enabled=False))


async def _bind(world: World, system: str, repo: Path, *, verify: bool = True) -> str:
    async with world.sessions() as session:
        source = await provisioning.add_source(session, world.org_a, system, str(repo))
        if verify:
            await provisioning.verify_source(session, source.id)
        await session.commit()
    return source.id


async def _wait(client: httpx.AsyncClient, key: str, run_id: str) -> dict[str, Any]:
    """Poll the run until it is COMPLETED or FAILED (bounded, no sleeps of fixed length)."""
    with anyio.fail_after(60):
        while True:
            body: dict[str, Any] = (await client.get(f"{RUNS}/{run_id}", headers=bearer(key))).json()
            if body["status"] in ("COMPLETED", "FAILED"):
                return body
            await asyncio.sleep(0.02)


async def _run(client: httpx.AsyncClient, key: str, body: dict[str, Any], **headers: str) -> httpx.Response:
    return await client.post(RUNS, json=body, headers={**bearer(key), **headers})


@pytest.mark.parametrize(
    ("example", "disposition"),
    [("ops-agent", "BLOCK"), ("support-agent-ts", "REVIEW"), ("research-assistant", "ALLOW")],
)
async def test_chain_over_the_examples(
    client: httpx.AsyncClient, world: World, tmp_path: Path, example: str, disposition: str
) -> None:
    repo = tmp_path / example
    shutil.copytree(EXAMPLES / example, repo)
    await _bind(world, world.system_a, repo)
    created = await _run(
        client, world.agent_key_a, {"aiSystemId": world.system_a, "engines": {"static": {"enabled": True}}}
    )
    assert created.status_code == 202, created.text
    envelope = created.json()
    assert envelope["evaluation"] is None
    assert envelope["links"]["self"] == f"{RUNS}/{envelope['runId']}"
    assert all(v is None for k, v in envelope["links"].items() if k != "self")
    done = await _wait(client, world.agent_key_a, envelope["runId"])
    assert done["status"] == "COMPLETED", done
    evaluation = done["evaluation"]
    assert evaluation["disposition"] == disposition
    assert evaluation["methodologyVersion"] == "assay-methodology/1.0.0"
    links = done["links"]
    for name in ("summary", "report", "masterReport", "masterReportPdf", "agentAudit", "passport", "pdf"):
        response = await client.get(links[name], headers=bearer(world.agent_key_a))
        assert response.status_code == 200, (name, response.text)
    assert all(links[k] is None for k in links if k.startswith("dashboard"))

    key = world.agent_key_a
    summary = (await client.get(links["summary"], headers=bearer(key))).json()
    assert summary["evaluationId"] == evaluation["evaluationId"] and summary["disposition"] == disposition
    audit = (await client.get(links["agentAudit"], headers=bearer(key))).json()
    assert set(audit) == {"evaluationId", "agentAudit"}
    report = (await client.get(links["masterReport"], headers=bearer(key))).json()["masterReport"]
    assert report["disposition"] == disposition and report["timeBasis"] == "EVALUATED_SNAPSHOT"
    pdf = (await client.get(links["masterReportPdf"], headers=bearer(key))).content
    assert pdf.startswith(b"%PDF-")
    assert f"Disposition: {disposition}" in "".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(pdf)).pages)
    passport = (await client.get(links["passport"], headers=bearer(key))).json()
    jwks = (await client.get("/.well-known/jwks.json")).json()
    assert verify_passport(passport, jwks).disposition == disposition


async def test_attached_qualified_scan_and_reused_legacy_modes(
    client: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    from assay.backend.engines.static.scan import scan_tree

    bundle = scan_tree(EXAMPLES / "research-assistant").to_json_dict()
    submission = {
        "aiSystemId": world.system_a,
        "producerId": "ci-cd-scanner",
        "origin": "ide",
        "sourceIdentity": bundle["sourceIdentity"],
        "bundle": bundle,
    }
    scan = await client.post("/api/v1/scans", json=submission, headers=bearer(world.agent_key_a))
    assert scan.status_code == 201, scan.text
    attach = scan.json()["attach"]
    created = await _run(client, world.agent_key_a, {"aiSystemId": world.system_a, "engines": {"static": attach}})
    assert created.status_code == 202, created.text
    done = await _wait(client, world.agent_key_a, created.json()["runId"])
    assert done["evaluation"]["disposition"] == "ALLOW"
    # The same attached scan evaluated twice gives byte-identical payloads and digests.
    again = await _wait(
        client,
        world.agent_key_a,
        (await _run(client, world.agent_key_a, {"aiSystemId": world.system_a, "engines": {"static": attach}})).json()[
            "runId"
        ],
    )
    first = await client.get(done["links"]["masterReport"] + "?detail=full", headers=bearer(world.agent_key_a))
    second = await client.get(again["links"]["masterReport"] + "?detail=full", headers=bearer(world.agent_key_a))
    p1, p2 = first.json()["masterReport"]["reportProjection"], second.json()["masterReport"]["reportProjection"]
    assert json.dumps(p1, sort_keys=True) == json.dumps(p2, sort_keys=True)
    assert first.json()["masterReport"]["coreTruthDigest"] == second.json()["masterReport"]["coreTruthDigest"]
    assert done["evaluation"]["evaluationId"] != again["evaluation"]["evaluationId"]


@pytest.mark.parametrize(
    ("body", "status", "code", "fragment"),
    [
        ({"engines": {"static": {"enabled": True}}}, 400, "INVALID_REQUEST", "aiSystemId"),
        ({"aiSystemId": "sys_missing", "engines": {"static": {"enabled": True}}}, 404, "AI_SYSTEM_NOT_FOUND", ""),
        (
            {"aiSystemId": "{a}", "engines": {"runtime": {"enabled": True}, "static": {"enabled": True}}},
            400,
            "INVALID_REQUEST",
            "runtime engine is not available",
        ),
        (
            {"aiSystemId": "{a}", "engines": {"wizard": {"enabled": True}}},
            400,
            "INVALID_REQUEST",
            "wizard engine is not available",
        ),
        ({"aiSystemId": "{a}", "engines": {}}, 400, "INVALID_REQUEST", "No engine is enabled"),
        (
            {"aiSystemId": "{a}", "engines": {"static": {"enabled": True}}, "jurisdiction": "mars"},
            400,
            "INVALID_REQUEST",
            "jurisdiction",
        ),
        (
            {"aiSystemId": "{a}", "engines": {"static": {"executionMode": "ci-attached"}}},
            400,
            "INVALID_REQUEST",
            "attachedScanId",
        ),
        (
            {"aiSystemId": "{a}", "engines": {"static": {"executionMode": "ui"}}},
            400,
            "INVALID_REQUEST",
            "not available",
        ),
        (
            {"aiSystemId": "{a}", "engines": {"static": {"attachedScanId": "qscan_missing"}}},
            404,
            "RESOURCE_NOT_FOUND",
            "",
        ),
        (
            {
                "aiSystemId": "{a}",
                "engines": {"static": {"enabled": True}},
                "externalEvidenceAttachments": [{"producerId": "structured-ingress", "producerRunId": "p1"}],
            },
            400,
            "INVALID_REQUEST",
            "intake",
        ),
        ({"aiSystemId": "{a}", "engines": {"static": {"enabled": True}}, "surprise": 1}, 400, "INVALID_REQUEST", ""),
        ({"aiSystemId": "{a}", "engines": {"static": {"enabled": "yes"}}}, 400, "INVALID_REQUEST", ""),
        (
            {"aiSystemId": "{a}", "engines": {"static": {"enabled": True}}},
            400,
            "SOURCE_NOT_VERIFIED",
            "no bound source",
        ),
        (
            {"aiSystemId": "{a}", "engines": {"static": {"repositoryUrl": "https://evil.example.com/x.git"}}},
            400,
            "INVALID_REQUEST",
            "arbitrary URLs are rejected",
        ),
    ],
)
async def test_validation_errors(
    client: httpx.AsyncClient, world: World, body: dict[str, Any], status: int, code: str, fragment: str
) -> None:
    payload = json.loads(json.dumps(body).replace("{a}", world.system_a))
    error = assert_error(await _run(client, world.agent_key_a, payload), status, code)
    assert fragment in error["message"]


async def test_source_errors(client: httpx.AsyncClient, world: World, tmp_path: Path) -> None:
    repo = tmp_path / "r"
    shutil.copytree(EXAMPLES / "research-assistant", repo)
    pending = await _bind(world, world.system_a, repo, verify=False)
    body = {"aiSystemId": world.system_a, "engines": {"static": {"sourceAssetId": pending}}}
    assert_error(await _run(client, world.agent_key_a, body), 400, "SOURCE_NOT_VERIFIED")
    async with world.sessions() as session:
        await provisioning.set_source_status(session, pending, "CONFLICTED")
        await session.commit()
    assert_error(await _run(client, world.agent_key_a, body), 409, "SOURCE_CONFLICTED")
    other = tmp_path / "r2"
    shutil.copytree(EXAMPLES / "ops-agent", other)
    await _bind(world, world.system_a, other)
    third = tmp_path / "r3"
    shutil.copytree(EXAMPLES / "ops-agent", third)
    await _bind(world, world.system_a, third)
    ambiguous = {"aiSystemId": world.system_a, "engines": {"static": {"enabled": True}}}
    assert_error(await _run(client, world.agent_key_a, ambiguous), 400, "SOURCE_AMBIGUOUS")
    shutil.rmtree(third)
    by_url = {"aiSystemId": world.system_a, "engines": {"static": {"repositoryUrl": str(third)}}}
    assert_error(await _run(client, world.agent_key_a, by_url), 409, "SOURCE_UNAVAILABLE")


async def test_idempotency_replay_conflict_and_race(client: httpx.AsyncClient, world: World, tmp_path: Path) -> None:
    repo = tmp_path / "r"
    shutil.copytree(EXAMPLES / "research-assistant", repo)
    await _bind(world, world.system_a, repo)
    body = {"aiSystemId": world.system_a, "engines": {"static": {"enabled": True}}}
    first = await _run(client, world.agent_key_a, body, **{"Idempotency-Key": "k1"})
    assert first.status_code == 202
    replay = await _run(client, world.agent_key_a, body, **{"Idempotency-Key": "k1"})
    assert replay.status_code == 200 and replay.json()["runId"] == first.json()["runId"]
    other = {**body, "jurisdiction": "eu_ai_act"}
    assert_error(await _run(client, world.agent_key_a, other, **{"Idempotency-Key": "k1"}), 409, "IDEMPOTENCY_CONFLICT")

    responses = await asyncio.gather(
        *(_run(client, world.agent_key_a, body, **{"Idempotency-Key": "race"}) for _ in range(50))
    )
    assert all(r.status_code in (200, 202) for r in responses), [r.text for r in responses if r.status_code >= 300]
    assert len({r.json()["runId"] for r in responses}) == 1
    assert sum(r.status_code == 202 for r in responses) == 1
    listing = (await client.get(RUNS, params={"limit": 50}, headers=bearer(world.agent_key_a))).json()
    assert listing["total"] == 2


async def test_pagination_status_filter_and_bounds(client: httpx.AsyncClient, world: World, tmp_path: Path) -> None:
    repo = tmp_path / "r"
    shutil.copytree(EXAMPLES / "research-assistant", repo)
    await _bind(world, world.system_a, repo)
    body = {"aiSystemId": world.system_a, "engines": {"static": {"enabled": True}}}
    ids = [(await _run(client, world.agent_key_a, body)).json()["runId"] for _ in range(5)]
    for run_id in ids:
        await _wait(client, world.agent_key_a, run_id)
    page = (await client.get(RUNS, params={"page": 2, "limit": 2}, headers=bearer(world.agent_key_a))).json()
    assert (page["page"], page["limit"], page["total"], len(page["runs"])) == (2, 2, 5, 2)
    assert set(page["runs"][0]) == {
        "runId",
        "aiSystemId",
        "status",
        "stage",
        "staticExecutionMode",
        "jurisdiction",
        "createdAt",
        "startedAt",
        "completedAt",
        "links",
    }
    done = (await client.get(RUNS, params={"status": "COMPLETED"}, headers=bearer(world.agent_key_a))).json()
    assert done["total"] == 5
    assert (await client.get(RUNS, params={"status": "queued"}, headers=bearer(world.agent_key_a))).json()["total"] == 0
    for params in ({"limit": 51}, {"limit": 0}, {"page": 0}, {"page": "x"}, {"status": "DONE"}):
        assert_error(await client.get(RUNS, params=params, headers=bearer(world.agent_key_a)), 400, "INVALID_REQUEST")
    assert (await client.get(RUNS, headers=bearer(world.agent_key_b))).json()["total"] == 0


async def test_cross_organization_runs_and_evaluations_are_indistinguishable_404s(
    client: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    repo = tmp_path / "r"
    shutil.copytree(EXAMPLES / "research-assistant", repo)
    await _bind(world, world.system_a, repo)
    created = await _run(
        client, world.agent_key_a, {"aiSystemId": world.system_a, "engines": {"static": {"enabled": True}}}
    )
    done = await _wait(client, world.agent_key_a, created.json()["runId"])
    evaluation_id = done["evaluation"]["evaluationId"]
    pairs = [(f"{RUNS}/{done['runId']}", f"{RUNS}/run_00000000000000000000")]
    for suffix in ("/summary", "/agent-audit", "/master-report", "/passport", "/report/pdf"):
        base = "/api/v1/assurance/evaluations"
        pairs.append((f"{base}/{evaluation_id}{suffix}", f"{base}/eval_00000000000000000000{suffix}"))
    for foreign, missing in pairs:
        a = await client.get(foreign, headers=bearer(world.agent_key_b))
        b = await client.get(missing, headers=bearer(world.agent_key_b))
        assert a.status_code == b.status_code == 404
        assert a.content == b.content
        assert dict(a.headers) == dict(b.headers)
    assert_error(
        await _run(client, world.agent_key_b, {"aiSystemId": world.system_a, "engines": {"static": {"enabled": True}}}),
        404,
        "AI_SYSTEM_NOT_FOUND",
    )


async def test_bad_query_values_on_artifacts(client: httpx.AsyncClient, world: World, tmp_path: Path) -> None:
    repo = tmp_path / "r"
    shutil.copytree(EXAMPLES / "research-assistant", repo)
    await _bind(world, world.system_a, repo)
    done = await _wait(
        client,
        world.agent_key_a,
        (
            await _run(
                client, world.agent_key_a, {"aiSystemId": world.system_a, "engines": {"static": {"enabled": True}}}
            )
        ).json()["runId"],
    )
    links = done["links"]
    assert_error(
        await client.get(links["masterReport"] + "?detail=everything", headers=bearer(world.agent_key_a)),
        400,
        "INVALID_REQUEST",
    )
    assert_error(
        await client.get(links["pdf"] + "?profile=ceo", headers=bearer(world.agent_key_a)), 400, "INVALID_REQUEST"
    )
    assert_error(
        await client.get(links["pdf"] + "?pageSize=A3", headers=bearer(world.agent_key_a)), 400, "INVALID_REQUEST"
    )
    letter = await client.get(links["pdf"] + "?profile=auditor&pageSize=LETTER", headers=bearer(world.agent_key_a))
    assert letter.status_code == 200 and letter.headers["content-type"] == "application/pdf"


async def test_persisted_evaluations_cannot_be_updated_or_deleted(
    client: httpx.AsyncClient, world: World, app: Starlette, tmp_path: Path
) -> None:
    repo = tmp_path / "r"
    shutil.copytree(EXAMPLES / "research-assistant", repo)
    await _bind(world, world.system_a, repo)
    done = await _wait(
        client,
        world.agent_key_a,
        (
            await _run(
                client, world.agent_key_a, {"aiSystemId": world.system_a, "engines": {"static": {"enabled": True}}}
            )
        ).json()["runId"],
    )
    evaluation_id = done["evaluation"]["evaluationId"]
    before = (await client.get(done["links"]["masterReport"], headers=bearer(world.agent_key_a))).content
    engine = app.state.services.engine
    for statement in (
        "UPDATE evaluation SET disposition='ALLOW' WHERE id=:id",
        "DELETE FROM evaluation WHERE id=:id",
        "UPDATE evaluation_evidence SET kind='x' WHERE evaluation_id=:id",
        "DELETE FROM evaluation_evidence WHERE evaluation_id=:id",
    ):
        with pytest.raises(DBAPIError, match="immutable"):
            async with engine.begin() as connection:
                await connection.execute(text(statement), {"id": evaluation_id})
    after = (await client.get(done["links"]["masterReport"], headers=bearer(world.agent_key_a))).content
    assert before == after


async def test_engine_failure_fails_the_run_naming_the_engine(
    client: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    # A run whose frozen plan names a source that has gone since: the static engine fails, cleanly.
    plan = RunPlan(world.system_a, "api", None, str(tmp_path / "gone"), None, None)
    async with world.sessions() as session:
        session.add(
            models.Run(
                id="run_enginefailure0001",
                organization_id=world.org_a,
                ai_system_id=world.system_a,
                api_key_id="k",
                request_json="{}",
                plan_json=json.dumps(plan.to_json()),
                static_execution_mode="api",
            )
        )
        await session.commit()
    done = await _wait(client, world.agent_key_a, "run_enginefailure0001")
    assert done["status"] == "FAILED"
    assert done["failure"]["engine"] == "static" and done["failure"]["code"] == "SOURCE_UNAVAILABLE"
    assert done["failure"]["retryable"] is True
    assert done["evaluation"] is None and done["links"]["summary"] is None

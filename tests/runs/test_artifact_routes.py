"""The other evaluation artifact routes served beside summary and agent audit (master report JSON, HTML
and PDF, the legacy evidence report and its PDF, the passport and its JWKS): each reads exactly the
persisted Evaluation, validates its query values, and hides other organizations' Evaluations."""

from __future__ import annotations

import io
from pathlib import Path

import httpx
import pypdf
import pytest
from runs_helpers import EVALUATIONS, completed_run
from service_helpers import World, assert_error, bearer

from assay.backend.passport.verify import verify_passport


@pytest.mark.parametrize(("example", "disposition"), [("ops-agent", "BLOCK"), ("research-assistant", "ALLOW")])
async def test_artifacts_of_a_completed_run(
    client: httpx.AsyncClient, world: World, tmp_path: Path, example: str, disposition: str
) -> None:
    done = await completed_run(client, world, tmp_path, example)
    links, key = done["links"], world.agent_key_a
    report = (await client.get(links["masterReport"], headers=bearer(key))).json()
    assert report["evaluationId"] == done["evaluation"]["evaluationId"]
    assert report["masterReport"]["disposition"] == disposition
    assert report["masterReport"]["timeBasis"] == "EVALUATED_SNAPSHOT"
    html = await client.get(report["masterReport"]["links"]["html"], headers=bearer(key))
    assert html.status_code == 200 and html.headers["content-type"].startswith("text/html")
    pdf = (await client.get(links["masterReportPdf"], headers=bearer(key))).content
    text = "".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(pdf)).pages)
    assert f"Disposition: {disposition}" in text
    evidence = await client.get(links["report"], headers=bearer(key))
    assert evidence.status_code == 200
    letter = await client.get(links["pdf"], params={"profile": "auditor", "pageSize": "LETTER"}, headers=bearer(key))
    assert letter.status_code == 200 and letter.headers["content-type"] == "application/pdf"
    passport = (await client.get(links["passport"], headers=bearer(key))).json()
    jwks = (await client.get("/.well-known/jwks.json")).json()
    assert verify_passport(passport, jwks).disposition == disposition


async def test_bad_query_values_and_other_organizations(
    client: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    done = await completed_run(client, world, tmp_path, "research-assistant")
    links, key = done["links"], world.agent_key_a
    for url, params in (
        (links["masterReport"], {"detail": "everything"}),
        (links["pdf"], {"profile": "ceo"}),
        (links["pdf"], {"pageSize": "A3"}),
    ):
        assert_error(await client.get(url, params=params, headers=bearer(key)), 400, "INVALID_REQUEST")
    evaluation_id = done["evaluation"]["evaluationId"]
    for suffix in (
        "/master-report",
        "/master-report/html",
        "/master-report/pdf",
        "/report",
        "/report/pdf",
        "/passport",
    ):
        foreign = await client.get(f"{EVALUATIONS}/{evaluation_id}{suffix}", headers=bearer(world.agent_key_b))
        missing = await client.get(
            f"{EVALUATIONS}/eval_00000000000000000000{suffix}", headers=bearer(world.agent_key_b)
        )
        assert_error(foreign, 404, "RESOURCE_NOT_FOUND")
        assert foreign.content == missing.content and dict(foreign.headers) == dict(missing.headers)

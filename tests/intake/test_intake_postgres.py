"""Intake on PostgreSQL (asyncpg): binders, OTLP and structured batches, event-id dedupe, immutability
triggers, and a run attaching a batch. Own database per run, skipped when the server is not reachable."""

from __future__ import annotations

import shutil
from pathlib import Path

import anyio
import httpx
import pytest
from intake_helpers import OTLP_TRACES, PROTOBUF, ingest_headers, make_spans, trace_request
from runs_helpers import EXAMPLES, RUNS, STATIC
from service_helpers import World, bearer
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from assay.backend import provisioning
from assay.backend.intake import binders
from assay.backend.intake.store import load_ingested_batch
from assay.backend.runs.persist import load_membership
from assay.backend.settings import RateLimitSettings, ServiceSettings
from assay.backend.web.app import create_app

pytestmark = pytest.mark.postgres


async def test_intake_on_postgresql(pg_url: str, tmp_path: Path) -> None:
    app = create_app(ServiceSettings(database_url=pg_url, rate_limit=RateLimitSettings(enabled=False)))
    async with app.router.lifespan_context(app):
        world = World(sessions=app.state.services.session_factory)
        repo = tmp_path / "ops-agent"
        shutil.copytree(EXAMPLES / "ops-agent", repo)
        async with world.sessions() as session:
            org = await provisioning.create_organization(session, "Acme")
            system = await provisioning.create_ai_system(session, org.id, "Ops")
            source = await provisioning.add_source(session, org.id, system.id, str(repo))
            await provisioning.verify_source(session, source.id)
            binder = await binders.create_binder(
                session, org.id, source_system="ops", adapter_id="otlp", ai_system_id=system.id
            )
            await session.commit()
        world.org_a, world.system_a = org.id, system.id
        ingest = await world.key(["evidence:ingest"])
        agent = await world.key(["scan:create", "scan:read", "source:read"])
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://pg") as client:
            body = trace_request(make_spans(3))
            headers = ingest_headers(ingest, binder.id, **PROTOBUF)
            first = await client.post(OTLP_TRACES, content=body, headers=headers)
            again = await client.post(OTLP_TRACES, content=body, headers=headers)
            assert first.status_code == again.status_code == 200, first.text
            assert first.headers["assay-record-count"] == "3" and again.headers["assay-duplicate-count"] == "3"
            run_id = first.headers["assay-producer-run-id"]
            async with world.sessions() as session:
                batch = await load_ingested_batch(session, org.id, run_id)
                assert batch is not None and len(batch.records) == 3
                with pytest.raises(DBAPIError):
                    await (await session.connection()).execute(text("UPDATE intake_batch SET record_count = 0"))
            created = await client.post(
                RUNS,
                json={
                    "aiSystemId": system.id,
                    **STATIC,
                    "externalEvidenceAttachments": [{"producerId": "structured-ingress", "producerRunId": run_id}],
                },
                headers=bearer(agent),
            )
            assert created.status_code == 202, created.text
            with anyio.fail_after(60):
                while True:
                    run = (await client.get(f"{RUNS}/{created.json()['runId']}", headers=bearer(agent))).json()
                    if run["status"] in ("COMPLETED", "FAILED"):
                        break
                    await anyio.sleep(0.05)
            assert run["status"] == "COMPLETED", run
            async with world.sessions() as session:
                membership = await load_membership(session, run["evaluation"]["evaluationId"])
            assert sorted(i.kind for i in membership.items) == ["runtime_batch", "static_bundle"]

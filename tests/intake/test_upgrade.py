"""An existing database upgraded to the batches-as-content schema (migration 0004): traces batches stored
as records before it keep deduplicating what is sent again, and still attach and evaluate."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from intake_helpers import OTLP_TRACES, PROTOBUF, ingest_headers, make_spans
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from runs_helpers import STATIC, bind, copy_example, create, wait
from sqlalchemy import text

from assay.backend import provisioning
from assay.backend.canonical import canonical_bytes, digest_json
from assay.backend.intake import binders
from assay.backend.intake.adapters import otlp
from assay.backend.settings import RateLimitSettings, ServiceSettings
from assay.backend.storage.db import create_engine, create_session_factory, sqlite_url_for
from assay.backend.storage.migrations import upgrade_engine
from assay.backend.web.app import create_app


async def test_records_batches_of_before_the_upgrade_still_dedupe_and_attach(tmp_path: Path) -> None:
    url = sqlite_url_for(tmp_path / "old.db")
    request = encode_spans(make_spans(3))
    resource = otlp.resource_of(request.resource_spans[0].resource)
    scope = otlp.scope_of(request.resource_spans[0].scope_spans[0].scope)
    normalized = [otlp.span_record(s, resource, scope) for s in request.resource_spans[0].scope_spans[0].spans]
    engine = create_engine(url)
    try:
        await upgrade_engine(engine, "0003_intake")
        async with create_session_factory(engine)() as session:
            org = await provisioning.create_organization(session, "Acme")
            system = await provisioning.create_ai_system(session, org.id, "Ops")
            binder = await binders.create_binder(
                session, org.id, source_system="ops", adapter_id="otlp", ai_system_id=system.id
            )
            key = await provisioning.create_api_key(session, org.id, purpose="evidence-intake")
            agent = await provisioning.create_api_key(session, org.id, purpose="assurance-agent")
            await session.commit()
            # A traces batch as the service stored it before 0004: one normalized record per span.
            connection = await session.connection()
            await connection.execute(
                text(
                    "INSERT INTO intake_batch (id, organization_id, binder_id, ai_system_id, api_key_id, producer_id, "
                    "producer_kind, adapter_id, adapter_version, record_count, duplicate_count, content_digest, "
                    "created_at) VALUES ('ing_old', :org, :binder, :system, 'key', 'structured-ingress', "
                    "'otlp-traces', 'otlp', '1.0.0', 3, 0, :digest, '2026-01-01 00:00:00')"
                ),
                {
                    "org": org.id,
                    "binder": binder.id,
                    "system": system.id,
                    "digest": digest_json([r for _, r in normalized]),
                },
            )
            for seq, (event_id, record) in enumerate(normalized):
                await connection.execute(
                    text(
                        "INSERT INTO intake_record (batch_id, seq, binder_id, event_id, record_json) "
                        "VALUES ('ing_old', :seq, :binder, :event, :record)"
                    ),
                    {"seq": seq, "binder": binder.id, "event": event_id, "record": canonical_bytes(record).decode()},
                )
            await session.commit()
    finally:
        await engine.dispose()

    # The service upgrades the database when it starts.
    app = create_app(ServiceSettings(database_url=url, data_dir=tmp_path, rate_limit=RateLimitSettings(enabled=False)))
    async with app.router.lifespan_context(app):
        sessions = app.state.services.session_factory
        await bind(sessions, org.id, system.id, copy_example("ops-agent", tmp_path))
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://up") as client:
            again = await client.post(
                OTLP_TRACES,
                content=request.SerializeToString(),
                headers=ingest_headers(key.api_key, binder.id, **PROTOBUF),
            )
            assert again.status_code == 200, again.text
            assert (again.headers["assay-record-count"], again.headers["assay-duplicate-count"]) == ("0", "3")
            created = await create(
                client,
                agent.api_key,
                {
                    "aiSystemId": system.id,
                    **STATIC,
                    "externalEvidenceAttachments": [{"producerId": "structured-ingress", "producerRunId": "ing_old"}],
                },
            )
            assert created.status_code == 202, created.text
            done = await wait(client, agent.api_key, created.json()["runId"])
            assert done["status"] == "COMPLETED", done
            evaluation = await client.get(
                f"/api/v1/assurance/evaluations/{done['evaluation']['evaluationId']}/master-report",
                headers={"Authorization": f"Bearer {agent.api_key}"},
            )
    observed = json.loads(evaluation.text)["masterReport"]["fourQuestions"]["observed"]
    assert {a["tool"]: a["count"] for a in observed["actions"]} == {"refund": 2}

"""externalEvidenceAttachments: intake receipts and qualified scans frozen into a run's membership, and
evaluated; later intake never changes an existing Evaluation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from intake_helpers import OTLP_TRACES, PROTOBUF, IntakeWorld, ingest_headers, make_spans, trace_request
from runs_helpers import RUNS, STATIC, bind, copy_example, create, wait
from service_bundles import make_submission
from service_helpers import assert_error, bearer
from sqlalchemy import text
from test_structured_log_sarif import ruff_sarif

from assay.backend.evaluation.membership import EvidenceMembership
from assay.backend.intake.store import TamperedBatchError, load_ingested_batch
from assay.backend.runs.persist import load_evaluation, load_membership


async def _ingest_spans(client: httpx.AsyncClient, iw: IntakeWorld, binder: str, tool: str = "refund") -> str:
    response = await client.post(
        OTLP_TRACES,
        content=trace_request(make_spans(3, tool=tool)),
        headers=ingest_headers(iw.ingest_key_a, binder, **PROTOBUF),
    )
    assert response.status_code == 200, response.text
    return response.headers["assay-producer-run-id"]


async def _ingest_sarif(client: httpx.AsyncClient, iw: IntakeWorld, tmp_path: Path) -> str:
    response = await client.post(
        "/api/ingest/sarif",
        content=ruff_sarif(tmp_path),
        headers=ingest_headers(iw.ingest_key_a, iw.binders["sarif"], **{"Content-Type": "application/sarif+json"}),
    )
    assert response.status_code == 201, response.text
    return str(response.json()["producerRunId"])


def spans_item_digest(membership: EvidenceMembership) -> str:
    [item] = [i for i in membership.items if i.kind == "runtime_batch" and '"contentFormat"' in i.payloadJson]
    return item.contentDigest


async def _evaluation(iw: IntakeWorld, evaluation_id: str) -> tuple[str, EvidenceMembership]:
    async with iw.world.sessions() as session:
        row = await load_evaluation(session, iw.world.org_a, evaluation_id)
        assert row is not None
        return row.payload_json, await load_membership(session, evaluation_id)


async def _run(client: httpx.AsyncClient, iw: IntakeWorld, attachments: list[dict[str, str]]) -> dict[str, Any]:
    created = await create(
        client,
        iw.world.agent_key_a,
        {"aiSystemId": iw.world.system_a, **STATIC, "externalEvidenceAttachments": attachments},
    )
    assert created.status_code == 202, created.text
    done = await wait(client, iw.world.agent_key_a, created.json()["runId"])
    assert done["status"] == "COMPLETED", done
    return done


async def test_attached_batches_are_frozen_into_the_membership_and_observed(
    client: httpx.AsyncClient, iw: IntakeWorld, tmp_path: Path
) -> None:
    await bind(iw.world.sessions, iw.world.org_a, iw.world.system_a, copy_example("ops-agent", tmp_path))
    spans_run = await _ingest_spans(client, iw, iw.binders["otlp"])
    sarif_run = await _ingest_sarif(client, iw, tmp_path)
    events = await client.post(
        "/api/ingest/structured",
        json={
            "binderId": iw.binders["structured"],
            "events": [{"eventId": "t1", "type": "tool_call", "tool": "lookup_order"}],
        },
        headers=ingest_headers(iw.ingest_key_a),
    )
    assert events.status_code == 201
    attachments = [
        {"producerId": "structured-ingress", "producerRunId": spans_run},
        {"producerId": "sarif-import", "producerRunId": sarif_run},
        {"producerId": "structured-ingress", "producerRunId": events.json()["producerRunId"]},
    ]
    done = await _run(client, iw, attachments)
    evaluation_id = done["evaluation"]["evaluationId"]
    payload_text, membership = await _evaluation(iw, evaluation_id)
    kinds = sorted(i.kind for i in membership.items)
    assert kinds == ["runtime_batch", "runtime_batch", "sarif_report", "static_bundle"]
    runtime = [json.loads(i.payloadJson) for i in membership.items if i.kind == "runtime_batch"]
    spans_payload = next(p for p in runtime if p["signal"] == "otlp-traces")
    # A traces batch is frozen as a reference to the immutable batch, identified by its content digest.
    assert spans_payload == {
        "adapter": "otlp",
        "batch": spans_run,
        "contentDigest": spans_item_digest(membership),
        "contentFormat": "otlp-protobuf",
        "recordCount": 3,
        "signal": "otlp-traces",
    }
    events_payload = next(p for p in runtime if p["signal"] == "structured")
    assert [r["kind"] for r in events_payload["records"]] == ["event"]
    [sarif_item] = [json.loads(i.payloadJson) for i in membership.items if i.kind == "sarif_report"]
    assert sarif_item["sarif"]["version"] == "2.1.0"
    assert any(r.get("ruleId") == "S602" for r in sarif_item["sarif"]["runs"][0]["results"])
    observed = json.loads(payload_text)["fourQuestions"]["observed"]
    assert observed["status"] != "EVIDENCE_NEEDED"
    assert {a["tool"] for a in observed["actions"]} >= {"refund", "lookup_order"}

    # New intake through the same binder never changes the Evaluation; the same attachments evaluate
    # to the same membership digest in a new run.
    await _ingest_spans(client, iw, iw.binders["otlp"], tool="send_email")
    again_text, _ = await _evaluation(iw, evaluation_id)
    assert again_text == payload_text
    second = await _run(client, iw, attachments)
    second_text, _ = await _evaluation(iw, second["evaluation"]["evaluationId"])
    assert json.loads(second_text)["evidenceBundleDigest"] == json.loads(payload_text)["evidenceBundleDigest"]


async def test_a_qualified_scan_attaches_as_ci_cd_scanner(
    client: httpx.AsyncClient, iw: IntakeWorld, tmp_path: Path
) -> None:
    await bind(iw.world.sessions, iw.world.org_a, iw.world.system_a, copy_example("ops-agent", tmp_path))
    submitted = await client.post(
        "/api/v1/scans", json=make_submission(iw.world.system_a), headers=bearer(iw.world.agent_key_a)
    )
    assert submitted.status_code == 201, submitted.text
    done = await _run(client, iw, [{"producerId": "ci-cd-scanner", "producerRunId": submitted.json()["scanId"]}])
    _, membership = await _evaluation(iw, done["evaluation"]["evaluationId"])
    assert sorted(i.producerId for i in membership.items) == ["assay-static", "ci-cd-scanner"]


async def test_unknown_foreign_and_mismatched_attachments(
    client: httpx.AsyncClient, iw: IntakeWorld, tmp_path: Path
) -> None:
    await bind(iw.world.sessions, iw.world.org_a, iw.world.system_a, copy_example("ops-agent", tmp_path))
    theirs_binder = (await iw.binder("otlp", org=iw.world.org_b)).id
    theirs = await client.post(
        OTLP_TRACES,
        content=trace_request(make_spans(2)),
        headers=ingest_headers(iw.ingest_key_b, theirs_binder, **PROTOBUF),
    )
    assert theirs.status_code == 200
    other_system = (await iw.binder("otlp", ai_system_id=iw.world.system_a2)).id
    other_run = await _ingest_spans(client, iw, other_system)
    sarif_run = await _ingest_sarif(client, iw, tmp_path)

    def body(producer: str, run_id: str) -> dict[str, Any]:
        return {
            "aiSystemId": iw.world.system_a,
            **STATIC,
            "externalEvidenceAttachments": [{"producerId": producer, "producerRunId": run_id}],
        }

    unknown = await client.post(
        RUNS, json=body("structured-ingress", "ing_0000000000"), headers=bearer(iw.world.agent_key_a)
    )
    foreign = await client.post(
        RUNS,
        json=body("structured-ingress", theirs.headers["assay-producer-run-id"]),
        headers=bearer(iw.world.agent_key_a),
    )
    assert_error(unknown, 404, "RESOURCE_NOT_FOUND")
    assert foreign.status_code == 404 and foreign.content == unknown.content
    scan_as_batch = await client.post(
        RUNS, json=body("ci-cd-scanner", "ing_0000000000"), headers=bearer(iw.world.agent_key_a)
    )
    assert scan_as_batch.content == unknown.content
    assert_error(
        await client.post(RUNS, json=body("structured-ingress", other_run), headers=bearer(iw.world.agent_key_a)),
        400,
        "INVALID_REQUEST",
    )
    assert_error(
        await client.post(RUNS, json=body("structured-ingress", sarif_run), headers=bearer(iw.world.agent_key_a)),
        400,
        "INVALID_REQUEST",
    )
    listed = await client.get(RUNS, headers=bearer(iw.world.agent_key_a))
    assert listed.json()["total"] == 0


async def test_a_tampered_stored_batch_is_detected_on_read(
    client: httpx.AsyncClient, iw: IntakeWorld, tmp_path: Path
) -> None:
    await bind(iw.world.sessions, iw.world.org_a, iw.world.system_a, copy_example("ops-agent", tmp_path))
    spans_run = await _ingest_spans(client, iw, iw.binders["otlp"])
    attachment = [{"producerId": "structured-ingress", "producerRunId": spans_run}]
    created = await create(client, iw.world.agent_key_a, {"aiSystemId": iw.world.system_a, **STATIC})
    assert created.status_code == 202
    # Someone with the database's file rewrites a stored span (the trigger stops an ordinary UPDATE).
    async with iw.world.sessions() as session:
        connection = await session.connection()
        await connection.execute(text("DROP TRIGGER intake_content_no_update"))
        await connection.execute(
            text("UPDATE intake_content SET data = CAST(replace(data, X'726566756e64', X'726566756e65') AS BLOB)")
        )
        await session.commit()
    async with iw.world.sessions() as session:
        with pytest.raises(TamperedBatchError):
            await load_ingested_batch(session, iw.world.org_a, spans_run)
    accepted = await create(
        client,
        iw.world.agent_key_a,
        {"aiSystemId": iw.world.system_a, **STATIC, "externalEvidenceAttachments": attachment},
    )
    assert accepted.status_code == 202, accepted.text
    done = await wait(client, iw.world.agent_key_a, accepted.json()["runId"])
    assert done["status"] == "FAILED" and done["evaluation"] is None
    assert done["failure"]["code"] == "RUN_FAILED"
    assert "does not match its content digest" in done["failure"]["message"]

"""A probe recording attached to a NEW run like any other evidence (producerId ``assay-runtime``): the new
run evaluates the frozen recording byte for byte without contacting the target, joins it to code analysed
in the same run, and refuses what is not an attachable recording with the contract's codes."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import httpx
from runs_helpers import STATIC, bind, create
from runtime_helpers import add_target, evaluation, run_to_end, runtime_body
from service_helpers import World, assert_error
from sqlmodel import col, select
from starlette.applications import Starlette

from assay.backend.storage import models

HERE = Path(__file__).resolve().parent


def attach(run_id: str) -> list[dict[str, str]]:
    return [{"producerId": "assay-runtime", "producerRunId": run_id}]


async def stored(world: World, envelope: dict[str, Any]) -> tuple[models.Evaluation, list[tuple[str, ...]]]:
    evaluation_id = envelope["evaluation"]["evaluationId"]
    async with world.sessions() as session:
        row = await session.get(models.Evaluation, evaluation_id)
        members = (
            await session.exec(
                select(models.EvaluationEvidence).where(col(models.EvaluationEvidence.evaluation_id) == evaluation_id)
            )
        ).all()
    assert row is not None
    return row, sorted((m.evidence_id, m.kind, m.producer_id, m.content_digest, m.payload_json) for m in members)


async def test_an_attached_recording_is_evaluated_byte_for_byte_without_contacting_the_target(
    app: Starlette, client: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    starts = tmp_path / "starts"
    target = await add_target(app, world, command=f"{sys.executable} {HERE / 'rugpull_server.py'} {starts}")
    await run_to_end(client, world, runtime_body(world, target))
    probed = await run_to_end(client, world, runtime_body(world, target))  # compared with the first: a rug pull
    assert probed["evaluation"]["disposition"] == "BLOCK"
    assert starts.read_text() == "2"

    body = {"aiSystemId": world.system_a, "engines": {}, "externalEvidenceAttachments": attach(probed["runId"])}
    again = await run_to_end(client, world, body)
    assert again["status"] == "COMPLETED", again
    assert starts.read_text() == "2"  # the server was not started again
    original, original_members = await stored(world, probed)
    replayed, replayed_members = await stored(world, again)
    assert replayed.id != original.id
    # The same evidence (the recording and the catalogue it was compared against), the same Evaluation.
    assert sorted(m[1] for m in replayed_members) == ["catalogue_pin", "runtime_probe"]
    assert replayed_members == original_members
    assert replayed.payload_json == original.payload_json
    assert (replayed.core_truth_digest, replayed.evidence_bundle_digest) == (
        original.core_truth_digest,
        original.evidence_bundle_digest,
    )
    # Attached twice, or beside the run that recorded it: one item each (content addressed).
    twice = {**body, "externalEvidenceAttachments": attach(probed["runId"]) + attach(again["runId"])}
    assert (await stored(world, await run_to_end(client, world, twice)))[1] == original_members


async def test_a_recording_meets_the_code_analysed_in_the_new_run(
    app: Starlette, client: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    source = tmp_path / "notes_mcp"
    shutil.copytree(HERE / "fixtures" / "notes_mcp", source)
    target = await add_target(app, world, command=f"{sys.executable} {source / 'server.py'}")
    probed = await run_to_end(client, world, runtime_body(world, target))
    reasons = (await evaluation(client, world, probed))["agentAudit"]["sections"][0]["reasons"]
    assert "REVIEW-103" in {r["ruleId"] for r in reasons} and "REVIEW-102" not in {r["ruleId"] for r in reasons}

    await bind(world.sessions, world.org_a, world.system_a, source)
    joined = await run_to_end(
        client, world, {"aiSystemId": world.system_a, **STATIC, "externalEvidenceAttachments": attach(probed["runId"])}
    )
    reasons = (await evaluation(client, world, joined))["agentAudit"]["sections"][0]["reasons"]
    review = [r for r in reasons if r["ruleId"] == "REVIEW-102"]
    assert len(review) == 1 and "delete_note" in review[0]["message"]  # readOnlyHint, but the code deletes
    assert "REVIEW-103" not in {r["ruleId"] for r in reasons}


async def test_what_is_not_an_attachable_recording_is_refused(
    app: Starlette, client: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    target = await add_target(app, world, command=f"{sys.executable} {HERE / 'rugpull_server.py'} {tmp_path / 's'}")
    probed = await run_to_end(client, world, runtime_body(world, target))

    def body(run_id: str, system: str | None = None) -> dict[str, Any]:
        return {"aiSystemId": system or world.system_a, "engines": {}, "externalEvidenceAttachments": attach(run_id)}

    missing = await create(client, world.agent_key_a, body("run_doesnotexist"))
    assert_error(missing, 404, "RESOURCE_NOT_FOUND")
    # Another organization's run: the same answer, byte for byte.
    foreign = await create(client, world.agent_key_b, body(probed["runId"], world.system_b))
    assert_error(foreign, 404, "RESOURCE_NOT_FOUND")
    assert foreign.content == missing.content
    other_system = await create(client, world.agent_key_a, body(probed["runId"], world.system_a2))
    assert_error(other_system, 400, "INVALID_REQUEST")
    assert "another AI System" in other_system.json()["error"]["message"]
    # A run without the runtime engine recorded nothing.
    source = tmp_path / "notes_mcp"
    shutil.copytree(HERE / "fixtures" / "notes_mcp", source)
    await bind(world.sessions, world.org_a, world.system_a, source)
    static = await run_to_end(client, world, {"aiSystemId": world.system_a, **STATIC})
    unrecorded = await create(client, world.agent_key_a, body(static["runId"]))
    assert_error(unrecorded, 400, "INVALID_REQUEST")
    assert "recorded no probe session" in unrecorded.json()["error"]["message"]
    failed = await run_to_end(client, world, runtime_body(world, target, suites=["catalogue"], maxRequests=1))
    assert failed["status"] == "FAILED"
    refused = await create(client, world.agent_key_a, body(failed["runId"]))
    assert_error(refused, 400, "INVALID_REQUEST")
    assert "has no Evaluation (FAILED)" in refused.json()["error"]["message"]

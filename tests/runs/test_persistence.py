"""Persisted Evaluations: one transaction, immutable in the database itself, and byte-identical when the
same frozen evidence is evaluated again."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from runs_helpers import STATIC, bind, copy_example, create, wait
from service_bundles import make_submission
from service_helpers import World, bearer
from sqlalchemy import text, update
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlmodel import col, select
from starlette.applications import Starlette

from assay.backend.canonical import canonical_bytes
from assay.backend.evaluation.membership import EvidenceMembership
from assay.backend.evaluation.methodology import evaluate
from assay.backend.runs.persist import freeze, load_membership, persist_evaluation
from assay.backend.runs.worker import Worker
from assay.backend.settings import ServiceSettings
from assay.backend.storage import models

IMMUTABILITY_STATEMENTS = (
    "UPDATE evaluation SET disposition='ALLOW' WHERE id=:id",
    "UPDATE evaluation SET payload_json='{}' WHERE id=:id",
    "DELETE FROM evaluation WHERE id=:id",
    "UPDATE evaluation_evidence SET payload_json='{}' WHERE evaluation_id=:id",
    "DELETE FROM evaluation_evidence WHERE evaluation_id=:id",
)


@pytest.fixture
def settings(settings: ServiceSettings) -> ServiceSettings:
    # The tests run the worker themselves (Worker.run_once), one step at a time.
    return replace(settings, run_workers=0)


async def _evaluation_rows(
    world: World, evaluation_id: str
) -> tuple[models.Evaluation, list[models.EvaluationEvidence]]:
    async with world.sessions() as session:
        row = await session.get(models.Evaluation, evaluation_id)
        members = (
            await session.exec(
                select(models.EvaluationEvidence)
                .where(models.EvaluationEvidence.evaluation_id == evaluation_id)
                .order_by(col(models.EvaluationEvidence.evidence_id))
            )
        ).all()
    assert row is not None
    return row, list(members)


async def _run_to_end(
    client: httpx.AsyncClient, world: World, settings: ServiceSettings, body: dict[str, Any]
) -> dict[str, Any]:
    created = await create(client, world.agent_key_a, body)
    assert created.status_code == 202, created.text
    assert await Worker(world.sessions, settings).run_once()
    return await wait(client, world.agent_key_a, created.json()["runId"])


async def test_persisted_evaluations_cannot_be_updated_or_deleted(
    client: httpx.AsyncClient, world: World, app: Starlette, tmp_path: Path, settings: ServiceSettings
) -> None:
    await bind(world.sessions, world.org_a, world.system_a, copy_example("ops-agent", tmp_path))
    done = await _run_to_end(client, world, settings, {"aiSystemId": world.system_a, **STATIC})
    evaluation_id = done["evaluation"]["evaluationId"]
    before = (await client.get(done["links"]["summary"], headers=bearer(world.agent_key_a))).content
    engine = app.state.services.engine
    for statement in IMMUTABILITY_STATEMENTS:
        with pytest.raises(DBAPIError, match="immutable"):
            async with engine.begin() as connection:
                await connection.execute(text(statement), {"id": evaluation_id})
    # Through the ORM too: the guard is the database's, not a convention of this code.
    with pytest.raises(DBAPIError, match="immutable"):
        async with world.sessions() as session:
            row = await session.get(models.Evaluation, evaluation_id)
            assert row is not None
            row.disposition = "ALLOW"
            session.add(row)
            await session.commit()
    after = (await client.get(done["links"]["summary"], headers=bearer(world.agent_key_a))).content
    assert before == after and b'"disposition":"BLOCK"' in after


async def test_re_evaluating_the_same_evidence_is_byte_identical(
    client: httpx.AsyncClient, world: World, tmp_path: Path, settings: ServiceSettings
) -> None:
    # Twice over one attached scan, twice as a fresh scan of the same tree: four runs, two memberships.
    scan = await client.post("/api/v1/scans", json=make_submission(world.system_a), headers=bearer(world.agent_key_a))
    assert scan.status_code == 201, scan.text
    attached = {"aiSystemId": world.system_a, "engines": {"static": scan.json()["attach"]}}
    await bind(world.sessions, world.org_a, world.system_a, copy_example("support-agent-ts", tmp_path))
    fresh = {"aiSystemId": world.system_a, **STATIC}
    runs = [await _run_to_end(client, world, settings, body) for body in (attached, attached, fresh, fresh)]
    assert all(r["status"] == "COMPLETED" for r in runs)
    rows = [await _evaluation_rows(world, r["evaluation"]["evaluationId"]) for r in runs]
    assert len({row.id for row, _ in rows}) == 4  # four Evaluations, never one overwritten
    for (first, first_members), (second, second_members) in (rows[0:2], rows[2:4]):
        assert first.payload_json.encode() == second.payload_json.encode()
        assert (first.core_truth_digest, first.evidence_bundle_digest) == (
            second.core_truth_digest,
            second.evidence_bundle_digest,
        )
        assert [(m.evidence_id, m.content_digest, m.payload_json) for m in first_members] == [
            (m.evidence_id, m.content_digest, m.payload_json) for m in second_members
        ]
    assert rows[0][0].evidence_bundle_digest != rows[2][0].evidence_bundle_digest

    # The stored membership alone reproduces the stored payload, byte for byte (the methodology is pure).
    row, _ = rows[2]
    async with world.sessions() as session:
        membership = await load_membership(session, row.id)
    again = evaluate(membership, ai_system_id=world.system_a, jurisdiction=None)
    assert canonical_bytes(again.data) == row.payload_json.encode()
    # And every read of an artifact is the same bytes.
    summaries = {
        (await client.get(runs[2]["links"]["summary"], headers=bearer(world.agent_key_a))).content for _ in range(3)
    }
    assert len(summaries) == 1


async def test_persisting_is_one_transaction(
    client: httpx.AsyncClient, world: World, tmp_path: Path, settings: ServiceSettings
) -> None:
    await bind(world.sessions, world.org_a, world.system_a, copy_example("research-assistant", tmp_path))
    run_id = (await create(client, world.agent_key_a, {"aiSystemId": world.system_a, **STATIC})).json()["runId"]
    worker = Worker(world.sessions, settings, worker_id="wrk_test")
    assert await worker.claim() == run_id
    # A real membership, then the same item twice: the second membership row violates its primary key
    # at commit, after the run's completion and the evaluation row were written in the same transaction.
    created = (await client.get(f"/api/v1/assurance/runs/{run_id}", headers=bearer(world.agent_key_a))).json()
    assert created["status"] == "RUNNING" and created["stage"] == "static"
    from assay.backend.engines.static.scan import scan_tree
    from assay.backend.evaluation.membership import static_bundle_item

    item = static_bundle_item(scan_tree(tmp_path / "research-assistant").to_json_dict())
    payload = evaluate(EvidenceMembership(items=[item]), ai_system_id=world.system_a, jurisdiction=None)
    broken = EvidenceMembership(items=[item, item])
    with pytest.raises(IntegrityError):
        await persist_evaluation(
            world.sessions,
            run_id=run_id,
            worker_id="wrk_test",
            organization_id=world.org_a,
            ai_system_id=world.system_a,
            frozen=freeze(broken, payload),
            now=models.utcnow(),
        )
    async with world.sessions() as session:
        assert (await session.exec(select(models.Evaluation))).all() == []
        assert (await session.exec(select(models.EvaluationEvidence))).all() == []
        run = await session.get(models.Run, run_id)
        assert run is not None and (run.status, run.evaluation_id) == ("RUNNING", None)

    # A worker that no longer owns the run persists nothing at all.
    async with world.sessions() as session:
        await session.exec(update(models.Run).values(claimed_by="wrk_other"))
        await session.commit()
    stranger = await persist_evaluation(
        world.sessions,
        run_id=run_id,
        worker_id="wrk_test",
        organization_id=world.org_a,
        ai_system_id=world.system_a,
        frozen=freeze(EvidenceMembership(items=[item]), payload),
        now=models.utcnow(),
    )
    assert stranger is None
    async with world.sessions() as session:
        assert (await session.exec(select(models.Evaluation))).all() == []

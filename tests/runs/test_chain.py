"""The canonical chain over the example systems: create -> poll -> summary and agent audit of exactly the
persisted Evaluation. Dispositions and the shape of each Evaluation's findings are pinned."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from runs_helpers import EVALUATIONS, RUNS, STATIC, bind, copy_example, create, wait
from service_helpers import World, bearer
from sqlmodel import select

from assay.backend.evaluation.methodology import METHODOLOGY_VERSION
from assay.backend.storage import models

VERIFICATION_ITEM_MEMBERS = {
    "id",
    "whatHaiecFound",
    "whatItEstablishes",
    "whatHaiecDidNotEstablish",
    "whyItMatters",
    "verificationNeeded",
    "affectedQuestionIds",
    "affectedPathIds",
    "evidenceRefs",
    "relationIds",
    "boundary",
    # structured members beside the prose (docs/reports.md)
    "kind",
    "severity",
    "location",
    "tool",
    "tools",
    "toolCount",
    "actionClass",
}


@pytest.mark.parametrize(
    ("example", "disposition", "reasons", "verification_items", "unresolved"),
    [
        ("ops-agent", "BLOCK", {"BLOCK": 3, "REVIEW": 5}, 5, 0),
        ("support-agent-ts", "REVIEW", {"BLOCK": 0, "REVIEW": 2}, 3, 1),
        ("research-assistant", "ALLOW", {"BLOCK": 0, "REVIEW": 0}, 1, 0),
    ],
)
async def test_chain_over_the_examples(
    client: httpx.AsyncClient,
    world: World,
    tmp_path: Path,
    example: str,
    disposition: str,
    reasons: dict[str, int],
    verification_items: int,
    unresolved: int,
) -> None:
    key = world.agent_key_a
    await bind(world.sessions, world.org_a, world.system_a, copy_example(example, tmp_path))
    created = await create(client, key, {"aiSystemId": world.system_a, **STATIC})
    assert created.status_code == 202, created.text
    envelope = created.json()
    assert envelope["status"] in ("QUEUED", "RUNNING", "COMPLETED")
    assert envelope["aiSystemId"] == world.system_a
    assert envelope["links"]["self"] == f"{RUNS}/{envelope['runId']}"
    if envelope["evaluation"] is None:
        assert all(v is None for k, v in envelope["links"].items() if k != "self")

    done = await wait(client, key, envelope["runId"])
    assert done["status"] == "COMPLETED" and done["stage"] is None and done["failure"] is None
    assert done["startedAt"] is not None and done["completedAt"] is not None
    evaluation = done["evaluation"]
    assert evaluation["disposition"] == disposition
    assert evaluation["status"] == "FINAL"
    assert evaluation["methodologyVersion"] == METHODOLOGY_VERSION
    evaluation_id = evaluation["evaluationId"]
    links = done["links"]
    base = f"{EVALUATIONS}/{evaluation_id}"
    assert links["summary"] == f"{base}/summary" and links["agentAudit"] == f"{base}/agent-audit"
    for name, link in links.items():
        if name.startswith("dashboard"):
            # A dashboard page (tests/dashboard signs in): without a session it sends the browser to sign in.
            assert link.startswith("/dashboard/"), (name, link)
            response = await client.get(link)
            assert response.status_code == 303 and response.headers["location"].startswith("/dashboard/login?next=")
        else:
            response = await client.get(link, headers=bearer(key))
            assert response.status_code == 200, (name, response.text)

    summary = (await client.get(links["summary"], headers=bearer(key))).json()
    assert summary["evaluationId"] == evaluation_id and summary["aiSystemId"] == world.system_a
    assert summary["disposition"] == disposition and summary["methodologyVersion"] == METHODOLOGY_VERSION
    assert summary["counts"]["reasons"] == reasons
    assert summary["counts"]["proofBoundary"] == {"unresolved": unresolved, "verificationItems": verification_items}
    assert summary["links"]["agentAudit"] == links["agentAudit"]

    audit: dict[str, Any] = (await client.get(links["agentAudit"], headers=bearer(key))).json()
    assert set(audit) == {"evaluationId", "agentAudit"} and audit["evaluationId"] == evaluation_id
    body = audit["agentAudit"]
    assert body["disposition"] == disposition
    assert set(body["narrative"]) == {"established", "unestablished", "notAssessed", "evidenceGaps", "limitations"}
    assert len(body["verificationItems"]) == verification_items
    # Every verification item traces to evidence ids of the frozen membership.
    async with world.sessions() as session:
        members = (
            await session.exec(
                select(models.EvaluationEvidence.evidence_id).where(
                    models.EvaluationEvidence.evaluation_id == evaluation_id
                )
            )
        ).all()
    assert members
    for item in body["verificationItems"]:
        assert set(item) == VERIFICATION_ITEM_MEMBERS
        assert item["verificationNeeded"] and item["evidenceRefs"]
        assert all(ref.split("#", 1)[0] in members for ref in item["evidenceRefs"])

    # Reads are projections of the frozen payload: byte-identical however often they are made.
    again = await client.get(links["agentAudit"], headers=bearer(key))
    assert again.content == (await client.get(links["agentAudit"], headers=bearer(key))).content


async def test_jurisdiction_is_recorded_and_its_controls_not_assessed(
    client: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    key = world.agent_key_a
    await bind(world.sessions, world.org_a, world.system_a, copy_example("research-assistant", tmp_path))
    created = await create(client, key, {"aiSystemId": world.system_a, **STATIC, "jurisdiction": "eu_ai_act"})
    done = await wait(client, key, created.json()["runId"])
    summary = (await client.get(done["links"]["summary"], headers=bearer(key))).json()
    assert summary["jurisdiction"] == "eu_ai_act"
    # Without the wizard engine the jurisdiction's controls are NOT_ASSESSED, which is never a pass.
    assert summary["disposition"] == "REVIEW"
    listing = (await client.get(RUNS, headers=bearer(key))).json()
    assert listing["runs"][0]["jurisdiction"] == "eu_ai_act" and listing["runs"][0]["staticExecutionMode"] == "api"

"""examples/refund-agent end to end: its OTLP/JSON trace goes in through the OTLP route, a NEW run
attaches the receipt, and the Evaluation shows what the trace shows: the tool calls with their counts and
the conversation that skipped the declared approval as the scenario's earliest divergence."""

from __future__ import annotations

from pathlib import Path

import httpx
from intake_helpers import OTLP_TRACES, IntakeWorld, ingest_headers
from runs_helpers import STATIC, bind, copy_example, create, wait
from service_helpers import bearer

TRACE = Path(__file__).resolve().parents[2] / "examples" / "refund-agent" / "traces" / "refunds.otlp.json"


async def test_refund_trace_diverges_from_the_declared_scenario(
    client: httpx.AsyncClient, iw: IntakeWorld, tmp_path: Path
) -> None:
    await bind(iw.world.sessions, iw.world.org_a, iw.world.system_a, copy_example("refund-agent", tmp_path))
    ingested = await client.post(
        OTLP_TRACES,
        content=TRACE.read_bytes(),
        headers=ingest_headers(iw.ingest_key_a, iw.binders["otlp"], **{"Content-Type": "application/json"}),
    )
    assert ingested.status_code == 200, ingested.text
    receipt = ingested.headers["assay-producer-run-id"]

    without = await create(client, iw.world.agent_key_a, {"aiSystemId": iw.world.system_a, **STATIC})
    attached = await create(
        client,
        iw.world.agent_key_a,
        {
            "aiSystemId": iw.world.system_a,
            **STATIC,
            "externalEvidenceAttachments": [{"producerId": "structured-ingress", "producerRunId": receipt}],
        },
    )
    runs = [await wait(client, iw.world.agent_key_a, r.json()["runId"]) for r in (without, attached)]
    assert [r["status"] for r in runs] == ["COMPLETED", "COMPLETED"]
    # Bounded reports: every list here is shorter than the bound (10 items).
    before, after = [
        (
            await client.get(
                f"/api/v1/assurance/evaluations/{r['evaluation']['evaluationId']}/master-report",
                headers=bearer(iw.world.agent_key_a),
            )
        ).json()["masterReport"]
        for r in runs
    ]

    assert before["evaluationScenarioSnapshot"]["status"] == "EVIDENCE_NEEDED"
    assert before["fourQuestions"]["observed"]["status"] == "EVIDENCE_NEEDED"

    snapshot = after["evaluationScenarioSnapshot"]
    assert snapshot["status"] == "DIVERGED"
    assert snapshot["states"] == ["verify_identity", "approve", "issue_refund"]
    divergence = snapshot["earliestDivergence"]
    assert {k: divergence[k] for k in ("traceId", "afterState", "expectedState", "observedState")} == {
        "traceId": "5b8efff798038103d269b633813fc60c",
        "afterState": "verify_identity",
        "expectedState": "approve",
        "observedState": "issue_refund",
    }
    observed = {a["tool"]: a for a in after["fourQuestions"]["observed"]["actions"]}
    assert {t: a["count"] for t, a in observed.items()} == {"verify_identity": 2, "approve": 1, "issue_refund": 2}
    assert observed["issue_refund"]["evidencedActionClasses"] == ["network.egress"]
    assert observed["verify_identity"]["evidencedActionClasses"] == ["db.read"]
    assert after["fourQuestions"]["observed"]["summary"]["agentRuns"] == 2
    refund = next(a for a in after["fourQuestions"]["authority"]["actions"] if a["actionClass"] == "payment")
    assert refund["planes"]["OBSERVED"] == "PARTIAL"  # the refund tool ran; no span shows the payment itself

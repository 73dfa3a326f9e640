"""Assessments over HTTP: the wizard's order, idempotent answers, data attached or refused whole, isolation."""

from __future__ import annotations

from pathlib import Path

import httpx
from service_helpers import World, bearer
from wizard_helpers import ASSESSMENTS, answer, attach, candidates, create_assessment, write_csv


async def test_the_next_question_depends_on_earlier_answers(client: httpx.AsyncClient, world: World) -> None:
    created = await create_assessment(client, world.agent_key_a, world.system_a, "nyc_ll144")
    assessment = created["assessmentId"]
    assert assessment.startswith("asm_")
    assert created["pack"]["id"] == "nyc_ll144@2023.7.0" and created["pack"]["digest"].startswith("sha256:")
    assert created["nextQuestion"]["id"] == "uses_aedt"
    assert {c["status"] for c in created["controls"]} == {"EVIDENCE_NEEDED"}

    # Out of order: a question whose condition reads an unanswered one.
    early = await answer(client, world.agent_key_a, assessment, "audit_date", "2026-06-01")
    assert early.status_code == 400
    assert early.json()["error"]["message"].startswith("Question audit_date is not asked yet: it depends on uses_aedt")
    unknown = await answer(client, world.agent_key_a, assessment, "favourite_colour", "blue")
    assert unknown.status_code == 400 and "has no question 'favourite_colour'" in unknown.json()["error"]["message"]
    wrong_type = await answer(client, world.agent_key_a, assessment, "uses_aedt", "maybe")
    assert wrong_type.status_code == 400 and "takes yes or no" in wrong_type.json()["error"]["message"]

    yes = await answer(client, world.agent_key_a, assessment, "uses_aedt", True)
    assert yes.status_code == 200 and yes.json()["changed"] is True
    assert yes.json()["nextQuestion"]["id"] == "decision_type"
    again = await answer(client, world.agent_key_a, assessment, "uses_aedt", "yes")
    assert again.json()["changed"] is False and again.json()["revision"] == yes.json()["revision"]

    no = await answer(client, world.agent_key_a, assessment, "uses_aedt", False)
    body = no.json()
    assert body["openQuestions"] == [] and body["complete"] is True
    assert {c["status"] for c in body["controls"]} == {"NOT_APPLICABLE"}
    ruled_out = await answer(client, world.agent_key_a, assessment, "audit_date", "2026-06-01")
    assert ruled_out.status_code == 400 and "does not apply" in ruled_out.json()["error"]["message"]


async def test_data_is_attached_with_its_figures_or_refused_whole(
    client: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    assessment = (await create_assessment(client, world.agent_key_a, world.system_a, "nyc_ll144"))["assessmentId"]
    bad = b"sex,race_ethnicity,selected\nMale,White,1\nMale,=cmd|' /C calc'!A0,0\n"
    refused = await attach(client, world.agent_key_a, assessment, bad)
    assert refused.status_code == 400
    assert "data row 2" in refused.json()["error"]["message"]
    unchanged = (await client.get(f"{ASSESSMENTS}/{assessment}", headers=bearer(world.agent_key_a))).json()
    assert unchanged["data"] == [] and unchanged["revision"] == 0

    good = write_csv(tmp_path / "outcomes.csv", candidates(500)).read_bytes()
    attached = await attach(
        client, world.agent_key_a, assessment, good, kind="test", fileName="../../etc/out comes.csv"
    )
    assert attached.status_code == 201, attached.text
    body = attached.json()
    assert body["attached"]["rowCount"] == 500 and body["attached"]["kind"] == "test"
    assert body["attached"]["fileName"] == "out_comes.csv"
    assert body["figures"]["ll144"]["method"] == "selection_rate"
    assert body["figures"]["ll144"]["rows"] == 500

    wrong_kind = await attach(client, world.agent_key_a, assessment, good, kind="synthetic")
    assert wrong_kind.status_code == 400
    eu = (await create_assessment(client, world.agent_key_a, world.system_a, "eu_ai_act"))["assessmentId"]
    no_data = await attach(client, world.agent_key_a, eu, good)
    assert no_data.status_code == 400 and "takes no data set" in no_data.json()["error"]["message"]


async def test_another_organizations_assessment_is_not_found(client: httpx.AsyncClient, world: World) -> None:
    assessment = (await create_assessment(client, world.agent_key_a, world.system_a, "colorado_ai"))["assessmentId"]
    for response in (
        await client.get(f"{ASSESSMENTS}/{assessment}", headers=bearer(world.agent_key_b)),
        await answer(client, world.agent_key_b, assessment, "role", "deployer"),
    ):
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "RESOURCE_NOT_FOUND"
    foreign = await client.post(
        ASSESSMENTS, json={"aiSystemId": world.system_b, "framework": "nyc_ll144"}, headers=bearer(world.agent_key_a)
    )
    assert foreign.status_code == 404 and foreign.json()["error"]["code"] == "AI_SYSTEM_NOT_FOUND"
    listed = (await client.get(ASSESSMENTS, headers=bearer(world.agent_key_b))).json()
    assert listed == {"assessments": []}
    mine = (await client.get(ASSESSMENTS, headers=bearer(world.agent_key_a))).json()["assessments"]
    assert [a["assessmentId"] for a in mine] == [assessment]
    bad_framework = await client.post(
        ASSESSMENTS, json={"aiSystemId": world.system_a, "framework": "gdpr"}, headers=bearer(world.agent_key_a)
    )
    assert bad_framework.status_code == 400

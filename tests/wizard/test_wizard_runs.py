"""Runs with engines.wizard: the assessment is frozen into the membership, every control has a status, answers
the code or the traces contradict are MISSING, and later answers never change an existing Evaluation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from runs_helpers import EVALUATIONS, bind, copy_example, create, wait
from service_helpers import World, bearer
from wizard_helpers import answer, answer_all, attach, candidates, create_assessment, write_csv

NYC_ANSWERS: dict[str, Any] = {
    "uses_aedt": True,
    "decision_type": "hiring",
    "output_type": "selection",
    "independent_auditor": True,
    "audit_date": "2026-09-01",
    "data_source": "historical",
    "summary_url": "https://example.com/careers/aedt-audit",
    "distribution_date": "2025-02-01",
    "candidate_notice": True,
    "alternative_process": True,
    "qualifications_notice": True,
}
EU_HIGH_RISK: dict[str, Any] = {
    "role": "provider",
    "prohibited_practice": "none",
    "annex_i_product": False,
    "annex_iii_area": "essential_services",
    "art6_3_exception": "none",
    "profiling": False,
    "interacts_with_people": True,
    "discloses_ai_interaction": True,
    "generates_synthetic_content": False,
    "emotion_or_biometric": False,
    "deep_fake": False,
    "gpai_model_provider": False,
    "risk_management_system": True,
    "data_governance": True,
    "technical_documentation": True,
    "automatic_logging": True,
    "instructions_for_use": True,
    "human_oversight": True,
    "accuracy_robustness": True,
}


def _wizard(assessment: str, framework: str) -> dict[str, Any]:
    return {"enabled": True, "framework": framework, "assessmentId": assessment}


async def _evaluation(client: httpx.AsyncClient, key: str, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    created = await create(client, key, body)
    assert created.status_code == 202, created.text
    done = await wait(client, key, created.json()["runId"])
    assert done["status"] == "COMPLETED", done
    evaluation_id = done["evaluation"]["evaluationId"]
    report = await client.get(f"{EVALUATIONS}/{evaluation_id}/master-report?detail=full", headers=bearer(key))
    assert report.status_code == 200, report.text
    return evaluation_id, report.json()["masterReport"]


def _controls(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in report["fourQuestions"]["authority"]["jurisdiction"]["controls"]}


async def test_a_wizard_only_run_of_a_system_without_source_assesses_every_control(
    client: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    key = world.agent_key_a
    assessment = (await create_assessment(client, key, world.system_a, "nyc_ll144"))["assessmentId"]
    await answer_all(client, key, assessment, NYC_ANSWERS)
    outcomes = write_csv(tmp_path / "outcomes.csv", candidates(2000)).read_bytes()
    assert (await attach(client, key, assessment, outcomes)).status_code == 201

    evaluation_id, report = await _evaluation(
        client, key, {"aiSystemId": world.system_a, "engines": {"wizard": _wizard(assessment, "nyc_ll144")}}
    )
    section = report["fourQuestions"]["authority"]["jurisdiction"]
    assert report["reportProjection"]["jurisdiction"] == "nyc_ll144"
    assert section["pack"]["id"] == "nyc_ll144@2023.7.0" and section["pack"]["digest"].startswith("sha256:")
    controls = _controls(report)
    assert "NOT_ASSESSED" not in {c["status"] for c in controls.values()}
    assert controls["NYC-LL144-BIAS-AUDIT"]["status"] == "ESTABLISHED"
    # data_policy_disclosed was left unanswered: EVIDENCE_NEEDED, never a pass, and the item names the question.
    assert controls["NYC-LL144-DATA-POLICY"]["status"] == "EVIDENCE_NEEDED"
    needed = [i["verificationNeeded"] for i in report["verificationItems"] if i["kind"] == "jurisdiction_control"]
    assert any("answer question `data_policy_disclosed`" in n for n in needed)
    # Every rate and ratio is in the full report; the synthetic data has ratios under 0.8: REVIEW, not BLOCK.
    ll144 = section["figures"]["ll144"]
    assert ll144["rows"] == 2000 and len(ll144["intersectional"]) == 14
    rules = {r["ruleId"] for r in report["reasons"]}
    assert {"REVIEW-004", "REVIEW-012"} <= rules
    assert report["disposition"] == "REVIEW"
    assert not any(r["disposition"] == "BLOCK" for r in report["reasons"])

    # The agent audit carries the controls with their statuses and evidence refs.
    audit = (await client.get(f"{EVALUATIONS}/{evaluation_id}/agent-audit", headers=bearer(key))).json()["agentAudit"]
    section = next(s for s in audit["sections"] if s["id"] == "jurisdiction")
    assert {c["id"]: c["status"] for c in section["controls"]} == {k: v["status"] for k, v in controls.items()}
    assert any(r.endswith("#answer:independent_auditor") for c in section["controls"] for r in c["evidenceRefs"])
    assert any("NYC-LL144-DATA-POLICY EVIDENCE_NEEDED" in line for line in audit["narrative"]["notAssessed"])

    # A later answer changes the assessment, never the Evaluation already made; a NEW run sees it.
    assert (await answer(client, key, assessment, "data_policy_disclosed", True)).status_code == 200
    again = await client.get(f"{EVALUATIONS}/{evaluation_id}/master-report?detail=full", headers=bearer(key))
    assert _controls(again.json()["masterReport"])["NYC-LL144-DATA-POLICY"]["status"] == "EVIDENCE_NEEDED"
    _, newer = await _evaluation(
        client, key, {"aiSystemId": world.system_a, "engines": {"wizard": _wizard(assessment, "nyc_ll144")}}
    )
    assert _controls(newer)["NYC-LL144-DATA-POLICY"]["status"] == "ESTABLISHED"
    assert newer["evidenceBundleDigest"] != report["evidenceBundleDigest"]


async def test_answers_the_code_and_traces_contradict_are_missing_with_both_sides_cited(
    client: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    key = world.agent_key_a
    await bind(world.sessions, world.org_a, world.system_a, copy_example("ops-agent", tmp_path))
    assessment = (await create_assessment(client, key, world.system_a, "eu_ai_act"))["assessmentId"]
    await answer_all(client, key, assessment, EU_HIGH_RISK)
    _, report = await _evaluation(
        client,
        key,
        {
            "aiSystemId": world.system_a,
            "jurisdiction": "eu_ai_act",
            "engines": {"static": {"enabled": True}, "wizard": _wizard(assessment, "eu_ai_act")},
        },
    )
    controls = _controls(report)
    oversight = controls["EUAI-ART14"]
    assert oversight["status"] == "MISSING" and oversight["contradiction"] is True
    refs = oversight["evidenceRefs"]
    assert any(r.endswith("#answer:human_oversight") for r in refs)
    assert any("#answer:" not in r for r in refs)  # the code's ungated action is cited beside the answer
    logging = controls["EUAI-ART12"]
    assert logging["status"] == "MISSING" and "no trace" in logging["requirements"][0]["detail"]
    assert controls["EUAI-ART11"]["status"] == "ESTABLISHED"  # Annex IV pre-filled from the static evidence
    assert controls["EUAI-ART5"]["status"] == "ESTABLISHED"
    assert controls["EUAI-ART53"]["status"] == "NOT_APPLICABLE"
    assert report["fourQuestions"]["authority"]["jurisdiction"]["figures"]["classification"]["highRisk"] is True
    contradictions = [r for r in report["reasons"] if r["ruleId"] == "REVIEW-011"]
    assert {r["message"].split(" ")[0] for r in contradictions} == {"EUAI-ART12", "EUAI-ART14"}
    assert report["disposition"] in ("REVIEW", "BLOCK")


async def test_wizard_requests_that_cannot_be_honoured_are_refused(client: httpx.AsyncClient, world: World) -> None:
    key = world.agent_key_a
    assessment = (await create_assessment(client, key, world.system_a, "colorado_ai"))["assessmentId"]
    cases = [
        ({"engines": {"wizard": {"enabled": True}}}, 400, "needs assessmentId"),
        ({"engines": {"wizard": _wizard(assessment, "nyc_ll144")}}, 400, "the assessment is of 'colorado_ai'"),
        ({"jurisdiction": "eu_ai_act", "engines": {"wizard": _wizard(assessment, "colorado_ai")}}, 400, "jurisdiction"),
        ({"engines": {"wizard": _wizard("asm_doesnotexist", "colorado_ai")}}, 404, "assessment"),
        ({"engines": {}}, 400, "No engine is enabled"),
    ]
    for body, status, message in cases:
        response = await create(client, key, {"aiSystemId": world.system_a, **body})
        assert response.status_code == status, response.text
        assert message in response.json()["error"]["message"]
    other_system = await create(
        client, key, {"aiSystemId": world.system_a2, "engines": {"wizard": _wizard(assessment, "colorado_ai")}}
    )
    assert other_system.status_code == 400 and "another AI System" in other_system.json()["error"]["message"]
    foreign = await create(
        client,
        world.agent_key_b,
        {"aiSystemId": world.system_b, "engines": {"wizard": _wizard(assessment, "colorado_ai")}},
    )
    assert foreign.status_code == 404


async def test_colorado_controls_are_assessed_for_readiness_before_the_act_applies(
    client: httpx.AsyncClient, world: World
) -> None:
    key = world.agent_key_a
    assessment = (await create_assessment(client, key, world.system_a, "colorado_ai"))["assessmentId"]
    await answer_all(
        client, key, assessment, {"role": "deployer", "consequential_decision": True, "decision_area": "housing"}
    )
    _, report = await _evaluation(
        client, key, {"aiSystemId": world.system_a, "engines": {"wizard": _wizard(assessment, "colorado_ai")}}
    )
    section = report["fourQuestions"]["authority"]["jurisdiction"]
    assert section["pack"]["id"] == "colorado_ai@2027.1.0"
    controls = _controls(report)
    assert controls["CO-ADMT-SCOPE"]["status"] == "ESTABLISHED"
    assert controls["CO-ADMT-NOTICE"]["status"] == "EVIDENCE_NEEDED"
    assert controls["CO-ADMT-DEVELOPER-DOCS"]["status"] == "NOT_APPLICABLE"
    assert all(c["appliesFrom"] == "2027-01-01" and c["dateSourceKind"] == "secondary" for c in controls.values())


async def test_reports_carry_the_controls_and_the_ll144_summary_is_its_own_document(
    client: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    key = world.agent_key_a
    assessment = (await create_assessment(client, key, world.system_a, "nyc_ll144"))["assessmentId"]
    hostile = '=HYPERLINK("http://x.example")<script>alert(1)</script>'
    await answer_all(client, key, assessment, {**NYC_ANSWERS, "data_source": "test", "test_data_reason": hostile})
    outcomes = write_csv(tmp_path / "outcomes.csv", candidates(800)).read_bytes()
    assert (await attach(client, key, assessment, outcomes)).status_code == 201
    evaluation_id, _ = await _evaluation(
        client, key, {"aiSystemId": world.system_a, "engines": {"wizard": _wizard(assessment, "nyc_ll144")}}
    )
    base = f"{EVALUATIONS}/{evaluation_id}"
    summary = (await client.get(f"{base}/ll144-summary", headers=bearer(key))).json()
    assert summary["auditDate"] == "2026-09-01" and summary["candidates"] == 800
    assert summary["distributionDate"] == "2025-02-01" and summary["testDataReason"] == hostile
    assert len(summary["intersectional"]) == 14 and summary["unknownCategory"]["sex"] > 0
    html = (await client.get(f"{base}/ll144-summary/html", headers=bearer(key))).text
    assert "Summary of bias audit results" in html and "Impact ratio" in html
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    master_html = (await client.get(f"{base}/master-report/html", headers=bearer(key))).text
    assert "Jurisdiction: nyc_ll144" in master_html and "NYC-LL144-BIAS-AUDIT" in master_html
    for path in ("ll144-summary/pdf", "master-report/pdf"):
        pdf = await client.get(f"{base}/{path}", headers=bearer(key))
        assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")

    eu = (await create_assessment(client, key, world.system_a, "eu_ai_act"))["assessmentId"]
    other, _ = await _evaluation(
        client, key, {"aiSystemId": world.system_a, "engines": {"wizard": _wizard(eu, "eu_ai_act")}}
    )
    missing = await client.get(f"{EVALUATIONS}/{other}/ll144-summary", headers=bearer(key))
    assert missing.status_code == 404 and "no NYC LL144 figures" in missing.json()["error"]["message"]


async def test_the_controls_export_as_oscal_assessment_results_that_trestle_validates(
    client: httpx.AsyncClient, world: World
) -> None:
    from pydantic import ValidationError
    from trestle.oscal.assessment_results import AssessmentResults

    key = world.agent_key_a
    assessment = (await create_assessment(client, key, world.system_a, "eu_ai_act"))["assessmentId"]
    await answer_all(client, key, assessment, EU_HIGH_RISK)
    evaluation_id, report = await _evaluation(
        client, key, {"aiSystemId": world.system_a, "engines": {"wizard": _wizard(assessment, "eu_ai_act")}}
    )
    response = await client.get(f"{EVALUATIONS}/{evaluation_id}/oscal-assessment-results", headers=bearer(key))
    assert response.status_code == 200, response.text
    document = response.json()["assessment-results"]
    AssessmentResults.model_validate(document)
    findings = {f["target"]["target-id"]: f["target"]["status"] for f in document["results"][0]["findings"]}
    controls = _controls(report)
    applicable = {c.lower() for c, v in controls.items() if v["status"] != "NOT_APPLICABLE"}
    assert set(findings) == applicable
    assert findings["euai-art5"] == {"state": "satisfied"}
    assert findings["euai-art12"]["state"] == "not-satisfied"  # wizard-only: no trace reached Assay
    again = await client.get(f"{EVALUATIONS}/{evaluation_id}/oscal-assessment-results", headers=bearer(key))
    assert again.content == response.content
    broken = {**document, "results": [{**document["results"][0], "start": "yesterday"}]}
    try:
        AssessmentResults.model_validate(broken)
    except ValidationError:
        pass
    else:
        raise AssertionError("trestle accepted a result whose start is not a date-time")

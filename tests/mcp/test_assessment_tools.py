"""A coding agent fills a wizard assessment through MCP: it answers what the code tells it, is told what to
ask the person, attaches the data file, and freezes the assessment into a run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp_helpers import data, embedded, error_text

from assay.backend.settings import ServiceSettings
from mcp import Client

CSV = "sex,race_ethnicity,selected\n" + "Male,White,1\n" * 30 + "Female,White,1\n" * 12 + "Female,White,0\n" * 18


async def test_an_agent_fills_an_assessment_and_runs_it(settings: ServiceSettings, tmp_path: Path) -> None:
    workspace = tmp_path / "screener"
    workspace.mkdir()
    (workspace / "outcomes.csv").write_text(CSV, encoding="utf-8")
    async with embedded(settings, workspace) as (_, server, _log), Client(server) as client:
        started = data(await client.call_tool("assay_assessment", {"framework": "nyc_ll144"}))
        assessment = started["assessmentId"]
        assert started["nextQuestion"]["id"] == "uses_aedt" and started["nextQuestion"]["askWhom"] == "person"
        assert "ask the person" in started["nextStep"]

        early = await client.call_tool(
            "assay_answer_assessment",
            {
                "assessment_id": assessment,
                "answers": [
                    {"questionId": "uses_aedt", "value": True},
                    {"questionId": "test_data_reason", "value": "x"},
                ],
            },
        )
        assert early.is_error
        assert "Recorded before it: uses_aedt" in error_text(early)

        answered = data(
            await client.call_tool(
                "assay_answer_assessment",
                {"assessment_id": assessment, "answers": [{"questionId": "decision_type", "value": "hiring"}]},
            )
        )
        # output_type is a question the code answers: the agent is told to answer it itself.
        assert "output_type" in answered["nextStep"] and "from the source" in answered["nextStep"]

        attached = data(
            await client.call_tool(
                "assay_attach_assessment_data", {"assessment_id": assessment, "path": "outcomes.csv"}
            )
        )
        female = next(r for r in attached["figures"]["ll144"]["bySex"] if r["sex"] == "Female")
        assert female["impactRatio"] == 0.4 and female["underFourFifths"]
        run = data(await client.call_tool("assay_create_run", {"assessment_id": assessment, "static": False}))
        done = data(await client.call_tool("assay_get_run", {"run_id": run["runId"], "wait_seconds": 60}))
        assert done["status"] == "COMPLETED", done
        evaluation = done["evaluation"]["evaluationId"]
        items: list[dict[str, Any]] = []
        page: int | None = 1
        while page is not None:  # every page of items
            audit = data(await client.call_tool("assay_get_agent_audit", {"evaluation_id": evaluation, "page": page}))
            items += audit["verificationItems"]
            page = audit["paging"]["nextPage"]
        kinds = {i["kind"] for i in items}
        assert {"jurisdiction_control", "impact_ratio_review"} <= kinds

"""The runtime engine through MCP: a tool probes a named server, and the one-call workspace assessment
probes the workspace's own MCP server when assay.toml says how to start it."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from runtime_helpers import EVERYTHING_WRONG, peer

from assay.backend.settings import ServiceSettings
from mcp import Client

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "mcp"))

from mcp_helpers import data, embedded, error_text

HERE = Path(__file__).resolve().parent


async def test_a_tool_probes_a_named_server(settings: ServiceSettings, tmp_path: Path) -> None:
    command = peer(EVERYTHING_WRONG)
    async with embedded(settings, tmp_path) as (_, server, _log), Client(server) as client:
        probed = data(await client.call_tool("assay_probe_mcp_server", {"command": command}))
        assert probed["status"] == "COMPLETED" and probed["disposition"] == "BLOCK"
        target = probed["runtime"]["targets"][0]
        assert target["ruleHits"] == 8 and target["counts"]["tool"] == 8
        assert probed["topReasons"][0]["ruleId"] == "BLOCK-101"
        assert "assay_get_agent_audit" in probed["nextStep"]
        # The same server again reuses its target and is compared with the first probe's catalogue.
        again = data(await client.call_tool("assay_probe_mcp_server", {"command": command}))
        assert again["targetId"] == probed["targetId"]
        assert again["runtime"]["targets"][0]["driftChanges"] == 0
        both = await client.call_tool("assay_probe_mcp_server", {"command": command, "url": "http://127.0.0.1:1/"})
        assert both.is_error and "exactly one" in error_text(both)


async def test_the_workspace_assessment_probes_the_workspaces_own_server(
    settings: ServiceSettings, tmp_path: Path
) -> None:
    workspace = tmp_path / "notes"
    shutil.copytree(HERE / "fixtures" / "notes_mcp", workspace)
    (workspace / "assay.toml").write_text(
        f'version = "1"\n\n[runtime]\nmcp_command = "{sys.executable} server.py"\n', encoding="utf-8"
    )
    async with embedded(settings, workspace) as (_, server, _log), Client(server) as client:
        assessed = data(await client.call_tool("assay_assess_workspace", {}))
        assert assessed["status"] == "COMPLETED", assessed
        runtime = assessed["summary"]["runtime"]["targets"][0]
        assert runtime["counts"]["tool"] == 3 and runtime["annotationFindings"] == 1
        arguments = {"evaluation_id": assessed["evaluationId"], "section": "sections.0.reasons"}
        reasons = data(await client.call_tool("assay_get_agent_audit", arguments))["value"]
    assert [r["ruleId"] for r in reasons if r["ruleId"].startswith("REVIEW-10")] == ["REVIEW-102"]
    assert "delete_note" in next(r["message"] for r in reasons if r["ruleId"] == "REVIEW-102")


async def test_a_probe_recording_is_attached_to_a_new_run(settings: ServiceSettings, tmp_path: Path) -> None:
    command = peer(EVERYTHING_WRONG)
    async with embedded(settings, tmp_path) as (_, server, _log), Client(server) as client:
        probed = data(await client.call_tool("assay_probe_mcp_server", {"command": command}))
        attachment = {"producerId": "assay-runtime", "producerRunId": probed["runId"]}
        created = data(
            await client.call_tool("assay_create_run", {"static": False, "external_evidence_attachments": [attachment]})
        )
        run = data(await client.call_tool("assay_get_run", {"run_id": created["runId"], "wait_seconds": 60}))
        assert run["status"] == "COMPLETED" and run["evaluation"]["disposition"] == "BLOCK"
        summary = data(
            await client.call_tool("assay_get_summary", {"evaluation_id": run["evaluation"]["evaluationId"]})
        )
        assert summary["runtime"] == probed["runtime"]

"""Every tool and resource through the in-memory client, on the embedded service."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError
from mcp_helpers import copy_example, data, embedded, error_text

from assay.backend import provisioning
from assay.backend.settings import ServiceSettings
from assay.server.mcp_app import build_mcp_server
from assay.tools.client import AssayClient
from assay.tools.context import AssayBinding
from mcp import Client


async def test_run_tools_wait_with_progress_then_every_read(settings: ServiceSettings, tmp_path: Path) -> None:
    workspace = copy_example("research-assistant", tmp_path)
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    async with embedded(settings, workspace) as (service, server, log), Client(server) as client:
        assert "first use" in log and service.record.aiSystemId in log
        assert service.record.apiKey not in log
        created = data(await client.call_tool("assay_create_run", {}))
        assert created["status"] in ("QUEUED", "RUNNING", "COMPLETED")
        assert created["aiSystemId"] == service.record.aiSystemId
        assert "assay_get_run" in created["nextStep"] or "assay_get_summary" in created["nextStep"]
        run = data(
            await client.call_tool(
                "assay_get_run", {"run_id": created["runId"], "wait_seconds": 60}, progress_callback=on_progress
            )
        )
        assert run["status"] == "COMPLETED" and run["evaluation"]["disposition"] == "ALLOW"
        evaluation_id = run["evaluation"]["evaluationId"]
        assert evaluation_id in run["nextStep"]
        # Progress: one notification per observed stage, strictly increasing, the last one complete.
        values = [p[0] for p in progress]
        assert values == sorted(set(values)) and values[0] == 1
        assert progress[-1][1] == progress[-1][0] and "COMPLETED" in (progress[-1][2] or "")

        listed = data(await client.call_tool("assay_list_runs", {"limit": 5}))
        assert [r["runId"] for r in listed["runs"]] == [created["runId"]] and listed["total"] == 1
        assert data(await client.call_tool("assay_list_runs", {"status": "FAILED"}))["runs"] == []

        summary = data(await client.call_tool("assay_get_summary", {"evaluation_id": evaluation_id}))
        assert summary["evaluationId"] == evaluation_id and summary["disposition"] == "ALLOW"
        audit = data(await client.call_tool("assay_get_agent_audit", {"evaluation_id": evaluation_id}))
        assert audit["evaluationId"] == evaluation_id and "verificationItems" in audit
        bounded = data(await client.call_tool("assay_get_master_report", {"evaluation_id": evaluation_id}))
        full = data(
            await client.call_tool("assay_get_master_report", {"evaluation_id": evaluation_id, "detail": "full"})
        )
        assert bounded["value"]["disposition"] == full["value"]["disposition"] == "ALLOW"
        assert "reportProjection" not in bounded["value"]
        assert "reportProjection" in full["value"] or "reportProjection" in full["omitted"]
        note = data(await client.call_tool("assay_get_passport", {"evaluation_id": evaluation_id}))
        assert note["payloadType"] == "application/vnd.in-toto+json" and note["keyIds"]
        envelope = await client.read_resource(note["resource"])
        passport = json.loads(getattr(envelope.contents[0], "text", ""))
        assert (
            passport["payloadType"] == note["payloadType"] and passport["signatures"][0]["keyid"] == note["keyIds"][0]
        )

        systems = data(await client.call_tool("assay_list_systems", {}))
        assert [(s["aiSystemId"], s["name"]) for s in systems["systems"]] == [
            (service.record.aiSystemId, "research-assistant")
        ]
        sources = data(await client.call_tool("assay_get_evaluation_sources", {}))
        assert sources["sources"][0]["sourceAssetId"] == service.record.sourceAssetId
        assert sources["sources"][0]["status"] == "VERIFIED"
        binders = data(await client.call_tool("assay_list_evidence_binders", {}))
        assert binders["binders"] == []

        # The resources hold the same documents the tools return.
        resource = await client.read_resource(f"assay://evaluations/{evaluation_id}/summary")
        assert json.loads(getattr(resource.contents[0], "text", "")) == summary
        resource = await client.read_resource(f"assay://evaluations/{evaluation_id}/master-report")
        assert (
            json.loads(getattr(resource.contents[0], "text", ""))["fourQuestions"] == bounded["value"]["fourQuestions"]
        )
        listed_systems = await client.read_resource("assay://systems")
        assert json.loads(getattr(listed_systems.contents[0], "text", "")) == systems


async def test_verification_resources_are_the_items_verbatim(settings: ServiceSettings, tmp_path: Path) -> None:
    workspace = copy_example("ops-agent", tmp_path)
    async with embedded(settings, workspace) as (service, server, _log), Client(server) as client:
        assessed = data(await client.call_tool("assay_assess_workspace", {}))
        evaluation_id = assessed["evaluationId"]
        page = data(await client.call_tool("assay_get_agent_audit", {"evaluation_id": evaluation_id}))
        items = page["verificationItems"]
        # A small system's items fit one page.
        assert items and page["paging"] == {
            "page": 1, "pages": 1, "items": f"1-{len(items)}", "totalItems": len(items), "nextPage": None,
        }  # fmt: skip
        whole = await service.binding.client.get_json(
            f"/api/v1/assurance/evaluations/{evaluation_id}/agent-audit", params={"detail": "full"}
        )
        assert whole["agentAudit"]["verificationItems"] == items
        assert all(item["location"] is None or item["location"]["line"] for item in items)
        read = await client.read_resource(f"assay://evaluations/{evaluation_id}/verification-needed")
        document = json.loads(getattr(read.contents[0], "text", ""))
        assert document["verificationItems"] == items and document["nextPage"] is None
        assert document["itemIds"] == [item["id"] for item in items]
        for item in items:
            one = await client.read_resource(f"assay://evaluations/{evaluation_id}/verification-needed/{item['id']}")
            assert json.loads(getattr(one.contents[0], "text", ""))["verificationItem"] == item
        with pytest.raises(MCPError) as unknown_item:
            await client.read_resource(f"assay://evaluations/{evaluation_id}/verification-needed/no-such-item")
        assert "RESOURCE_NOT_FOUND" in str(unknown_item.value)
        with pytest.raises(MCPError) as unknown_evaluation:
            await client.read_resource("assay://evaluations/eval_nope/verification-needed")
        assert "RESOURCE_NOT_FOUND" in str(unknown_evaluation.value)


async def test_bad_arguments_and_unknown_ids_are_tool_errors(settings: ServiceSettings, tmp_path: Path) -> None:
    async with embedded(settings, tmp_path) as (_, server, _log), Client(server) as client:
        cases: list[tuple[str, dict[str, Any], str]] = [
            ("assay_list_runs", {"limit": 500}, "limit"),
            ("assay_list_runs", {"status": "DONE"}, "status"),
            ("assay_get_master_report", {"evaluation_id": "eval_x", "detail": "everything"}, "detail"),
            ("assay_get_summary", {}, "evaluation_id"),
            ("assay_get_summary", {"evaluation_id": "../../systems"}, "evaluation_id"),
            ("assay_get_run", {"run_id": "run_x", "wait_seconds": 999}, "wait_seconds"),
            ("assay_create_run", {"jurisdiction": "mars"}, "jurisdiction"),
            ("assay_create_run", {"ai_system_id": "sys_nope"}, "AI_SYSTEM_NOT_FOUND: "),
            ("assay_create_run", {"external_evidence_attachments": [{"producerId": "x"}]}, "producerId"),
            ("assay_get_run", {"run_id": "run_nope"}, "RUN_NOT_FOUND: "),
            ("assay_get_summary", {"evaluation_id": "eval_nope"}, "RESOURCE_NOT_FOUND: "),
            ("assay_get_agent_audit", {"evaluation_id": "eval_nope"}, "RESOURCE_NOT_FOUND: "),
            ("assay_get_master_report", {"evaluation_id": "eval_nope"}, "RESOURCE_NOT_FOUND: "),
            ("assay_get_passport", {"evaluation_id": "eval_nope"}, "RESOURCE_NOT_FOUND: "),
            ("assay_get_evaluation_sources", {"ai_system_id": "sys_nope"}, "AI_SYSTEM_NOT_FOUND: "),
            ("assay_assess_workspace", {"path": "does/not/exist"}, "INVALID_REQUEST: "),
        ]
        for name, arguments, expected in cases:
            result = await client.call_tool(name, arguments)
            assert result.is_error, (name, arguments)
            text = error_text(result)
            assert expected in text, (name, text)
            if expected.endswith(": "):
                assert "Next: " in text, text


async def test_another_organizations_evaluation_is_not_found(settings: ServiceSettings, tmp_path: Path) -> None:
    ours = copy_example("research-assistant", tmp_path)
    theirs = copy_example("ops-agent", tmp_path)
    async with embedded(settings, ours) as (service, server, _log):
        async with service.session_factory() as session:
            org = await provisioning.create_organization(session, "Other")
            system = await provisioning.create_ai_system(session, org.id, "theirs")
            key = await provisioning.create_api_key(session, org.id, purpose="assurance-agent")
            await session.commit()
        other_client = AssayClient.embedded(service.app, key.api_key)
        other = build_mcp_server(AssayBinding(client=other_client, workspace=theirs, ai_system_id=system.id))
        try:
            async with Client(other) as client:
                foreign = data(await client.call_tool("assay_assess_workspace", {}))
        finally:
            await other_client.aclose()
        foreign_id = foreign["evaluationId"]
        async with Client(server) as client:
            for tool in ("assay_get_summary", "assay_get_agent_audit", "assay_get_master_report", "assay_get_passport"):
                seen = await client.call_tool(tool, {"evaluation_id": foreign_id})
                missing = await client.call_tool(tool, {"evaluation_id": "eval_00000000000000000000"})
                assert seen.is_error and "RESOURCE_NOT_FOUND" in error_text(seen)
                # Indistinguishable from a missing one.
                assert error_text(seen) == error_text(missing)
            with pytest.raises(MCPError):
                await client.read_resource(f"assay://evaluations/{foreign_id}/verification-needed")
            run = await client.call_tool("assay_get_run", {"run_id": foreign["runId"]})
            assert run.is_error and "RUN_NOT_FOUND" in error_text(run)
            created = await client.call_tool("assay_create_run", {"ai_system_id": system.id})
            assert created.is_error and "AI_SYSTEM_NOT_FOUND" in error_text(created)

"""The MCP server through the SDK's in-memory client: tools, resources, prompts, errors, the agent loop."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest

from assay.server.embedded import embedded_context, remote_context
from assay.server.mcp_app import build_mcp_server
from assay.tools.registry import TOOLS
from mcp import Client

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _server(workspace: Path, data_dir: Path) -> Any:
    return build_mcp_server(lambda: embedded_context(workspace.resolve(), data_dir))


def _data(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    value: dict[str, Any] = result.structured_content
    return value


async def test_tools_resources_and_prompts_are_listed(tmp_path: Path) -> None:
    async with Client(_server(tmp_path, tmp_path / "data")) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == {name for name, *_ in TOOLS}
        for tool in tools.values():
            assert tool.title and tool.description and tool.annotations is not None
            assert tool.input_schema["type"] == "object"
        assert tools["assay_get_summary"].annotations.read_only_hint is True
        templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
        assert "assay://evaluations/{evaluationId}/verification-needed" in templates
        assert "assay://evaluations/{evaluationId}/verification-needed/{itemId}" in templates
        prompts = {p.name for p in (await client.list_prompts()).prompts}
        assert prompts == {"assess_my_change", "close_evidence_gaps", "explain_disposition"}
        text = (await client.get_prompt("close_evidence_gaps", {"evaluation_id": "eval_x"})).messages[0].content.text
        assert "eval_x" in text and "NEW run" in text


async def test_the_agent_loop_block_then_fixed_then_better(tmp_path: Path) -> None:
    workspace = tmp_path / "ops-agent"
    shutil.copytree(EXAMPLES / "ops-agent", workspace)
    async with Client(_server(workspace, tmp_path / "data")) as client:
        first = _data(await client.call_tool("assay_assess_workspace", {}))
        assert first["disposition"] == "BLOCK"
        evaluation_id = first["evaluationId"]
        audit = _data(await client.call_tool("assay_get_agent_audit", {"evaluation_id": evaluation_id}))
        items = audit["agentAudit"]["verificationItems"]
        assert any("subprocess.run at ops_agent/tools.py:37" in i["verificationNeeded"] for i in items)
        resource = await client.read_resource(f"assay://evaluations/{evaluation_id}/verification-needed")
        needed = json.loads(resource.contents[0].text)["verificationNeeded"]
        assert [n["verificationNeeded"] for n in needed] == [i["verificationNeeded"] for i in items]
        one = await client.read_resource(f"assay://evaluations/{evaluation_id}/verification-needed/{items[0]['id']}")
        assert json.loads(one.contents[0].text)["verificationNeeded"] == items[0]["verificationNeeded"]
        before = {
            name: _data(await client.call_tool(name, {"evaluation_id": evaluation_id}))
            for name in ("assay_get_summary", "assay_get_agent_audit", "assay_get_master_report")
        }

        # Do what the items ask: remove the shell tool, gate and declare the deletion, list the tools.
        tools = workspace / "ops_agent" / "tools.py"
        code = tools.read_text()
        start = code.index("@function_tool\ndef run_diagnostic")
        end = code.index("@function_tool\ndef purge_cache")
        code = code[:start] + code[end:]
        code = code.replace(
            '    """Delete a cache directory to free disk space."""\n',
            '    """Delete a cache directory to free disk space."""\n    if not request_approval(f"purge {path}"):\n'
            '        return "The on-call engineer declined the purge."\n',
        )
        tools.write_text(code)
        agent = workspace / "ops_agent" / "agent.py"
        agent.write_text(agent.read_text().replace("run_diagnostic, ", "").replace(", run_diagnostic", ""))
        declaration = workspace / "assay.toml"
        declaration.write_text(
            declaration.read_text().replace('"run_diagnostic"]', '"purge_cache"]')
            + '\n[[actions]]\nclass = "file.delete"\ntools = ["purge_cache"]\nrequires_approval = true\n'
        )
        second = _data(await client.call_tool("assay_assess_workspace", {}))
        assert second["evaluationId"] != evaluation_id
        assert second["disposition"] in ("REVIEW", "ALLOW")
        after = {
            name: _data(await client.call_tool(name, {"evaluation_id": evaluation_id}))
            for name in ("assay_get_summary", "assay_get_agent_audit", "assay_get_master_report")
        }
        assert after == before  # the first Evaluation's artifacts are exactly what they were


async def test_run_tools_progress_and_listing(tmp_path: Path) -> None:
    workspace = tmp_path / "ra"
    shutil.copytree(EXAMPLES / "research-assistant", workspace)
    progress: list[tuple[float, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, message))

    async with Client(_server(workspace, tmp_path / "data")) as client:
        run = _data(await client.call_tool("assay_create_run", {}))
        done = _data(
            await client.call_tool(
                "assay_get_run", {"run_id": run["runId"], "wait_seconds": 60}, progress_callback=on_progress
            )
        )
        assert done["status"] == "COMPLETED" and done["evaluation"]["disposition"] == "ALLOW"
        assert progress and progress[-1][0] == 3
        listed = _data(await client.call_tool("assay_list_runs", {}))
        assert listed["total"] == 1
        systems = _data(await client.call_tool("assay_list_systems", {}))
        assert [s["name"] for s in systems["systems"]] == ["ra"]
        sources = _data(await client.call_tool("assay_get_evaluation_sources", {}))
        assert sources["sources"][0]["eligibleForFreshScan"] is True
        assert "binders" in _data(await client.call_tool("assay_list_evidence_binders", {}))
        passport = _data(
            await client.call_tool("assay_get_passport", {"evaluation_id": done["evaluation"]["evaluationId"]})
        )
        assert passport["payloadType"] == "application/vnd.in-toto+json"
        full = _data(
            await client.call_tool(
                "assay_get_master_report", {"evaluation_id": done["evaluation"]["evaluationId"], "detail": "full"}
            )
        )
        assert "reportProjection" in full["masterReport"]


async def test_errors_use_the_tool_error_channel_with_code_and_next_step(tmp_path: Path) -> None:
    async with Client(_server(tmp_path, tmp_path / "data")) as client:
        missing = await client.call_tool("assay_get_summary", {"evaluation_id": "eval_nope"})
        assert missing.is_error
        text = missing.content[0].text
        assert "RESOURCE_NOT_FOUND" in text and "Next:" in text
        bad = await client.call_tool("assay_list_runs", {"limit": 500})
        assert bad.is_error
        unknown_run = await client.call_tool("assay_get_run", {"run_id": "run_nope"})
        assert unknown_run.is_error and "RUN_NOT_FOUND" in unknown_run.content[0].text


@pytest.mark.parametrize(
    ("handler", "code"),
    [
        (
            lambda request: httpx.Response(
                401, json={"error": {"code": "UNAUTHORIZED", "message": "bad key", "retryable": False}}
            ),
            "UNAUTHORIZED",
        ),
        (
            lambda request: httpx.Response(
                429,
                headers={"Retry-After": "0"},
                json={"error": {"code": "RATE_LIMITED", "message": "slow", "retryable": True}},
            ),
            "RATE_LIMITED",
        ),
        (lambda request: (_ for _ in ()).throw(httpx.ConnectError("refused")), "CONNECTION_FAILED"),
    ],
)
async def test_remote_failures_become_clear_tool_errors(tmp_path: Path, handler: Any, code: str) -> None:
    transport = httpx.MockTransport(handler)
    server = build_mcp_server(
        lambda: remote_context("http://remote.test", "svc_live_x", tmp_path, "sys_1", transport=transport)
    )
    async with Client(server) as client:
        result = await client.call_tool("assay_list_systems", {})
        assert result.is_error
        assert f": {code}: " in result.content[0].text
        assert "Next:" in result.content[0].text

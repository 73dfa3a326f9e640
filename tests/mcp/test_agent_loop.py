"""The loop coding agents live in: BLOCK, change the workspace as the verification items ask, assess
again, a NEW Evaluation with a better disposition, and the first Evaluation byte-identical throughout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp_helpers import copy_example, data, embedded, error_text

from assay.backend.settings import ServiceSettings
from assay.tools.client import AssayClient
from assay.tools.reports import evaluation_path
from mcp import Client

# detail=full is left out: its `currentContext` entries (timeBasis CURRENT_CONTEXT) describe the present,
# by contract; the test checks everything else in it separately.
ARTIFACT_ROUTES = (
    "summary",
    "agent-audit",
    "master-report",
    "passport",
    "report",
    "master-report/pdf",
)
RESOURCES = ("verification-needed", "summary", "master-report", "agent-audit")
READ_TOOLS = ("assay_get_summary", "assay_get_agent_audit", "assay_get_master_report", "assay_get_passport")


async def _snapshot(client: Client, api: AssayClient, evaluation_id: str, item_ids: list[str]) -> dict[str, Any]:
    """Every artifact read of one Evaluation, as bytes: REST routes, tool results and resources."""
    reads: dict[str, Any] = {}
    for route in ARTIFACT_ROUTES:
        reads[f"GET {route}"] = await api.get_bytes(evaluation_path(evaluation_id, route))
    for tool in READ_TOOLS:
        result = await client.call_tool(tool, {"evaluation_id": evaluation_id})
        reads[tool] = error_text(result).encode()
    for suffix in (*RESOURCES, *(f"verification-needed/{i}" for i in item_ids)):
        resource = await client.read_resource(f"assay://evaluations/{evaluation_id}/{suffix}")
        reads[suffix] = getattr(resource.contents[0], "text", "").encode()
    return reads


def _fix_workspace(workspace: Path) -> None:
    """What the items ask: remove the shell tool that runs model output, gate the deletion behind human
    approval, and complete the declaration with it."""
    tools = workspace / "ops_agent" / "tools.py"
    code = tools.read_text()
    start = code.index("@function_tool\ndef run_diagnostic")
    end = code.index("@function_tool\ndef purge_cache")
    code = code[:start] + code[end:]
    docstring = '    """Delete a cache directory to free disk space."""\n'
    assert docstring in code
    code = code.replace(
        docstring,
        docstring + '    if not request_approval(f"purge {path}"):\n        return "The on-call engineer declined."\n',
    )
    tools.write_text(code)
    agent = workspace / "ops_agent" / "agent.py"
    agent.write_text(agent.read_text().replace("run_diagnostic, ", "").replace(", run_diagnostic", ""))
    declaration = workspace / "assay.toml"
    declaration.write_text(
        declaration.read_text().replace('"run_diagnostic"]', '"purge_cache"]')
        + '\n[[actions]]\nclass = "file.delete"\ntools = ["purge_cache"]\n'
        'description = "Deletes a cache directory"\nrequires_approval = true\n'
    )


async def test_block_then_fixed_as_asked_then_a_new_better_evaluation(
    settings: ServiceSettings, tmp_path: Path
) -> None:
    workspace = copy_example("ops-agent", tmp_path)
    async with embedded(settings, workspace) as (service, server, _log), Client(server) as client:
        first = data(await client.call_tool("assay_assess_workspace", {}))
        assert first["status"] == "COMPLETED" and first["disposition"] == "BLOCK"
        assert first["summary"]["disposition"] == "BLOCK"
        evaluation_id = first["evaluationId"]
        assert evaluation_id in first["nextStep"]
        audit = data(await client.call_tool("assay_get_agent_audit", {"evaluation_id": evaluation_id}))
        items = audit["verificationItems"]
        needed = " | ".join(i["verificationNeeded"] for i in items)
        assert "ops_agent/tools.py" in needed
        item_ids = [i["id"] for i in items]
        before = await _snapshot(client, service.binding.client, evaluation_id, item_ids)
        full_before = await service.binding.client.get_json(
            evaluation_path(evaluation_id, "master-report"), {"detail": "full"}
        )

        _fix_workspace(workspace)
        second = data(await client.call_tool("assay_assess_workspace", {}))
        assert second["evaluationId"] != evaluation_id and second["runId"] != first["runId"]
        assert second["scanId"] != first["scanId"]
        assert second["disposition"] in ("REVIEW", "ALLOW")
        assert second["summary"]["digests"]["coreTruthDigest"] != first["summary"]["digests"]["coreTruthDigest"]

        after = await _snapshot(client, service.binding.client, evaluation_id, item_ids)
        assert after.keys() == before.keys()
        for name in before:
            assert after[name] == before[name], f"{name} of the first Evaluation changed"
        full_after = await service.binding.client.get_json(
            evaluation_path(evaluation_id, "master-report"), {"detail": "full"}
        )
        context = full_after["masterReport"].pop("currentContext", [])
        assert all(e["timeBasis"] == "CURRENT_CONTEXT" for e in context)
        full_before["masterReport"].pop("currentContext", None)
        assert full_after == full_before

        # Assessing the unchanged workspace again makes another NEW Evaluation with the same truth.
        third = data(await client.call_tool("assay_assess_workspace", {}))
        assert third["evaluationId"] not in (evaluation_id, second["evaluationId"])
        assert third["scanId"] == second["scanId"]  # the same bundle replays the same qualified scan
        assert third["disposition"] == second["disposition"]
        assert third["summary"]["digests"] == second["summary"]["digests"]

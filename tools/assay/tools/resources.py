"""Resources for assistants that read rather than call: each bound to an exact Evaluation, never "latest"."""

from __future__ import annotations

import json
from typing import Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceError

from assay.tools.client import AssayError
from assay.tools.context import AssayContext
from assay.tools.reports import evaluation_json


async def _json(
    ctx: Context[Any, Any], evaluation_id: str, suffix: str, params: dict[str, Any] | None = None
) -> dict[str, Any]:
    try:
        return await evaluation_json(ctx, evaluation_id, suffix, params)
    except AssayError as exc:
        raise ResourceError(str(exc)) from exc


async def verification_needed(evaluationId: str, ctx: Context[Any, Any]) -> str:  # noqa: N803 (URI variable name)
    audit = await _json(ctx, evaluationId, "/agent-audit")
    items = [
        {
            "id": i["id"],
            "verificationNeeded": i["verificationNeeded"],
            "affectedQuestionIds": i["affectedQuestionIds"],
            "evidenceRefs": i["evidenceRefs"],
        }
        for i in audit["agentAudit"]["verificationItems"]
    ]
    return json.dumps({"evaluationId": evaluationId, "verificationNeeded": items}, indent=2)


async def verification_item(evaluationId: str, itemId: str, ctx: Context[Any, Any]) -> str:  # noqa: N803
    audit = await _json(ctx, evaluationId, "/agent-audit")
    for item in audit["agentAudit"]["verificationItems"]:
        if item["id"] == itemId:
            return json.dumps({"evaluationId": evaluationId, **item}, indent=2)
    raise ResourceError(f"RESOURCE_NOT_FOUND: Evaluation {evaluationId} has no verification item {itemId}.")


async def summary(evaluationId: str, ctx: Context[Any, Any]) -> str:  # noqa: N803
    return json.dumps(await _json(ctx, evaluationId, "/summary"), indent=2)


async def master_report(evaluationId: str, ctx: Context[Any, Any]) -> str:  # noqa: N803
    return json.dumps(await _json(ctx, evaluationId, "/master-report", {"detail": "bounded"}), indent=2)


async def agent_audit(evaluationId: str, ctx: Context[Any, Any]) -> str:  # noqa: N803
    return json.dumps(await _json(ctx, evaluationId, "/agent-audit"), indent=2)


async def systems(context: AssayContext) -> str:
    try:
        return json.dumps(await context.client.get_json("/api/v1/systems"), indent=2)
    except AssayError as exc:
        raise ResourceError(str(exc)) from exc

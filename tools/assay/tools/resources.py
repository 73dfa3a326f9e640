"""Resources for assistants that read rather than call. Each is bound to an exact Evaluation id, never
"latest"; the JSON is the service's answer verbatim (the verification items exactly as the agent audit
gives them). A missing or foreign Evaluation is a resource-not-found error, never an empty document.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError

from assay.tools.client import AssayClient, AssayError
from assay.tools.context import AssayBinding, binding
from assay.tools.reports import read_artifact

NOT_FOUND_CODES = frozenset({"RESOURCE_NOT_FOUND", "RUN_NOT_FOUND", "AI_SYSTEM_NOT_FOUND"})


def _dumps(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def _resource_error(exc: AssayError) -> ResourceError:
    return ResourceNotFoundError(str(exc)) if exc.code in NOT_FOUND_CODES else ResourceError(str(exc))


async def _artifact(ctx: Context[Any, Any], evaluation_id: str, suffix: str, **params: str) -> dict[str, Any]:
    try:
        return await read_artifact(binding(ctx).client_for(ctx), evaluation_id, suffix, params or None)
    except AssayError as exc:
        raise _resource_error(exc) from exc


def item_id(item: dict[str, Any], position: int) -> str:
    """An item's id: its ``id`` member, or its 1-based position for services that give none."""
    return str(item.get("id") or position)


async def _items(ctx: Context[Any, Any], evaluation_id: str) -> list[dict[str, Any]]:
    audit = await _artifact(ctx, evaluation_id, "agent-audit", detail="full")
    items: list[dict[str, Any]] = audit["agentAudit"]["verificationItems"]
    return items


async def verification_needed(evaluationId: str, ctx: Context[Any, Any]) -> str:  # noqa: N803 (URI variable)
    """Every verification item of the Evaluation, verbatim: `verificationNeeded` is the only evidence to gather."""
    items = await _items(ctx, evaluationId)
    return _dumps(
        {
            "evaluationId": evaluationId,
            "itemIds": [item_id(item, n) for n, item in enumerate(items, start=1)],
            "verificationItems": items,
        }
    )


async def verification_item(evaluationId: str, itemId: str, ctx: Context[Any, Any]) -> str:  # noqa: N803
    """One verification item of the Evaluation, verbatim."""
    for n, item in enumerate(await _items(ctx, evaluationId), start=1):
        if item_id(item, n) == itemId:
            return _dumps({"evaluationId": evaluationId, "verificationItem": item})
    raise ResourceNotFoundError(
        f"RESOURCE_NOT_FOUND: Evaluation {evaluationId} has no verification item {itemId}. Next: read "
        f"assay://evaluations/{evaluationId}/verification-needed for its itemIds."
    )


async def summary(evaluationId: str, ctx: Context[Any, Any]) -> str:  # noqa: N803
    """The Evaluation's summary."""
    return _dumps(await _artifact(ctx, evaluationId, "summary"))


async def master_report(evaluationId: str, ctx: Context[Any, Any]) -> str:  # noqa: N803
    """The Evaluation's Master Report, bounded detail."""
    return _dumps(await _artifact(ctx, evaluationId, "master-report", detail="bounded"))


async def agent_audit(evaluationId: str, ctx: Context[Any, Any]) -> str:  # noqa: N803
    """The Evaluation's agent audit, bounded (first page of verification items; the rest: verification-needed)."""
    return _dumps(await _artifact(ctx, evaluationId, "agent-audit"))


async def systems(bound: AssayBinding) -> str:
    """The AI Systems of the organization (a static resource gets no request context from the SDK)."""
    api: AssayClient = bound.client_for(None)
    try:
        return _dumps(await api.get_json("/api/v1/systems"))
    except AssayError as exc:
        raise _resource_error(exc) from exc

"""Discovery tools: systems, their evaluation sources, evidence binders."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import Field

from assay.tools.context import assay, system_id


async def list_systems(ctx: Context[Any, Any]) -> dict[str, Any]:
    """AI Systems of your organization. Next: assay_get_evaluation_sources or assay_create_run with an aiSystemId."""
    result: dict[str, Any] = await assay(ctx).client.get_json("/api/v1/systems")
    return result


async def get_evaluation_sources(
    ctx: Context[Any, Any],
    ai_system_id: Annotated[str | None, Field(description="The AI System; defaults to the workspace system.")] = None,
) -> dict[str, Any]:
    """Which bound source repositories a fresh scan may use, and why not for the others."""
    context = assay(ctx)
    result: dict[str, Any] = await context.client.get_json(
        f"/api/v1/systems/{system_id(context, ai_system_id)}/evaluation-sources"
    )
    return result


async def list_evidence_binders(ctx: Context[Any, Any]) -> dict[str, Any]:
    """Configured evidence binders and the intake routes that accept runtime evidence through them."""
    result: dict[str, Any] = await assay(ctx).client.get_json("/api/v1/evidence/binders")
    return result

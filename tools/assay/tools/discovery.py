"""Discovery tools: AI Systems, the evaluation sources of one, and evidence binders."""

from __future__ import annotations

from typing import Annotated, Any, cast
from urllib.parse import quote

from mcp.server.mcpserver import Context
from pydantic import Field

from assay.tools.context import binding, client, system_id
from assay.tools.models import BinderList, EvaluationSources, SystemList
from assay.tools.reports import ID_PATTERN


async def list_systems(ctx: Context[Any, Any]) -> SystemList:
    """The AI Systems of your organization (aiSystemId, name, type, criticality). Next: assay_create_run or
    assay_get_evaluation_sources with an aiSystemId; this workspace's system is the default of both."""
    return cast(SystemList, await client(ctx).get_json("/api/v1/systems"))


async def get_evaluation_sources(
    ctx: Context[Any, Any],
    ai_system_id: Annotated[
        str | None, Field(pattern=ID_PATTERN, description="The AI System; default: this workspace's system.")
    ] = None,
) -> EvaluationSources:
    """The source repositories bound to an AI System and whether each is eligible for a fresh scan (and why
    not). Next: assay_create_run(execution_mode='api', source_asset_id=...) with an eligible source."""
    api = client(ctx)
    system = await system_id(binding(ctx), ai_system_id, api)
    path = f"/api/v1/systems/{quote(system, safe='')}/evaluation-sources"
    return cast(EvaluationSources, await api.get_json(path))


async def list_evidence_binders(ctx: Context[Any, Any]) -> BinderList:
    """Your evidence binders and the intake routes that accept evidence through them (no credentials). Next:
    attach a receipt's producerRunId to a NEW run (assay_create_run, external_evidence_attachments)."""
    return cast(BinderList, await client(ctx).get_json("/api/v1/evidence/binders"))

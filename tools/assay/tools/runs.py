"""Run tools: create a run, read or wait for one, list runs."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import anyio
from mcp.server.mcpserver import Context
from pydantic import Field

from assay.tools.context import AssayContext, assay, system_id

RUNS = "/api/v1/assurance/runs"
STAGES = {"QUEUED": 0, "static": 1, "evaluation": 2}
MAX_WAIT = 120


async def create_run(
    ctx: Context[Any, Any],
    ai_system_id: Annotated[
        str | None, Field(description="The AI System to assess; defaults to the workspace system.")
    ] = None,
    execution_mode: Annotated[
        Literal["api", "ci-attached", "reused"],
        Field(description="api: fresh scan of the bound source; ci-attached/reused: evaluate attached_scan_id."),
    ] = "api",
    attached_scan_id: Annotated[
        str | None, Field(description="A qualified scan id (from a scan submission) for ci-attached or reused.")
    ] = None,
    source_asset_id: Annotated[
        str | None, Field(description="Which bound source to scan (see assay_get_evaluation_sources).")
    ] = None,
    jurisdiction: Annotated[
        Literal["nyc_ll144", "colorado_ai", "eu_ai_act"] | None,
        Field(description="Record a jurisdiction; its controls are NOT_ASSESSED here."),
    ] = None,
    idempotency_key: Annotated[
        str | None, Field(description="Retry-safe key: the same key and arguments return the same run.")
    ] = None,
) -> dict[str, Any]:
    """Create a NEW assurance run (the evaluation is frozen once persisted). Returns the RunEnvelope; next:
    assay_get_run with wait_seconds until `evaluation` appears."""
    context = assay(ctx)
    static: dict[str, Any] = {"enabled": True, "executionMode": execution_mode}
    if attached_scan_id:
        static["attachedScanId"] = attached_scan_id
    if source_asset_id:
        static["sourceAssetId"] = source_asset_id
    body: dict[str, Any] = {"aiSystemId": system_id(context, ai_system_id), "engines": {"static": static}}
    if jurisdiction:
        body["jurisdiction"] = jurisdiction
    headers = {"Idempotency-Key": idempotency_key} if idempotency_key else None
    result: dict[str, Any] = await context.client.post_json(RUNS, body, headers=headers)
    return result


async def wait_for_run(
    context: AssayContext, ctx: Context[Any, Any] | None, run_id: str, wait_seconds: float
) -> dict[str, Any]:
    """Poll a run until it completes or fails, reporting stage changes as progress; bounded by wait_seconds."""
    run: dict[str, Any] = await context.client.get_json(f"{RUNS}/{run_id}")
    last = None
    with anyio.move_on_after(max(0.0, min(wait_seconds, MAX_WAIT))):
        while run["status"] not in ("COMPLETED", "FAILED"):
            stage = run.get("stage") or run["status"]
            if ctx is not None and stage != last:
                await ctx.report_progress(STAGES.get(stage, 0), 3, f"run {run_id}: {stage}")
                last = stage
            await anyio.sleep(0.1)
            run = await context.client.get_json(f"{RUNS}/{run_id}")
    if ctx is not None and run["status"] in ("COMPLETED", "FAILED"):
        await ctx.report_progress(3, 3, f"run {run_id}: {run['status']}")
    return run


async def get_run(
    ctx: Context[Any, Any],
    run_id: Annotated[str, Field(description="The runId returned by assay_create_run.")],
    wait_seconds: Annotated[
        float, Field(ge=0, le=MAX_WAIT, description="Wait up to this long for the run to finish (0: read once).")
    ] = 0,
) -> dict[str, Any]:
    """Read a run (optionally waiting, with progress on stage changes). When `evaluation` is set, read
    assay_get_summary and assay_get_agent_audit with its evaluationId."""
    return await wait_for_run(assay(ctx), ctx, run_id, wait_seconds)


async def list_runs(
    ctx: Context[Any, Any],
    page: Annotated[int, Field(ge=1, description="Page, from 1.")] = 1,
    limit: Annotated[int, Field(ge=1, le=50, description="Runs per page (at most 50).")] = 20,
    status: Annotated[
        Literal["QUEUED", "RUNNING", "COMPLETED", "FAILED"] | None, Field(description="Only runs in this status.")
    ] = None,
) -> dict[str, Any]:
    """List runs of your organization, newest first. Next: assay_get_run for one of them."""
    params: dict[str, Any] = {"page": page, "limit": limit}
    if status:
        params["status"] = status
    result: dict[str, Any] = await assay(ctx).client.get_json(RUNS, params=params)
    return result

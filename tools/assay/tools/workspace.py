"""The one-call tool: scan the local workspace, submit it as a qualified scan, run, wait, summarise."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import anyio
from mcp.server.mcpserver import Context
from pydantic import Field

from assay.backend.engines.static.scan import scan_tree
from assay.backend.engines.static.walk import WalkError
from assay.tools.client import AssayError
from assay.tools.context import assay, system_id
from assay.tools.runs import RUNS, wait_for_run


async def assess_workspace(
    ctx: Context[Any, Any],
    path: Annotated[
        str | None, Field(description="Folder to assess; defaults to the workspace the server started in.")
    ] = None,
    ai_system_id: Annotated[
        str | None, Field(description="The AI System it belongs to; defaults to the workspace system.")
    ] = None,
    wait_seconds: Annotated[float, Field(ge=1, le=120, description="How long to wait for the Evaluation.")] = 90,
) -> dict[str, Any]:
    """Assess this workspace in one call: scan the code (read, never executed), submit it as a qualified scan,
    create a NEW run attached to it, wait, and return the summary with runId and evaluationId. Next:
    assay_get_agent_audit(evaluationId) for the verification items."""
    context = assay(ctx)
    root = Path(path) if path else context.workspace
    if root is None:
        raise AssayError("INVALID_REQUEST", "No workspace is configured: pass path.")
    system = system_id(context, ai_system_id)
    await ctx.report_progress(0, 4, f"scanning {root}")
    try:
        bundle = (await anyio.to_thread.run_sync(scan_tree, root)).to_json_dict()
    except WalkError as exc:
        raise AssayError("INVALID_REQUEST", f"The workspace cannot be scanned: {exc}") from exc
    submission = {
        "aiSystemId": system,
        "producerId": "ci-cd-scanner",
        "origin": "ide",
        "sourceIdentity": bundle["sourceIdentity"],
        "bundle": bundle,
    }
    await ctx.report_progress(1, 4, "submitting the qualified scan")
    scan = await context.client.post_json(
        "/api/v1/scans", submission, headers={"Idempotency-Key": bundle["contentHash"]}
    )
    run = await context.client.post_json(RUNS, {"aiSystemId": system, "engines": {"static": scan["attach"]}})
    await ctx.report_progress(2, 4, f"run {run['runId']} created")
    run = await wait_for_run(context, None, run["runId"], wait_seconds)
    if run["status"] == "FAILED":
        failure = run["failure"] or {}
        raise AssayError(
            str(failure.get("code", "RUN_FAILED")), f"Run {run['runId']} failed: {failure.get('message', '')}"
        )
    if run["evaluation"] is None:
        return {
            "runId": run["runId"],
            "status": run["status"],
            "next": f"assay_get_run(run_id={run['runId']!r}, wait_seconds=60)",
        }
    evaluation_id = run["evaluation"]["evaluationId"]
    summary: dict[str, Any] = await context.client.get_json(f"/api/v1/assurance/evaluations/{evaluation_id}/summary")
    await ctx.report_progress(4, 4, f"evaluation {evaluation_id}: {summary['disposition']}")
    return {
        "runId": run["runId"],
        "scanId": scan["scanId"],
        "evaluationId": evaluation_id,
        "disposition": summary["disposition"],
        "summary": summary,
        "next": f"assay_get_agent_audit(evaluation_id={evaluation_id!r}); resource assay://evaluations/{evaluation_id}/verification-needed",
    }

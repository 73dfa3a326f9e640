"""Report tools: summary, agent audit, master report and passport of one exact Evaluation."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from pydantic import Field

from assay.tools.context import assay

EVALUATIONS = "/api/v1/assurance/evaluations"
EvaluationId = Annotated[str, Field(description="The exact evaluationId (from a completed run); never 'latest'.")]


async def evaluation_json(
    ctx: Context[Any, Any], evaluation_id: str, suffix: str, params: dict[str, Any] | None = None
) -> dict[str, Any]:
    result: dict[str, Any] = await assay(ctx).client.get_json(f"{EVALUATIONS}/{evaluation_id}{suffix}", params=params)
    return result


async def get_summary(ctx: Context[Any, Any], evaluation_id: EvaluationId) -> dict[str, Any]:
    """Compact summary: disposition (ALLOW/REVIEW/BLOCK), methodology, digests, counts, top reasons.
    Next: assay_get_agent_audit for the verification items."""
    return await evaluation_json(ctx, evaluation_id, "/summary")


async def get_agent_audit(ctx: Context[Any, Any], evaluation_id: EvaluationId) -> dict[str, Any]:
    """Agent audit: what was established, what was not, and verificationItems whose verificationNeeded is the
    only evidence to gather. Next: fix the workspace as asked, then assay_assess_workspace for a NEW run."""
    return await evaluation_json(ctx, evaluation_id, "/agent-audit")


async def get_master_report(
    ctx: Context[Any, Any],
    evaluation_id: EvaluationId,
    detail: Annotated[
        Literal["bounded", "full"],
        Field(description="bounded (default) fits a context window; full only for deeper analysis."),
    ] = "bounded",
) -> dict[str, Any]:
    """The Master Assurance Report of one Evaluation: the Four Questions, scenario snapshot, limitations,
    links (PDF, HTML). Bounded lists say how many items they left out."""
    return await evaluation_json(ctx, evaluation_id, "/master-report", {"detail": detail})


async def get_passport(ctx: Context[Any, Any], evaluation_id: EvaluationId) -> dict[str, Any]:
    """The signed passport (DSSE envelope, in-toto Statement, Ed25519). Verify offline with
    `assay passport verify FILE --jwks jwks.json` (keys at /.well-known/jwks.json)."""
    return await evaluation_json(ctx, evaluation_id, "/passport")

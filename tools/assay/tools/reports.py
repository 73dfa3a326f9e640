"""Report tools: summary, agent audit, Master Report and passport of one exact Evaluation.

Each returns the service's answer verbatim. A missing Evaluation, or another organization's, is an error
(RESOURCE_NOT_FOUND on the tool-error channel), never an empty success; no tool resolves a "latest" one.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, cast
from urllib.parse import quote

from mcp.server.mcpserver import Context
from pydantic import Field

from assay.tools.client import AssayClient
from assay.tools.context import client
from assay.tools.models import AgentAuditResponse, MasterReportResponse, Passport, Summary

EVALUATIONS = "/api/v1/assurance/evaluations"
# Ids are opaque to the client, but they are one path segment: no slashes, no dots that could climb.
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_:-]{0,127}$"

EvaluationId = Annotated[
    str,
    Field(
        pattern=ID_PATTERN,
        description="The exact evaluationId (from assay_get_run or assay_assess_workspace); there is no 'latest'.",
    ),
]


def evaluation_path(evaluation_id: str, suffix: str) -> str:
    """The route of one artifact of one Evaluation."""
    return f"{EVALUATIONS}/{quote(evaluation_id, safe='')}/{suffix}"


async def read_artifact(
    api: AssayClient, evaluation_id: str, suffix: str, params: dict[str, Any] | None = None
) -> dict[str, Any]:
    """One artifact of one Evaluation as JSON (tools and resources share it)."""
    result: dict[str, Any] = await api.get_json(evaluation_path(evaluation_id, suffix), params=params)
    return result


async def get_summary(ctx: Context[Any, Any], evaluation_id: EvaluationId) -> Summary:
    """The compact summary of one Evaluation: disposition (ALLOW, REVIEW or BLOCK, verbatim), methodology
    version, digests, counts per question and the top reasons with their rule ids. Next:
    assay_get_agent_audit(evaluation_id) for the verificationNeeded items."""
    return cast(Summary, await read_artifact(client(ctx), evaluation_id, "summary"))


async def get_agent_audit(
    ctx: Context[Any, Any],
    evaluation_id: EvaluationId,
    page: Annotated[
        int, Field(ge=1, description="Page of verificationItems, 20 per page, most severe first (paging.nextPage).")
    ] = 1,
    detail: Annotated[
        Literal["bounded", "full"],
        Field(description="bounded (default): paged items, lists capped with omitted counts; full: everything."),
    ] = "bounded",
) -> AgentAuditResponse:
    """The agent audit of one Evaluation: what was established and what was not, and verificationItems whose
    `verificationNeeded` is the authoritative evidence request (ask for nothing else); each item also has
    `location` {path, line}, `tool`, `actionClass` and `severity`. Items come 20 a page: read
    `paging.nextPage` and call again with page=N until it is null. Next: change the workspace as the items
    ask, then assay_assess_workspace for a NEW Evaluation (this one never changes)."""
    params: dict[str, Any] = {"detail": detail} if detail == "full" else {"page": page}
    return cast(AgentAuditResponse, await read_artifact(client(ctx), evaluation_id, "agent-audit", params))


async def get_master_report(
    ctx: Context[Any, Any],
    evaluation_id: EvaluationId,
    detail: Annotated[
        Literal["bounded", "full"],
        Field(description="bounded (default): lists capped with omitted counts; full: only for deeper analysis."),
    ] = "bounded",
) -> MasterReportResponse:
    """The Master Assurance Report of one Evaluation: the Four Questions (reach, authority, observed, proof
    boundary), the scenario snapshot, digests, limitations and links (PDF, HTML, passport). Read the summary
    and agent audit first. Next: detail='full' only when the bounded report is not enough."""
    return cast(
        MasterReportResponse, await read_artifact(client(ctx), evaluation_id, "master-report", {"detail": detail})
    )


async def get_passport(ctx: Context[Any, Any], evaluation_id: EvaluationId) -> Passport:
    """The portable passport of one Evaluation, verbatim: a signed DSSE envelope (in-toto Statement v1,
    Ed25519). Next: save it and verify it offline with `assay passport verify FILE --jwks jwks.json` (keys at
    /.well-known/jwks.json of the service)."""
    return cast(Passport, await read_artifact(client(ctx), evaluation_id, "passport"))

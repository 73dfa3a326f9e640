"""Run tools: create a run, read one (optionally waiting, with progress on stage changes), list runs."""

from __future__ import annotations

import uuid
from typing import Annotated, Any, Literal, cast

import anyio
from mcp.server.mcpserver import Context
from pydantic import BaseModel, ConfigDict, Field

from assay.tools.client import AssayClient
from assay.tools.context import binding, client, system_id
from assay.tools.models import RunEnvelope, RunList

RUNS = "/api/v1/assurance/runs"
MAX_WAIT_SECONDS = 120.0
TERMINAL = frozenset({"COMPLETED", "FAILED"})
# Each read asks the service to answer when the run moves on (Prefer: wait), so a run is seen the moment
# it ends, in one read per state; well below the HTTP client's 30 s timeout.
READ_WAIT_SECONDS = 10
# A service that does not honour Prefer: wait is polled instead: quick at first (an embedded run takes
# well under a second), backing off to stay far below the per-key rate limit of the run routes.
FIRST_POLL, MAX_POLL = 0.1, 1.0

RunId = Annotated[str, Field(min_length=1, description="A runId from assay_create_run or assay_list_runs.")]


class EvidenceAttachment(BaseModel):
    """An evidence attachment, frozen at run creation."""

    model_config = ConfigDict(extra="forbid")
    producerId: Literal["ci-cd-scanner", "sarif-import", "structured-ingress", "assay-runtime"]
    producerRunId: str = Field(min_length=1)


def run_next_step(run: dict[str, Any]) -> str:
    """The hint for what to call after reading ``run``."""
    run_id = run.get("runId", "")
    evaluation = run.get("evaluation")
    if isinstance(evaluation, dict) and evaluation.get("evaluationId"):
        evaluation_id = evaluation["evaluationId"]
        return (
            f"assay_get_summary(evaluation_id={evaluation_id!r}), then assay_get_agent_audit(evaluation_id="
            f"{evaluation_id!r}) for the verificationNeeded items."
        )
    if run.get("status") == "FAILED":
        failure = run.get("failure") or {}
        return (
            f"the run failed ({failure.get('code', 'RUN_FAILED')}: {failure.get('message', 'no message')}); fix the "
            "cause and create a NEW run."
        )
    return f"assay_get_run(run_id={run_id!r}, wait_seconds=60) until `evaluation` is set."


class StageReporter:
    """Reports each stage change of a long call as MCP progress (absolute step count, monotonic).

    A no-op without a context, and the SDK drops it when the caller asked for no progress.
    """

    def __init__(self, ctx: Context[Any, Any] | None) -> None:
        self._ctx = ctx
        self._last: str | None = None
        self.steps = 0

    async def stage(self, label: str, *, done: bool = False) -> None:
        if label == self._last:
            return
        self._last = label
        self.steps += 1
        if self._ctx is not None:
            await self._ctx.report_progress(self.steps, self.steps if done else None, label)


def _stage(run: dict[str, Any]) -> str:
    stage = run.get("stage")
    status = str(run.get("status"))
    return f"run {run.get('runId')}: {status}" + (f" ({stage})" if stage else "")


async def wait_for_run(
    api: AssayClient, run_id: str, wait_seconds: float, reporter: StageReporter | None = None
) -> dict[str, Any]:
    """Follow a run until it is COMPLETED or FAILED, for at most ``wait_seconds``, reporting stage changes."""
    run: dict[str, Any] = await api.get_json(f"{RUNS}/{run_id}")
    if reporter is not None:
        await reporter.stage(_stage(run), done=run.get("status") in TERMINAL)
    interval = FIRST_POLL
    with anyio.move_on_after(max(0.0, min(wait_seconds, MAX_WAIT_SECONDS))):
        while run.get("status") not in TERMINAL:
            run, waited = await api.get_json_waiting(f"{RUNS}/{run_id}", READ_WAIT_SECONDS)
            if reporter is not None:
                await reporter.stage(_stage(run), done=run.get("status") in TERMINAL)
            if not waited and run.get("status") not in TERMINAL:
                await anyio.sleep(interval)
                interval = min(interval * 1.5, MAX_POLL)
    return run


async def create_run(
    ctx: Context[Any, Any],
    ai_system_id: Annotated[
        str | None, Field(description="The AI System to assess (aiSystemId); default: this workspace's system.")
    ] = None,
    execution_mode: Annotated[
        Literal["api", "ci-attached", "reused"] | None,
        Field(
            description="api: scan the system's verified source; ci-attached or reused: evaluate attached_scan_id "
            "(the default when it is given)."
        ),
    ] = None,
    attached_scan_id: Annotated[
        str | None, Field(description="A scanId to evaluate (from a qualified scan submission or a legacy scan).")
    ] = None,
    source_asset_id: Annotated[
        str | None, Field(description="For api: which bound source to scan (see assay_get_evaluation_sources).")
    ] = None,
    repository_url: Annotated[
        str | None, Field(description="For api: a bound source's repository, instead of source_asset_id.")
    ] = None,
    branch: Annotated[str | None, Field(description="For api: the branch to scan (must be the bound one).")] = None,
    jurisdiction: Annotated[
        Literal["nyc_ll144", "colorado_ai", "eu_ai_act"] | None,
        Field(description="A jurisdiction whose controls the Evaluation records."),
    ] = None,
    assessment_id: Annotated[
        str | None,
        Field(
            description="A wizard assessment (assay_assessment) to freeze into the run (engines.wizard); its "
            "framework is the run's jurisdiction. With no source bound, the run holds the assessment only."
        ),
    ] = None,
    static: Annotated[
        bool,
        Field(description="Include the static engine (false: a run of assessment_id or attached recordings only)."),
    ] = True,
    external_evidence_attachments: Annotated[
        list[EvidenceAttachment] | None,
        Field(
            description="Evidence to freeze into the run: intake receipts (producerId, producerRunId), or a probe "
            "recording (producerId assay-runtime, producerRunId the probe's runId)."
        ),
    ] = None,
    idempotency_key: Annotated[
        str | None,
        Field(
            min_length=1,
            max_length=255,
            description="Retry-safe key: the same key and arguments give the same run. Default: a new key.",
        ),
    ] = None,
) -> RunEnvelope:
    """Create a NEW assurance run of an AI System (static engine; the wizard engine with assessment_id);
    returns it QUEUED or RUNNING. For this workspace's code prefer assay_assess_workspace. Next:
    assay_get_run(run_id, wait_seconds=60) until `evaluation` is set."""
    bound = binding(ctx)
    mode = execution_mode or ("ci-attached" if attached_scan_id else "api")
    static_engine: dict[str, Any] = {"enabled": True, "executionMode": mode}
    for name, value in (
        ("attachedScanId", attached_scan_id),
        ("sourceAssetId", source_asset_id),
        ("repositoryUrl", repository_url),
        ("branch", branch),
    ):
        if value is not None:
            static_engine[name] = value
    engines: dict[str, Any] = {"static": static_engine} if static else {}
    if assessment_id is not None:
        engines["wizard"] = {"enabled": True, "assessmentId": assessment_id}
    api = client(ctx)
    body: dict[str, Any] = {"aiSystemId": await system_id(bound, ai_system_id, api), "engines": engines}
    if jurisdiction is not None:
        body["jurisdiction"] = jurisdiction
    if external_evidence_attachments:
        body["externalEvidenceAttachments"] = [a.model_dump() for a in external_evidence_attachments]
    run: dict[str, Any] = await api.post_json(
        RUNS, body, idempotency_key=idempotency_key or f"assay-mcp-{uuid.uuid4()}"
    )
    return cast(RunEnvelope, {**run, "nextStep": run_next_step(run)})


async def get_run(
    ctx: Context[Any, Any],
    run_id: RunId,
    wait_seconds: Annotated[
        float,
        Field(ge=0, le=MAX_WAIT_SECONDS, description="Wait up to this many seconds for the run to end (0: read once)."),
    ] = 0,
) -> RunEnvelope:
    """Read a run; with wait_seconds, wait (bounded) until it is COMPLETED or FAILED, with progress on each
    stage change. A FAILED run carries `failure`. Next, once `evaluation` is set:
    assay_get_summary(evaluation_id)."""
    run = await wait_for_run(client(ctx), run_id, wait_seconds, StageReporter(ctx))
    return cast(RunEnvelope, {**run, "nextStep": run_next_step(run)})


async def list_runs(
    ctx: Context[Any, Any],
    page: Annotated[int, Field(ge=1, description="Page number, from 1.")] = 1,
    limit: Annotated[int, Field(ge=1, le=50, description="Runs per page, at most 50.")] = 20,
    status: Annotated[
        Literal["QUEUED", "RUNNING", "COMPLETED", "FAILED"] | None, Field(description="Only runs in this status.")
    ] = None,
) -> RunList:
    """List your organization's runs, newest first (paged). Next: assay_get_run(run_id) for one of them."""
    params: dict[str, Any] = {"page": page, "limit": limit}
    if status is not None:
        params["status"] = status
    listed: dict[str, Any] = await client(ctx).get_json(RUNS, params=params)
    return cast(RunList, {**listed, "nextStep": "assay_get_run(run_id) for a run's status and evaluationId."})

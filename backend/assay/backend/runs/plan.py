"""Turn a CreateRunRequest into a frozen run plan, or refuse it with the contract's error codes.

The plan is everything the worker needs, fixed at creation: which evidence the run will evaluate
(a fresh scan of one resolved source, or one attached scan), the jurisdiction, and the attachments.
Engines this deployment does not have are refused with a message that says so, never skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from sqlmodel import col, select

from assay.backend.api.discovery import load_system
from assay.backend.engines.wizard.assessments import freeze_for_run
from assay.backend.errors import ApiError, ErrorCode, not_found
from assay.backend.intake.attachments import check_attachments
from assay.backend.provisioning import SYSTEM_RETIRED
from assay.backend.runs.acceptances import freeze_acceptances
from assay.backend.runs.schemas import CreateRunRequest, StaticEngine
from assay.backend.runtime.engine import plan_runtime
from assay.backend.runtime.recordings import PRODUCER_ID as RECORDING_PRODUCER_ID
from assay.backend.scans.remote import check_branch
from assay.backend.scans.scan_store import load_scan
from assay.backend.scans.sources import (
    Ineligibility,
    fresh_scan_ineligibility,
    match_local_reference,
    read_git_head,
    repo_kind,
)
from assay.backend.storage import models
from assay.backend.web.routing import RequestContext

# The contract's error code for each reason a source cannot be scanned (sources.fresh_scan_ineligibility).
CODE_BY_REASON: dict[str, ErrorCode] = {
    "unverified": "SOURCE_NOT_VERIFIED",
    "conflicted": "SOURCE_CONFLICTED",
    "unavailable": "SOURCE_UNAVAILABLE",
    "retired": "SOURCE_UNAVAILABLE",
    "branch_missing": "BRANCH_REQUIRED",
}


# The execution modes that scan the resolved source afresh: api (over the API) and ui (from the dashboard).
FRESH_SCAN_MODES = frozenset({"api", "ui"})


@dataclass(frozen=True, slots=True)
class RunPlan:
    """Everything a worker needs to execute a run, fixed when the run is created (stored as JSON)."""

    ai_system_id: str
    # None: the static engine is not part of the run (a runtime-only run).
    static_mode: str | None
    source_asset_id: str | None
    source_path: str | None
    attached_scan_id: str | None
    jurisdiction: str | None
    # The checked externalEvidenceAttachments ({producerId, producerRunId}), frozen at creation.
    attachments: list[dict[str, str]] = field(default_factory=list)
    # The runtime engine's resolved configuration (runtime.engine.RuntimePlan as JSON), or None.
    runtime: dict[str, Any] | None = None
    # engines.wizard: the assessment's answers and data ids as they were at creation (assessments.snapshot).
    wizard: dict[str, Any] | None = None
    # A git remote source: the branch whose tip is fetched, or the commit fetched (engines.static.commitSha).
    source_branch: str | None = None
    source_commit: str | None = None
    # The AI System's risk acceptances as they were at creation (runs/acceptances.py), or None.
    risk_acceptances: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunPlan:
        return cls(**data)


def _refuse(message: str) -> ApiError:
    return ApiError("INVALID_REQUEST", message)


def _match_repository(rows: Sequence[models.SourceAsset], reference: str, branch: str | None) -> models.SourceAsset:
    """The bound source ``repositoryUrl`` names. Only a bound source ever matches: a git URL exactly as
    bound, or an absolute local path (a relative path means nothing on the server and matches nothing)."""
    wanted = reference.strip() if repo_kind(reference.strip()) == "git" else match_local_reference(reference.strip())
    matches = [r for r in rows if wanted is not None and r.repo == wanted]
    if not matches:
        raise _refuse(
            "engines.static.repositoryUrl does not resolve to a source bound to this AI System; "
            "arbitrary URLs are rejected, bind the repository first (assay admin source add)."
        )
    # A retired source is named only when nothing else matches, so the error says it is retired.
    candidates = [r for r in matches if r.status != "RETIRED"] or matches[:1]
    if branch is not None:
        candidates = [r for r in candidates if r.branch in (None, branch)] or candidates
    if len(candidates) > 1:
        raise ApiError("SOURCE_AMBIGUOUS", "Several bound sources match repositoryUrl; name one with sourceAssetId.")
    return candidates[0]


def _branch_conflict(source: models.SourceAsset, branch: str) -> list[Ineligibility]:
    """A requested branch must be the bound one; for a local source bound without a branch, the one
    checked out (the scan reads the tree as it is, so any other branch would be misreported)."""
    if source.branch is not None:
        if branch == source.branch:
            return []
        return [Ineligibility("conflicted", f"Another branch was asked for; the source is bound to {source.branch!r}.")]
    if source.repo_kind != "local" or not Path(source.repo).is_dir():
        return []
    head = read_git_head(Path(source.repo))
    if head is not None and head.branch == branch:
        return []
    where = "not in a git repository" if head is None else f"on {head.branch or 'a detached HEAD'}"
    return [Ineligibility("conflicted", f"The requested branch is not checked out; the source's tree is {where}.")]


def _commit_conflict(source: models.SourceAsset, commit: str) -> list[Ineligibility]:
    """A git remote is fetched at the commit; a local path is scanned as it is, so its HEAD must be there."""
    if source.repo_kind == "git" or not Path(source.repo).is_dir():
        return []
    head = read_git_head(Path(source.repo))
    if head is not None and head.commit is not None and head.commit.lower() == commit.lower():
        return []
    return [Ineligibility("conflicted", "The source's work tree is not at the requested commitSha.")]


async def _resolve_source(ctx: RequestContext, system: models.AiSystem, static: StaticEngine) -> models.SourceAsset:
    rows = (
        await ctx.session.exec(
            select(models.SourceAsset)
            .where(
                models.SourceAsset.organization_id == ctx.organization_id,
                models.SourceAsset.ai_system_id == system.id,
            )
            # A stable order: when no source is verified, the error names the oldest one.
            .order_by(col(models.SourceAsset.created_at), col(models.SourceAsset.id))
        )
    ).all()
    if static.sourceAssetId is not None:
        source = next((r for r in rows if r.id == static.sourceAssetId), None)
        if source is None:
            raise not_found(what="source asset")
    elif static.repositoryUrl is not None:
        source = _match_repository(rows, static.repositoryUrl, static.branch)
    else:
        live = [r for r in rows if r.status != "RETIRED"]
        if not live:
            raise ApiError("SOURCE_NOT_VERIFIED", "The AI System has no bound source repository to scan.")
        verified = [r for r in live if r.status == "VERIFIED"]
        if len(verified) > 1:
            raise ApiError(
                "SOURCE_AMBIGUOUS", "The AI System has several verified sources; name one with sourceAssetId."
            )
        source = verified[0] if verified else live[0]
    reasons = fresh_scan_ineligibility(source, ref_given=static.branch is not None or static.commitSha is not None)
    if static.branch is not None:
        reasons.extend(_branch_conflict(source, static.branch))
    if static.commitSha is not None:
        reasons.extend(_commit_conflict(source, static.commitSha))
    if reasons:
        first = reasons[0]
        raise ApiError(CODE_BY_REASON[first.code], f"Source {source.id} cannot be scanned: {first.message}")
    return source


async def plan_run(ctx: RequestContext, request: CreateRunRequest, *, from_dashboard: bool = False) -> RunPlan:
    """Validate a run request against the caller's organization and return its frozen plan.

    ``from_dashboard``: the request comes from the dashboard's "Start a run" form, the one place that may ask
    for executionMode ``ui`` (a fresh scan like ``api``, recorded as started from the dashboard)."""
    system = await load_system(ctx, request.aiSystemId)
    if system.lifecycle_status == SYSTEM_RETIRED:
        raise _refuse(f"AI System {system.id} is retired; it takes no new runs (its evaluations stay readable).")
    plan = await _plan(ctx, system, request, from_dashboard)
    accepted = await freeze_acceptances(ctx.session, ctx.organization_id, system.id, ctx.now.date())
    return replace(plan, risk_acceptances=accepted) if accepted is not None else plan


async def _plan(
    ctx: RequestContext, system: models.AiSystem, request: CreateRunRequest, from_dashboard: bool
) -> RunPlan:
    engines = request.engines
    wizard = await _wizard(ctx, system, request)
    jurisdiction = request.jurisdiction or (wizard["framework"] if wizard else None)
    attached = await _attachments(ctx, system, request)
    runtime = None
    if engines.runtime is not None and engines.runtime.enabled is not False:
        runtime = await plan_runtime(ctx, system, engines.runtime)
    static = engines.static
    if static is None or static.enabled is False:
        recorded = any(a["producerId"] == RECORDING_PRODUCER_ID for a in attached)
        if runtime is None and wizard is None and not recorded:
            raise _refuse(
                "No engine is enabled: enable engines.static, engines.runtime or engines.wizard, or attach a probe "
                "recording (producerId assay-runtime)."
            )
        # A runtime-only or wizard-only run (or one evaluating an attached recording): valid for a system
        # with no source at all.
        return RunPlan(system.id, None, None, None, None, jurisdiction, attached, runtime=runtime, wizard=wizard)
    mode = static.executionMode or ("ci-attached" if static.attachedScanId else "api")
    if mode == "ci-triggered":
        raise _refuse(f"executionMode {mode!r} is not available in this deployment; use api, ci-attached or reused.")
    if mode == "ui" and not from_dashboard:
        raise _refuse(
            "executionMode 'ui' is a run started from the dashboard (the AI System's page, Start a run); "
            "over the API use api for a fresh scan, or ci-attached or reused."
        )
    if mode in FRESH_SCAN_MODES:
        if static.attachedScanId is not None:
            raise _refuse(f"executionMode {mode} makes a fresh scan; attachedScanId goes with ci-attached or reused.")
        if static.branch is not None:
            try:
                check_branch(static.branch)
            except ValueError as exc:
                raise _refuse(f"engines.static.branch: {exc}.") from exc
        source = await _resolve_source(ctx, system, static)
        remote = source.repo_kind == "git"
        return RunPlan(
            system.id,
            mode,
            source.id,
            source.repo,
            None,
            jurisdiction,
            attached,
            runtime=runtime,
            wizard=wizard,
            source_branch=(static.branch or source.branch) if remote and static.commitSha is None else None,
            source_commit=static.commitSha.lower() if remote and static.commitSha is not None else None,
        )
    if static.attachedScanId is None:
        raise _refuse(f"executionMode {mode!r} needs engines.static.attachedScanId.")
    if (
        static.sourceAssetId is not None
        or static.repositoryUrl is not None
        or static.branch is not None
        or static.commitSha is not None
    ):
        raise _refuse(
            f"executionMode {mode!r} evaluates the attached scan as it is; sourceAssetId, repositoryUrl, "
            "branch and commitSha go with executionMode api."
        )
    scan = await load_scan(ctx.session, ctx.organization_id, static.attachedScanId)
    if scan is None:
        raise not_found(what="scan")
    if scan.ai_system_id != system.id:
        raise _refuse("The attached scan belongs to another AI System.")
    return RunPlan(system.id, mode, None, None, scan.id, jurisdiction, attached, runtime=runtime, wizard=wizard)


async def _wizard(ctx: RequestContext, system: models.AiSystem, request: CreateRunRequest) -> dict[str, Any] | None:
    wizard = request.engines.wizard
    if wizard is None or wizard.enabled is False:
        return None
    return await freeze_for_run(
        ctx.session,
        ctx.organization_id,
        system.id,
        assessment_id=wizard.assessmentId,
        framework=wizard.framework,
        jurisdiction=request.jurisdiction,
        day=ctx.now.date(),
    )


async def _attachments(ctx: RequestContext, system: models.AiSystem, request: CreateRunRequest) -> list[dict[str, str]]:
    pairs = [(a.producerId, a.producerRunId) for a in request.externalEvidenceAttachments]
    return await check_attachments(ctx.session, ctx.organization_id, system.id, pairs)

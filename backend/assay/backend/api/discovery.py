"""Discovery (contract 4.3): the caller's AI Systems, their sources' scan eligibility, evidence binders."""

from __future__ import annotations

from datetime import datetime

from anyio import to_thread
from sqlalchemy import bindparam
from sqlalchemy import select as core_select
from sqlmodel import col, select
from starlette.requests import Request
from starlette.responses import Response

from assay.backend import schemas
from assay.backend.errors import not_found
from assay.backend.scans.sources import Ineligibility, fresh_scan_ineligibility
from assay.backend.storage import models
from assay.backend.storage.loop_reads import PreparedRead
from assay.backend.web.http_io import json_response
from assay.backend.web.routing import Parameter, RequestContext, RouteSpec

INTAKE = schemas.EvidenceIntake(
    authentication="bearer",
    requiredScope="evidence:ingest",
    routes=schemas.EvidenceIntakeRoutes(
        structured="/api/ingest/structured",
        logs="/api/ingest/log",
        otlpTraces="/api/otlp/v1/traces",
        otlpMetrics="/api/otlp/v1/metrics",
        otlpLogs="/api/otlp/v1/logs",
    ),
)


def ai_system_out(row: models.AiSystem) -> schemas.AiSystem:
    return schemas.AiSystem(
        aiSystemId=row.id,
        name=row.name,
        systemType=row.system_type,
        criticality=row.criticality,
        lifecycleStatus=row.lifecycle_status,
        createdAt=row.created_at,
    )


# The hottest read of the API (agents poll it): a Core select declared once, run through ctx.fetch_all.
SYSTEMS_OF_ORGANIZATION = PreparedRead(
    core_select(
        col(models.AiSystem.id),
        col(models.AiSystem.name),
        col(models.AiSystem.system_type),
        col(models.AiSystem.criticality),
        col(models.AiSystem.lifecycle_status),
        col(models.AiSystem.created_at),
    )
    .where(col(models.AiSystem.organization_id) == bindparam("organization_id"))
    .order_by(col(models.AiSystem.created_at), col(models.AiSystem.id))
)


def _system_from_columns(
    system_id: str,
    name: str,
    system_type: str | None,
    criticality: str | None,
    lifecycle_status: str | None,
    created_at: datetime,
) -> schemas.AiSystem:
    return schemas.AiSystem(
        aiSystemId=system_id,
        name=name,
        systemType=system_type,
        criticality=criticality,
        lifecycleStatus=lifecycle_status,
        createdAt=created_at,
    )


async def list_systems(request: Request, ctx: RequestContext) -> Response:
    rows = await ctx.fetch_all(SYSTEMS_OF_ORGANIZATION, {"organization_id": ctx.organization_id})
    return json_response(schemas.SystemList(systems=[_system_from_columns(*row) for row in rows]))


async def load_system(ctx: RequestContext, system_id: str) -> models.AiSystem:
    """The caller's AI System, or the one 404 for missing and foreign systems alike."""
    system = await ctx.session.get(models.AiSystem, system_id)
    if system is None or system.organization_id != ctx.organization_id:
        raise not_found("AI_SYSTEM_NOT_FOUND", "AI System")
    return system


def _source_out(row: models.SourceAsset, reasons: list[Ineligibility]) -> schemas.EvaluationSource:
    return schemas.EvaluationSource(
        sourceAssetId=row.id,
        kind="SOURCE_REPOSITORY",
        repo=row.repo,
        repoKind="git" if row.repo_kind == "git" else "local",
        branch=row.branch,
        status=row.status,
        eligibleForFreshScan=not reasons,
        reasons=[schemas.IneligibilityReason(code=r.code, message=r.message) for r in reasons],
        createdAt=row.created_at,
        updatedAt=row.updated_at,
    )


async def list_evaluation_sources(request: Request, ctx: RequestContext) -> Response:
    system = await load_system(ctx, request.path_params["systemId"])
    result = await ctx.session.exec(
        select(models.SourceAsset)
        .where(models.SourceAsset.organization_id == ctx.organization_id)
        .where(models.SourceAsset.ai_system_id == system.id)
        .order_by(col(models.SourceAsset.created_at), col(models.SourceAsset.id))
    )
    rows = list(result.all())
    # Eligibility reads the filesystem (path exists, git HEAD): keep it off the event loop.
    reasons = await to_thread.run_sync(lambda: [fresh_scan_ineligibility(row) for row in rows])
    body = schemas.EvaluationSourceList(
        aiSystemId=system.id, sources=[_source_out(row, r) for row, r in zip(rows, reasons, strict=True)]
    )
    return json_response(body)


def _binder_out(row: models.EvidenceBinder) -> schemas.EvidenceBinder:
    return schemas.EvidenceBinder(
        binderId=row.id,
        sourceSystem=row.source_system,
        domain=row.domain,
        aiSystemId=row.ai_system_id,
        adapterId=row.adapter_id,
        adapterVersion=row.adapter_version,
        binderVersion=row.binder_version,
        accessMethod=row.access_method,
        active=row.active,
        sourceAuthorityRole=row.source_authority_role,
        supportedEvidenceClasses=list(row.supported_evidence_classes),
        canEstablish=list(row.can_establish),
        cannotEstablish=list(row.cannot_establish),
        coverageSemantics=row.coverage_semantics,
        requireEventId=row.require_event_id,
        maxRecordBytes=row.max_record_bytes,
        limitations=list(row.limitations),
    )


async def list_binders(request: Request, ctx: RequestContext) -> Response:
    result = await ctx.session.exec(
        select(models.EvidenceBinder)
        .where(models.EvidenceBinder.organization_id == ctx.organization_id)
        .order_by(col(models.EvidenceBinder.created_at), col(models.EvidenceBinder.id))
    )
    return json_response(schemas.EvidenceBinderList(binders=[_binder_out(r) for r in result.all()], intake=INTAKE))


ROUTES: list[RouteSpec] = [
    RouteSpec(
        "GET",
        "/api/v1/systems",
        list_systems,
        operation_id="listSystems",
        summary="List the caller's AI Systems",
        scope="system:read",
        tags=("discovery",),
        responses={200: schemas.SystemList},
        errors=(401, 403),
    ),
    RouteSpec(
        "GET",
        "/api/v1/systems/{systemId}/evaluation-sources",
        list_evaluation_sources,
        operation_id="listEvaluationSources",
        summary="Eligibility preflight of an AI System's source repositories",
        description=(
            "Each source repository bound to the AI System, its status, and whether a fresh scan may use it "
            "now; when not, the reasons (unverified, conflicted, unavailable, retired, branch_missing)."
        ),
        scope="source:read",
        tags=("discovery",),
        parameters=(Parameter("systemId", "path", "AI System identifier"),),
        responses={200: schemas.EvaluationSourceList},
        errors=(401, 403, 404),
    ),
    RouteSpec(
        "GET",
        "/api/v1/evidence/binders",
        list_binders,
        operation_id="listEvidenceBinders",
        summary="List evidence binders and how to reach the intake routes",
        scope="source:read",
        tags=("discovery",),
        responses={200: schemas.EvidenceBinderList},
        errors=(401, 403),
    ),
]

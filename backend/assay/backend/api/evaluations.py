"""Evaluation artifacts (contract 4.2): every read is a projection of exactly one persisted Evaluation.

No route resolves a "latest" Evaluation, recomputes anything or substitutes current state. Parsing the
stored payload, building the projection and encoding it are CPU work proportional to the payload: they
run in a worker thread, so a large Evaluation never stalls the event loop (and ``/healthz`` with it).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Literal

from anyio import to_thread
from sqlmodel import select
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from assay.backend.canonical import canonical_bytes
from assay.backend.errors import ApiError, not_found
from assay.backend.evaluation.agent_audit import build_agent_audit
from assay.backend.evaluation.membership import EvidenceMembership
from assay.backend.evaluation.methodology import EvaluationPayload
from assay.backend.evaluation.summary import build_summary
from assay.backend.passport.dsse import sign_envelope
from assay.backend.passport.keys import KeyStore, KeyStoreError
from assay.backend.passport.statement import build_statement
from assay.backend.reports.html import render_html
from assay.backend.reports.identity import build_identity, evaluation_time, sources_of
from assay.backend.reports.jurisdiction_document import ll144_document, ll144_summary
from assay.backend.reports.legacy import PROFILES, build_evidence_report
from assay.backend.reports.legacy_document import evidence_document
from assay.backend.reports.master import build_master_report
from assay.backend.reports.master_document import master_document
from assay.backend.reports.oscal import assessment_results
from assay.backend.reports.pdf import RendererUnavailableError, render_pdf
from assay.backend.reports.schemas import (
    AgentAuditResponse,
    EvidenceReportResponse,
    Jwks,
    MasterReportResponse,
    PassportEnvelope,
    SummaryResponse,
)
from assay.backend.runs import links
from assay.backend.runs.persist import load_evaluation, load_membership
from assay.backend.storage import models
from assay.backend.web.http_io import JSON_MEDIA_TYPE, int_query, invalid
from assay.backend.web.routing import Parameter, RequestContext, RouteSpec

BASE = "/api/v1/assurance/evaluations/{evaluationId}"
EVALUATION_PARAM = Parameter("evaluationId", "path", "The exact persisted Evaluation.")


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _json(value: Any) -> Response:
    return Response(_dumps(value), media_type=JSON_MEDIA_TYPE)


async def _json_off_loop(build: Callable[[], Any]) -> Response:
    """The JSON response of ``build()``, built and encoded in a worker thread."""
    return Response(await to_thread.run_sync(lambda: _dumps(build())), media_type=JSON_MEDIA_TYPE)


async def _evaluation(request: Request, ctx: RequestContext) -> tuple[models.Evaluation, EvaluationPayload]:
    row = await load_evaluation(ctx.session, ctx.organization_id, request.path_params["evaluationId"])
    if row is None:
        raise not_found(what="evaluation")
    text = row.payload_json
    return row, EvaluationPayload(await to_thread.run_sync(json.loads, text))


async def _membership(ctx: RequestContext, evaluation_id: str) -> EvidenceMembership:
    return await load_membership(ctx.session, evaluation_id)


async def _identity(
    ctx: RequestContext, row: models.Evaluation, membership: EvidenceMembership | None = None
) -> dict[str, Any]:
    """What was assessed and when (reports/identity.py), from the persisted rows only."""
    system = await ctx.session.get(models.AiSystem, row.ai_system_id)
    membership = membership if membership is not None else await _membership(ctx, row.id)
    return build_identity(
        evaluation_id=row.id,
        ai_system_id=row.ai_system_id,
        system_name=system.name if system is not None else None,
        evaluated_at=evaluation_time(row.created_at),
        methodology_version=row.methodology_version,
        sources=sources_of(membership),
        signing_key_id=await _signing_kid(ctx),
        links=links.master_report_links(row.id, row.ai_system_id),
    )


async def _signing_kid(ctx: RequestContext) -> str | None:
    """The key that signs this deployment's passports; None when there is no key directory or it is unusable
    (the passport route then answers 503 and says why)."""
    if ctx.settings.key_directory() is None and ctx.settings.signing_key_file is None:
        return None
    try:
        return await to_thread.run_sync(_key_store(ctx).active_kid)
    except (KeyStoreError, OSError):
        return None


def _run_links(row: models.Evaluation) -> dict[str, str | None]:
    return dict(links.evaluation_links(row.id, row.ai_system_id))


async def summary(request: Request, ctx: RequestContext) -> Response:
    row, payload = await _evaluation(request, ctx)
    identity = await _identity(ctx, row)
    return await _json_off_loop(lambda: build_summary(row.id, payload, _run_links(row), identity=identity))


def _page(request: Request) -> int:
    return int_query(request, "page", 1, 1, 100_000)


async def agent_audit(request: Request, ctx: RequestContext) -> Response:
    detail = _detail(request)
    page = _page(request)
    row, payload = await _evaluation(request, ctx)
    identity = await _identity(ctx, row)

    def build() -> dict[str, Any]:
        try:
            return build_agent_audit(row.id, payload, detail=detail, page=page, identity=identity)
        except ValueError as exc:
            raise invalid(f"{exc}.") from exc

    return await _json_off_loop(build)


def _detail(request: Request) -> Literal["bounded", "full"]:
    detail = request.query_params.get("detail", "bounded")
    if detail == "bounded":
        return "bounded"
    if detail == "full":
        return "full"
    raise invalid("detail must be bounded or full.")


async def _current_context(ctx: RequestContext, row: models.Evaluation) -> list[dict[str, Any]]:
    """Current state beside the frozen report: newer Evaluations of the same system (never part of its truth)."""
    # Only the columns shown: each newer Evaluation's payload stays in the database.
    newer = (
        await ctx.session.exec(
            select(models.Evaluation.id, models.Evaluation.disposition, models.Evaluation.created_at).where(
                models.Evaluation.organization_id == ctx.organization_id,
                models.Evaluation.ai_system_id == row.ai_system_id,
                models.Evaluation.created_at > row.created_at,
            )
        )
    ).all()
    return [
        {
            "kind": "NEWER_EVALUATION",
            "evaluationId": evaluation_id,
            "disposition": disposition,
            "createdAt": created_at.isoformat(),
        }
        for evaluation_id, disposition, created_at in sorted(newer, key=lambda e: (e[2], e[0]))
    ]


async def master_report(request: Request, ctx: RequestContext) -> Response:
    detail = _detail(request)
    row, payload = await _evaluation(request, ctx)
    context = await _current_context(ctx, row) if detail == "full" else None
    identity = await _identity(ctx, row)
    return await _json_off_loop(
        lambda: build_master_report(
            row.id,
            payload,
            links=links.master_report_links(row.id, row.ai_system_id),
            detail=detail,
            current_context=context,
            identity=identity,
        )
    )


def _full_master(row: models.Evaluation, payload: EvaluationPayload, identity: dict[str, Any]) -> dict[str, Any]:
    report: dict[str, Any] = build_master_report(
        row.id, payload, links=links.master_report_links(row.id, row.ai_system_id), detail="full", identity=identity
    )
    return dict(report["masterReport"])


async def master_report_page(
    ctx: RequestContext,
    row: models.Evaluation,
    payload: EvaluationPayload,
    link: Callable[[str], str | None] | None = None,
) -> str:
    """The Master Report of ``row`` as one HTML page; ``link`` maps artifact routes to URLs where it is served
    (the dashboard's document page), else they are listed as routes."""
    identity = await _identity(ctx, row)
    return await to_thread.run_sync(
        lambda: render_html(master_document(_full_master(row, payload, identity)), link=link)
    )


async def master_report_html(request: Request, ctx: RequestContext) -> Response:
    row, payload = await _evaluation(request, ctx)
    return HTMLResponse(await master_report_page(ctx, row, payload))


async def _pdf(render: Any, filename: str) -> Response:
    try:
        pdf = await to_thread.run_sync(render)
    except RendererUnavailableError as exc:
        raise ApiError("INTERNAL_ERROR", f"The PDF renderer is unavailable: {exc}", status=503, retryable=True) from exc
    return Response(
        pdf, media_type="application/pdf", headers={"Content-Disposition": f'inline; filename="{filename}"'}
    )


async def master_report_pdf(request: Request, ctx: RequestContext) -> Response:
    row, payload = await _evaluation(request, ctx)
    identity = await _identity(ctx, row)
    return await _pdf(
        lambda: render_pdf(master_document(_full_master(row, payload, identity))), f"master-report-{row.id}.pdf"
    )


async def _ll144(request: Request, ctx: RequestContext) -> dict[str, Any]:
    row, payload = await _evaluation(request, ctx)
    system = await ctx.session.get(models.AiSystem, row.ai_system_id)
    summary = ll144_summary(row.id, payload.data, system.name if system is not None else None)
    if summary is None:
        raise ApiError(
            "RESOURCE_NOT_FOUND",
            "This Evaluation holds no NYC LL144 figures: run with engines.wizard and an nyc_ll144 assessment that has "
            "its candidate outcomes attached.",
        )
    return summary


async def ll144_summary_json(request: Request, ctx: RequestContext) -> Response:
    return _json(await _ll144(request, ctx))


async def ll144_summary_html(request: Request, ctx: RequestContext) -> Response:
    summary = await _ll144(request, ctx)
    return HTMLResponse(await to_thread.run_sync(lambda: render_html(ll144_document(summary))))


async def ll144_summary_pdf(request: Request, ctx: RequestContext) -> Response:
    summary = await _ll144(request, ctx)
    return await _pdf(lambda: render_pdf(ll144_document(summary)), f"ll144-summary-{summary['evaluationId']}.pdf")


async def oscal_results(request: Request, ctx: RequestContext) -> Response:
    row, payload = await _evaluation(request, ctx)
    document = assessment_results(row.id, payload.data, evaluation_time(row.created_at))
    if document is None:
        raise ApiError(
            "RESOURCE_NOT_FOUND",
            "This Evaluation has no assessed jurisdiction: run with engines.wizard and an assessment to export its "
            "controls as OSCAL.",
        )
    return _json(document)


async def evidence_report(request: Request, ctx: RequestContext) -> Response:
    row, payload = await _evaluation(request, ctx)
    membership = await _membership(ctx, row.id)
    return await _json_off_loop(lambda: build_evidence_report(row.id, payload, membership))


async def evidence_report_pdf(request: Request, ctx: RequestContext) -> Response:
    profile = request.query_params.get("profile", "executive")
    page_size = request.query_params.get("pageSize", "A4")
    if profile not in PROFILES:
        raise invalid("profile must be executive, technical or auditor.")
    if page_size not in ("A4", "LETTER"):
        raise invalid("pageSize must be A4 or LETTER.")
    row, payload = await _evaluation(request, ctx)
    membership = await _membership(ctx, row.id)
    identity = await _identity(ctx, row, membership)

    def render() -> bytes:
        document = evidence_document(build_evidence_report(row.id, payload, membership), profile, identity)
        return render_pdf(document, page_size=page_size)  # type: ignore[arg-type]

    return await _pdf(render, f"evidence-report-{row.id}-{profile}.pdf")


def _key_store(ctx: RequestContext) -> KeyStore:
    directory, key_file = ctx.settings.key_directory(), ctx.settings.signing_key_file
    if directory is None and key_file is None:
        raise ApiError(
            "INTERNAL_ERROR", "Passports cannot be signed: the service has no data directory for keys.", status=503
        )
    return KeyStore(directory, key_file)


async def passport(request: Request, ctx: RequestContext) -> Response:
    row, payload = await _evaluation(request, ctx)
    membership = await _membership(ctx, row.id)
    system = await ctx.session.get(models.AiSystem, row.ai_system_id)
    name = system.name if system is not None else None
    store = _key_store(ctx)

    def signed() -> dict[str, Any]:
        statement = build_statement(
            row.id,
            row.ai_system_id,
            payload,
            membership,
            evaluated_at=evaluation_time(row.created_at),
            system_name=name,
        )
        return sign_envelope(canonical_bytes(statement), store.active())

    return await _json_off_loop(signed)


async def jwks(request: Request, ctx: RequestContext) -> Response:
    store = _key_store(ctx)
    return _json(await to_thread.run_sync(store.jwks))


def _route(path: str, handler: Any, operation_id: str, summary_text: str, **extra: Any) -> RouteSpec:
    return RouteSpec(
        "GET",
        BASE + path,
        handler,
        operation_id=operation_id,
        summary=summary_text,
        scope="report:read",
        tags=("evaluations",),
        errors=extra.pop("errors", (400, 401, 403, 404)),
        parameters=(EVALUATION_PARAM, *extra.pop("parameters", ())),
        **extra,
    )


def _enum(name: str, description: str, values: tuple[str, ...]) -> Parameter:
    return Parameter(
        name,
        "query",
        description,
        required=False,
        schema={"type": "string", "enum": list(values), "default": values[0]},
    )


DETAIL = _enum("detail", "bounded (default) or full.", ("bounded", "full"))
PAGE = Parameter(
    "page",
    "query",
    "Page of verification items (20 a page). With detail=full every item is on the one page answered, "
    "and page is not read.",
    required=False,
    schema={"type": "integer", "minimum": 1, "default": 1},
)

ROUTES: list[RouteSpec] = [
    _route(
        "/summary",
        summary,
        "getEvaluationSummary",
        "Compact summary of the exact persisted evaluation",
        responses={200: SummaryResponse},
    ),
    _route(
        "/agent-audit",
        agent_audit,
        "getAgentAudit",
        "Agent audit: sections, narrative, authority summary, verification items (paged)",
        parameters=(DETAIL, PAGE),
        responses={200: AgentAuditResponse},
    ),
    _route(
        "/master-report",
        master_report,
        "getMasterReport",
        "Master Assurance Report (bounded by default, full on request)",
        parameters=(DETAIL,),
        responses={200: MasterReportResponse},
    ),
    _route(
        "/master-report/html",
        master_report_html,
        "getMasterReportHtml",
        "Master Assurance Report as one HTML page",
        content_type="text/html",
    ),
    _route(
        "/ll144-summary",
        ll144_summary_json,
        "getLl144Summary",
        "NYC LL144 bias audit summary (extension, docs/wizard.md): dates, data, rates and impact ratios",
    ),
    _route(
        "/ll144-summary/html",
        ll144_summary_html,
        "getLl144SummaryHtml",
        "NYC LL144 summary as HTML",
        content_type="text/html",
    ),
    _route(
        "/ll144-summary/pdf",
        ll144_summary_pdf,
        "getLl144SummaryPdf",
        "NYC LL144 summary as PDF",
        content_type="application/pdf",
        errors=(401, 403, 404, 503),
    ),
    _route(
        "/oscal-assessment-results",
        oscal_results,
        "getOscalAssessmentResults",
        "The jurisdiction's controls as an OSCAL 1.1.2 assessment-results document (extension, docs/wizard.md)",
    ),
    _route(
        "/master-report/pdf",
        master_report_pdf,
        "getMasterReportPdf",
        "Master Assurance Report as PDF",
        content_type="application/pdf",
        errors=(401, 403, 404, 503),
    ),
    _route(
        "/report",
        evidence_report,
        "getEvidenceReport",
        "Assurance Evidence Report (legacy, secondary to the Master Report)",
        responses={200: EvidenceReportResponse},
    ),
    _route(
        "/report/pdf",
        evidence_report_pdf,
        "getEvidenceReportPdf",
        "Assurance Evidence Report PDF by profile",
        parameters=(
            _enum("profile", "executive (default), technical or auditor.", ("executive", "technical", "auditor")),
            _enum("pageSize", "A4 (default) or LETTER.", ("A4", "LETTER")),
        ),
        content_type="application/pdf",
        errors=(400, 401, 403, 404, 503),
    ),
    _route(
        "/passport",
        passport,
        "getPassport",
        "Signed passport: an in-toto Statement in a DSSE envelope (Ed25519)",
        responses={200: PassportEnvelope},
        errors=(401, 403, 404, 503),
    ),
    RouteSpec(
        "GET",
        "/.well-known/jwks.json",
        jwks,
        operation_id="getJwks",
        summary="Public keys that verify passports (JWKS)",
        public=True,
        tags=("evaluations",),
        errors=(503,),
        responses={200: Jwks},
    ),
]

"""Evaluation artifacts (contract 4.2): every read is a projection of exactly one persisted Evaluation.

No route resolves a "latest" Evaluation, recomputes anything or substitutes current state. Parsing the
stored payload, building the projection and encoding it are CPU work proportional to the payload: they
run in a worker thread, so a large Evaluation never stalls the event loop (and ``/healthz`` with it).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

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
from assay.backend.passport.keys import KeyStore
from assay.backend.passport.statement import build_statement
from assay.backend.reports.html import render_html
from assay.backend.reports.legacy import PROFILES, build_evidence_report
from assay.backend.reports.legacy_document import evidence_document
from assay.backend.reports.master import build_master_report
from assay.backend.reports.master_document import master_document
from assay.backend.reports.pdf import RendererUnavailableError, render_pdf
from assay.backend.runs import links
from assay.backend.runs.persist import load_evaluation, load_membership
from assay.backend.storage import models
from assay.backend.web.http_io import JSON_MEDIA_TYPE, invalid
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


def _run_links(evaluation_id: str) -> dict[str, str | None]:
    return dict(links.evaluation_links(evaluation_id))


async def summary(request: Request, ctx: RequestContext) -> Response:
    row, payload = await _evaluation(request, ctx)
    return await _json_off_loop(lambda: build_summary(row.id, payload, _run_links(row.id)))


async def agent_audit(request: Request, ctx: RequestContext) -> Response:
    row, payload = await _evaluation(request, ctx)
    return await _json_off_loop(lambda: build_agent_audit(row.id, payload))


def _detail(request: Request) -> str:
    detail = request.query_params.get("detail", "bounded")
    if detail not in ("bounded", "full"):
        raise invalid("detail must be bounded or full.")
    return detail


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
    row, payload = await _evaluation(request, ctx)
    full = _detail(request) == "full"
    context = await _current_context(ctx, row) if full else None
    return await _json_off_loop(
        lambda: build_master_report(
            row.id,
            payload,
            links=links.master_report_links(row.id),
            detail="full" if full else "bounded",
            current_context=context,
        )
    )


def _full_master(row: models.Evaluation, payload: EvaluationPayload) -> dict[str, Any]:
    report: dict[str, Any] = build_master_report(
        row.id, payload, links=links.master_report_links(row.id), detail="full"
    )
    return dict(report["masterReport"])


async def master_report_html(request: Request, ctx: RequestContext) -> Response:
    row, payload = await _evaluation(request, ctx)
    return HTMLResponse(await to_thread.run_sync(lambda: render_html(master_document(_full_master(row, payload)))))


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
    return await _pdf(lambda: render_pdf(master_document(_full_master(row, payload))), f"master-report-{row.id}.pdf")


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

    def render() -> bytes:
        document = evidence_document(build_evidence_report(row.id, payload, membership), profile)
        return render_pdf(document, page_size=page_size)  # type: ignore[arg-type]

    return await _pdf(render, f"evidence-report-{row.id}-{profile}.pdf")


def _key_store(ctx: RequestContext) -> KeyStore:
    directory = ctx.settings.key_directory()
    if directory is None:
        raise ApiError(
            "INTERNAL_ERROR", "Passports cannot be signed: the service has no data directory for keys.", status=503
        )
    return KeyStore(directory)


async def passport(request: Request, ctx: RequestContext) -> Response:
    row, payload = await _evaluation(request, ctx)
    membership = await _membership(ctx, row.id)
    store = _key_store(ctx)
    return await _json_off_loop(
        lambda: sign_envelope(
            canonical_bytes(build_statement(row.id, row.ai_system_id, payload, membership)), store.active()
        )
    )


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
        errors=(400, 401, 403, 404),
        parameters=(EVALUATION_PARAM, *extra.pop("parameters", ())),
        **extra,
    )


ROUTES: list[RouteSpec] = [
    _route("/summary", summary, "getEvaluationSummary", "Compact summary of the exact persisted evaluation"),
    _route(
        "/agent-audit",
        agent_audit,
        "getAgentAudit",
        "Agent audit: sections, narrative, authority summary, verification items",
    ),
    _route(
        "/master-report",
        master_report,
        "getMasterReport",
        "Master Assurance Report (bounded by default, full on request)",
        parameters=(Parameter("detail", "query", "bounded (default) or full.", required=False),),
    ),
    _route(
        "/master-report/html",
        master_report_html,
        "getMasterReportHtml",
        "Master Assurance Report as one HTML page",
        content_type="text/html",
    ),
    _route(
        "/master-report/pdf",
        master_report_pdf,
        "getMasterReportPdf",
        "Master Assurance Report as PDF",
        content_type="application/pdf",
    ),
    _route(
        "/report",
        evidence_report,
        "getEvidenceReport",
        "Assurance Evidence Report (legacy, secondary to the Master Report)",
    ),
    _route(
        "/report/pdf",
        evidence_report_pdf,
        "getEvidenceReportPdf",
        "Assurance Evidence Report PDF by profile",
        content_type="application/pdf",
        parameters=(
            Parameter("profile", "query", "executive (default), technical or auditor.", required=False),
            Parameter("pageSize", "query", "A4 (default) or LETTER.", required=False),
        ),
    ),
    _route("/passport", passport, "getPassport", "Signed passport: an in-toto Statement in a DSSE envelope (Ed25519)"),
    RouteSpec(
        "GET",
        "/.well-known/jwks.json",
        jwks,
        operation_id="getJwks",
        summary="Public keys that verify passports (JWKS)",
        public=True,
        tags=("evaluations",),
        errors=(503,),
    ),
]

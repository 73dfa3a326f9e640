"""Runs (contract 4.1): create, list and read assurance runs."""

from __future__ import annotations

import json
import re
from typing import Any

import anyio
from sqlalchemy import bindparam, func
from sqlalchemy import select as core_select
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from starlette.requests import Request
from starlette.responses import Response

from assay.backend.canonical import canonical_bytes, digest_json
from assay.backend.errors import ApiError, not_found
from assay.backend.runs import links
from assay.backend.runs.changes import RECHECK_SECONDS
from assay.backend.runs.plan import RunPlan, plan_run
from assay.backend.runs.schemas import (
    CreateRunRequest,
    EvaluationRef,
    Failure,
    RunEnvelope,
    RunLinks,
    RunList,
    RunListItem,
    SelfLink,
)
from assay.backend.storage import models
from assay.backend.storage.loop_reads import PreparedRead, Row
from assay.backend.web import idempotency
from assay.backend.web.http_io import (
    check_json_content_type,
    int_query,
    invalid,
    json_response,
    read_json_object,
    validate_model,
)
from assay.backend.web.routing import Parameter, RequestContext, RouteSpec

ROUTE_KEY = "POST /api/v1/assurance/runs"
MAX_LIMIT = 50
# The highest page: (page - 1) * limit must stay a 64-bit offset for the database, and no one pages this far.
MAX_PAGE = 1_000_000_000
# ASCII digits only: str.isdigit() and int() also take fullwidth and other Unicode digits.
_ASCII_DIGITS = re.compile(r"[0-9]+")
# The longest wait a GET of a run may ask for with Prefer: wait=N.
MAX_WAIT_SECONDS = 20
TERMINAL_STATUSES = frozenset({"COMPLETED", "FAILED"})


# Agents poll a run until its Evaluation appears: one Core select declared once and run through
# ctx.fetch_all (on the event loop for SQLite files), the run with only the identity columns of its
# Evaluation, never the (megabytes of) payload. The organization is part of the key: another
# organization's run is not found, exactly like a missing one.
RUN_WITH_EVALUATION = PreparedRead(
    core_select(
        col(models.Run.id),
        col(models.Run.status),
        col(models.Run.stage),
        col(models.Run.created_at),
        col(models.Run.started_at),
        col(models.Run.completed_at),
        col(models.Run.ai_system_id),
        col(models.Run.failure),
        col(models.Evaluation.id),
        col(models.Evaluation.status),
        col(models.Evaluation.disposition),
        col(models.Evaluation.methodology_version),
        col(models.Evaluation.created_at),
    )
    .select_from(models.Run)
    .outerjoin(models.Evaluation, col(models.Evaluation.id) == col(models.Run.evaluation_id))
    .where(
        col(models.Run.id) == bindparam("run_id"),
        col(models.Run.organization_id) == bindparam("organization_id"),
    )
)


def _envelope(row: Row) -> RunEnvelope:
    run_id, status, stage, created, started, completed, system_id, failure = row[:8]
    evaluation_id, evaluation_status, disposition, methodology, evaluated = row[8:]
    evaluation = None
    run_links = RunLinks(self=links.run_self(run_id))
    if evaluation_id is not None:
        evaluation = EvaluationRef(
            evaluationId=evaluation_id,
            status=evaluation_status,
            disposition=disposition,
            methodologyVersion=methodology,
            createdAt=evaluated,
        )
        all_links = links.evaluation_links(evaluation_id, system_id)
        all_links.pop("masterReportHtml")
        run_links = RunLinks(self=links.run_self(run_id), **all_links)
    return RunEnvelope(
        runId=run_id,
        status=status,
        stage=stage,
        createdAt=created,
        startedAt=started,
        completedAt=completed,
        aiSystemId=system_id,
        failure=Failure.model_validate(failure) if failure else None,
        evaluation=evaluation,
        links=run_links,
    )


async def read_envelope(ctx: RequestContext, run_id: str) -> RunEnvelope:
    """The organization's run as the contract shows it; RUN_NOT_FOUND when missing or another's."""
    rows = await ctx.fetch_all(RUN_WITH_EVALUATION, {"run_id": run_id, "organization_id": ctx.organization_id})
    if not rows:
        raise not_found("RUN_NOT_FOUND", "run")
    return _envelope(rows[0])


async def _replay(ctx: RequestContext, answer: idempotency.StoredAnswer) -> Response:
    # A replay answers 200 with the original run's current state (contract part 3).
    return json_response(await read_envelope(ctx, answer.resource_id), status_code=200)


async def create_run(request: Request, ctx: RequestContext) -> Response:
    check_json_content_type(request)
    key = idempotency.idempotency_key(request)
    body = await read_json_object(request, ctx.settings.max_json_body_bytes)
    run_request = validate_model(CreateRunRequest, body)
    request_digest = digest_json(body)
    if key is not None:
        answer = await idempotency.lookup(
            ctx.session,
            ctx.caller,
            ROUTE_KEY,
            key,
            request_digest,
            now=ctx.now,
            ttl_seconds=ctx.settings.idempotency_ttl_seconds,
        )
        if answer is not None:
            return await _replay(ctx, answer)
    run = new_run(ctx, await plan_run(ctx, run_request), body)
    ctx.session.add(run)
    if key is not None:
        stored = idempotency.StoredAnswer(status=202, body="", resource_id=run.id)
        idempotency.remember(ctx.session, ctx.caller, ROUTE_KEY, key, request_digest, stored, now=ctx.now)
    try:
        await ctx.session.commit()
    except IntegrityError as exc:
        await ctx.session.rollback()
        if key is None:
            raise
        winner = await idempotency.lookup_after_race(ctx.session, ctx.caller, ROUTE_KEY, key, request_digest)
        if winner is None:
            raise ApiError("INTERNAL_ERROR", "The run could not be stored. Try again.") from exc
        return await _replay(ctx, winner)
    wake_workers(request)
    return json_response(await read_envelope(ctx, run.id), status_code=202)


def new_run(ctx: RequestContext, plan: RunPlan, body: dict[str, Any]) -> models.Run:
    """The QUEUED run of a checked plan, in the caller's organization, not yet added to the session. The
    API's POST and the dashboard's Start a run form both make their run here; ``body`` is the request as
    asked (stored as RFC 8785 JSON)."""
    return models.Run(
        id=models.new_id("run"),
        organization_id=ctx.organization_id,
        ai_system_id=plan.ai_system_id,
        api_key_id=ctx.caller.key_id,
        status="QUEUED",
        request_json=canonical_bytes(body).decode("utf-8"),
        plan_json=json.dumps(plan.to_json(), sort_keys=True),
        static_execution_mode=plan.static_mode,
        jurisdiction=plan.jurisdiction,
        created_at=ctx.now,
    )


def wake_workers(request: Request) -> None:
    """After a run is committed: every idle worker of this process (``assay serve`` runs them in-process)
    looks at once; one claims the run, the others find nothing. Other processes' workers poll."""
    for worker in getattr(request.app.state, "run_workers", ()):
        worker.wake()


async def list_runs(request: Request, ctx: RequestContext) -> Response:
    page = int_query(request, "page", 1, 1, MAX_PAGE)
    limit = int_query(request, "limit", 20, 1, MAX_LIMIT)
    status = request.query_params.get("status")
    conditions = [models.Run.organization_id == ctx.organization_id]
    if status is not None:
        if status.upper() not in models.RUN_STATUSES:
            raise invalid(f"status must be one of {', '.join(models.RUN_STATUSES)}.")
        conditions.append(models.Run.status == status.upper())
    total = (await ctx.session.exec(select(func.count()).select_from(models.Run).where(*conditions))).one()
    rows = (
        await ctx.session.exec(
            select(models.Run)
            .where(*conditions)
            .order_by(col(models.Run.created_at).desc(), col(models.Run.id))
            .offset((page - 1) * limit)
            .limit(limit)
        )
    ).all()
    items = [
        RunListItem(
            runId=r.id,
            aiSystemId=r.ai_system_id,
            status=r.status,
            stage=r.stage,
            staticExecutionMode=r.static_execution_mode,
            jurisdiction=r.jurisdiction,
            createdAt=r.created_at,
            startedAt=r.started_at,
            completedAt=r.completed_at,
            links=SelfLink(self=links.run_self(r.id)),
        )
        for r in rows
    ]
    return json_response(RunList(runs=items, page=page, limit=limit, total=int(total)))


async def get_run(request: Request, ctx: RequestContext) -> Response:
    run_id = request.path_params["runId"]
    envelope = await read_envelope(ctx, run_id)
    wait = preferred_wait(request.headers.get("prefer"))
    if wait is None:
        return json_response(envelope)
    if envelope.status not in TERMINAL_STATUSES:
        envelope = await _next_state(ctx, envelope, wait)
    response = json_response(envelope)
    response.headers["Preference-Applied"] = f"wait={wait}"
    return response


def preferred_wait(prefer: str | None) -> int | None:
    """The seconds of a ``Prefer: wait=N`` header (RFC 7240), at most ``MAX_WAIT_SECONDS``; None when the
    header asks for no wait or does not parse (a preference not understood is ignored, as the RFC says)."""
    if prefer is None:
        return None
    for preference in prefer.split(","):
        name, _, value = preference.split(";")[0].partition("=")
        if name.strip().lower() == "wait":
            value = value.strip().strip('"')
            if _ASCII_DIGITS.fullmatch(value) is None:
                return None
            return MAX_WAIT_SECONDS if len(value) > 6 else min(int(value), MAX_WAIT_SECONDS)
    return None


async def _next_state(ctx: RequestContext, seen: RunEnvelope, seconds: int) -> RunEnvelope:
    """The run once its status or stage differs from ``seen``, or as it is after ``seconds``."""
    deadline = anyio.current_time() + seconds
    current = seen
    # No database connection is held while waiting (it matters on PostgreSQL, whose pool is shared).
    await ctx.close()
    while (remaining := deadline - anyio.current_time()) > 0:
        await ctx.services.run_changes.wait(seen.runId, min(remaining, RECHECK_SECONDS))
        current = await read_envelope(ctx, seen.runId)
        await ctx.close()
        if (current.status, current.stage) != (seen.status, seen.stage):
            break
    return current


ROUTES: list[RouteSpec] = [
    RouteSpec(
        "POST",
        "/api/v1/assurance/runs",
        create_run,
        operation_id="createRun",
        summary="Create an assurance run (202); the same Idempotency-Key and payload replay 200",
        description="Validates the request, resolves the static engine's evidence (a fresh scan of a bound, verified "
        "source, or an attached qualified scan) and queues the run. Poll GET /assurance/runs/{runId}.",
        scope="scan:create",
        rate_limited=True,
        tags=("runs",),
        request_model=CreateRunRequest,
        responses={202: RunEnvelope, 200: RunEnvelope},
        errors=(400, 401, 403, 404, 409, 429),
        parameters=(idempotency.header_parameter("answers 200 with the original run's current RunEnvelope"),),
    ),
    RouteSpec(
        "GET",
        "/api/v1/assurance/runs",
        list_runs,
        operation_id="listRuns",
        summary="List runs, newest first",
        scope="scan:read",
        rate_limited=True,
        tags=("runs",),
        responses={200: RunList},
        errors=(400, 401, 403, 429),
        parameters=(
            Parameter(
                "page",
                "query",
                "Page, from 1.",
                required=False,
                schema={"type": "integer", "minimum": 1, "maximum": MAX_PAGE, "default": 1},
            ),
            Parameter(
                "limit",
                "query",
                "Page size.",
                required=False,
                schema={"type": "integer", "minimum": 1, "maximum": 50, "default": 20},
            ),
            Parameter("status", "query", "QUEUED, RUNNING, COMPLETED or FAILED.", required=False),
        ),
    ),
    RouteSpec(
        "GET",
        "/api/v1/assurance/runs/{runId}",
        get_run,
        operation_id="getRun",
        summary="Read a run (poll until its evaluation appears)",
        scope="scan:read",
        rate_limited=True,
        tags=("runs",),
        responses={200: RunEnvelope},
        errors=(401, 403, 404, 429),
        parameters=(
            Parameter("runId", "path", "The run."),
            Parameter(
                "Prefer",
                "header",
                f"wait=N (RFC 7240, N up to {MAX_WAIT_SECONDS}): a QUEUED or RUNNING run is answered as soon as its "
                "status or stage changes, or after N seconds; the answer carries Preference-Applied.",
                required=False,
            ),
        ),
    ),
]

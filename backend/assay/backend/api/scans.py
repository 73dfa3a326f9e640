"""Qualified scans (contract 4.4): ``POST /api/v1/scans`` and ``GET /api/v1/scans/{scanId}``."""

from __future__ import annotations

from typing import Any

from anyio import to_thread
from sqlalchemy.exc import IntegrityError
from starlette.requests import Request
from starlette.responses import Response

from assay.backend import schemas
from assay.backend.api.discovery import load_system
from assay.backend.canonical import digest_json
from assay.backend.errors import ApiError, not_found
from assay.backend.intake.body import spool_body
from assay.backend.provisioning import SYSTEM_RETIRED
from assay.backend.scans.scan_intake import AcceptedSubmission, check_submission
from assay.backend.scans.scan_store import QUALIFIED_PREFIX, attachment, load_scan, qualified_evidence, scan_record
from assay.backend.settings import MAX_SCAN_BODY_SETTING
from assay.backend.storage import models
from assay.backend.web import idempotency
from assay.backend.web.http_io import (
    JSON_MEDIA_TYPE,
    check_json_content_type,
    content_encoding,
    invalid,
    json_response,
    parse_json,
)
from assay.backend.web.routing import Parameter, RequestContext, RouteSpec

ROUTE_KEY = "POST /api/v1/scans"


def _parse_and_digest(body: bytes) -> tuple[dict[str, Any], str]:
    value = parse_json(body)
    if not isinstance(value, dict):
        raise invalid("The JSON body must be an object.")
    try:
        return value, digest_json(value)
    except ValueError as exc:  # numbers outside the interoperable JSON range
        # The library's message quotes the number; name the rule instead (no submitted value is echoed).
        raise invalid("The body cannot be canonicalised: it holds a number outside the RFC 8785 range.") from exc


def _replay(answer: idempotency.StoredAnswer) -> Response:
    return Response(answer.body, status_code=answer.status, media_type=JSON_MEDIA_TYPE)


def _accepted(row: models.QualifiedScan, accepted: AcceptedSubmission) -> schemas.QualifiedScanAccepted:
    return schemas.QualifiedScanAccepted(
        scanId=row.id,
        status="COMPLETED",
        aiSystemId=row.ai_system_id,
        sourceIdentity=accepted.submission.sourceIdentity,
        qualifiedEvidence=qualified_evidence(row, row.producer_id),
        attach=attachment(row),
    )


async def submit_scan(request: Request, ctx: RequestContext) -> Response:
    check_json_content_type(request)
    content_encoding(request, ("identity", "gzip"))  # 400 for any other encoding
    key = idempotency.idempotency_key(request)
    limit = ctx.settings.max_scan_body_bytes
    # Streamed to a spool file (disk beyond its first MiB), inflated on the way with its size and ratio
    # bounded: neither a body over the limit nor a gzip bomb is ever held in memory before its 413.
    spooled = await spool_body(request, limit, MAX_SCAN_BODY_SETTING)
    try:
        raw = await to_thread.run_sync(spooled.file.read)
    finally:
        spooled.close()
    # Parsing, schema validation and hashing of a bundle of megabytes is CPU work: off the event loop.
    body, request_digest = await to_thread.run_sync(_parse_and_digest, raw)
    del raw  # the parsed body is what is kept; a large bundle is not held twice from here on
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
            return _replay(answer)
    accepted = await to_thread.run_sync(check_submission, body)
    submission = accepted.submission
    system = await load_system(ctx, submission.aiSystemId)
    if system.lifecycle_status == SYSTEM_RETIRED:
        raise ApiError("INVALID_REQUEST", f"AI System {system.id} is retired; it takes no new scans.")
    row = models.QualifiedScan(
        id=models.new_id(QUALIFIED_PREFIX),
        organization_id=ctx.organization_id,
        ai_system_id=system.id,
        api_key_id=ctx.caller.key_id,
        status="COMPLETED",
        producer_id=submission.producerId,
        origin=submission.origin,
        commit_sha=submission.commitSha,
        branch=submission.branch,
        source_identity=submission.sourceIdentity.model_dump(mode="json"),
        schema_version=accepted.bundle.schemaVersion,
        content_hash=accepted.bundle.contentHash,
        bundle_digest=accepted.bundle_digest,
        bundle_json=accepted.bundle_json,
        limitations=list(accepted.bundle.limitations),
        created_at=ctx.now,
    )
    response_body = _accepted(row, accepted).model_dump_json()
    ctx.session.add(row)
    if key is not None:
        answer = idempotency.StoredAnswer(status=201, body=response_body, resource_id=row.id)
        idempotency.remember(ctx.session, ctx.caller, ROUTE_KEY, key, request_digest, answer, now=ctx.now)
    try:
        await ctx.session.commit()
    except IntegrityError as exc:
        # Another request with the same Idempotency-Key committed first: answer as its retry would.
        await ctx.session.rollback()
        if key is None:
            raise
        winner = await idempotency.lookup_after_race(ctx.session, ctx.caller, ROUTE_KEY, key, request_digest)
        if winner is None:
            raise ApiError("INTERNAL_ERROR", "The scan could not be stored. Try again.") from exc
        return _replay(winner)
    ctx.services.metrics.record_ingest("scan", 1)
    return Response(response_body, status_code=201, media_type=JSON_MEDIA_TYPE)


async def get_scan(request: Request, ctx: RequestContext) -> Response:
    row = await load_scan(ctx.session, ctx.organization_id, request.path_params["scanId"])
    if row is None:
        raise not_found(what="scan")
    return json_response(scan_record(row))


ROUTES: list[RouteSpec] = [
    RouteSpec(
        "POST",
        "/api/v1/scans",
        submit_scan,
        operation_id="submitQualifiedScan",
        summary="Submit a qualified scan (an Evidence Bundle made by a local, IDE or CI scanner)",
        description=(
            "Validates the Evidence Bundle against its schema, recomputes its contentHash, checks the producer, "
            "the AI System binding and the local workspace identity, rejects raw source, and stores an "
            "attachable scan. Honours Idempotency-Key. The body may be sent with Content-Encoding: gzip. Bodies "
            "over the size limit (on the wire or decompressed) get 413."
        ),
        scope="scan:submit",
        tags=("scans",),
        request_model=schemas.QualifiedScanSubmission,
        parameters=(
            Parameter(
                "Content-Encoding",
                "header",
                "gzip for a compressed body; identity (or no header) for plain JSON.",
                required=False,
                schema={"type": "string", "enum": ["identity", "gzip"]},
            ),
            idempotency.header_parameter("replays the first 201 answer byte for byte"),
        ),
        responses={201: schemas.QualifiedScanAccepted},
        errors=(400, 401, 403, 404, 409, 413),
    ),
    RouteSpec(
        "GET",
        "/api/v1/scans/{scanId}",
        get_scan,
        operation_id="getScan",
        summary="Provenance and attachment reference of a scan",
        scope="scan:read",
        tags=("scans",),
        parameters=(Parameter("scanId", "path", "Scan identifier"),),
        responses={200: schemas.ScanRecord},
        errors=(401, 403, 404),
    ),
]

"""The intake routes (contract 4.5) and the receipts listing of a binder (docs/intake.md).

Every intake request: scope ``evidence:ingest`` (the route table), a supported Content-Type (else 415),
a binder named by ``binderId`` in the body, the query or the ``X-Binder-Id`` header, which must be the
caller's organization's (else 404), active (else 409) and use an adapter that takes the route (else 400);
then the body, streamed to a spool file (413 beyond the limit; gzip inflated with the same bound), read
by the binder's adapter and persisted as one immutable batch. The answer is an ingestion receipt; the
OTLP routes answer the ``Export*ServiceResponse`` of the OpenTelemetry specification in the request's
encoding and carry the receipt in ``Assay-*`` headers (and an OTLP/JSON answer as members of its body).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator, Mapping
from typing import IO, Any

import anyio
from google.protobuf import json_format
from google.protobuf.message import Message
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceResponse
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceResponse
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse
from sqlalchemy import bindparam
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from starlette.requests import Request
from starlette.responses import Response

from assay.backend.errors import ApiError, not_found
from assay.backend.intake.adapters import adapter, log, otlp_decode, otlp_traces, sarif, structured
from assay.backend.intake.adapters.spec import IntakeRoute
from assay.backend.intake.body import Body, MediaType, media_type, spool_body, unsupported_media_type
from assay.backend.intake.receipts import IngestionReceipt, ReceiptList, receipt_of
from assay.backend.intake.store import (
    BatchContext,
    BatchFacts,
    IntakeBinder,
    Normalized,
    persist_batch,
    persist_content_batch,
)
from assay.backend.storage.loop_reads import PreparedRead
from assay.backend.storage.models import EvidenceBinder, IntakeBatch
from assay.backend.web.http_io import JSON_MEDIA_TYPE, int_query, invalid, json_response, parse_json
from assay.backend.web.routing import Parameter, RequestContext, RouteSpec

logger = logging.getLogger(__name__)

BINDER_HEADER = "x-binder-id"
PROTOBUF = "application/x-protobuf"
_MAX_BINDER_ID = 64
_RECEIPTS_LIMIT = 50
# A batch that lost a race for an event id is read again (its records then count as duplicates).
_ATTEMPTS = 3
_RECEIPTS_MAX = 200
# A body this small is read on the event loop: a worker thread would cost more than the reading.
SMALL_BODY = 16 * 1024

RecordSource = Callable[[Body, IntakeBinder, int], Iterator[Normalized]]


_BINDER_COLUMNS = tuple(IntakeBinder.__slots__)
_BINDER = PreparedRead(
    select(*(EvidenceBinder.__table__.c[name] for name in _BINDER_COLUMNS)).where(  # type: ignore[attr-defined]
        EvidenceBinder.__table__.c.id == bindparam("binder_id")  # type: ignore[attr-defined]
    )
)


def _binder_id_from_request(request: Request) -> str | None:
    """The binderId of the query and the header; 400 when both are given and differ."""
    from_query = request.query_params.get("binderId")
    from_header = request.headers.get(BINDER_HEADER)
    given = {v.strip() for v in (from_query, from_header) if v is not None and v.strip()}
    if len(given) > 1:
        raise invalid("binderId is given twice with different values (query and X-Binder-Id header).")
    return given.pop() if given else None


async def _binder(ctx: RequestContext, binder_id: str | None, route: IntakeRoute) -> IntakeBinder:
    if binder_id is None:
        raise invalid("A binder is required: pass binderId in the body, the query (?binderId=) or X-Binder-Id.")
    if len(binder_id) > _MAX_BINDER_ID:
        raise not_found(what="binder")
    # A point read (on the event loop where the database allows it); the batch is written elsewhere.
    rows = await ctx.fetch_all(_BINDER, {"binder_id": binder_id})
    binder = IntakeBinder(*rows[0]) if rows else None
    if binder is None or binder.organization_id != ctx.organization_id:
        raise not_found(what="binder")
    if not binder.active:
        raise ApiError("INVALID_REQUEST", "The binder is inactive and refuses ingestion.", status=409)
    spec = adapter(binder.adapter_id)
    if spec is None or route not in spec.routes:
        takes = ", ".join(spec.routes) if spec is not None else "none"
        raise invalid(f"The binder's adapter ({binder.adapter_id}) does not take this route; it takes: {takes}.")
    return binder


def _record_limit(ctx: RequestContext, binder: IntakeBinder) -> int:
    return binder.max_record_bytes or ctx.settings.max_intake_record_bytes


def _context(ctx: RequestContext, route: IntakeRoute, binder: IntakeBinder) -> BatchContext:
    spec = adapter(binder.adapter_id)
    assert spec is not None
    return BatchContext(
        organization_id=ctx.organization_id,
        api_key_id=ctx.caller.key_id,
        binder=binder,
        producer_id=spec.producer_id,
        producer_kind=spec.routes[route],
        max_record_bytes=_record_limit(ctx, binder),
        now=ctx.now,
    )


async def _ingest(
    ctx: RequestContext,
    route: IntakeRoute,
    binder: IntakeBinder,
    body: Body,
    source: RecordSource,
) -> BatchFacts:
    context = _context(ctx, route, binder)
    limit = context.max_record_bytes
    # Two batches carrying the same new event id at once: the unique index refuses the later one, which
    # is read again and now sees the first one's records as duplicates.
    for attempt in range(_ATTEMPTS):
        try:
            records = source(body, binder, limit)
            writer = ctx.services.batch_writer()
            row = (await persist_batch(writer, records, context, small=body.size <= SMALL_BODY)).row
        except IntegrityError:
            if attempt == _ATTEMPTS - 1:
                raise
            logger.info("intake batch through binder %s met a concurrent batch's event id; reading it again", binder.id)
            continue
        ctx.services.metrics.record_ingest(row.producer_kind, row.record_count)  # GET /metrics
        return row
    raise AssertionError("unreachable")


def _utf8_text(kind: MediaType, what: str) -> None:
    if kind.charset not in (None, "utf-8", "utf8"):
        raise unsupported_media_type(f"{what} must be UTF-8.")


# ----- structured -----------------------------------------------------------------------------------


def _structured_format(request: Request, kind: MediaType) -> structured.Format:
    declared = request.query_params.get("format")
    if declared is not None:
        if declared not in structured.FORMATS:
            raise invalid(f"format must be one of {', '.join(structured.FORMATS)}.")
        return declared
    chosen = structured.MEDIA_TYPES.get(kind.media_type)
    if chosen is None:
        raise unsupported_media_type(
            "Structured events are sent as application/json, application/x-ndjson (JSON Lines) or text/csv, "
            "or with ?format=json|jsonl|csv."
        )
    return chosen


async def ingest_structured(request: Request, ctx: RequestContext) -> Response:
    kind = media_type(request)
    _utf8_text(kind, "Structured events")
    chosen = _structured_format(request, kind)
    binder_id = _binder_id_from_request(request)
    binder = await _binder(ctx, binder_id, "structured") if binder_id is not None else None
    body = await spool_body(request, ctx.settings.max_intake_body_bytes)
    try:
        if chosen == "json":
            if body.size <= SMALL_BODY:
                members = structured.envelope_members(body.file)
            else:
                members = await anyio.to_thread.run_sync(structured.envelope_members, body.file)
            declared = members.get("format")
            if declared is not None and declared != "json":
                raise invalid("A JSON body carries format 'json'; send JSON Lines or CSV as their own media types.")
            if binder is None:
                binder = await _binder(ctx, members.get("binderId"), "structured")
            elif members.get("binderId") not in (None, binder.id):
                raise invalid("binderId in the body differs from the one in the query or header.")
        if binder is None:
            binder = await _binder(ctx, None, "structured")

        def source(b: Body, _: IntakeBinder, limit: int) -> Iterator[Normalized]:
            if chosen == "json":
                return structured.json_events(b.file)
            if chosen == "jsonl":
                return structured.jsonl_events(b.file, limit)
            return structured.csv_events(b.file)

        row = await _ingest(ctx, "structured", binder, body, _nonempty(source))
    finally:
        body.close()
    return json_response(receipt_of(row), status_code=201)


def _nonempty(source: RecordSource) -> RecordSource:
    def wrapped(body: Body, binder: IntakeBinder, limit: int) -> Iterator[Normalized]:
        empty = True
        for record in source(body, binder, limit):
            empty = False
            yield record
        if empty:
            raise invalid("The body holds no records.")

    return wrapped


# ----- log ------------------------------------------------------------------------------------------


async def ingest_log(request: Request, ctx: RequestContext) -> Response:
    kind = media_type(request)
    if kind.media_type != "text/plain":
        raise unsupported_media_type("Log lines are sent as text/plain (UTF-8).")
    _utf8_text(kind, "Log lines")
    binder = await _binder(ctx, _binder_id_from_request(request), "log")
    body = await spool_body(request, ctx.settings.max_intake_body_bytes)
    pattern = (binder.mapping or {}).get("lineRegex")

    def source(b: Body, _: IntakeBinder, limit: int) -> Iterator[Normalized]:
        return log.log_records(b.file, limit, pattern)

    try:
        row = await _ingest(ctx, "log", binder, body, _nonempty(source))
    finally:
        body.close()
    return json_response(receipt_of(row), status_code=201)


# ----- SARIF ----------------------------------------------------------------------------------------

SARIF_MEDIA_TYPES = ("application/sarif+json", JSON_MEDIA_TYPE)


def _sarif_document(body: Body) -> dict[str, Any]:
    document = parse_json(body.file.read())
    sarif.validate(document)
    assert isinstance(document, dict)
    return document


async def ingest_sarif(request: Request, ctx: RequestContext) -> Response:
    kind = media_type(request)
    if kind.media_type not in SARIF_MEDIA_TYPES:
        raise unsupported_media_type("A SARIF log is sent as application/sarif+json or application/json.")
    _utf8_text(kind, "A SARIF log")
    binder = await _binder(ctx, _binder_id_from_request(request), "sarif")
    body = await spool_body(request, ctx.settings.max_sarif_body_bytes)
    try:
        document = await anyio.to_thread.run_sync(_sarif_document, body)

        def source(b: Body, _: IntakeBinder, limit: int) -> Iterator[Normalized]:
            return sarif.sarif_records(document)

        row = await _ingest(ctx, "sarif", binder, body, source)
    finally:
        body.close()
    return json_response(receipt_of(row), status_code=201)


# ----- OTLP -----------------------------------------------------------------------------------------

_OTLP: dict[IntakeRoute, tuple[str, type[Message], str]] = {
    "otlpTraces": ("otlp-traces", ExportTraceServiceResponse, "rejected_spans"),
    "otlpMetrics": ("otlp-metrics", ExportMetricsServiceResponse, "rejected_data_points"),
    "otlpLogs": ("otlp-logs", ExportLogsServiceResponse, "rejected_log_records"),
}


async def _ingest_traces(ctx: RequestContext, binder: IntakeBinder, body: Body, *, json_encoded: bool) -> BatchFacts:
    """A traces request stored as itself (``otlp_traces``): an OTLP/JSON one converted to protobuf first."""
    context = _context(ctx, "otlpTraces", binder)
    converted: Body | None = None
    try:
        if json_encoded:
            file, size = await anyio.to_thread.run_sync(otlp_traces.from_json, body.file)
            converted = body = Body(file=file, size=size)
        checked = body

        def scan() -> list[bytes]:
            return otlp_traces.scan(checked.file, checked.size, context.max_record_bytes)

        def without(dropped: set[int]) -> tuple[IO[bytes], int]:
            return otlp_traces.without_spans(checked.file, checked.size, dropped)

        writer = ctx.services.batch_writer()
        row = (
            await persist_content_batch(writer, body.file, body.size, scan, otlp_traces.event_id, context, without)
        ).row
    finally:
        if converted is not None:
            converted.close()
    ctx.services.metrics.record_ingest(row.producer_kind, row.record_count)  # GET /metrics
    return row


def _receipt_headers(receipt: IngestionReceipt) -> dict[str, str]:
    return {
        "Assay-Producer-Run-Id": receipt.producerRunId,
        "Assay-Receipt-Status": receipt.status,
        "Assay-Record-Count": str(receipt.recordCount),
        "Assay-Duplicate-Count": str(receipt.duplicateCount),
        "Assay-Content-Digest": receipt.contentDigest,
    }


def _otlp_handler(route: IntakeRoute) -> Callable[[Request, RequestContext], Any]:
    batch_kind, response_class, _ = _OTLP[route]
    signal = otlp_decode.SIGNALS[batch_kind]

    async def handler(request: Request, ctx: RequestContext) -> Response:
        kind = media_type(request)
        if kind.media_type not in (PROTOBUF, JSON_MEDIA_TYPE):
            raise unsupported_media_type("OTLP/HTTP is sent as application/x-protobuf or application/json.")
        binder = await _binder(ctx, _binder_id_from_request(request), route)
        body = await spool_body(request, ctx.settings.max_intake_body_bytes)

        def source(b: Body, _: IntakeBinder, limit: int) -> Iterator[Normalized]:
            if kind.media_type == PROTOBUF:
                return otlp_decode.protobuf_records(b.file, b.size, signal, limit)
            return otlp_decode.json_records(b.file, signal)

        try:
            if route == "otlpTraces":
                row = await _ingest_traces(ctx, binder, body, json_encoded=kind.media_type != PROTOBUF)
            else:
                row = await _ingest(ctx, route, binder, body, source)
        finally:
            body.close()
        receipt = receipt_of(row)
        answer: Any = response_class()
        if row.duplicate_count:
            # Nothing was rejected; the specification lets error_message carry a warning with zero rejected.
            partial = answer.partial_success
            partial.error_message = (
                f"{row.duplicate_count} record(s) were already ingested through this binder (same event id) "
                "and were skipped."
            )
        headers = _receipt_headers(receipt)
        if kind.media_type == PROTOBUF:
            return Response(answer.SerializeToString(), media_type=PROTOBUF, headers=headers)
        # The contract's receipt in the body too: OTLP/JSON clients ignore members they do not know, and the
        # receipt's names never meet the response's own (partialSuccess).
        body_json = {**json_format.MessageToDict(answer), **receipt.model_dump(mode="json")}
        return Response(json.dumps(body_json, separators=(",", ":")), media_type=JSON_MEDIA_TYPE, headers=headers)

    return handler


# ----- receipts -------------------------------------------------------------------------------------


async def list_receipts(request: Request, ctx: RequestContext) -> Response:
    binder = await ctx.session.get(EvidenceBinder, request.path_params["binderId"])
    if binder is None or binder.organization_id != ctx.organization_id:
        raise not_found(what="binder")
    limit = int_query(request, "limit", _RECEIPTS_LIMIT, 1, _RECEIPTS_MAX)
    rows = (
        await ctx.session.exec(
            select(IntakeBatch)
            .where(IntakeBatch.organization_id == ctx.organization_id, IntakeBatch.binder_id == binder.id)
            .order_by(col(IntakeBatch.created_at).desc(), col(IntakeBatch.id))
            .limit(limit)
        )
    ).all()
    return json_response(ReceiptList(binderId=binder.id, receipts=[receipt_of(r) for r in rows]))


_OTLP_PATHS: tuple[tuple[str, IntakeRoute], ...] = (
    ("traces", "otlpTraces"),
    ("metrics", "otlpMetrics"),
    ("logs", "otlpLogs"),
)
_BINDER_PARAMETERS = (
    Parameter("binderId", "query", "The binder (or send it in X-Binder-Id).", required=False),
    Parameter("X-Binder-Id", "header", "The binder (or send it as ?binderId=).", required=False),
)
# 503: a write that waited for SQLite's write lock past the busy timeout (retryable).
_INTAKE_ERRORS = (400, 401, 403, 404, 409, 413, 415, 503)
_CONTENT_ENCODING = Parameter(
    "Content-Encoding",
    "header",
    "gzip for a compressed body (several gzip members are one body); identity or no header for a plain one.",
    required=False,
    schema={"type": "string", "enum": ["identity", "gzip"]},
)
_IDEMPOTENCY = (
    " No Idempotency-Key: a retry is made safe by event ids (a record whose event id the binder already holds "
    "is skipped and counted in duplicateCount)."
)
_EVENT: dict[str, object] = {
    "type": "object",
    "description": "One event as recorded; its eventId member, when present, identifies it.",
}
_TEXT: dict[str, object] = {"type": "string"}
_BINARY: dict[str, object] = {"type": "string", "format": "binary"}
_STRUCTURED_BODIES: dict[str, dict[str, object]] = {
    JSON_MEDIA_TYPE: {
        "oneOf": [
            {"type": "array", "items": _EVENT, "minItems": 1},
            {
                "type": "object",
                "required": ["events"],
                "properties": {
                    "binderId": {"type": "string"},
                    "format": {"const": "json"},
                    "events": {"type": "array", "items": _EVENT, "minItems": 1},
                },
            },
        ]
    },
    **{
        media: {**_TEXT, "description": "JSON Lines: one event object per line"}
        for media, chosen in structured.MEDIA_TYPES.items()
        if chosen == "jsonl"
    },
    "text/csv": {**_TEXT, "description": "A header row, then one event per row"},
}
_SARIF_LOG: dict[str, object] = {
    "type": "object",
    "required": ["version", "runs"],
    "description": "A SARIF 2.1.0 log (validated against the OASIS schema)",
}


def _otlp_json(member: str) -> dict[str, object]:
    return {
        "type": "object",
        "description": f"An OTLP/JSON export request: {member}, an array of objects",
        "properties": {member: {"type": "array", "items": {"type": "object"}}},
    }


_OTLP_MEMBERS = {"traces": "resourceSpans", "metrics": "resourceMetrics", "logs": "resourceLogs"}
_OTLP_REQUESTS = {
    "traces": "ExportTraceServiceRequest",
    "metrics": "ExportMetricsServiceRequest",
    "logs": "ExportLogsServiceRequest",
}


class OtlpJsonAnswer(IngestionReceipt):
    """The OTLP/JSON answer: the ingestion receipt beside the Export*ServiceResponse's partialSuccess.

    partialSuccess is present when records were skipped as duplicates (nothing is ever rejected in part)."""

    partialSuccess: dict[str, Any] | None = None


def _intake_route(
    path: str,
    handler: Any,
    operation_id: str,
    summary: str,
    description: str,
    bodies: Mapping[str, Mapping[str, object]],
) -> RouteSpec:
    otlp = path.startswith("/api/otlp")
    return RouteSpec(
        "POST",
        path,
        handler,
        operation_id=operation_id,
        summary=summary,
        description=description + _IDEMPOTENCY,
        scope="evidence:ingest",
        tags=("intake",),
        parameters=(*_BINDER_PARAMETERS, _CONTENT_ENCODING),
        request_bodies=bodies,
        responses={200: OtlpJsonAnswer} if otlp else {201: IngestionReceipt},
        response_media={PROTOBUF: _BINARY} if otlp else {},
        errors=_INTAKE_ERRORS,
    )


ROUTES: list[RouteSpec] = [
    _intake_route(
        "/api/ingest/structured",
        ingest_structured,
        "ingestStructuredEvents",
        "Ingest structured events (JSON, JSON Lines or CSV)",
        "application/json: an array of event objects, or {binderId?, format?: 'json', events: [...]}; "
        "application/x-ndjson: one event object per line; text/csv: a header row, then one event per row. "
        "?format=json|jsonl|csv overrides the media type. gzip accepted. Answers 201 with an ingestion receipt.",
        _STRUCTURED_BODIES,
    ),
    _intake_route(
        "/api/ingest/log",
        ingest_log,
        "ingestLogLines",
        "Ingest raw log lines (text/plain)",
        "One record per line, read through the binder's line regex when it has one. Answers 201 with a receipt.",
        {"text/plain": {**_TEXT, "description": "UTF-8 log lines"}},
    ),
    _intake_route(
        "/api/ingest/sarif",
        ingest_sarif,
        "ingestSarif",
        "Ingest a SARIF 2.1.0 log",
        "Validated against the SARIF 2.1.0 schema; one record per result. Attach with producerId sarif-import.",
        dict.fromkeys(SARIF_MEDIA_TYPES, _SARIF_LOG),
    ),
    *[
        _intake_route(
            f"/api/otlp/v1/{name}",
            _otlp_handler(route),
            f"exportOtlp{name.capitalize()}",
            f"OTLP/HTTP {name} (protobuf or JSON)",
            f"The OpenTelemetry OTLP/HTTP {name} endpoint: application/x-protobuf or application/json, gzip "
            "accepted. Answers 200 with the Export*ServiceResponse in the request's encoding; the ingestion "
            "receipt is in the Assay-Producer-Run-Id, Assay-Receipt-Status, Assay-Record-Count, "
            "Assay-Duplicate-Count and Assay-Content-Digest headers, and in an OTLP/JSON answer also as members "
            "beside partialSuccess.",
            {PROTOBUF: {**_BINARY, "description": f"An {_OTLP_REQUESTS[name]} (OTLP/HTTP protobuf)"}}
            | {JSON_MEDIA_TYPE: _otlp_json(_OTLP_MEMBERS[name])},
        )
        for name, route in _OTLP_PATHS
    ],
    RouteSpec(
        "GET",
        "/api/v1/evidence/binders/{binderId}/receipts",
        list_receipts,
        operation_id="listIngestionReceipts",
        summary="The ingestion receipts of a binder, newest first",
        description="Finds the producerRunId of batches sent by clients that do not read receipts (OTLP exporters).",
        scope="source:read",
        tags=("discovery",),
        parameters=(
            Parameter("binderId", "path", "Binder identifier"),
            Parameter("limit", "query", f"At most this many (1 to {_RECEIPTS_MAX}, default {_RECEIPTS_LIMIT})", False),
        ),
        responses={200: ReceiptList},
        errors=(400, 401, 403, 404),
    ),
]

"""Every bad intake request gets the contract's envelope with its documented status, and leaves nothing
behind: no batch, no record."""

from __future__ import annotations

import gzip
import json

import httpx
import pytest
from intake_helpers import MAX_BODY, OTLP_TRACES, PROTOBUF, IntakeWorld, ingest_headers, make_spans, trace_request
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from service_helpers import assert_error
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlmodel import func, select

from assay.backend import provisioning
from assay.backend.intake import binders
from assay.backend.storage.models import IntakeBatch, IntakeContent, IntakeEvent, IntakeRecord

STRUCTURED = "/api/ingest/structured"
JSON = {"Content-Type": "application/json"}


async def _stored(iw: IntakeWorld) -> tuple[int, int]:
    """Batches, and the rows stored for them: records, content chunks and claimed event ids."""
    async with iw.world.sessions() as session:
        batches = (await session.exec(select(func.count()).select_from(IntakeBatch))).one()
        rows = 0
        for table in (IntakeRecord, IntakeContent, IntakeEvent):
            rows += (await session.exec(select(func.count()).select_from(table))).one()
    return batches, rows


async def test_scope_and_keys(client: httpx.AsyncClient, iw: IntakeWorld) -> None:
    body = trace_request(make_spans(2))
    # The assurance-agent purpose never carries evidence:ingest.
    wrong = await client.post(
        OTLP_TRACES, content=body, headers=ingest_headers(iw.world.agent_key_a, iw.binders["otlp"], **PROTOBUF)
    )
    assert_error(wrong, 403, "INSUFFICIENT_SCOPE")
    missing = await client.post(OTLP_TRACES, content=body, headers={**PROTOBUF, "X-Binder-Id": iw.binders["otlp"]})
    assert_error(missing, 401, "UNAUTHORIZED")
    async with iw.world.sessions() as session:
        await provisioning.revoke_api_key(session, iw.world.key_ids[iw.ingest_key_a])
        await session.commit()
    revoked = await client.post(
        OTLP_TRACES, content=body, headers=ingest_headers(iw.ingest_key_a, iw.binders["otlp"], **PROTOBUF)
    )
    assert_error(revoked, 401, "UNAUTHORIZED")
    assert await _stored(iw) == (0, 0)


async def test_binder_must_be_given_known_own_active_and_fit_the_route(
    client: httpx.AsyncClient, iw: IntakeWorld
) -> None:
    body = trace_request(make_spans(2))
    no_binder = await client.post(OTLP_TRACES, content=body, headers=ingest_headers(iw.ingest_key_a, **PROTOBUF))
    assert_error(no_binder, 400, "INVALID_REQUEST")
    unknown = await client.post(
        OTLP_TRACES, content=body, headers=ingest_headers(iw.ingest_key_a, "bnd_missing", **PROTOBUF)
    )
    assert_error(unknown, 404, "RESOURCE_NOT_FOUND")
    theirs = (await iw.binder("otlp", org=iw.world.org_b)).id
    foreign = await client.post(OTLP_TRACES, content=body, headers=ingest_headers(iw.ingest_key_a, theirs, **PROTOBUF))
    assert foreign.status_code == 404 and foreign.content == unknown.content
    wrong_adapter = await client.post(
        OTLP_TRACES, content=body, headers=ingest_headers(iw.ingest_key_a, iw.binders["sarif"], **PROTOBUF)
    )
    assert_error(wrong_adapter, 400, "INVALID_REQUEST")
    twice = await client.post(
        f"{OTLP_TRACES}?binderId={iw.binders['structured']}",
        content=body,
        headers=ingest_headers(iw.ingest_key_a, iw.binders["otlp"], **PROTOBUF),
    )
    assert_error(twice, 400, "INVALID_REQUEST")
    async with iw.world.sessions() as session:
        await binders.deactivate_binder(session, iw.binders["otlp"])
        await session.commit()
    inactive = await client.post(
        OTLP_TRACES, content=body, headers=ingest_headers(iw.ingest_key_a, iw.binders["otlp"], **PROTOBUF)
    )
    assert_error(inactive, 409, "INVALID_REQUEST")
    assert await _stored(iw) == (0, 0)


@pytest.mark.parametrize(
    ("path", "content_type"),
    [
        (OTLP_TRACES, None),
        (OTLP_TRACES, "text/plain"),
        ("/api/ingest/log", "application/json"),
        (STRUCTURED, "application/xml"),
        ("/api/ingest/sarif", "text/csv"),
        (STRUCTURED, "text/csv; charset=latin-1"),
    ],
)
async def test_missing_or_wrong_content_type_is_415(
    client: httpx.AsyncClient, iw: IntakeWorld, path: str, content_type: str | None
) -> None:
    headers = ingest_headers(iw.ingest_key_a, iw.binders["otlp"])
    if content_type is not None:
        headers["Content-Type"] = content_type
    assert_error(await client.post(path, content=b"x", headers=headers), 415, "INVALID_REQUEST")


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("application/x-protobuf", b"\x0a\xff\xff\xff\xff\x0f"),  # a length past the end
        ("application/x-protobuf", b"\x0a\x03\x12\x01\xff"),  # a scope list whose span is not a message
        ("application/x-protobuf", b"\x0f"),  # wire type 7
        ("application/json", b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "zz"}]}]}]}'),
        ("application/json", b'{"resourceSpans": ['),
        ("application/json", b"[1, 2]"),
    ],
)
async def test_malformed_otlp_is_400_and_stores_nothing(
    client: httpx.AsyncClient, iw: IntakeWorld, content_type: str, body: bytes
) -> None:
    response = await client.post(
        OTLP_TRACES,
        content=body,
        headers=ingest_headers(iw.ingest_key_a, iw.binders["otlp"], **{"Content-Type": content_type}),
    )
    assert_error(response, 400, "INVALID_REQUEST")
    assert await _stored(iw) == (0, 0)


async def test_malformed_structured_bodies(client: httpx.AsyncClient, iw: IntakeWorld) -> None:
    binder = iw.binders["structured"]
    for content_type, body in (
        ("application/json", b'{"events": [{"a": 1}, '),
        ("application/json", b'{"events": [1]}'),
        ("application/json", b"[]"),
        ("application/x-ndjson", b'{"a": 1}\nnot json\n'),
        ("application/x-ndjson", b'{"eventId": true}\n'),
        ("text/csv", b"a,b\n1,2,3\n"),
        ("text/csv", b"a,b\n\xff,1\n"),
    ):
        response = await client.post(
            STRUCTURED, content=body, headers=ingest_headers(iw.ingest_key_a, binder, **{"Content-Type": content_type})
        )
        assert_error(response, 400, "INVALID_REQUEST")
    assert await _stored(iw) == (0, 0)


async def test_gzip_bombs_and_broken_gzip(client: httpx.AsyncClient, iw: IntakeWorld) -> None:
    bomb = gzip.compress(b"\0" * (MAX_BODY * 4))
    assert len(bomb) < MAX_BODY // 100
    headers = ingest_headers(iw.ingest_key_a, iw.binders["otlp"], **PROTOBUF, **{"Content-Encoding": "gzip"})
    assert_error(await client.post(OTLP_TRACES, content=bomb, headers=headers), 413, "INVALID_REQUEST")
    assert_error(await client.post(OTLP_TRACES, content=b"not gzip at all", headers=headers), 400, "INVALID_REQUEST")
    truncated = gzip.compress(trace_request(make_spans(2)))[:-6]
    assert_error(await client.post(OTLP_TRACES, content=truncated, headers=headers), 400, "INVALID_REQUEST")
    brotli = ingest_headers(iw.ingest_key_a, iw.binders["otlp"], **PROTOBUF, **{"Content-Encoding": "br"})
    assert_error(await client.post(OTLP_TRACES, content=b"x", headers=brotli), 415, "INVALID_REQUEST")
    assert await _stored(iw) == (0, 0)


async def test_oversize_bodies_declared_or_streamed(client: httpx.AsyncClient, iw: IntakeWorld) -> None:
    headers = ingest_headers(iw.ingest_key_a, iw.binders["log"], **{"Content-Type": "text/plain"})
    big = b"line\n" * (MAX_BODY // 5 + 1)
    assert_error(await client.post("/api/ingest/log", content=big, headers=headers), 413, "INVALID_REQUEST")

    async def stream() -> object:
        for _ in range(MAX_BODY // 65536 + 2):
            yield b"x" * 65535 + b"\n"

    streamed = await client.post("/api/ingest/log", content=stream(), headers=headers)  # type: ignore[arg-type]
    assert_error(streamed, 413, "INVALID_REQUEST")
    assert await _stored(iw) == (0, 0)


async def test_oversize_records_and_missing_event_ids(client: httpx.AsyncClient, iw: IntakeWorld) -> None:
    small = (await iw.binder("structured", max_record_bytes=120)).id
    events = {"events": [{"eventId": "1"}, {"eventId": "2", "note": "x" * 200}]}
    response = await client.post(
        STRUCTURED, content=json.dumps(events), headers=ingest_headers(iw.ingest_key_a, small, **JSON)
    )
    assert_error(response, 413, "INVALID_REQUEST")
    strict = (await iw.binder("structured", require_event_id=True)).id
    events = {"events": [{"eventId": "1"}, {"no": "id"}]}
    response = await client.post(
        STRUCTURED, content=json.dumps(events), headers=ingest_headers(iw.ingest_key_a, strict, **JSON)
    )
    assert_error(response, 400, "INVALID_REQUEST")
    assert "no event id" in response.json()["error"]["message"]
    assert await _stored(iw) == (0, 0)


async def test_a_bad_record_after_thousands_written_leaves_nothing(client: httpx.AsyncClient, iw: IntakeWorld) -> None:
    lines = [json.dumps({"eventId": f"e{i}"}) for i in range(5000)] + ["{broken"]
    response = await client.post(
        STRUCTURED,
        content="\n".join(lines).encode(),
        headers=ingest_headers(iw.ingest_key_a, iw.binders["structured"], **{"Content-Type": "application/x-ndjson"}),
    )
    assert_error(response, 400, "INVALID_REQUEST")
    assert "Line 5001" in response.json()["error"]["message"]
    assert await _stored(iw) == (0, 0)


async def test_invalid_sarif_is_refused(client: httpx.AsyncClient, iw: IntakeWorld) -> None:
    headers = ingest_headers(iw.ingest_key_a, iw.binders["sarif"], **{"Content-Type": "application/sarif+json"})
    not_sarif = {"version": "2.1.0", "runs": [{"results": []}]}  # a run without its tool
    response = await client.post("/api/ingest/sarif", content=json.dumps(not_sarif), headers=headers)
    assert_error(response, 400, "INVALID_REQUEST")
    assert "runs/0" in response.json()["error"]["message"]
    old = {"version": "2.0.0", "runs": []}
    assert_error(
        await client.post("/api/ingest/sarif", content=json.dumps(old), headers=headers), 400, "INVALID_REQUEST"
    )
    assert await _stored(iw) == (0, 0)


async def test_batches_and_records_are_immutable(client: httpx.AsyncClient, iw: IntakeWorld) -> None:
    response = await client.post(
        OTLP_TRACES,
        content=trace_request(make_spans(2)),
        headers=ingest_headers(iw.ingest_key_a, iw.binders["otlp"], **PROTOBUF),
    )
    assert response.status_code == 200
    events = await client.post(
        STRUCTURED, json=[{"eventId": "e1"}], headers=ingest_headers(iw.ingest_key_a, iw.binders["structured"])
    )
    assert events.status_code == 201
    # Two batches; rows: one record, one content chunk, three event ids (two spans, one event).
    assert await _stored(iw) == (2, 5)
    for statement in (
        "UPDATE intake_record SET record_json = '{}'",
        "DELETE FROM intake_batch",
        "UPDATE intake_content SET data = X'00'",
        "DELETE FROM intake_content",
        "DELETE FROM intake_event",
        "UPDATE intake_event SET batch_id = 'x'",
    ):
        async with iw.world.sessions() as session:
            with pytest.raises(DBAPIError):
                await (await session.connection()).execute(text(statement))
    assert await _stored(iw) == (2, 5)


async def test_oversize_spans_and_bad_span_ids_store_nothing(client: httpx.AsyncClient, iw: IntakeWorld) -> None:
    request = encode_spans(make_spans(3))
    spans = request.resource_spans[0].scope_spans[0].spans
    small = (await iw.binder("otlp", max_record_bytes=spans[0].ByteSize() - 1)).id
    response = await client.post(
        OTLP_TRACES, content=request.SerializeToString(), headers=ingest_headers(iw.ingest_key_a, small, **PROTOBUF)
    )
    assert_error(response, 413, "INVALID_REQUEST")
    for field, value in (("trace_id", bytes(16)), ("span_id", b"\1" * 7), ("parent_span_id", bytes(8))):
        bad = encode_spans(make_spans(3))
        setattr(bad.resource_spans[0].scope_spans[0].spans[2], field, value)
        response = await client.post(
            OTLP_TRACES,
            content=bad.SerializeToString(),
            headers=ingest_headers(iw.ingest_key_a, iw.binders["otlp"], **PROTOBUF),
        )
        assert_error(response, 400, "INVALID_REQUEST")
        assert "Record 2" in response.json()["error"]["message"]
    assert await _stored(iw) == (0, 0)


async def test_messages_never_quote_submitted_values(client: httpx.AsyncClient, iw: IntakeWorld) -> None:
    marker = "SECRET_VALUE_7713"
    cases = [
        (
            OTLP_TRACES,
            "application/json",
            f'{{"resourceSpans": [{{"scopeSpans": [{{"spans": [{{"traceId": "{marker}"}}]}}]}}]}}',
        ),
        (OTLP_TRACES, "application/json", f'{{"resourceSpans": [{marker}'),
        (STRUCTURED, "application/json", f'{{"events": [{marker}]}}'),
        (STRUCTURED, "application/x-ndjson", f'{{"{marker}": 1,}}'),
        (
            "/api/ingest/sarif",
            "application/json",
            json.dumps({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x", marker: 1}}}]}),
        ),
    ]
    binder_of = {OTLP_TRACES: "otlp", STRUCTURED: "structured", "/api/ingest/sarif": "sarif"}
    for path, content_type, body in cases:
        headers = ingest_headers(iw.ingest_key_a, iw.binders[binder_of[path]], **{"Content-Type": content_type})
        response = await client.post(path, content=body.encode(), headers=headers)
        assert_error(response, 400, "INVALID_REQUEST")
        assert marker not in response.text, response.text

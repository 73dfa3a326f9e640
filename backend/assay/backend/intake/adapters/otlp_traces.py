"""OTLP traces kept as the request itself: checked at intake, normalized only when read.

A traces batch is stored as its ``ExportTraceServiceRequest`` in the protobuf encoding (an OTLP/JSON
request is converted to it once, object by object, with protobuf's ``json_format``). Intake does only what
the contract asks of each span, in bounded memory:

- every resource and scope header is decoded by the ``opentelemetry-proto`` classes (as a whole-message
  parse would merge it);
- the spans are decoded by the same classes, many at a time: consecutive span fields of a scope entry are
  one valid ``ScopeSpans`` encoding, so each window of up to 1 MiB of them is one upb parse;
- each span's encoded size is held to the record limit before it is read, its trace and span ids are
  checked (16 and 8 bytes, not all zero; a parent id empty or 8 bytes, not all zero), and its event id
  ``<traceId>:<spanId>`` (lowercase hex) is collected for deduplication.

Spans already held by the binder are removed from the stored request by :func:`without_spans`, which
copies the wire bytes of everything else. :func:`normalized_spans` turns stored content into the
normalized records of docs/intake.md.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from typing import IO, Any

from google.protobuf.message import Message
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import InstrumentationScope
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span

from assay.backend.errors import ApiError
from assay.backend.intake.adapters import otlp
from assay.backend.intake.adapters.otlp_decode import Wire, decode_message, json_objects, malformed, message_from_json

# Bytes of span fields read and parsed at once.
WINDOW = 1024 * 1024
SPOOL_IN_MEMORY = 1024 * 1024
_SPAN_TAG = 0x12  # field 2 (a scope entry's spans, a resource entry's scope entries), wire type LEN
_ENTRY_TAG = 0x0A  # field 1 (the request's resource entries), wire type LEN
_ZERO_TRACE = bytes(16)
_ZERO_SPAN = bytes(8)


def _varint(buf: bytes | memoryview, i: int, n: int) -> tuple[int, int] | None:
    """The varint at ``buf[i]`` and the index after it; None when it runs past ``n``."""
    result = shift = 0
    while i < n:
        byte = buf[i]
        result |= (byte & 0x7F) << shift
        i += 1
        if byte < 0x80:
            return result, i
        shift += 7
        if shift > 63:
            raise malformed("a protobuf varint is too long")
    return None


def _skip(wire_type: int, buf: bytes | memoryview, j: int, n: int) -> tuple[int, int] | None:
    """(value start, value end) of a field whose value starts at ``j``; None when its length prefix runs
    past ``n``. The end may lie past ``n``."""
    if wire_type == 0:
        parsed = _varint(buf, j, n)
        return None if parsed is None else (j, parsed[1])
    if wire_type == 1:
        return j, j + 8
    if wire_type == 2:
        parsed = _varint(buf, j, n)
        return None if parsed is None else (parsed[1], parsed[1] + parsed[0])
    if wire_type == 5:
        return j, j + 4
    raise malformed(f"unsupported protobuf wire type {wire_type}")


class _ScopeEntry:
    """One scope entry [start, end) of ``file``: its spans in runs of whole span fields, its other
    (header) fields kept aside."""

    def __init__(self, file: IO[bytes], start: int, end: int, limit: int, first_seq: int) -> None:
        self.file, self.start, self.end, self.limit = file, start, end, limit
        self.header: list[bytes] = []
        self.header_size = 0
        self.seq = first_seq

    def runs(self) -> Iterator[bytes | memoryview]:
        """The entry's span fields, as byte runs that each parse as a ``ScopeSpans`` of spans only."""
        file, end, limit = self.file, self.end, self.limit
        pos = self.start
        while pos < end:
            file.seek(pos)
            data = file.read(min(WINDOW, end - pos))
            buf = memoryview(data)
            n = len(data)
            last = pos + n >= end  # the window reaches the end of the entry
            i = run = 0
            while i < n:
                if data[i] == _SPAN_TAG:  # a span: the common case, its length read inline when short
                    j = i + 3
                    if j <= n and data[i + 1] >= 0x80 and data[i + 2] < 0x80:
                        length = (data[i + 1] & 0x7F) | (data[i + 2] << 7)
                    elif j <= n and data[i + 1] < 0x80:
                        length, j = data[i + 1], i + 2
                    else:
                        parsed = _varint(data, i + 1, n)
                        if parsed is None:
                            break
                        length, j = parsed
                    if length > limit:
                        raise ApiError(
                            "INVALID_REQUEST",
                            f"Record {self.seq} is a span of {length} bytes encoded, over the limit of {limit}.",
                            status=413,
                        )
                    if j + length > n:
                        if pos + j + length > end:
                            raise malformed("a protobuf field runs past the end of its message")
                        break
                    self.seq += 1
                    i = j + length
                    continue
                parsed = _varint(buf, i, n)
                if parsed is None:
                    break
                tag, j = parsed
                if tag >> 3 == 0:
                    raise malformed("a protobuf field number is 0")
                bounds = _skip(tag & 7, buf, j, n)
                if bounds is None:
                    break
                field_end = bounds[1]
                if pos + field_end > end:
                    raise malformed("a protobuf field runs past the end of its message")
                if i > run:
                    yield buf[run:i]
                # A header field (the scope, the schema URL, a field unknown to this OTLP version).
                self._keep_header(pos + i, pos + field_end, buf[i:field_end] if field_end <= n else None)
                i = run = field_end
            if run < i <= n:
                yield buf[run:i]
            if i < n and last:
                raise malformed("a protobuf field runs past the end of its message")
            if i == 0:
                # One span longer than the window (within the record limit, checked above): read alone.
                parsed = _varint(buf, 1, n)
                assert parsed is not None and buf[0] == _SPAN_TAG
                length, j = parsed
                file.seek(pos)
                yield file.read(j + length)
                self.seq += 1
                i = j + length
            pos += i

    def _keep_header(self, start: int, end: int, data: bytes | memoryview | None = None) -> None:
        self.header_size += end - start
        if self.header_size > self.limit:
            raise malformed(f"a resource or scope header is larger than {self.limit} bytes")
        if data is None:
            self.file.seek(start)
            data = self.file.read(end - start)
        self.header.append(bytes(data))


def _bad_ids(seq: int, trace_id: bytes, span_id: bytes) -> ApiError:
    if len(trace_id) != 16 or trace_id == _ZERO_TRACE:
        return ApiError("INVALID_REQUEST", f"Record {seq}: a trace id must be 16 bytes and not all zero.")
    if len(span_id) != 8 or span_id == _ZERO_SPAN:
        return ApiError("INVALID_REQUEST", f"Record {seq}: a span id must be 8 bytes and not all zero.")
    return ApiError("INVALID_REQUEST", f"Record {seq}: a parent span id must be 8 bytes and not all zero.")


def event_id(key: bytes) -> str:
    """A span's event id ``<traceId>:<spanId>`` (lowercase hex) from its key (the 24 bytes of both ids)."""
    return key.hex(":", -16)


def scan(file: IO[bytes], size: int, limit: int) -> list[bytes]:
    """Check the protobuf ``ExportTraceServiceRequest`` in ``file`` (``size`` bytes) as intake must; the
    key of each of its spans (trace id and span id, 24 bytes: :func:`event_id` makes its event id), in
    order. ``limit``: the record limit (a span's encoded size, and the size of a resource or scope
    header)."""
    wire = Wire(file, limit)
    keys: list[bytes] = []
    append = keys.append
    for number, wire_type, _, entry_start, entry_end in wire.fields(0, size):
        if number != 1 or wire_type != 2:
            continue
        wire.header(entry_start, entry_end, ResourceSpans)
        for scope_start, scope_end in wire.lists(entry_start, entry_end):
            entry = _ScopeEntry(file, scope_start, scope_end, limit, len(keys))
            for run in entry.runs():
                for span in decode_message(ScopeSpans, run).spans:
                    trace_id, span_id, parent = span.trace_id, span.span_id, span.parent_span_id
                    key = trace_id + span_id
                    if (
                        len(key) != 24
                        or len(trace_id) != 16
                        or trace_id == _ZERO_TRACE
                        or span_id == _ZERO_SPAN
                        or (parent and (len(parent) != 8 or parent == _ZERO_SPAN))
                    ):
                        raise _bad_ids(len(keys), trace_id, span_id)
                    append(key)
            decode_message(ScopeSpans, b"".join(entry.header))
    return keys


# ----- stored content -------------------------------------------------------------------------------


def _varint_bytes(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _copy(src: IO[bytes], start: int, end: int, dst: IO[bytes]) -> None:
    src.seek(start)
    remaining = end - start
    while remaining:
        data = src.read(min(WINDOW, remaining))
        if not data:
            raise malformed("the request ends early")
        dst.write(data)
        remaining -= len(data)


def without_spans(file: IO[bytes], size: int, dropped: set[int]) -> tuple[IO[bytes], int]:
    """The request in ``file`` with the spans at the ``dropped`` positions (in request order) removed,
    every other byte copied as it is (entries keep their place, with their lengths rewritten), as a new
    spooled file and its size. ``file`` was checked by :func:`scan`."""
    wire = Wire(file, size)
    out: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)  # noqa: SIM115 (the caller closes it)
    seq = 0
    for number, wire_type, field_start, entry_start, entry_end in wire.fields(0, size):
        if number != 1 or wire_type != 2:
            _copy(file, field_start, entry_end, out)
            continue
        # Per scope entry: its new length; then the entry's.
        scopes: dict[int, int] = {}
        entry_length = 0
        first = seq
        for f_number, f_type, f_start, f_value, f_end in wire.fields(entry_start, entry_end):
            if f_number == 2 and f_type == 2:
                kept = 0
                for s_number, s_type, s_start, _, s_end in wire.fields(f_value, f_end):
                    if s_number == 2 and s_type == 2:
                        if seq not in dropped:
                            kept += s_end - s_start
                        seq += 1
                    else:
                        kept += s_end - s_start
                scopes[f_start] = kept
                entry_length += 1 + len(_varint_bytes(kept)) + kept
            else:
                entry_length += f_end - f_start
        out.write(bytes([_ENTRY_TAG]) + _varint_bytes(entry_length))
        seq = first
        for f_number, f_type, f_start, f_value, f_end in wire.fields(entry_start, entry_end):
            if not (f_number == 2 and f_type == 2):
                _copy(file, f_start, f_end, out)
                continue
            out.write(bytes([_SPAN_TAG]) + _varint_bytes(scopes[f_start]))
            for s_number, s_type, s_start, _, s_end in wire.fields(f_value, f_end):
                if s_number == 2 and s_type == 2:
                    if seq not in dropped:
                        _copy(file, s_start, s_end, out)
                    seq += 1
                else:
                    _copy(file, s_start, s_end, out)
    written = out.tell()
    out.seek(0)
    return out, written


_JSON_KEYS = ("resourceSpans", "scopeSpans", "spans")


def from_json(file: IO[bytes]) -> tuple[IO[bytes], int]:
    """An OTLP/JSON traces request as the protobuf request it encodes (a new spooled file and its size):
    each resource, scope and span object decoded by ``json_format`` and encoded by the same classes, in
    the order and nesting of the JSON. Two passes: the headers, then the spans."""
    entry_at, scope_at = "resourceSpans.item", "resourceSpans.item.scopeSpans.item"
    span_at = f"{scope_at}.spans.item"
    headers: dict[tuple[int, int], list[bytes]] = {}  # (entry, -1): the entry's fields; (entry, scope)
    wanted: dict[str, tuple[type[Message] | None, str]] = {
        f"{entry_at}.resource": (Resource, "resource"),
        f"{entry_at}.schemaUrl": (None, "schema_url"),
        f"{scope_at}.scope": (InstrumentationScope, "scope"),
        f"{scope_at}.schemaUrl": (None, "schema_url"),
    }
    file.seek(0)
    for prefix, (entry, scope), value in json_objects(file, lambda p: p in wanted, _JSON_KEYS):
        message_class, member = wanted[prefix]
        is_scope = prefix.startswith(scope_at)
        holder: Message = ScopeSpans() if is_scope else ResourceSpans()
        if message_class is None:
            if not isinstance(value, str):
                raise malformed(f"{prefix} must be a string")
            setattr(holder, member, value)
        else:
            getattr(holder, member).CopyFrom(message_from_json(value, message_class))
        headers.setdefault((entry, scope if is_scope else -1), []).append(holder.SerializeToString())
    spans: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)  # noqa: SIM115 (closed below)
    out: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)  # noqa: SIM115 (the caller closes it)
    try:
        ranges: dict[tuple[int, int], tuple[int, int]] = {}
        file.seek(0)
        for _, key, value in json_objects(file, lambda p: p == span_at, _JSON_KEYS):
            data = message_from_json(value, Span, ("traceId", "spanId", "parentSpanId")).SerializeToString()
            start = ranges.get(key, (spans.tell(), 0))[0]
            spans.write(bytes([_SPAN_TAG]) + _varint_bytes(len(data)) + data)
            ranges[key] = (start, spans.tell())
        groups = sorted({*headers, *((e, -1) for e, _ in ranges), *ranges})
        for entry in sorted({e for e, _ in groups}):
            _write_entry(out, spans, entry, [s for e, s in groups if e == entry and s >= 0], headers, ranges)
        written = out.tell()
        out.seek(0)
    except BaseException:
        out.close()
        raise
    finally:
        spans.close()
    return out, written


def _split(fields: list[bytes]) -> tuple[bytes, bytes]:
    """Serialized one-member header messages as (field 1 bytes, the rest): upb writes fields in number
    order, so field 1 (resource, scope) goes before the list and the schema URL after it."""
    first = b"".join(f for f in fields if f[:1] == bytes([_ENTRY_TAG]))
    rest = b"".join(f for f in fields if f[:1] != bytes([_ENTRY_TAG]))
    return first, rest


def _write_entry(
    out: IO[bytes],
    spans: IO[bytes],
    entry: int,
    scopes: list[int],
    headers: dict[tuple[int, int], list[bytes]],
    ranges: dict[tuple[int, int], tuple[int, int]],
) -> None:
    before, after = _split(headers.get((entry, -1), []))
    lengths = []
    for scope in scopes:
        scope_before, scope_after = _split(headers.get((entry, scope), []))
        start, end = ranges.get((entry, scope), (0, 0))
        lengths.append((scope_before, start, end, scope_after, len(scope_before) + end - start + len(scope_after)))
    total = len(before) + len(after) + sum(1 + len(_varint_bytes(n)) + n for *_, n in lengths)
    out.write(bytes([_ENTRY_TAG]) + _varint_bytes(total) + before)
    for scope_before, start, end, scope_after, length in lengths:
        out.write(bytes([_SPAN_TAG]) + _varint_bytes(length) + scope_before)
        _copy(spans, start, end, out)
        out.write(scope_after)
    out.write(after)


def normalized_spans(content: bytes) -> Iterator[dict[str, Any]]:
    """The normalized span records of stored content (docs/intake.md), in request order."""
    request = ExportTraceServiceRequest.FromString(content)
    for entry in request.resource_spans:
        resource = otlp.resource_of(entry.resource)
        for scope_entry in entry.scope_spans:
            scope = otlp.scope_of(scope_entry.scope)
            for span in scope_entry.spans:
                yield otlp.span_record(span, resource, scope)[1]


def _prefixes(keys: frozenset[str]) -> frozenset[str]:
    """The keys of nested key-value lists that flatten into one of ``keys`` (``gen_ai`` for
    ``gen_ai.tool.name``)."""
    return frozenset(key[:i] for key in keys for i, char in enumerate(key) if char == ".")


def span_views(content: bytes, keys: frozenset[str], named: tuple[str, ...]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each span of stored content as ``(traceId, view)``, in request order, the view a normalized span
    record (docs/intake.md) cut down to what a reader asks: ``spanId``, ``parentSpanId``, ``name``, and
    ``attributes`` holding only ``keys`` (flattened and valued exactly as in the normalized record). A span
    with any of them, or whose name starts with one of ``named``, has its ``status`` too (its ``message``
    only when the code is ``ERROR``); of the others only their place in the trace is read. Resource and
    scope are not read."""
    prefixes = _prefixes(keys)
    wanted = keys | prefixes
    request = ExportTraceServiceRequest.FromString(content)
    last_trace, last_hex = b"", ""
    for entry in request.resource_spans:
        for scope_entry in entry.scope_spans:
            for span in scope_entry.spans:
                attrs: dict[str, Any] = {}
                for kv in span.attributes:
                    key = kv.key
                    if key not in wanted:
                        continue
                    any_value = kv.value
                    if any_value.WhichOneof("value") == "string_value":  # the common case, inline
                        if key in keys:
                            attrs[key] = any_value.string_value
                        continue
                    value = otlp.any_value(any_value)
                    if isinstance(value, dict):
                        for sub_key, sub_value in otlp.flatten(key, value):
                            if sub_key in keys:
                                attrs[sub_key] = sub_value
                    elif key in keys:
                        attrs[key] = value
                parent = span.parent_span_id
                name = span.name
                view: dict[str, Any] = {
                    "spanId": span.span_id.hex(),
                    "parentSpanId": parent.hex() if parent else None,
                    "name": name,
                    "attributes": attrs,
                }
                if attrs or name.startswith(named):
                    status = span.status
                    code = status.code
                    view["status"] = (
                        {"code": "ERROR", "message": status.message}
                        if code == _STATUS_ERROR
                        else {"code": _STATUS_NAMES.get(code) or otlp.status_code_name(code)}
                    )
                trace = span.trace_id
                if trace != last_trace:
                    last_trace, last_hex = trace, trace.hex()
                yield last_hex, view


_STATUS_ERROR = 2
_STATUS_NAMES = {0: "UNSET", 1: "OK"}

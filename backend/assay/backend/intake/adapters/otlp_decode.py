"""Reading an OTLP export request from a spooled body, one message at a time, in bounded memory.

An ``Export*ServiceRequest`` is a list of resource entries, each a list of scope entries, each a list of
spans, metrics or log records. A 100 MB request parsed whole would take several times its size in
memory, so the request is read in that nesting: each span (metric, log record) is decoded on its own by
the ``opentelemetry-proto`` message class, with the resource and scope headers it belongs to.

For protobuf, this module only finds where each nested message starts and ends (the tag and length
prefixes of the protobuf wire format); every message is decoded by the maintained package, and the
header fields of an entry (everything but its list, in whatever order they come) are decoded together, so
repeated or out-of-order header fields merge exactly as a whole-message parse would. For OTLP/JSON, an
incremental JSON parser (ijson) walks the same nesting, and each object is decoded by ``json_format`` once
its ids are turned from OTLP's hex into the base64 that protobuf's JSON mapping expects.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any

import ijson
from google.protobuf import json_format
from google.protobuf.message import DecodeError, Message
from opentelemetry.proto.common.v1.common_pb2 import InstrumentationScope
from opentelemetry.proto.logs.v1 import logs_pb2
from opentelemetry.proto.metrics.v1 import metrics_pb2
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1 import trace_pb2

from assay.backend.errors import ApiError
from assay.backend.intake.adapters import otlp
from assay.backend.intake.adapters.json_stream import check_json_file

Normalized = tuple[str | None, dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Signal:
    """One OTLP signal: its message classes, JSON member names and normalizer."""

    name: str
    resource_entry: type[Message]
    scope_entry: type[Message]
    item: type[Message]
    json_keys: tuple[str, str, str]
    hex_ids: tuple[str, ...]
    normalize: Callable[[Any, dict[str, Any], dict[str, Any]], Normalized]


SIGNALS = {
    "otlp-traces": Signal(
        "traces",
        trace_pb2.ResourceSpans,
        trace_pb2.ScopeSpans,
        trace_pb2.Span,
        ("resourceSpans", "scopeSpans", "spans"),
        ("traceId", "spanId", "parentSpanId"),
        otlp.span_record,
    ),
    "otlp-metrics": Signal(
        "metrics",
        metrics_pb2.ResourceMetrics,
        metrics_pb2.ScopeMetrics,
        metrics_pb2.Metric,
        ("resourceMetrics", "scopeMetrics", "metrics"),
        (),
        otlp.metric_record,
    ),
    "otlp-logs": Signal(
        "logs",
        logs_pb2.ResourceLogs,
        logs_pb2.ScopeLogs,
        logs_pb2.LogRecord,
        ("resourceLogs", "scopeLogs", "logRecords"),
        ("traceId", "spanId"),
        otlp.log_record,
    ),
}

# Field numbers shared by the three signals: the request's resource entries (1), an entry's list (2).
_ENTRIES = 1
_LIST = 2
_LEN = 2


def malformed(detail: str) -> ApiError:
    return ApiError("INVALID_REQUEST", f"The OTLP request is not valid: {detail}.")


class Wire:
    """Field boundaries of protobuf messages inside a seekable file."""

    def __init__(self, file: IO[bytes], max_header_bytes: int) -> None:
        self.file = file
        self.max_header_bytes = max_header_bytes

    def _varint(self, pos: int, end: int) -> tuple[int, int]:
        self.file.seek(pos)
        data = self.file.read(min(10, end - pos))
        result = shift = 0
        for i, byte in enumerate(data):
            result |= (byte & 0x7F) << shift
            if byte < 0x80:
                return result, pos + i + 1
            shift += 7
        raise malformed("a protobuf varint is truncated")

    def fields(self, start: int, end: int) -> Iterator[tuple[int, int, int, int, int]]:
        """(field number, wire type, field start, value start, value end) of each field in [start, end)."""
        pos = start
        while pos < end:
            tag, value_start = self._varint(pos, end)
            number, wire_type = tag >> 3, tag & 7
            if number == 0:
                raise malformed("a protobuf field number is 0")
            if wire_type == 0:
                _, value_end = self._varint(value_start, end)
            elif wire_type == 1:
                value_end = value_start + 8
            elif wire_type == _LEN:
                length, value_start = self._varint(value_start, end)
                value_end = value_start + length
            elif wire_type == 5:
                value_end = value_start + 4
            else:
                raise malformed(f"unsupported protobuf wire type {wire_type}")
            if value_end > end:
                raise malformed("a protobuf field runs past the end of its message")
            yield number, wire_type, pos, value_start, value_end
            pos = value_end

    def read(self, start: int, end: int) -> bytes:
        self.file.seek(start)
        return self.file.read(end - start)

    def header(self, start: int, end: int, message: type[Message]) -> Any:
        """Every field of the entry in [start, end) except its list, decoded together as ``message``."""
        parts: list[bytes] = []
        size = 0
        for number, wire_type, field_start, _, value_end in self.fields(start, end):
            if number == _LIST and wire_type == _LEN:
                continue
            size += value_end - field_start
            if size > self.max_header_bytes:
                raise malformed(f"a resource or scope header is larger than {self.max_header_bytes} bytes")
            parts.append(self.read(field_start, value_end))
        return decode_message(message, b"".join(parts))

    def lists(self, start: int, end: int) -> Iterator[tuple[int, int]]:
        for number, wire_type, _, value_start, value_end in self.fields(start, end):
            if number == _LIST and wire_type == _LEN:
                yield value_start, value_end


def decode_message(message: type[Message], data: bytes | memoryview) -> Any:
    try:
        return message.FromString(data)  # type: ignore[arg-type]  # upb reads any buffer
    except DecodeError as exc:
        raise malformed(f"a {message.DESCRIPTOR.name} message could not be decoded") from exc


def protobuf_records(file: IO[bytes], size: int, signal: Signal, max_header_bytes: int) -> Iterator[Normalized]:
    """The normalized records of a protobuf-encoded request held in ``file`` (``size`` bytes)."""
    wire = Wire(file, max_header_bytes)
    # Fields of the request other than its entries are unknown to this version of OTLP: skipped, as a
    # whole-message parse would keep them aside unread.
    for number, wire_type, _, entry_start, entry_end in wire.fields(0, size):
        if number != _ENTRIES or wire_type != _LEN:
            continue
        entry = wire.header(entry_start, entry_end, signal.resource_entry)
        resource = otlp.resource_of(entry.resource)
        for scope_start, scope_end in wire.lists(entry_start, entry_end):
            scope = otlp.scope_of(wire.header(scope_start, scope_end, signal.scope_entry).scope)
            for item_start, item_end in wire.lists(scope_start, scope_end):
                yield signal.normalize(decode_message(signal.item, wire.read(item_start, item_end)), resource, scope)


def _hex_to_base64(obj: dict[str, Any], keys: tuple[str, ...]) -> None:
    for key in keys:
        value = obj.get(key)
        if isinstance(value, str):
            try:
                obj[key] = base64.b64encode(bytes.fromhex(value)).decode("ascii")
            except ValueError as exc:
                raise malformed(f"{key} is not hex") from exc


def message_from_json(obj: Any, message: type[Message], hex_ids: tuple[str, ...] = ()) -> Any:
    if not isinstance(obj, dict):
        raise malformed(f"{message.DESCRIPTOR.name} must be a JSON object")
    _hex_to_base64(obj, hex_ids)
    for link in obj.get("links", []) if isinstance(obj.get("links"), list) else []:
        if isinstance(link, dict):
            _hex_to_base64(link, ("traceId", "spanId"))
    try:
        # OTLP/JSON receivers must ignore fields they do not know (the specification's forward compatibility).
        return json_format.ParseDict(obj, message(), ignore_unknown_fields=True)
    except (json_format.ParseError, binascii.Error, ValueError, TypeError) as exc:
        raise malformed(f"a {message.DESCRIPTOR.name} object does not match OTLP/JSON") from exc


_VALUE_EVENTS = frozenset({"start_map", "start_array", "string", "number", "boolean", "null"})


def _shape(keys: tuple[str, str, str]) -> dict[str, frozenset[str]]:
    """What each level of an OTLP/JSON request must be: the three lists (null reads as empty, as the
    protobuf JSON mapping says) and objects in them. Anything else there is malformed, never ignored."""
    entries, scopes, items = keys
    lists, objects = frozenset({"start_array", "null"}), frozenset({"start_map"})
    return {
        entries: lists,
        f"{entries}.item": objects,
        f"{entries}.item.{scopes}": lists,
        f"{entries}.item.{scopes}.item": objects,
        f"{entries}.item.{scopes}.item.{items}": lists,
        f"{entries}.item.{scopes}.item.{items}.item": objects,
    }


def json_objects(
    file: IO[bytes], wanted: Callable[[str], bool], keys: tuple[str, str, str]
) -> Iterator[tuple[str, tuple[int, int], Any]]:
    """(prefix, (entry index, scope index), object) for each JSON value whose prefix ``wanted`` accepts,
    in a request whose entries, scopes and items lists are named ``keys``. The body is first held to the
    rules of every JSON body (``json_stream.check_json_file``: depth, numbers, surrogates)."""
    check_json_file(file)
    file.seek(0)
    entry = scope = -1
    builder: Any = None
    depth = 0
    target = ""
    shape = _shape(keys)
    try:
        for prefix, event, value in ijson.parse(file, use_float=True):
            allowed = shape.get(prefix)
            if allowed is not None and event in _VALUE_EVENTS and event not in allowed:
                kind = "an array" if "start_array" in allowed else "an object"
                raise malformed(f"{prefix} must be {kind}")
            if builder is not None:
                builder.event(event, value)
                if event in ("start_map", "start_array"):
                    depth += 1
                elif event in ("end_map", "end_array"):
                    depth -= 1
                if depth == 0:
                    yield target, (entry, scope), builder.value
                    builder = None
                continue
            if prefix == "" and event not in ("start_map", "end_map", "map_key"):
                raise malformed("the JSON body must be an object")
            if event == "start_map" and prefix.count(".") == 1 and prefix.endswith(".item"):
                entry, scope = entry + 1, -1
            elif event == "start_map" and prefix.count(".") == 3 and prefix.endswith(".item"):
                scope += 1
            if event in ("start_map", "start_array") and wanted(prefix):
                builder, depth, target = ijson.ObjectBuilder(), 1, prefix
                builder.event(event, value)
            elif event not in ("map_key", "end_map", "end_array", "start_map", "start_array") and wanted(prefix):
                yield prefix, (entry, scope), value
    except ijson.JSONError as exc:
        raise malformed("the body is not valid JSON") from exc


def json_records(file: IO[bytes], signal: Signal) -> Iterator[Normalized]:
    """The normalized records of an OTLP/JSON request held in ``file``: two passes, headers then items."""
    entries_key, scopes_key, items_key = signal.json_keys
    resource_at = f"{entries_key}.item.resource"
    scope_at = f"{entries_key}.item.{scopes_key}.item.scope"
    item_at = f"{entries_key}.item.{scopes_key}.item.{items_key}.item"
    resources: dict[int, dict[str, Any]] = {}
    scopes: dict[tuple[int, int], dict[str, Any]] = {}
    file.seek(0)
    for prefix, (entry, scope), value in json_objects(file, lambda p: p in (resource_at, scope_at), signal.json_keys):
        if prefix == resource_at:
            resources[entry] = otlp.resource_of(message_from_json(value, Resource))
        else:
            scopes[(entry, scope)] = otlp.scope_of(message_from_json(value, InstrumentationScope))
    file.seek(0)
    for _, (entry, scope), value in json_objects(file, lambda p: p == item_at, signal.json_keys):
        item = message_from_json(value, signal.item, signal.hex_ids)
        yield signal.normalize(item, resources.get(entry, {}), scopes.get((entry, scope), {"name": "", "version": ""}))

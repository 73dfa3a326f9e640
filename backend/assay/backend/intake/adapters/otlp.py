"""The ``otlp`` adapter: OpenTelemetry traces, metrics and logs (OTLP/HTTP), normalized to plain records.

Messages are decoded by the maintained ``opentelemetry-proto`` package (``otlp_decode.py`` only cuts a
request into its messages). Normalized shapes (docs/intake.md): ids are lowercase hex, nanosecond times
are decimal strings (they exceed the integers RFC 8785 writes exactly), attributes are flattened to
``key -> scalar or list`` (a nested key-value list becomes dotted keys).
"""

from __future__ import annotations

import base64
import math
from collections.abc import Iterable
from typing import Any

from google.protobuf import json_format
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, InstrumentationScope, KeyValue
from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord
from opentelemetry.proto.metrics.v1.metrics_pb2 import Metric
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

from assay.backend.errors import ApiError
from assay.backend.intake.adapters.spec import AdapterSpec

SPEC = AdapterSpec(
    id="otlp",
    version="1.0.0",
    producer_id="structured-ingress",
    routes={"otlpTraces": "otlp-traces", "otlpMetrics": "otlp-metrics", "otlpLogs": "otlp-logs"},
    evidence_classes=("runtime.trace", "runtime.metric", "runtime.log"),
    can_establish=("OBSERVED",),
    cannot_establish=("REQUESTED", "POLICY_AUTHORIZED", "EFFECTIVELY_GRANTED", "CODE_CAPABLE", "ABSENCE"),
    coverage_semantics={
        "unit": "span, metric or log record exported by the instrumented system",
        "observes": "what the instrumentation recorded: tool calls (gen_ai execute_tool, MCP tools/call, "
        "OpenInference TOOL spans), agent invocations, guardrails",
        "absence": "not evidence: sampling, disabled instrumentation or export failures hide what happened",
        "ordering": "trace structure (parent and child spans); timestamps are kept but never ordered on",
    },
    limitations=(
        {"code": "sampled", "detail": "Traces may be sampled; a missing span does not mean the action did not happen."},
        {"code": "self-reported", "detail": "Spans are reported by the system itself, not by an independent observer."},
    ),
)

_SAFE_INT = 2**53 - 1
# Deeper than any value protobuf decodes (its parsers stop at 100 nested messages, two per level here):
# normalizing stored content never fails on depth.
_MAX_DEPTH = 64


def _number(value: float) -> float | str:
    # RFC 8785 has no NaN or infinities: they are kept as their OTLP JSON spellings.
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return value


def _integer(value: int) -> int | str:
    # Beyond 2**53 a JSON number loses digits; such integers are written as decimal strings.
    return value if -_SAFE_INT <= value <= _SAFE_INT else str(value)


def any_value(value: AnyValue, depth: int = 0) -> Any:
    """An OTLP AnyValue as a JSON value (bytes as base64, a key-value list as an object)."""
    if depth > _MAX_DEPTH:
        raise ApiError("INVALID_REQUEST", f"An attribute value is nested deeper than {_MAX_DEPTH} levels.")
    which = value.WhichOneof("value")
    if which == "string_value":
        return value.string_value
    if which == "bool_value":
        return value.bool_value
    if which == "int_value":
        return _integer(value.int_value)
    if which == "double_value":
        return _number(value.double_value)
    if which == "array_value":
        return [any_value(v, depth + 1) for v in value.array_value.values]
    if which == "kvlist_value":
        return {kv.key: any_value(kv.value, depth + 1) for kv in value.kvlist_value.values}
    if which == "bytes_value":
        return base64.b64encode(value.bytes_value).decode("ascii")
    return None


def attributes(pairs: Iterable[KeyValue]) -> dict[str, Any]:
    """Key-value pairs flattened: ``key -> scalar or list``; a nested key-value list becomes dotted keys."""
    flat: dict[str, Any] = {}
    for kv in pairs:
        value = any_value(kv.value)
        if isinstance(value, dict):
            for sub_key, sub_value in flatten(kv.key, value):
                flat[sub_key] = sub_value
        else:
            flat[kv.key] = value
    return flat


def flatten(prefix: str, value: dict[str, Any]) -> Iterable[tuple[str, Any]]:
    """A key-value list under ``prefix`` as dotted keys and their scalar or list values."""
    for key, inner in value.items():
        name = f"{prefix}.{key}"
        if isinstance(inner, dict):
            yield from flatten(name, inner)
        else:
            yield name, inner


def resource_of(resource: Resource) -> dict[str, Any]:
    return attributes(resource.attributes)


def scope_of(scope: InstrumentationScope) -> dict[str, Any]:
    return {"name": scope.name, "version": scope.version}


def _hex_id(raw: bytes, size: int, what: str, *, required: bool) -> str | None:
    if not raw and not required:
        return None
    if len(raw) != size or raw == bytes(size):
        raise ApiError("INVALID_REQUEST", f"A {what} must be {size} bytes and not all zero.")
    return raw.hex()


def _enum_name(name: str, prefix: str) -> str:
    return name[len(prefix) :] if name.startswith(prefix) else name


def status_code_name(code: int) -> str:
    """A span status code as normalized records write it (``UNSET``, ``OK``, ``ERROR``; a number unknown to
    this OTLP version as its decimal string)."""
    try:
        return _enum_name(Status.StatusCode.Name(code), "STATUS_CODE_")  # type: ignore[arg-type]
    except ValueError:
        return str(code)


def _span_kind_name(kind: int) -> str:
    try:
        return _enum_name(Span.SpanKind.Name(kind), "SPAN_KIND_")  # type: ignore[arg-type]
    except ValueError:
        return str(kind)


def span_record(span: Span, resource: dict[str, Any], scope: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A span as its normalized record, and its event id ``<traceId>:<spanId>``."""
    trace_id = _hex_id(span.trace_id, 16, "trace id", required=True)
    span_id = _hex_id(span.span_id, 8, "span id", required=True)
    assert trace_id is not None and span_id is not None
    record = {
        "kind": "span",
        "traceId": trace_id,
        "spanId": span_id,
        "parentSpanId": _hex_id(span.parent_span_id, 8, "parent span id", required=False),
        "name": span.name,
        "spanKind": _span_kind_name(span.kind),
        "startTimeUnixNano": str(span.start_time_unix_nano),
        "endTimeUnixNano": str(span.end_time_unix_nano),
        "status": {
            "code": status_code_name(span.status.code),
            "message": span.status.message,
        },
        "attributes": attributes(span.attributes),
        "resource": resource,
        "scope": scope,
        "events": [
            {"name": e.name, "timeUnixNano": str(e.time_unix_nano), "attributes": attributes(e.attributes)}
            for e in span.events
        ],
    }
    return f"{trace_id}:{span_id}", record


def _data_point(point: dict[str, Any], message: Any) -> dict[str, Any]:
    # json_format writes attributes as OTLP KeyValue objects; records carry them flattened, like spans.
    point.pop("exemplars", None)
    if "attributes" in point:
        point["attributes"] = attributes(message.attributes)
    return point


def metric_record(metric: Metric, resource: dict[str, Any], scope: dict[str, Any]) -> tuple[None, dict[str, Any]]:
    """A metric with its data points as its normalized record; metrics carry no event id."""
    data_kind = metric.WhichOneof("data") or "none"
    data = getattr(metric, data_kind) if data_kind != "none" else None
    points: list[dict[str, Any]] = []
    extra: dict[str, Any] = {}
    if data is not None:
        for message in data.data_points:
            point = json_format.MessageToDict(message)
            points.append(_data_point(_plain_numbers(point), message))
        if data_kind == "sum":
            extra["isMonotonic"] = data.is_monotonic
        if hasattr(data, "aggregation_temporality"):
            extra["aggregationTemporality"] = _enum_name(
                type(data)
                .DESCRIPTOR.fields_by_name["aggregation_temporality"]
                .enum_type.values_by_number[data.aggregation_temporality]
                .name,
                "AGGREGATION_TEMPORALITY_",
            )
    record = {
        "kind": "metric",
        "name": metric.name,
        "description": metric.description,
        "unit": metric.unit,
        "type": data_kind,
        "dataPoints": points,
        **extra,
        "resource": resource,
        "scope": scope,
    }
    return None, record


def _plain_numbers(value: Any) -> Any:
    if isinstance(value, float):
        return _number(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return _integer(value)
    if isinstance(value, dict):
        return {k: _plain_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain_numbers(v) for v in value]
    return value


# The semantic-conventions attribute that identifies a log record (log.record.uid).
LOG_RECORD_UID = "log.record.uid"


def log_record(log: LogRecord, resource: dict[str, Any], scope: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    """A log record as its normalized record; its event id is its ``log.record.uid`` attribute, if any."""
    attrs = attributes(log.attributes)
    record = {
        "kind": "log",
        "timeUnixNano": str(log.time_unix_nano),
        "observedTimeUnixNano": str(log.observed_time_unix_nano),
        "severityNumber": int(log.severity_number),
        "severityText": log.severity_text,
        "body": any_value(log.body),
        "attributes": attrs,
        "eventName": log.event_name,
        "traceId": _hex_id(log.trace_id, 16, "trace id", required=False),
        "spanId": _hex_id(log.span_id, 8, "span id", required=False),
        "resource": resource,
        "scope": scope,
    }
    uid = attrs.get(LOG_RECORD_UID)
    return (str(uid) if isinstance(uid, str | int) and uid != "" else None), record

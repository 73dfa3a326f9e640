"""The OpenAPI 3.1 document, generated from the route table and the pydantic models the routes use.

OpenAPI 3.1 schemas are JSON Schema 2020-12, which is what pydantic emits, so component schemas are the
models' own schemas with references rewritten to ``#/components/schemas/``.

The document of a route table is built once per process (``openapi_bytes``): it depends only on the route
specs (frozen, declared once when their modules load) and on the models' schemas, which do not change
while the process runs.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from typing import Any

from pydantic.json_schema import JsonSchemaMode, models_json_schema

from assay.backend.scans.bundle import EvidenceBundle
from assay.backend.schemas import SCHEMA_REF_MARKER, ErrorEnvelope
from assay.backend.web.routing import RouteSpec

OPENAPI_VERSION = "3.1.0"
API_VERSION = "1.0.0"
_REF_TEMPLATE = "#/components/schemas/{model}"
_ERROR_DESCRIPTIONS = {
    400: "INVALID_REQUEST or a source error (SOURCE_NOT_VERIFIED, SOURCE_AMBIGUOUS, BRANCH_REQUIRED)",
    401: "UNAUTHORIZED: missing, malformed, unknown, revoked or expired API key",
    403: "INSUFFICIENT_SCOPE: the key lacks the route's scope",
    404: "Not found, or another organization's (indistinguishable)",
    409: "Conflict (IDEMPOTENCY_CONFLICT, SOURCE_CONFLICTED, SOURCE_UNAVAILABLE)",
    413: "INVALID_REQUEST: the body is larger than the documented limit",
    415: "INVALID_REQUEST: a Content-Type (or Content-Encoding) the route does not take",
    429: "RATE_LIMITED: retry after the Retry-After header",
    503: (
        "INTERNAL_ERROR, retryable: the database is busy with other writes (a write waited for SQLite's write "
        "lock past the busy timeout) or a dependency is unavailable; retry after the Retry-After header"
    ),
}


RefKey = tuple[Any, JsonSchemaMode]


def _component_schemas(routes: Sequence[RouteSpec]) -> tuple[dict[str, Any], dict[RefKey, dict[str, Any]]]:
    """Component schemas of every model the routes use, and the reference of each (model, mode)."""
    wanted: list[RefKey] = [(ErrorEnvelope, "serialization"), (EvidenceBundle, "validation")]
    for spec in routes:
        if spec.request_model is not None:
            wanted.append((spec.request_model, "validation"))
        wanted.extend((model, "serialization") for model in spec.responses.values())
    refs, top = models_json_schema(list(dict.fromkeys(wanted)), ref_template=_REF_TEMPLATE)
    return _resolve_markers(dict(top.get("$defs", {}))), dict(refs)


def _resolve_markers(value: Any) -> Any:
    """Replace ``{"x-assay-ref": Name, ...}`` placeholders with references to the named component."""
    if isinstance(value, dict):
        if SCHEMA_REF_MARKER in value:
            resolved: dict[str, Any] = {"$ref": _REF_TEMPLATE.format(model=value[SCHEMA_REF_MARKER])}
            if "description" in value:
                resolved["description"] = value["description"]
            return resolved
        return {k: _resolve_markers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve_markers(v) for v in value]
    return value


def _operation(spec: RouteSpec, refs: dict[RefKey, dict[str, Any]]) -> dict[str, Any]:
    description = spec.description
    if spec.public:
        requirement = "No authentication."
    elif spec.scope is None:
        requirement = "Requires any valid API key."
    else:
        requirement = f"Requires scope `{spec.scope}`."
    if spec.rate_limited:
        requirement += " Rate limited per API key."
    operation: dict[str, Any] = {
        "operationId": spec.operation_id,
        "summary": spec.summary,
        "description": f"{description}\n\n{requirement}".strip(),
        "tags": list(spec.tags),
        "security": [] if spec.public else [{"bearerAuth": []}],
        "x-assay-scope": spec.scope,
        "x-assay-rate-limited": spec.rate_limited,
    }
    if spec.parameters:
        operation["parameters"] = [
            {
                "name": p.name,
                "in": p.location,
                "required": True if p.location == "path" else p.required,
                "description": p.description,
                "schema": dict(p.schema),
            }
            for p in spec.parameters
        ]
    if spec.request_model is not None:
        operation["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": refs[(spec.request_model, "validation")]}},
        }
    elif spec.request_bodies:
        operation["requestBody"] = {
            "required": True,
            "content": {media: {"schema": dict(schema)} for media, schema in spec.request_bodies.items()},
        }
    responses: dict[str, Any] = {}
    for status, model in spec.responses.items():
        content = {"application/json": {"schema": refs[(model, "serialization")]}}
        content |= {media: {"schema": dict(schema)} for media, schema in spec.response_media.items()}
        responses[str(status)] = {
            "description": model.__doc__.strip().splitlines()[0] if model.__doc__ else "Success",
            "content": content,
        }
    if not responses:
        media_type = spec.content_type.split(";")[0].strip()
        schema: dict[str, Any] = {"type": "object"} if media_type == "application/json" else {"type": "string"}
        if media_type == "application/pdf":
            schema = {"type": "string", "format": "binary"}
        responses["200"] = {"description": "Success", "content": {media_type: {"schema": schema}}}
    # What the route table implies is always documented, whatever the spec lists.
    statuses = set(spec.errors)
    if not spec.public:
        # Every authenticated route reads the database; any of its writes may wait for SQLite's lock (503).
        statuses |= {401, 500, 503}
    if spec.scope is not None:
        statuses.add(403)
    if spec.rate_limited:
        statuses.add(429)
    for status in sorted(statuses):
        entry: dict[str, Any] = {
            "description": _ERROR_DESCRIPTIONS.get(status, "INTERNAL_ERROR: unexpected failure"),
            "content": {"application/json": {"schema": refs[(ErrorEnvelope, "serialization")]}},
        }
        if status in (429, 503):
            entry["headers"] = {"Retry-After": {"description": "Seconds to wait", "schema": {"type": "integer"}}}
        responses[str(status)] = entry
    operation["responses"] = responses
    return operation


def build_openapi(routes: Sequence[RouteSpec]) -> dict[str, Any]:
    """The OpenAPI 3.1 document of ``routes``."""
    components, refs = _component_schemas(routes)
    paths: dict[str, dict[str, Any]] = {}
    for spec in routes:
        paths.setdefault(spec.path, {})[spec.method.lower()] = _operation(spec, refs)
    return {
        "openapi": OPENAPI_VERSION,
        "info": {
            "title": "Assay Assurance Service API",
            "version": API_VERSION,
            "description": (
                "Assurance runs, evaluation artifacts, discovery, qualified scan submission and the legacy scan "
                "trigger. Every failure uses the envelope {error: {code, message, retryable}}."
            ),
        },
        "paths": paths,
        "components": {
            "schemas": components,
            "securitySchemes": {
                "bearerAuth": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "An API key: svc_live_... or svc_test_...",
                }
            },
        },
    }


def serialize(document: dict[str, Any]) -> bytes:
    """The document as served: compact JSON, UTF-8."""
    return json.dumps(document, separators=(",", ":")).encode("utf-8")


# Documents built, by the identity of their route specs; the specs are kept with the document, so no id
# is reused while it is here. A process serves one route table; the test suites make a few (test-only
# routes, metrics off), each app of which would otherwise build its table's document again.
_BUILT: dict[tuple[int, ...], tuple[tuple[RouteSpec, ...], bytes]] = {}
_MAX_BUILT = 8
_BUILDING = threading.Lock()


def openapi_bytes(routes: Sequence[RouteSpec]) -> bytes:
    """``serialize(build_openapi(routes))``, built once per process for each route table."""
    key = tuple(id(spec) for spec in routes)
    with _BUILDING:
        built = _BUILT.get(key)
        if built is None:
            built = (tuple(routes), serialize(build_openapi(routes)))
            if len(_BUILT) >= _MAX_BUILT:
                del _BUILT[next(iter(_BUILT))]
            _BUILT[key] = built
    return built[1]

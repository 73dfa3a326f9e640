"""The OpenAPI 3.1 document: valid, complete, and generated from the models the routes use."""

from __future__ import annotations

import json
from dataclasses import replace

import httpx
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate
from service_helpers import World, bearer
from starlette.applications import Starlette

from assay.backend.schemas import QualifiedScanSubmission
from assay.backend.settings import ServiceSettings
from assay.backend.web.app import create_app, route_table
from assay.backend.web.openapi import build_openapi, serialize


async def test_served_document_validates_and_lists_every_route(
    app: Starlette, client: httpx.AsyncClient, world: World
) -> None:
    response = await client.get("/api/v1/openapi.json", headers=bearer(world.agent_key_a))
    assert response.status_code == 200
    document = response.json()
    validate(document)
    assert document["openapi"] == "3.1.0"
    for spec in app.state.route_specs:
        operation = document["paths"][spec.path][spec.method.lower()]
        assert operation["operationId"] == spec.operation_id
        assert operation["x-assay-scope"] == spec.scope
        assert operation["security"] == ([] if spec.public else [{"bearerAuth": []}])
        if not spec.public:
            assert "401" in operation["responses"]
        if spec.rate_limited:
            assert "Retry-After" in operation["responses"]["429"]["headers"]


def test_document_uses_the_route_models() -> None:
    document = build_openapi(route_table())
    validate(document)
    schemas = document["components"]["schemas"]
    submit = document["paths"]["/api/v1/scans"]["post"]
    ref = submit["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    name = ref.rsplit("/", 1)[1]
    submission = schemas[name]
    assert set(submission["properties"]) == set(QualifiedScanSubmission.model_fields)
    assert submission["additionalProperties"] is False
    assert submission["properties"]["bundle"]["$ref"] == "#/components/schemas/EvidenceBundle"
    assert "EvidenceBundle" in schemas and "ErrorEnvelope" in schemas
    assert set(submit["responses"]) >= {"201", "400", "401", "403", "404", "409", "413"}
    codes = schemas["ErrorDetail"]["properties"]["code"]["enum"]
    assert "IDEMPOTENCY_CONFLICT" in codes and len(codes) == 17


def test_intake_routes_declare_their_bodies_and_answers() -> None:
    paths = build_openapi(route_table())["paths"]
    bodies = {
        "/api/ingest/structured": {
            "application/json",
            "application/x-ndjson",
            "application/jsonl",
            "application/x-jsonlines",
            "application/jsonlines",
            "text/csv",
        },
        "/api/ingest/log": {"text/plain"},
        "/api/ingest/sarif": {"application/sarif+json", "application/json"},
        **{f"/api/otlp/v1/{s}": {"application/x-protobuf", "application/json"} for s in ("traces", "metrics", "logs")},
    }
    for path, media in bodies.items():
        operation = paths[path]["post"]
        assert operation["requestBody"]["required"] is True
        assert set(operation["requestBody"]["content"]) == media, path
        assert {"415", "413", "503"} <= set(operation["responses"]), path
        assert "Idempotency-Key" not in {p["name"] for p in operation["parameters"]}
        assert "No Idempotency-Key" in operation["description"]
    for signal in ("traces", "metrics", "logs"):
        answer = paths[f"/api/otlp/v1/{signal}"]["post"]["responses"]["200"]["content"]
        assert set(answer) == {"application/json", "application/x-protobuf"}
    traces = paths["/api/otlp/v1/traces"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert traces["properties"]["resourceSpans"]["type"] == "array"


def test_idempotency_key_rules_are_stated_where_the_header_is_read() -> None:
    paths = build_openapi(route_table())["paths"]
    with_key = {
        (path, method)
        for path, item in paths.items()
        for method, operation in item.items()
        if any(p["name"] == "Idempotency-Key" for p in operation.get("parameters", []))
    }
    assert with_key == {("/api/v1/assurance/runs", "post"), ("/api/v1/scans", "post")}
    for path, method in with_key:
        operation = paths[path][method]
        header = next(p for p in operation["parameters"] if p["name"] == "Idempotency-Key")
        assert header["in"] == "header" and header["required"] is False
        assert header["schema"] == {
            "type": "string",
            "minLength": 1,
            "maxLength": 255,
            "pattern": "^[\\x21-\\x7E]{1,255}$",
        }
        assert "409 IDEMPOTENCY_CONFLICT" in header["description"] and "24 hours" in header["description"]
        assert "409" in operation["responses"]
    replay = paths["/api/v1/assurance/runs"]["post"]
    assert "200" in replay["responses"] and "answers 200" in next(
        p["description"] for p in replay["parameters"] if p["name"] == "Idempotency-Key"
    )


def test_every_route_that_reads_the_database_declares_503() -> None:
    document = build_openapi(route_table())
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if operation["security"] or path in ("/healthz", "/.well-known/jwks.json"):
                answer = operation["responses"].get("503")
                assert answer is not None, (method, path)
                assert answer["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorEnvelope")
                assert "Retry-After" in answer["headers"]


def test_engines_schema_refuses_exactly_what_validation_refuses() -> None:
    document = build_openapi(route_table())
    schemas = document["components"]["schemas"]
    engines = {**schemas["Engines"], "$defs": schemas}
    validator = Draft202012Validator(json.loads(json.dumps(engines).replace("#/components/schemas/", "#/$defs/")))
    refused = [
        {},
        {"static": None, "runtime": None, "wizard": None},
        {"static": {"enabled": False}},
        {"static": {"enabled": False}, "runtime": None, "wizard": {"enabled": False}},
    ]
    accepted = [{"static": {}}, {"static": {"enabled": True}}, {"runtime": {"enabled": None}}, {"wizard": {}}]
    for engines_value in refused:
        assert not validator.is_valid(engines_value), engines_value
    for engines_value in accepted:
        assert validator.is_valid(engines_value), engines_value


async def test_all_null_engines_are_refused_naming_the_cause(client: httpx.AsyncClient, world: World) -> None:
    for engines_value in ({"static": None, "runtime": None, "wizard": None}, {"static": {"enabled": False}}):
        answer = await client.post(
            "/api/v1/assurance/runs",
            json={"aiSystemId": world.system_a, "engines": engines_value},
            headers=bearer(world.agent_key_a),
        )
        assert answer.status_code == 400, answer.text
        error = answer.json()["error"]
        assert error["code"] == "INVALID_REQUEST" and error["message"].startswith("No engine is enabled")


def test_document_is_deterministic() -> None:
    # An app serves its route table's document as built once in the process; built again, it is the same.
    app = create_app(ServiceSettings(database_url="sqlite+aiosqlite:///unused.db"))
    for _ in range(2):
        assert serialize(build_openapi(app.state.route_specs)) == app.state.openapi_bytes


def test_each_route_table_has_its_own_document() -> None:
    settings = ServiceSettings(database_url="sqlite+aiosqlite:///unused.db")
    served = json.loads(create_app(settings).state.openapi_bytes)["paths"]
    without_metrics = json.loads(create_app(replace(settings, metrics_enabled=False)).state.openapi_bytes)["paths"]
    assert "/metrics" in served and "/metrics" not in without_metrics
    assert "/metrics" in json.loads(create_app(settings).state.openapi_bytes)["paths"]

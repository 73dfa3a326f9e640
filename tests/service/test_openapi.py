"""The OpenAPI 3.1 document: valid, complete, and generated from the models the routes use."""

from __future__ import annotations

import httpx
from openapi_spec_validator import validate
from service_helpers import World, bearer
from starlette.applications import Starlette

from assay.backend.schemas import QualifiedScanSubmission
from assay.backend.settings import ServiceSettings
from assay.backend.web.app import create_app, route_table
from assay.backend.web.openapi import build_openapi


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


def test_document_is_deterministic() -> None:
    settings = ServiceSettings(database_url="sqlite+aiosqlite:///unused.db")
    assert create_app(settings).state.openapi_bytes == create_app(settings).state.openapi_bytes

"""The OpenAPI document describes the evaluation artifacts as they are: real media types, typed bodies,
enumerated query values; and it is served without a key, as documentation."""

from __future__ import annotations

import httpx
from openapi_spec_validator import validate

from assay.backend.web.app import route_table
from assay.backend.web.openapi import build_openapi

BASE = "/api/v1/assurance/evaluations/{evaluationId}"


async def test_the_document_is_served_without_a_key(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/v1/openapi.json")
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/json")
    document = response.json()
    validate(document)
    assert document["paths"]["/api/v1/openapi.json"]["get"]["security"] == []


def _ok(document: dict[str, object], path: str) -> dict[str, object]:
    operation = document["paths"][BASE + path]["get"]  # type: ignore[index]
    return operation["responses"]["200"]["content"]  # type: ignore[no-any-return,index]


def test_pdf_and_html_routes_have_their_real_media_types() -> None:
    document = build_openapi(route_table())
    validate(document)
    for path in ("/master-report/pdf", "/report/pdf"):
        content = _ok(document, path)
        assert list(content) == ["application/pdf"]
        assert content["application/pdf"]["schema"]["type"] == "string"  # type: ignore[index]
    assert list(_ok(document, "/master-report/html")) == ["text/html"]


def test_every_json_artifact_has_a_typed_schema() -> None:
    document = build_openapi(route_table())
    schemas = document["components"]["schemas"]
    expected = {
        "/summary": "SummaryResponse",
        "/agent-audit": "AgentAuditResponse",
        "/master-report": "MasterReportResponse",
        "/report": "EvidenceReportResponse",
        "/passport": "PassportEnvelope",
    }
    for path, name in expected.items():
        assert _ok(document, path)["application/json"]["schema"] == {"$ref": f"#/components/schemas/{name}"}  # type: ignore[index]
        assert schemas[name]["properties"]
    item = schemas["VerificationItem"]["properties"]
    assert {"verificationNeeded", "location", "tool", "actionClass", "severity"} <= set(item)
    jwks = document["paths"]["/.well-known/jwks.json"]["get"]["responses"]["200"]["content"]["application/json"]
    assert jwks["schema"] == {"$ref": "#/components/schemas/Jwks"}


def test_query_values_are_enumerated() -> None:
    document = build_openapi(route_table())

    def parameter(path: str, name: str) -> dict[str, object]:
        operation = document["paths"][BASE + path]["get"]
        return next(p for p in operation["parameters"] if p["name"] == name)["schema"]  # type: ignore[no-any-return]

    assert parameter("/master-report", "detail") == {
        "type": "string",
        "enum": ["bounded", "full"],
        "default": "bounded",
    }
    assert parameter("/agent-audit", "detail")["enum"] == ["bounded", "full"]
    assert parameter("/agent-audit", "page") == {"type": "integer", "minimum": 1, "default": 1}
    assert parameter("/report/pdf", "profile")["enum"] == ["executive", "technical", "auditor"]
    assert parameter("/report/pdf", "pageSize")["enum"] == ["A4", "LETTER"]

"""``GET /api/v1/openapi.json``: the OpenAPI 3.1 document of every route, built once per process."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from assay.backend.web.http_io import JSON_MEDIA_TYPE
from assay.backend.web.routing import RequestContext, RouteSpec


async def openapi_document(request: Request, ctx: RequestContext) -> Response:
    document: bytes = request.app.state.openapi_bytes
    return Response(document, media_type=JSON_MEDIA_TYPE)


ROUTES: list[RouteSpec] = [
    RouteSpec(
        "GET",
        "/api/v1/openapi.json",
        openapi_document,
        operation_id="getOpenApiDocument",
        summary="This OpenAPI 3.1 document",
        description="Documentation, so it needs no API key.",
        tags=("service",),
        public=True,
    ),
]

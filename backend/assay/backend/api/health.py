"""``GET /healthz``: liveness and database reachability, without authentication."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError
from starlette.requests import Request
from starlette.responses import Response

from assay.backend import schemas
from assay.backend.errors import ApiError
from assay.backend.web.http_io import json_response
from assay.backend.web.routing import RequestContext, RouteSpec


async def healthz(request: Request, ctx: RequestContext) -> Response:
    try:
        connection = await ctx.session.connection()
        await connection.execute(text("SELECT 1"))
    except (SQLAlchemyError, OSError) as exc:
        raise ApiError("INTERNAL_ERROR", "The database is not reachable.", status=503, retryable=True) from exc
    return json_response(schemas.Health(status="ok", database="ok"))


ROUTES: list[RouteSpec] = [
    RouteSpec(
        "GET",
        "/healthz",
        healthz,
        operation_id="healthz",
        summary="Liveness and database reachability",
        public=True,
        tags=("service",),
        responses={200: schemas.Health},
        errors=(503,),
    ),
]

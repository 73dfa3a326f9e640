"""The service's failures as HTTP responses: the error envelope of ``assay.backend.errors`` for an
:class:`~assay.backend.errors.ApiError`, Starlette's own 404/405 and any unexpected exception."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Match, Route

from assay.backend.errors import ApiError, database_busy, error_body, internal_error, log_unhandled, not_found


def error_response(error: ApiError) -> JSONResponse:
    """The HTTP response for an :class:`ApiError`."""
    return JSONResponse(
        error_body(error.code, error.message, error.retryable), status_code=error.status, headers=error.headers
    )


async def _api_error_handler(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return error_response(exc)


async def _http_exception_handler(request: Request, exc: Exception) -> Response:
    # Starlette's router raises these for unknown routes (404) and wrong methods (405).
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        return error_response(not_found())
    if exc.status_code == 405:
        # Starlette names the methods of the first route matching the path only; a path served by
        # several routes (GET and POST /api/v1/assurance/runs) allows all of theirs.
        methods = sorted(
            {
                method
                for route in request.app.router.routes
                if isinstance(route, Route) and route.matches(request.scope)[0] is not Match.NONE
                for method in route.methods or ()
            }
        )
        headers = {"Allow": ", ".join(methods)} if methods else {}
        return error_response(
            ApiError("INVALID_REQUEST", "This method is not allowed on this route.", status=405, headers=headers)
        )
    return error_response(ApiError("INVALID_REQUEST", "The request was not accepted.", status=exc.status_code))


def route_of(request: Request) -> str:
    """The matched route's template (``/api/v1/assurance/runs/{runId}``), never the raw path: what logs
    name, so that no id, key or other value sent in a path reaches them."""
    route = request.scope.get("route")
    return getattr(route, "path", None) or "unmatched"


async def _unexpected_exception_handler(request: Request, exc: Exception) -> Response:
    busy = database_busy(exc)
    if busy is not None:
        return error_response(busy)
    log_unhandled(exc, request.method, route_of(request))
    return error_response(internal_error())


def install_error_handlers(app: Starlette) -> None:
    """Route every failure of ``app`` through the envelope."""
    app.add_exception_handler(ApiError, _api_error_handler)
    app.add_exception_handler(HTTPException, _http_exception_handler)
    app.add_exception_handler(Exception, _unexpected_exception_handler)

"""The limit on a request's headers, held by the app itself so that every server and transport keeps it.

uvicorn's h11 refuses headers only while they are still incomplete beyond its buffer limit; headers that
arrive whole in one read pass, whatever their size. This middleware measures the headers of every
request that reaches the app and answers 431 in the error envelope over ``limit`` bytes.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from assay.backend.errors import ApiError
from assay.backend.web.error_handlers import error_response


def header_limit_message(limit: int) -> str:
    """The refusal's message, the same from the app and from the HTTP protocol below it."""
    return f"The request line and headers are larger than the limit of {limit} bytes (max_header_bytes)."


class HeaderLimitMiddleware:
    """431 INVALID_REQUEST when the request line and headers exceed ``limit`` bytes."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            # As on the wire: "name: value\r\n" per header, plus the request line.
            size = len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"") + 16
            size += sum(len(name) + len(value) + 4 for name, value in scope["headers"])
            if size > self.limit:
                error = ApiError("INVALID_REQUEST", header_limit_message(self.limit), status=431)
                await error_response(error)(scope, receive, send)
                return
        await self.app(scope, receive, send)

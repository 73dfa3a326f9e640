"""Times every HTTP request into ``assay_http_request_duration_seconds`` (``assay.backend.metrics``).

The route label is the matched route's template (``/api/v1/assurance/runs/{runId}``), never the raw path,
so ids never become label values and the number of series stays bounded; a path that matches no route
is ``unmatched``.
"""

from __future__ import annotations

import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from assay.backend.metrics import ServiceMetrics


class HttpMetricsMiddleware:
    """Observes method, route template, status and duration of every HTTP request."""

    def __init__(self, app: ASGIApp, metrics: ServiceMetrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def send_and_note(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, send_and_note)
        finally:
            route = scope.get("route")
            template = getattr(route, "path", None) or "unmatched"
            self.metrics.observe_http(scope["method"], template, status, time.perf_counter() - started)

"""Times every HTTP request into ``assay_http_request_duration_seconds`` (``assay.backend.metrics``) and
writes the access log (logger ``assay.access``, INFO: one line per request).

The route is the matched route's template (``/api/v1/assurance/runs/{runId}``), never the raw path, so
ids never become label values and the number of series stays bounded; a path that matches no route is
``unmatched``. The access log names the same template and never the query string: a key or any other
value a client put in a path or a query never reaches a log line (docs/operations.md).
"""

from __future__ import annotations

import logging
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from assay.backend.metrics import ServiceMetrics

access_logger = logging.getLogger("assay.access")


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
            seconds = time.perf_counter() - started
            self.metrics.observe_http(scope["method"], template, status, seconds)
            if access_logger.isEnabledFor(logging.INFO):
                access_logger.info(
                    "%s %s %d %.3fs",
                    scope["method"],
                    template,
                    status,
                    seconds,
                    extra={"method": scope["method"], "route": template, "status": status, "durationSeconds": seconds},
                )

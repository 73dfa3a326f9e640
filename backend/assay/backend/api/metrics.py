"""``GET /metrics``: the Prometheus text format of this process's metrics (``assay.backend.metrics``).

Public like ``/healthz``: it holds counts, durations and route templates, never an id, a key or an
organization's data. An operator who does not want it on the listen address turns it off
(``ASSAY_METRICS=off``: the route is then not mounted) or restricts the path at the proxy.
"""

from __future__ import annotations

from sqlalchemy import func
from sqlmodel import col, select
from starlette.requests import Request
from starlette.responses import Response

from assay.backend.metrics import CONTENT_TYPE
from assay.backend.storage import models
from assay.backend.web.routing import RequestContext, RouteSpec


async def metrics(request: Request, ctx: RequestContext) -> Response:
    # The queue is read at scrape time, so every replica reports the database's state, not its own.
    counts = (await ctx.session.exec(select(models.Run.status, func.count()).group_by(col(models.Run.status)))).all()
    oldest = (
        await ctx.session.exec(select(func.min(models.Run.created_at)).where(col(models.Run.status) == "QUEUED"))
    ).one()
    age = max((ctx.now - oldest).total_seconds(), 0.0) if oldest is not None else 0.0
    registry = ctx.services.metrics
    registry.set_queue({status: int(count) for status, count in counts}, age)
    return Response(registry.exposition(), media_type=CONTENT_TYPE)


ROUTES: list[RouteSpec] = [
    RouteSpec(
        "GET",
        "/metrics",
        metrics,
        operation_id="metrics",
        summary="Prometheus metrics of this service process",
        description=(
            "Runs claimed and finished by this process (by outcome, with durations), runs in the database by "
            "status and the age of the oldest queued one, accepted evidence by channel, and HTTP latencies by "
            "route template. Public on the listen address; ASSAY_METRICS=off removes it."
        ),
        public=True,
        tags=("service",),
        content_type=CONTENT_TYPE,
    ),
]

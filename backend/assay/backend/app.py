"""The Starlette app factory of the assurance service.

``create_app(settings)`` builds the routes from the route table of every module in ``ROUTE_MODULES``;
its lifespan creates the database engine, brings the schema to the newest migration, and publishes a
:class:`~assay.backend.routing.ServiceState` as ``app.state.services`` (also yielded as lifespan state
``services``). A new route family is a new ``api/`` module with ``ROUTES`` added to ``ROUTE_MODULES``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager, suppress
from types import ModuleType

from anyio import CapacityLimiter
from starlette.applications import Starlette

from assay.backend.api import discovery, evaluations, health, legacy, runs, scans
from assay.backend.api import openapi as openapi_routes
from assay.backend.db import create_engine, create_session_factory
from assay.backend.errors import install_error_handlers
from assay.backend.loop_reads import open_loop_reader
from assay.backend.migrations import upgrade_engine
from assay.backend.openapi import build_openapi
from assay.backend.ratelimit import TokenBucketLimiter
from assay.backend.routing import RouteSpec, ServiceState, to_starlette_route
from assay.backend.runs.worker import Worker
from assay.backend.settings import ServiceSettings

logger = logging.getLogger(__name__)

ROUTE_MODULES: tuple[ModuleType, ...] = (health, discovery, scans, legacy, runs, evaluations, openapi_routes)


def route_table(extra: Sequence[RouteSpec] = ()) -> list[RouteSpec]:
    """Every route of the service, in registration order, plus ``extra``."""
    routes: list[RouteSpec] = []
    for module in ROUTE_MODULES:
        routes.extend(module.ROUTES)
    routes.extend(extra)
    seen: set[tuple[str, str]] = set()
    for spec in routes:
        if (spec.method, spec.path) in seen:
            raise ValueError(f"route declared twice: {spec.method} {spec.path}")
        seen.add((spec.method, spec.path))
    return routes


def _report_worker_exit(task: asyncio.Task[None]) -> None:
    # The worker only ends by cancellation; anything else would silently stop runs from executing.
    if not task.cancelled() and task.exception() is not None:
        logger.error("the in-process run worker stopped", exc_info=task.exception())


def create_app(settings: ServiceSettings, *, extra_routes: Sequence[RouteSpec] = ()) -> Starlette:
    """The service as an ASGI app. Nothing touches the database until the lifespan starts."""
    routes = route_table(extra_routes)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[dict[str, ServiceState]]:
        engine = create_engine(settings.database_url, sqlite_busy_timeout_ms=settings.sqlite_busy_timeout_ms)
        reader = None
        try:
            if settings.migrate_on_start:
                await upgrade_engine(engine)
            reader = open_loop_reader(engine)
            services = ServiceState(
                settings=settings,
                engine=engine,
                session_factory=create_session_factory(engine),
                limiter=TokenBucketLimiter(settings.rate_limit),
                scan_slots=CapacityLimiter(settings.max_concurrent_scans),
                reader=reader,
            )
            app.state.services = services
            if not settings.run_worker:
                app.state.run_worker = None
                yield {"services": services}
            else:
                # One in-process worker claims queued runs; run creation wakes it at once.
                # A plain task, not a task group: the lifespan may be entered and left from different
                # tasks (test fixtures, embedded hosts), which a cancel scope does not allow.
                worker = Worker(services.session_factory, settings)
                app.state.run_worker = worker
                task = asyncio.get_running_loop().create_task(worker.run_forever(), name="assay-run-worker")
                task.add_done_callback(_report_worker_exit)
                try:
                    yield {"services": services}
                finally:
                    task.cancel()
                    with suppress(asyncio.CancelledError):
                        await task
        finally:
            if reader is not None:
                reader.close()
            await engine.dispose()

    app = Starlette(routes=[to_starlette_route(spec) for spec in routes], lifespan=lifespan)
    # A trailing-slash redirect would answer outside the error envelope; unknown paths are plain 404s.
    app.router.redirect_slashes = False
    install_error_handlers(app)
    app.state.route_specs = routes
    app.state.openapi_bytes = json.dumps(build_openapi(routes), separators=(",", ":")).encode("utf-8")
    return app

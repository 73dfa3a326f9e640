"""The Starlette app factory of the assurance service.

``create_app(settings)`` builds the routes from the route table of every module in ``ROUTE_MODULES``;
its lifespan creates the database engine, brings the schema to the newest migration, and publishes a
:class:`~assay.backend.web.routing.ServiceState` as ``app.state.services`` (also yielded as lifespan state
``services``). A new route family is a new ``api/`` module with ``ROUTES`` added to ``ROUTE_MODULES``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Coroutine, Sequence
from contextlib import asynccontextmanager, suppress
from types import ModuleType
from typing import Any

from anyio import CapacityLimiter
from starlette.applications import Starlette
from starlette.middleware import Middleware

from assay.backend.api import assessments, discovery, evaluations, health, legacy, runs, scans
from assay.backend.api import metrics as metrics_routes
from assay.backend.api import openapi as openapi_routes
from assay.backend.dashboard.app import dashboard_routes
from assay.backend.intake import routes as intake_routes
from assay.backend.metrics import ServiceMetrics
from assay.backend.runs.worker import Worker
from assay.backend.settings import ServiceSettings
from assay.backend.storage.checkpoints import WalCheckpointer
from assay.backend.storage.db import create_engine, create_session_factory, sqlite_file_of
from assay.backend.storage.loop_reads import open_loop_reader
from assay.backend.storage.migrations import upgrade_engine
from assay.backend.storage.writer import BatchWriter
from assay.backend.web.error_handlers import install_error_handlers
from assay.backend.web.http_metrics import HttpMetricsMiddleware
from assay.backend.web.limits import HeaderLimitMiddleware
from assay.backend.web.openapi import openapi_bytes
from assay.backend.web.ratelimit import TokenBucketLimiter
from assay.backend.web.routing import RouteSpec, ServiceState, to_starlette_route

logger = logging.getLogger(__name__)

ROUTE_MODULES: tuple[ModuleType, ...] = (
    health,
    metrics_routes,
    discovery,
    scans,
    legacy,
    runs,
    evaluations,
    assessments,
    intake_routes,
    openapi_routes,
)


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


def _report_exit(task: asyncio.Task[None]) -> None:
    # Background tasks only end by cancellation; anything else would silently stop runs from executing
    # (the run worker) or let the write-ahead log grow (the checkpointer).
    if not task.cancelled() and task.exception() is not None:
        logger.error("background task %s stopped", task.get_name(), exc_info=task.exception())


def _start(work: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
    task = asyncio.get_running_loop().create_task(work, name=name)
    task.add_done_callback(_report_exit)
    return task


def create_app(settings: ServiceSettings, *, extra_routes: Sequence[RouteSpec] = ()) -> Starlette:
    """The service as an ASGI app. Nothing touches the database until the lifespan starts."""
    routes = route_table(extra_routes)
    if not settings.metrics_enabled:
        routes = [spec for spec in routes if spec.path != "/metrics"]
    # Made here, not in the lifespan: the HTTP middleware observes into it from the first request.
    metrics = ServiceMetrics()

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[dict[str, ServiceState]]:
        database_file = sqlite_file_of(settings.database_url)
        engine = create_engine(
            settings.database_url,
            sqlite_busy_timeout_ms=settings.sqlite_busy_timeout_ms,
            background_checkpoints=database_file is not None,
        )
        reader = None
        writer = BatchWriter(engine, database_file, busy_timeout_ms=settings.sqlite_busy_timeout_ms)
        # Plain tasks, not a task group: the lifespan may be entered and left from different tasks
        # (test fixtures, embedded hosts), which a cancel scope does not allow.
        tasks: list[asyncio.Task[None]] = []
        try:
            if settings.migrate_on_start:
                await upgrade_engine(engine)
            reader = open_loop_reader(engine)
            services = ServiceState(
                metrics=metrics,
                settings=settings,
                engine=engine,
                session_factory=create_session_factory(engine),
                limiter=TokenBucketLimiter(settings.rate_limit),
                scan_slots=CapacityLimiter(settings.max_concurrent_scans),
                reader=reader,
                writer=writer,
            )
            app.state.services = services
            workers: list[Worker] = []
            app.state.run_workers = workers
            if database_file is not None:
                tasks.append(_start(WalCheckpointer(database_file).run_forever(), "assay-wal-checkpointer"))
            for number in range(settings.run_workers):
                # In-process workers claim queued runs; run creation wakes them at once.
                worker = Worker(
                    services.session_factory, settings, changes=services.run_changes, metrics=services.metrics
                )
                workers.append(worker)
                tasks.append(_start(worker.run_forever(), f"assay-run-worker-{number}"))
            if workers:
                logger.info(
                    "%d run worker(s) started",
                    len(workers),
                    extra={"event": "workers.started", "workers": len(workers)},
                )
            yield {"services": services}
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with suppress(asyncio.CancelledError):
                    await task
            if reader is not None:
                reader.close()
            writer.dispose()
            await engine.dispose()

    app = Starlette(
        routes=[*(to_starlette_route(spec) for spec in routes), *dashboard_routes()],
        lifespan=lifespan,
        middleware=[
            Middleware(HttpMetricsMiddleware, metrics=metrics),
            Middleware(HeaderLimitMiddleware, limit=settings.max_header_bytes),
        ],
    )
    # A trailing-slash redirect would answer outside the error envelope; unknown paths are plain 404s.
    app.router.redirect_slashes = False
    install_error_handlers(app)
    app.state.route_specs = routes
    app.state.openapi_bytes = openapi_bytes(routes)
    return app

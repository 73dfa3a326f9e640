"""The route table: every route, its scope and its rate limit declared once, in a :class:`RouteSpec`.

Each module under ``api/`` exposes ``ROUTES: list[RouteSpec]``. :func:`to_starlette_route` wraps a
handler with what every route shares, in this order: authentication, the scope check, the per-key rate
limit, then the handler. Handlers never check scopes themselves. A request's database session is opened
on first use of ``ctx.session`` and closed when the response is ready; short reads declared as
:class:`~assay.backend.storage.loop_reads.PreparedRead` go through ``ctx.fetch_all`` (on the event loop when the
database allows it, else through the session). The OpenAPI document is generated from the same specs
(``openapi.py``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from anyio import CapacityLimiter
from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route

from assay.backend.errors import ApiError, database_busy, internal_error, log_unhandled
from assay.backend.metrics import ServiceMetrics
from assay.backend.runs.changes import RunChanges
from assay.backend.scopes import Scope
from assay.backend.settings import ServiceSettings
from assay.backend.storage.db import SessionFactory
from assay.backend.storage.loop_reads import LoopReader, PreparedRead, Row, fetch_all_in_session
from assay.backend.storage.models import utcnow
from assay.backend.storage.writer import BatchWriter
from assay.backend.web.auth import Principal, authenticate_with, require_scope
from assay.backend.web.error_handlers import error_response
from assay.backend.web.ratelimit import TokenBucketLimiter

logger = logging.getLogger(__name__)

HttpMethod = Literal["GET", "POST", "PUT", "PATCH", "DELETE"]


@dataclass(frozen=True, slots=True)
class ServiceState:
    """What the app's lifespan builds and every request uses (``request.app.state.services``)."""

    settings: ServiceSettings
    engine: AsyncEngine
    session_factory: SessionFactory
    limiter: TokenBucketLimiter
    scan_slots: CapacityLimiter
    # Short reads on the event loop (SQLite files only; see loop_reads.py). None: every read uses a session.
    reader: LoopReader | None = None
    # Runs this process's worker changed, for requests waiting on them (Prefer: wait).
    run_changes: RunChanges = field(default_factory=RunChanges)
    # This process's Prometheus metrics (GET /metrics); intake code counts what it accepts here.
    metrics: ServiceMetrics = field(default_factory=ServiceMetrics)
    # Bulk writes (intake batches) as one synchronous function; None: made from ``engine`` on first use.
    writer: BatchWriter | None = None

    def batch_writer(self) -> BatchWriter:
        return self.writer if self.writer is not None else BatchWriter(self.engine, None, busy_timeout_ms=0)


@dataclass(slots=True)
class RequestContext:
    """Per-request dependencies handed to a handler."""

    services: ServiceState
    principal: Principal | None
    now: datetime
    _session: AsyncSession | None = None

    @property
    def session(self) -> AsyncSession:
        """The request's database session, opened on first use; the route closes it after the handler."""
        if self._session is None:
            self._session = self.services.session_factory()
        return self._session

    async def fetch_all(self, read: PreparedRead, params: Mapping[str, Any]) -> list[Row]:
        """All rows of ``read``: on the event loop when the loop reader can, else through ``session``."""
        reader = self.services.reader
        if reader is not None:
            rows = reader.fetch_all(read, params)
            if rows is not None:
                return rows
        return await fetch_all_in_session(self.session, read, params)

    async def close(self) -> None:
        """Close the session if the request opened one."""
        if self._session is not None:
            session, self._session = self._session, None
            await session.close()

    @property
    def caller(self) -> Principal:
        """The authenticated caller; only routes that require a key may ask."""
        if self.principal is None:
            raise RuntimeError("caller requested on a public route")
        return self.principal

    @property
    def organization_id(self) -> str:
        """The caller's organization, from the key record only."""
        return self.caller.organization_id

    @property
    def settings(self) -> ServiceSettings:
        return self.services.settings


Handler = Callable[[Request, RequestContext], Awaitable[Response]]


@dataclass(frozen=True, slots=True)
class Parameter:
    """A path, query or header parameter, for the OpenAPI document."""

    name: str
    location: Literal["path", "query", "header"]
    description: str
    required: bool = True
    schema: Mapping[str, object] = field(default_factory=lambda: {"type": "string"})


@dataclass(frozen=True, slots=True)
class RouteSpec:
    """One route: the single place that says which scope it needs and whether it is rate limited.

    ``scope=None`` with ``public=False`` needs any valid key; ``public=True`` needs none.
    ``responses`` maps success statuses to their body models; ``errors`` lists the error statuses
    the route can answer (all use the envelope). A route without ``responses`` answers 200 with a body of
    ``content_type`` (a PDF, HTML, the metrics text). ``request_bodies`` maps each media type a route
    takes that no ``request_model`` describes (intake bodies) to its schema, and ``response_media`` the
    media types its success answer may have besides JSON (OTLP's protobuf) to theirs.
    """

    method: HttpMethod
    path: str
    handler: Handler
    operation_id: str
    summary: str
    scope: Scope | None = None
    public: bool = False
    rate_limited: bool = False
    tags: tuple[str, ...] = ()
    description: str = ""
    request_model: type[BaseModel] | None = None
    responses: Mapping[int, type[BaseModel]] = field(default_factory=dict)
    errors: tuple[int, ...] = ()
    parameters: tuple[Parameter, ...] = ()
    content_type: str = "application/json"
    request_bodies: Mapping[str, Mapping[str, object]] = field(default_factory=dict)
    response_media: Mapping[str, Mapping[str, object]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.public and (self.scope is not None or self.rate_limited):
            raise ValueError(f"public route {self.path} cannot require a scope or be rate limited per key")


def _refuse_nul(request: Request) -> None:
    """400 for a U+0000 in a path or query parameter: no id or parameter holds one, and PostgreSQL cannot
    even compare a text value holding it (the query would fail)."""
    values = [*request.path_params.values(), *(v for _, v in request.query_params.multi_items())]
    if any("\x00" in str(value) for value in values):
        raise ApiError("INVALID_REQUEST", "A path or query parameter holds U+0000, which no parameter may contain.")


def to_starlette_route(spec: RouteSpec) -> Route:
    """The Starlette route for ``spec``, with session, authentication, scope and rate limit applied."""

    async def endpoint(request: Request) -> Response:
        services: ServiceState = request.app.state.services
        context = RequestContext(services=services, principal=None, now=utcnow())
        try:
            if not spec.public:
                principal = await authenticate_with(
                    context.fetch_all, request.headers.get("authorization"), context.now
                )
                if spec.scope is not None:
                    require_scope(principal, spec.scope)
                if spec.rate_limited:
                    services.limiter.check(principal.key_id)
                context.principal = principal
            _refuse_nul(request)
            return await spec.handler(request, context)
        except ApiError as exc:
            return error_response(exc)
        except ClientDisconnect:
            # The client went away mid-body (or the server refused its framing and closed): nobody reads an
            # answer, and nothing failed on our side.
            return error_response(ApiError("INVALID_REQUEST", "The request body ended before it was complete."))
        except Exception as exc:
            # The top-level boundary of route code: log everything, answer nothing internal.
            busy = database_busy(exc)
            if busy is not None:
                return error_response(busy)
            log_unhandled(exc, request.method, spec.path)
            return error_response(internal_error())
        finally:
            await context.close()

    return Route(spec.path, endpoint, methods=[spec.method], name=spec.operation_id)

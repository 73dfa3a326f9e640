"""Who is asking: the signed-in user of a request, the redirect to sign-in when nobody is, and the wrapper
every dashboard endpoint runs in (database session, HTML errors instead of the API's JSON envelope)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import quote

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from assay.backend.dashboard import sessions
from assay.backend.dashboard.render import Renderer
from assay.backend.dashboard.security import FormError, read_cookie
from assay.backend.storage.models import utcnow
from assay.backend.web.auth import Principal
from assay.backend.web.routing import RequestContext, ServiceState

logger = logging.getLogger(__name__)

SESSION_COOKIE = "assay_session"


@dataclass(slots=True)
class PageContext:
    """What a dashboard endpoint works with: the database session, the time, the user (None: signed out)."""

    request: Request
    session: AsyncSession
    services: ServiceState
    renderer: Renderer
    now: datetime
    user: sessions.SignedIn | None


def sign_in_redirect(request: Request) -> RedirectResponse:
    """303 to the sign-in page, coming back to this page (path and query only) afterwards."""
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse(f"/dashboard/login?next={quote(target, safe='/')}", status_code=303)


Endpoint = Callable[[PageContext], Awaitable[Response]]


def endpoint(renderer: Renderer, handler: Endpoint) -> Callable[[Request], Awaitable[Response]]:
    """A Starlette endpoint running ``handler`` with a :class:`PageContext`; the user is resolved from the
    session cookie. Form errors become their HTML page; anything unexpected is logged and answers a plain
    500 page that says nothing internal."""

    async def run(request: Request) -> Response:
        services: ServiceState = request.app.state.services
        async with services.session_factory() as session:
            now = utcnow()
            user = None
            try:
                user = await sessions.resolve(session, read_cookie(request, SESSION_COOKIE), now)
                return await handler(PageContext(request, session, services, renderer, now, user))
            except FormError as exc:
                return renderer.error(user, exc.status, "That form could not be used", exc.message)
            except Exception:
                logger.exception("dashboard page %s failed", request.url.path)
                return renderer.error(user, 500, "Something went wrong", "The page could not be shown. Try again.")

    return run


def signed_in_only(handler: Endpoint) -> Endpoint:
    """``handler`` for a signed-in user; everyone else is sent to sign in."""

    async def run(page: PageContext) -> Response:
        if page.user is None:
            return sign_in_redirect(page.request)
        return await handler(page)

    return run


def acting_in(page: PageContext, organization_id: str, scopes: frozenset[str]) -> RequestContext:
    """A request context of the service acting for the signed-in user in ``organization_id`` (the caller
    checked the user's membership and role there), so the dashboard does each thing the way the API does
    it. Its key id ``dashboard:<userId>`` is what a run started from a page records as its starter."""
    assert page.user is not None
    principal = Principal(
        key_id=f"dashboard:{page.user.user_id}",
        organization_id=organization_id,
        scopes=scopes,
        environment="live",
    )
    return RequestContext(services=page.services, principal=principal, now=page.now)

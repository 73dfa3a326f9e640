"""The dashboard's routes, mounted beside the API by ``web/app.py``: server-rendered pages under
``/dashboard`` that need a signed-in user (docs/dashboard.md). Every page carries the security headers of
``security.SecurityHeaders``; a page that is missing, and one of an organization the user is not in,
answer the same 404."""

from __future__ import annotations

from collections.abc import Sequence

from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from assay.backend.dashboard import (
    account,
    binders_pages,
    home,
    join,
    keys,
    pages,
    people,
    risks,
    runs,
    sources_pages,
    systems_pages,
    targets_pages,
)
from assay.backend.dashboard.access import Endpoint, PageContext, endpoint, signed_in_only
from assay.backend.dashboard.render import STATIC_DIR, STATIC_URL, Renderer
from assay.backend.dashboard.security import SecurityHeaders

_ALL_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")
# The provisioning pages (docs/dashboard.md, "Provisioning"): path, handler, methods.
PROVISIONING = [*systems_pages.PAGES, *sources_pages.PAGES, *targets_pages.PAGES, *binders_pages.PAGES]
_ORG = "/dashboard/organizations/{organizationId}"


async def _not_found(page: PageContext) -> Response:
    return page.renderer.not_found(page.user)


def dashboard_routes() -> list[BaseRoute]:
    """The dashboard's routes (each app gets its own template environment)."""
    renderer = Renderer()
    headers = [Middleware(SecurityHeaders)]
    stylesheet = (STATIC_DIR / "dashboard.css").read_bytes()

    def page(path: str, handler: Endpoint, methods: Sequence[str] = ("GET",), *, public: bool = False) -> Route:
        run = handler if public else signed_in_only(handler)
        return Route(path, endpoint(renderer, run), methods=list(methods), middleware=headers)

    async def css(request: Request) -> Response:
        return Response(stylesheet, media_type="text/css", headers={"Cache-Control": "public, max-age=3600"})

    return [
        Route(STATIC_URL, css, methods=["GET"], middleware=headers),
        page("/dashboard/login", account.login_form, public=True),
        page("/dashboard/login", account.login, ("POST",), public=True),
        page("/dashboard/logout", account.logout, ("POST",), public=True),
        page("/dashboard", home.home),
        *(page(path, handler) for path, handler in pages.PAGES),
        *(page(path, handler, methods) for path, handler, methods in PROVISIONING),
        page(f"{_ORG}/keys", keys.keys_page),
        page(f"{_ORG}/keys", keys.create_key, ("POST",)),
        page(f"{_ORG}/keys/{{keyId}}/revoke", keys.revoke_form),
        page(f"{_ORG}/keys/{{keyId}}/revoke", keys.revoke_key, ("POST",)),
        page(f"{_ORG}/people", people.people_page),
        page(f"{_ORG}/people/{{userId}}/role", people.change_role, ("POST",)),
        page(f"{_ORG}/people/{{userId}}/disable", people.disable_member, ("POST",)),
        page(f"{_ORG}/people/{{userId}}/enable", people.enable_member, ("POST",)),
        page(f"{_ORG}/people/invitations", people.invite, ("POST",)),
        page(f"{_ORG}/people/invitations/{{invitationId}}/revoke", people.revoke_invitation, ("POST",)),
        # An invitation link is opened by someone without an account yet.
        page("/dashboard/invitations/{token}", join.join_form, public=True),
        page("/dashboard/invitations/{token}", join.join, ("POST",), public=True),
        *(page(path, handler, methods) for path, handler, methods in risks.PAGES),
        page("/dashboard/systems/{aiSystemId}/runs", runs.start_run, ("POST",)),
        # Anything else under /dashboard: sign in first (nothing is revealed to a stranger), then 404.
        page("/dashboard/{rest:path}", _not_found, _ALL_METHODS),
    ]

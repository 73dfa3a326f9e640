"""Sign-in and sign-out (``/dashboard/login``, ``/dashboard/logout``)."""

from __future__ import annotations

import logging
from collections.abc import Mapping

from anyio import to_thread
from starlette.responses import RedirectResponse, Response

from assay.backend.dashboard import sessions, users
from assay.backend.dashboard.access import SESSION_COOKIE, PageContext
from assay.backend.dashboard.security import (
    CSRF_FIELD,
    clear_cookie,
    cross_site,
    read_cookie,
    read_form,
    safe_next,
    set_cookie,
    tokens_match,
)

logger = logging.getLogger(__name__)

LOGIN_CSRF_COOKIE = "assay_login_csrf"
_BAD_CREDENTIALS = "That email and password do not match an active account."
_THROTTLED = "Too many failed sign-ins. Wait 15 minutes, then try again."
_STALE_FORM = "This sign-in form has expired. Sign in again."


def pre_session_token(page: PageContext) -> tuple[str, bool]:
    """The CSRF token of a form shown before sign-in (sign-in, accepting an invitation): the browser's
    ``assay_login_csrf`` cookie, or a new one (True: the caller sets the cookie with :func:`keep_token`)."""
    token = read_cookie(page.request, LOGIN_CSRF_COOKIE)
    if token is None or not 40 <= len(token) <= 64:
        return sessions.new_token(), True
    return token, False


def keep_token(response: Response, page: PageContext, token: str, fresh: bool) -> None:
    if fresh:
        set_cookie(response, page.request, LOGIN_CSRF_COOKIE, token)


def pre_session_form_valid(page: PageContext, form: Mapping[str, str]) -> bool:
    """Whether a form shown before sign-in came back with the browser's own pre-session token."""
    return tokens_match(read_cookie(page.request, LOGIN_CSRF_COOKIE), form.get(CSRF_FIELD))


def signed_in_response(page: PageContext, token: str, target: str) -> Response:
    """303 to ``target`` with the new session's cookie; the pre-session token is spent."""
    response = RedirectResponse(target, status_code=303)
    set_cookie(response, page.request, SESSION_COOKIE, token, max_age=int(sessions.LIFETIME.total_seconds()))
    clear_cookie(response, page.request, LOGIN_CSRF_COOKIE)
    return response


def _login_page(
    page: PageContext, *, status: int = 200, error: str | None = None, email: str = "", next_target: str | None = None
) -> Response:
    token, fresh = pre_session_token(page)
    response = page.renderer.page(
        "login.html",
        user=None,
        status=status,
        error=error,
        email=email,
        csrf_token=token,
        next=safe_next(next_target if next_target is not None else page.request.query_params.get("next")),
    )
    keep_token(response, page, token, fresh)
    return response


async def login_form(page: PageContext) -> Response:
    # Shown also to a signed-in browser (to switch accounts): signing in ends the session it had.
    return _login_page(page)


async def login(page: PageContext) -> Response:
    request = page.request
    if cross_site(request):
        return page.renderer.error(None, 403, "Refused", "A sign-in sent from another site is refused.")
    form = await read_form(request)
    if not pre_session_form_valid(page, form):
        return _login_page(page, status=403, error=_STALE_FORM, next_target=form.get("next"))
    email = users.normalise_email(form.get("email", ""))[: users.MAX_EMAIL]
    password = form.get("password", "")
    client = request.client.host if request.client is not None else "unknown"
    if await sessions.throttled(page.session, email, client, page.now):
        return _login_page(page, status=429, error=_THROTTLED, email=email, next_target=form.get("next"))
    user = await users.user_by_email(page.session, email) if email else None
    valid = 0 < len(password) <= users.MAX_PASSWORD and await to_thread.run_sync(
        users.check_password, user.password_hash if user is not None else None, password
    )
    if user is None or not valid or user.disabled_at is not None:
        await sessions.record_failure(page.session, email, client, page.now)
        await page.session.commit()
        logger.info("dashboard sign-in refused", extra={"event": "dashboard.signin.refused"})
        return _login_page(page, status=401, error=_BAD_CREDENTIALS, email=email, next_target=form.get("next"))
    if users.needs_rehash(user.password_hash):
        user.password_hash = await to_thread.run_sync(users.hash_password, password)
        page.session.add(user)
    # A new session whatever cookie came in: the one sent before sign-in (perhaps planted) ends here.
    await sessions.end_session(page.session, read_cookie(request, SESSION_COOKIE))
    await sessions.clear_failures(page.session, email)
    token, _ = await sessions.start_session(page.session, user.id, page.now)
    await page.session.commit()
    logger.info("dashboard sign-in", extra={"event": "dashboard.signin", "userId": user.id})
    return signed_in_response(page, token, safe_next(form.get("next")))


async def logout(page: PageContext) -> Response:
    request = page.request
    if page.user is None:
        return RedirectResponse("/dashboard/login", status_code=303)
    if cross_site(request):
        return page.renderer.error(page.user, 403, "Refused", "A sign-out sent from another site is refused.")
    form = await read_form(request)
    if not tokens_match(page.user.csrf_token, form.get(CSRF_FIELD)):
        return page.renderer.error(
            page.user, 403, "Refused", "This form has expired or did not come from this page. Reload and try again."
        )
    await sessions.end_session(page.session, read_cookie(request, SESSION_COOKIE))
    await page.session.commit()
    response = RedirectResponse("/dashboard/login", status_code=303)
    clear_cookie(response, request, SESSION_COOKIE)
    return response

"""Accepting an invitation (``/dashboard/invitations/{token}``): the link shows a form to choose a password
(or, when the email already has an account, to confirm its password), then signs the person in with a new
session, as sign-in does. An unknown, used, revoked or expired link answers one page (410) that does not say
which. The form carries the pre-sign-in CSRF token (nobody can make a visitor accept an invitation for an
account whose password the sender chose); a wrong password of an existing account counts as a failed sign-in
and is throttled like one."""

from __future__ import annotations

import logging

from anyio import to_thread
from starlette.responses import Response

from assay.backend.dashboard import account, invitations, manage, sessions, urls, users
from assay.backend.dashboard.access import SESSION_COOKIE, PageContext
from assay.backend.dashboard.security import cross_site, read_cookie, read_form
from assay.backend.provisioning import ProvisioningError
from assay.backend.storage.models import DashboardInvitation, DashboardUser, Organization, new_id

logger = logging.getLogger(__name__)

_GONE = (
    "This invitation link cannot be used: it has expired, was already used, was withdrawn, or never existed. "
    "Ask an owner or admin of the organization for a new link."
)


def _gone(page: PageContext) -> Response:
    return page.renderer.error(page.user, 410, "Invitation not valid", _GONE)


async def _form(
    page: PageContext, invitation: DashboardInvitation, existing: bool, *, status: int = 200, error: str | None = None
) -> Response:
    org = await page.session.get(Organization, invitation.organization_id)
    token, fresh = account.pre_session_token(page)
    response = page.renderer.page(
        "join.html",
        user=None,
        status=status,
        error=error,
        org_name=org.name if org is not None else invitation.organization_id,
        role=invitation.role,
        email=invitation.email,
        existing=existing,
        min_length=users.MIN_PASSWORD,
        csrf_token=token,
        action=urls.invitation(page.request.path_params["token"]),
    )
    account.keep_token(response, page, token, fresh)
    return response


async def join_form(page: PageContext) -> Response:
    invitation = await invitations.usable(page.session, page.request.path_params["token"], page.now)
    if invitation is None:
        return _gone(page)
    existing = await users.user_by_email(page.session, invitation.email)
    if existing is not None and existing.disabled_at is not None:
        return _gone(page)
    return await _form(page, invitation, existing is not None)


async def join(page: PageContext) -> Response:
    request = page.request
    if cross_site(request):
        return page.renderer.error(None, 403, "Refused", "A form sent from another site is refused.")
    form = await read_form(request)
    invitation = await invitations.usable(page.session, request.path_params["token"], page.now)
    if invitation is None:
        return _gone(page)
    user = await users.user_by_email(page.session, invitation.email)
    if user is not None and user.disabled_at is not None:
        return _gone(page)
    existing = user is not None
    if not account.pre_session_form_valid(page, form):
        return await _form(page, invitation, existing, status=403, error="This form has expired. Try again.")
    password = form.get("password", "")
    if user is None:
        problem = users.password_problem(password)
        if problem is not None:
            return await _form(page, invitation, existing, status=400, error=manage.sentence(problem))
        if password != form.get("password_again", ""):
            return await _form(page, invitation, existing, status=400, error="The two passwords differ.")
        user = DashboardUser(
            id=new_id("usr"),
            email=invitation.email,
            password_hash=await to_thread.run_sync(users.hash_password, password),
        )
        page.session.add(user)
        await page.session.flush()
    else:
        client = request.client.host if request.client is not None else "unknown"
        if await sessions.throttled(page.session, user.email, client, page.now):
            return await _form(
                page,
                invitation,
                existing,
                status=429,
                error="Too many failed attempts. Wait 15 minutes, then try again.",
            )
        valid = 0 < len(password) <= users.MAX_PASSWORD and await to_thread.run_sync(
            users.check_password, user.password_hash, password
        )
        if not valid:
            await sessions.record_failure(page.session, user.email, client, page.now)
            await page.session.commit()
            return await _form(
                page, invitation, existing, status=401, error="That is not the password of this account."
            )
        await sessions.clear_failures(page.session, user.email)
    try:
        await invitations.accept(page.session, invitation, user, page.now)
    except ProvisioningError:
        return _gone(page)  # used meanwhile (nothing is committed)
    # A new session whatever cookie came in, as at sign-in.
    await sessions.end_session(page.session, read_cookie(request, SESSION_COOKIE))
    token, _ = await sessions.start_session(page.session, user.id, page.now)
    await page.session.commit()
    logger.info(
        "dashboard invitation accepted",
        extra={"event": "dashboard.invitation.accepted", "invitationId": invitation.id, "userId": user.id},
    )
    return account.signed_in_response(page, token, urls.PREFIX)

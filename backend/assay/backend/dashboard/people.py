"""The people page of an organization (``/dashboard/organizations/{organizationId}/people``): its members
with their role and state, and the invitations still open. Owners and admins change roles, disable and
enable members, issue invitation links (shown once, on the answer to the form) and revoke them; the rules
(only an owner makes or manages owners, the last active owner stays, nobody disables themselves) are in
``users`` and ``invitations``, so the command line and the page refuse the same things."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from starlette.responses import RedirectResponse, Response

from assay.backend.dashboard import invitations, manage, urls, users
from assay.backend.dashboard.access import Endpoint, PageContext
from assay.backend.provisioning import ProvisioningError
from assay.backend.roles import ROLES
from assay.backend.storage.models import Organization

logger = logging.getLogger(__name__)

# ?done=... after a change: fixed words, nothing from the address reaches the page.
NOTICES = {
    "role": "The role is changed.",
    "disabled": "The member is disabled in this organization: their pages of it closed at once.",
    "enabled": "The member is enabled again.",
    "revoked": "The invitation is revoked: its link no longer works.",
}


def _base_url(page: PageContext) -> str:
    return str(page.request.base_url).rstrip("/")


async def _people_page(
    page: PageContext,
    org: Organization,
    *,
    status: int = 200,
    error: str | None = None,
    issued: dict[str, Any] | None = None,
    email: str = "",
    role: str = "member",
) -> Response:
    assert page.user is not None
    actor = page.user.roles.get(org.id, "viewer")
    members = await users.members(page.session, org.id)
    pending = await invitations.pending(page.session, org.id, page.now)
    done = page.request.query_params.get("done", "") if page.request.method == "GET" else ""
    return page.renderer.page(
        "people.html",
        user=page.user,
        status=status,
        org=org,
        manage=manage.can_manage(page, org.id),
        grantable=[r for r in ROLES if r != "owner" or actor == "owner"],
        members=[
            {
                "user_id": m.user_id,
                "email": m.email,
                "role": m.role,
                "state": "active" if m.active else ("account disabled" if m.account_disabled else "disabled"),
                "disabled_here": m.disabled_here,
                "joined": urls.display_time(m.joined_at),
                "is_self": m.user_id == page.user.user_id,
                "managed": actor == "owner" or m.role != "owner",
                "base": f"{urls.people(org.id)}/{m.user_id}",
            }
            for m in members
        ],
        invitations=[
            {
                "id": i.id,
                "email": i.email,
                "role": i.role,
                "issued_by": i.issued_by,
                "expires": urls.display_time(i.expires_at),
                "revoke": f"{urls.people(org.id)}/invitations/{i.id}/revoke",
            }
            for i in pending
        ],
        error=error,
        notice=NOTICES.get(done),
        issued=issued,
        email=email,
        chosen_role=role,
        invite_action=f"{urls.people(org.id)}/invitations",
        keys_url=urls.keys(org.id),
        people=urls.people(org.id),
        systems_url=urls.organization_systems(org.id),
    )


async def people_page(page: PageContext) -> Response:
    org = await manage.member_organization(page)
    if org is None:
        return page.renderer.not_found(page.user)
    return await _people_page(page, org)


async def _refused(
    page: PageContext, org: Organization, exc: Exception, *, email: str = "", role: str = "member"
) -> Response:
    # Nothing was written: every rule is checked before a change (the session ends without a commit).
    if isinstance(exc, users.NotAllowedError):
        return page.renderer.error(page.user, 403, "Not allowed", exc.message)
    assert isinstance(exc, ProvisioningError)
    if exc.code == "NOT_FOUND":
        return page.renderer.not_found(page.user)
    return await _people_page(
        page, org, status=manage.STATUS_BY_CODE[exc.code], error=manage.sentence(exc.message), email=email, role=role
    )


@manage.organization_change("manage people")
async def change_role(page: PageContext, org: Organization, form: Mapping[str, str]) -> Response:
    assert page.user is not None
    target = page.request.path_params["userId"]
    try:
        await users.change_role(page.session, org.id, page.user.roles[org.id], target, form.get("role", ""))
    except (users.NotAllowedError, ProvisioningError) as exc:
        return await _refused(page, org, exc)
    await page.session.commit()
    logger.info("dashboard role changed", extra={"event": "dashboard.member.role", "userId": page.user.user_id})
    return RedirectResponse(f"{urls.people(org.id)}?done=role", status_code=303)


def _set_disabled(disabled: bool) -> Endpoint:
    @manage.organization_change("manage people")
    async def run(page: PageContext, org: Organization, form: Mapping[str, str]) -> Response:
        assert page.user is not None
        target = page.request.path_params["userId"]
        try:
            await users.set_member_disabled(
                page.session, org.id, page.user.roles[org.id], page.user.user_id, target, disabled, page.now
            )
        except (users.NotAllowedError, ProvisioningError) as exc:
            return await _refused(page, org, exc)
        await page.session.commit()
        done = "disabled" if disabled else "enabled"
        logger.info(
            "dashboard member %s", done, extra={"event": f"dashboard.member.{done}", "userId": page.user.user_id}
        )
        return RedirectResponse(f"{urls.people(org.id)}?done={done}", status_code=303)

    return run


disable_member = _set_disabled(True)
enable_member = _set_disabled(False)


@manage.organization_change("manage people")
async def invite(page: PageContext, org: Organization, form: Mapping[str, str]) -> Response:
    assert page.user is not None
    email = users.normalise_email(form.get("email", ""))[: users.MAX_EMAIL + 1]
    role = form.get("role", "")
    try:
        issued = await invitations.issue(
            page.session,
            org.id,
            email,
            role,
            issued_by=page.user.email,
            actor_role=page.user.roles[org.id],
            now=page.now,
        )
    except (users.NotAllowedError, ProvisioningError) as exc:
        return await _refused(page, org, exc, email=email, role=role if role in ROLES else "member")
    await page.session.commit()
    logger.info(
        "dashboard invitation issued",
        extra={"event": "dashboard.invitation.issued", "invitationId": issued.record.id, "userId": page.user.user_id},
    )
    link = _base_url(page) + urls.invitation(issued.token)
    shown = {
        "email": issued.record.email,
        "role": issued.record.role,
        "link": link,
        "expires": urls.display_time(issued.record.expires_at),
    }
    return await _people_page(page, org, status=201, issued=shown)


@manage.organization_change("manage people")
async def revoke_invitation(page: PageContext, org: Organization, form: Mapping[str, str]) -> Response:
    try:
        await invitations.revoke(page.session, org.id, page.request.path_params["invitationId"], page.now)
    except ProvisioningError as exc:
        return await _refused(page, org, exc)
    await page.session.commit()
    return RedirectResponse(f"{urls.people(org.id)}?done=revoked", status_code=303)

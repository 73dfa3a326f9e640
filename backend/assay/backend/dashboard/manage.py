"""What every provisioning page shares: the AI System named in the path (shown only to a member of its
organization), the checks of a form that changes something (same site, the session's CSRF token, an owner
or admin of the organization), and the page a refused change answers with.

The rules of each change live in the backend functions the pages call (``provisioning``, ``systems``,
``runtime.targets``, ``intake.binders``), the same ones ``assay admin`` calls; a page adds only what a
browser needs (which fields, which words).
"""

from __future__ import annotations

from collections.abc import Mapping

from starlette.responses import RedirectResponse, Response

from assay.backend.dashboard.access import PageContext
from assay.backend.dashboard.security import CSRF_FIELD, cross_site, read_form, tokens_match
from assay.backend.provisioning import ProvisioningError
from assay.backend.roles import Role
from assay.backend.storage.models import AiSystem, Organization

# Owners and admins provision (systems, sources, runtime targets, binders); members and viewers read.
MANAGES: Role = "admin"
# A git remote that cannot be fetched: the remote's fault (502) or too slow (504); a wrong credential, a
# missing branch or a repository over the size bound is the form's (400, the default).
STATUS_BY_CODE = {"NOT_FOUND": 404, "INVALID": 400, "CONFLICT": 409, "UNREACHABLE": 502, "FAILED": 502, "TIMEOUT": 504}
MAX_FIELD = 4096


async def member_system(page: PageContext) -> AiSystem | None:
    """The AI System named in the path when the user is a member of its organization, else None (the one
    404 for missing and foreign systems)."""
    assert page.user is not None
    system = await page.session.get(AiSystem, page.request.path_params["aiSystemId"])
    if system is None or not page.user.member_of(system.organization_id):
        return None
    return system


async def member_organization(page: PageContext) -> Organization | None:
    """The organization named in the path (``organizationId``) when the user is a member of it, else None
    (the one 404 for missing and foreign organizations)."""
    assert page.user is not None
    org = await page.session.get(Organization, page.request.path_params["organizationId"])
    if org is None or not page.user.member_of(org.id):
        return None
    return org


# Who holds at least a role, in words ("Only ... can").
_HOLDERS: dict[Role, str] = {"owner": "owners", "admin": "owners and admins", "member": "members, admins and owners"}


def role_refused(page: PageContext, organization_id: str, action: str, needs: Role = MANAGES) -> Response:
    """The 403 page for a member whose role cannot ``action`` ("Only owners and admins can ...", or who
    else holds ``needs``)."""
    assert page.user is not None
    role = page.user.roles.get(organization_id, "")
    holders = _HOLDERS.get(needs, f"{needs}s")
    return page.renderer.error(
        page.user,
        403,
        f"Only {holders} can do this",
        f"Only {holders} of this organization can {action}. Your role is {role}: you can read these "
        "pages; ask an owner or admin to make the change.",
    )


def can_manage(page: PageContext, organization_id: str) -> bool:
    assert page.user is not None
    return page.user.can(organization_id, MANAGES)


async def change_form(
    page: PageContext, organization_id: str, action: str, needs: Role = MANAGES
) -> Mapping[str, str] | Response:
    """The fields of a POST that changes something in the organization, or the 403 page refusing it: sent
    from another site, without this session's CSRF token, or by someone without the role ``needs`` there
    (owner or admin unless said). ``action`` completes "Only owners and admins can ..."."""
    assert page.user is not None
    if cross_site(page.request):
        return page.renderer.error(page.user, 403, "Refused", "A change sent from another site is refused.")
    form = await read_form(page.request)
    if not tokens_match(page.user.csrf_token, form.get(CSRF_FIELD)):
        return page.renderer.error(
            page.user, 403, "Refused", "This form has expired or did not come from this page. Reload and try again."
        )
    if not page.user.can(organization_id, needs):
        return role_refused(page, organization_id, action, needs)
    too_long = next((name for name, value in form.items() if len(value) > MAX_FIELD), None)
    if too_long is not None:
        return page.renderer.error(
            page.user, 400, "That form could not be used", f"A field is longer than {MAX_FIELD} characters."
        )
    return form


def field(form: Mapping[str, str], name: str) -> str | None:
    """A text field without surrounding blanks; None when absent or blank."""
    value = form.get(name, "").strip()
    return value or None


async def refused(page: PageContext, exc: ProvisioningError) -> int:
    """Undo whatever the failed change wrote, and the status its page answers with."""
    await page.session.rollback()
    return STATUS_BY_CODE.get(exc.code, 400)


def done(location: str) -> Response:
    """After a change: back to the page (303), so a reload does not send the form again."""
    return RedirectResponse(location, status_code=303)


def sentence(message: str) -> str:
    """A backend message (written for a terminal) as a sentence on a page."""
    return message[:1].upper() + message[1:] + ("" if message.endswith(".") else ".")

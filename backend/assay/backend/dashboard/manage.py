"""What every provisioning page shares: the AI System named in the path (shown only to a member of its
organization), the checks of a form that changes something (same site, the session's CSRF token, an owner
or admin of the organization), and the page a refused change answers with. ``system_change`` and
``organization_change`` put these around a change, so each endpoint holds only the change itself.

The rules of each change live in the backend functions the pages call (``provisioning``, ``systems``,
``runtime.targets``, ``intake.binders``), the same ones ``assay admin`` calls; a page adds only what a
browser needs (which fields, which words).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Protocol, TypeVar

from starlette.responses import RedirectResponse, Response

from assay.backend.dashboard.access import Endpoint, PageContext
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


# What a change is made to: an AI System (its pages) or an organization (its lists, its people).
Owner = TypeVar("Owner", AiSystem, Organization)
# A change once its owner is found and its form has passed the checks: the answer (a redirect, a page).
Change = Callable[[PageContext, Owner, Mapping[str, str]], Awaitable[Response]]


class FormPage(Protocol):
    """The page a form is on, shown again for a refused change: its status, the refusal as a sentence and
    the fields to fill back in (None: an empty form)."""

    def __call__(
        self, page: PageContext, *, status: int, error: str, values: Mapping[str, str] | None
    ) -> Awaitable[Response]: ...


def _organization_id(owner: AiSystem | Organization) -> str:
    return owner.organization_id if isinstance(owner, AiSystem) else owner.id


def _change(
    find: Callable[[PageContext], Awaitable[Owner | None]],
    action: str,
    again: FormPage | None,
    refill: bool,
    needs: Role,
) -> Callable[[Change[Owner]], Endpoint]:
    def wrap(change: Change[Owner]) -> Endpoint:
        async def run(page: PageContext) -> Response:
            owner = await find(page)
            if owner is None:
                return page.renderer.not_found(page.user)
            form = await change_form(page, _organization_id(owner), action, needs)
            if isinstance(form, Response):
                return form
            try:
                return await change(page, owner, form)
            except ProvisioningError as exc:
                if again is None:
                    raise
                status = await refused(page, exc)
                return await again(page, status=status, error=sentence(exc.message), values=form if refill else None)

        return run

    return wrap


def system_change(
    action: str, again: FormPage | None = None, *, refill: bool = True, needs: Role = MANAGES
) -> Callable[[Change[AiSystem]], Endpoint]:
    """A POST endpoint that changes something of the AI System in the path, made of ``change(page, system,
    form)``: a system the user is not a member of is the 404 page, a form refused by :func:`change_form`
    (``action``, ``needs``) its 403 or 400 page. With ``again``, a ``ProvisioningError`` undoes what the
    change wrote and answers ``again`` with the refusal's status and sentence, and the form's fields to
    fill back in unless ``refill`` is False (a button's form has none to keep)."""
    return _change(member_system, action, again, refill, needs)


def organization_change(
    action: str, again: FormPage | None = None, *, refill: bool = True, needs: Role = MANAGES
) -> Callable[[Change[Organization]], Endpoint]:
    """:func:`system_change` for the organization in the path (``organizationId``)."""
    return _change(member_organization, action, again, refill, needs)

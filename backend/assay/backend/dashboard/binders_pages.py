"""The evidence binders of an AI System: their list (adapter, classes, active or not), and for owners and
admins the forms that create one bound to the system and deactivate one (docs/dashboard.md,
"Provisioning"; docs/intake.md for what a binder is). Binders are never deleted: a deactivated binder
refuses intake and keeps its accepted batches."""

from __future__ import annotations

from collections.abc import Mapping

from sqlmodel import col, select
from starlette.responses import Response

from assay.backend import provisioning
from assay.backend.dashboard import manage, urls
from assay.backend.dashboard.access import Endpoint, PageContext
from assay.backend.dashboard.systems_pages import system_page
from assay.backend.intake import binders
from assay.backend.intake.adapters import ADAPTERS
from assay.backend.storage.models import AiSystem, EvidenceBinder

FORM_FIELDS = (
    "source_system",
    "adapter",
    "domain",
    "authority_role",
    "max_record_bytes",
    "require_event_id",
    "line_regex",
)


async def _binders_page(
    page: PageContext, *, status: int = 200, error: str | None = None, values: Mapping[str, str] | None = None
) -> Response:
    system = await manage.member_system(page)
    if system is None:
        return page.renderer.not_found(page.user)
    base = urls.system_binders(system.id)
    rows = (
        await page.session.exec(
            select(EvidenceBinder)
            .where(EvidenceBinder.organization_id == system.organization_id, EvidenceBinder.ai_system_id == system.id)
            .order_by(col(EvidenceBinder.created_at), col(EvidenceBinder.id))
        )
    ).all()
    unbound = (
        await page.session.exec(
            select(EvidenceBinder.id).where(
                EvidenceBinder.organization_id == system.organization_id,
                col(EvidenceBinder.ai_system_id).is_(None),
                col(EvidenceBinder.active),
            )
        )
    ).all()
    listed = [
        {
            "row": row,
            "line_regex": (row.mapping or {}).get("lineRegex"),
            "deactivate": f"{base}/{row.id}/deactivate" if row.active else None,
        }
        for row in rows
    ]
    return await system_page(
        page,
        system,
        "binders.html",
        "binders",
        status=status,
        binders=listed,
        unbound=len(unbound),
        adapters=sorted(ADAPTERS.values(), key=lambda spec: spec.id),
        action=base,
        error=error,
        values={name: (values or {}).get(name, "") for name in FORM_FIELDS},
    )


async def binders_page(page: PageContext) -> Response:
    return await _binders_page(page)


def _max_record_bytes(text: str | None) -> int | None:
    if text is None:
        return None
    if not text.isascii() or not text.isdigit() or len(text) > 9:
        raise provisioning.ProvisioningError(
            "INVALID", f"the largest record must be a whole number of bytes, 1 to {binders.MAX_RECORD_BYTES_CEILING}"
        )
    return int(text)


@manage.system_change("create evidence binders", _binders_page)
async def create_binder(page: PageContext, system: AiSystem, form: Mapping[str, str]) -> Response:
    await binders.create_binder(
        page.session,
        system.organization_id,
        source_system=form.get("source_system", ""),
        adapter_id=form.get("adapter", ""),
        ai_system_id=system.id,
        domain=manage.field(form, "domain"),
        authority_role=manage.field(form, "authority_role"),
        max_record_bytes=_max_record_bytes(manage.field(form, "max_record_bytes")),
        require_event_id=form.get("require_event_id") == "on",
        line_regex=manage.field(form, "line_regex"),
    )
    await page.session.commit()
    return manage.done(urls.system_binders(system.id))


@manage.system_change("deactivate evidence binders")
async def deactivate_binder(page: PageContext, system: AiSystem, form: Mapping[str, str]) -> Response:
    binder = await page.session.get(EvidenceBinder, page.request.path_params["binderId"])
    if binder is None or binder.ai_system_id != system.id or binder.organization_id != system.organization_id:
        return page.renderer.not_found(page.user)
    await binders.deactivate_binder(page.session, binder.id)
    await page.session.commit()
    return manage.done(urls.system_binders(system.id))


PAGES: list[tuple[str, Endpoint, tuple[str, ...]]] = [
    ("/dashboard/systems/{aiSystemId}/binders", binders_page, ("GET",)),
    ("/dashboard/systems/{aiSystemId}/binders", create_binder, ("POST",)),
    ("/dashboard/systems/{aiSystemId}/binders/{binderId}/deactivate", deactivate_binder, ("POST",)),
]

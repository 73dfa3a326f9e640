"""AI Systems: an organization's list with the form that creates one, and a system's settings page (edit,
retire). Owners and admins change; every member reads (docs/dashboard.md, "Provisioning")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlmodel import col, select
from starlette.responses import Response

from assay.backend import provisioning, systems
from assay.backend.dashboard import manage, urls
from assay.backend.dashboard.access import Endpoint, PageContext
from assay.backend.storage.models import AiSystem, Organization

NAME_FIELDS = ("name", "system_type", "criticality")


def system_links(system: AiSystem) -> dict[str, str]:
    """The pages of one AI System, for its navigation."""
    return {
        "workspace": urls.system_workspace(system.id),
        "sources": urls.system_sources(system.id),
        "targets": urls.system_targets(system.id),
        "binders": urls.system_binders(system.id),
        "settings": urls.system_settings(system.id),
        "risks": urls.system_risks(system.id),
        "retire": urls.system_retire(system.id),
        "organization": urls.organization_systems(system.organization_id),
    }


async def system_page(
    page: PageContext, system: AiSystem, template: str, tab: str, *, status: int = 200, **context: Any
) -> Response:
    """One tab of an AI System's pages: what every tab's heading shows (the organization's name, the tabs,
    which one is current, whether this user manages the system, whether it is retired), and the tab's own
    ``context``."""
    organization = await page.session.get(Organization, system.organization_id)
    return page.renderer.page(
        template,
        user=page.user,
        status=status,
        system=system,
        organization=organization.name if organization is not None else system.organization_id,
        links=system_links(system),
        current=tab,
        manage=manage.can_manage(page, system.organization_id),
        retired=system.lifecycle_status == provisioning.SYSTEM_RETIRED,
        **context,
    )


async def _systems_page(
    page: PageContext, *, status: int = 200, error: str | None = None, values: Mapping[str, str] | None = None
) -> Response:
    org = await manage.member_organization(page)
    if org is None:
        return page.renderer.not_found(page.user)
    rows = (
        await page.session.exec(
            select(AiSystem)
            .where(AiSystem.organization_id == org.id)
            .order_by(col(AiSystem.created_at), col(AiSystem.id))
        )
    ).all()
    return page.renderer.page(
        "systems.html",
        user=page.user,
        status=status,
        organization=org,
        role=page.user.roles[org.id] if page.user else "",
        manage=manage.can_manage(page, org.id),
        systems=[
            {"row": s, "links": system_links(s), "retired": s.lifecycle_status == provisioning.SYSTEM_RETIRED}
            for s in rows
        ],
        action=urls.organization_systems(org.id),
        error=error,
        values={name: (values or {}).get(name, "") for name in NAME_FIELDS},
    )


async def systems_page(page: PageContext) -> Response:
    return await _systems_page(page)


@manage.organization_change("create AI Systems", _systems_page)
async def create_system(page: PageContext, org: Organization, form: Mapping[str, str]) -> Response:
    system = await provisioning.create_ai_system(
        page.session,
        org.id,
        form.get("name", ""),
        system_type=manage.field(form, "system_type"),
        criticality=manage.field(form, "criticality"),
    )
    await page.session.commit()
    return manage.done(urls.system_sources(system.id))


async def _settings_page(
    page: PageContext, *, status: int = 200, error: str | None = None, values: Mapping[str, str] | None = None
) -> Response:
    system = await manage.member_system(page)
    if system is None:
        return page.renderer.not_found(page.user)
    current = {"name": system.name, "system_type": system.system_type or "", "criticality": system.criticality or ""}
    return await system_page(
        page,
        system,
        "system_settings.html",
        "settings",
        status=status,
        error=error,
        values={name: (values or current).get(name, "") for name in NAME_FIELDS},
    )


async def settings_page(page: PageContext) -> Response:
    return await _settings_page(page)


@manage.system_change("edit AI Systems", _settings_page)
async def edit_system(page: PageContext, system: AiSystem, form: Mapping[str, str]) -> Response:
    await provisioning.update_ai_system(
        page.session,
        system.organization_id,
        system.id,
        name=form.get("name", ""),
        system_type=manage.field(form, "system_type"),
        criticality=manage.field(form, "criticality"),
    )
    await page.session.commit()
    return manage.done(urls.system_settings(system.id))


@manage.system_change("retire AI Systems")
async def retire_system(page: PageContext, system: AiSystem, form: Mapping[str, str]) -> Response:
    if form.get("confirm") != "retire":
        return await _settings_page(
            page, status=400, error="Tick the box that confirms retiring this AI System, then retire it."
        )
    await systems.retire_ai_system(page.session, system.organization_id, system.id)
    await page.session.commit()
    return manage.done(urls.system_settings(system.id))


PAGES: list[tuple[str, Endpoint, tuple[str, ...]]] = [
    ("/dashboard/organizations/{organizationId}/systems", systems_page, ("GET",)),
    ("/dashboard/organizations/{organizationId}/systems", create_system, ("POST",)),
    ("/dashboard/systems/{aiSystemId}/settings", settings_page, ("GET",)),
    ("/dashboard/systems/{aiSystemId}/settings", edit_system, ("POST",)),
    ("/dashboard/systems/{aiSystemId}/retire", retire_system, ("POST",)),
]

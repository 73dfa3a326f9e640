"""The dashboard's home: the user's organizations and their AI Systems, each with its latest Evaluation."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func
from sqlmodel import col, select
from starlette.responses import Response

from assay.backend.dashboard import urls
from assay.backend.dashboard.access import PageContext
from assay.backend.provisioning import SYSTEM_RETIRED
from assay.backend.storage.models import AiSystem, Evaluation, Organization


async def home(page: PageContext) -> Response:
    assert page.user is not None
    roles = page.user.roles
    organizations: list[dict[str, Any]] = []
    if roles:
        orgs = (await page.session.exec(select(Organization).where(col(Organization.id).in_(roles)))).all()
        systems = (await page.session.exec(select(AiSystem).where(col(AiSystem.organization_id).in_(roles)))).all()
        counts = dict(
            (
                await page.session.exec(
                    select(Evaluation.ai_system_id, func.count())
                    .where(col(Evaluation.organization_id).in_(roles))
                    .group_by(col(Evaluation.ai_system_id))
                )
            ).all()
        )
        latest_at = (
            select(Evaluation.ai_system_id, func.max(Evaluation.created_at).label("at"))
            .where(col(Evaluation.organization_id).in_(roles))
            .group_by(col(Evaluation.ai_system_id))
            .subquery()
        )
        latest_rows = (
            await page.session.exec(
                select(Evaluation.id, Evaluation.ai_system_id, Evaluation.disposition, Evaluation.created_at).join(
                    latest_at,
                    (col(Evaluation.ai_system_id) == latest_at.c.ai_system_id)
                    & (col(Evaluation.created_at) == latest_at.c.at),
                )
            )
        ).all()
        latest = {system_id: (eid, disposition, at) for eid, system_id, disposition, at in latest_rows}
        for org in sorted(orgs, key=lambda o: (o.name.lower(), o.id)):
            entries = []
            for system in sorted((s for s in systems if s.organization_id == org.id), key=lambda s: s.name.lower()):
                found = latest.get(system.id)
                entries.append(
                    {
                        "id": system.id,
                        "name": system.name,
                        "workspace": urls.system_workspace(system.id),
                        "sources": urls.system_sources(system.id),
                        "retired": system.lifecycle_status == SYSTEM_RETIRED,
                        "count": counts.get(system.id, 0),
                        "latest": None
                        if found is None
                        else {
                            "url": urls.evaluation(found[0]),
                            "disposition": found[1],
                            "created": urls.display_time(found[2]),
                        },
                    }
                )
            organizations.append(
                {
                    "name": org.name,
                    "role": roles[org.id],
                    "systems": entries,
                    "systems_page": urls.organization_systems(org.id),
                    "manage": page.user.can(org.id, "admin"),
                    "people": urls.people(org.id),
                    "keys_url": urls.keys(org.id),
                }
            )
    return page.renderer.page("home.html", user=page.user, organizations=organizations)

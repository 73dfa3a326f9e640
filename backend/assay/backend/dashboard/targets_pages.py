"""The runtime targets of an AI System: their list (address, status, consented suites, header names, never
header values), and for owners and admins the forms that add a URL target, verify it, record consent to
probe suites and retire it (docs/dashboard.md, "Provisioning"; docs/runtime.md for what each means).

Only URL targets (an MCP server or an agent endpoint) are added here: an ``mcp-command`` target is a
command line the server would run, so it is added by someone with a shell on the server
(``assay admin target add --mcp-command``). Such targets are listed, verified, consented and retired here
like the others.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

from starlette.responses import Response

from assay.backend import provisioning
from assay.backend.dashboard import manage, urls
from assay.backend.dashboard.access import Endpoint, PageContext
from assay.backend.dashboard.systems_pages import system_page
from assay.backend.runtime import targets
from assay.backend.storage.models import AiSystem, RuntimeTarget

KINDS = {"mcp-url": "An MCP server (URL)", "agent-url": "An agent endpoint (URL)"}
FORM_FIELDS = ("kind", "url", "protocol", "headers")
MCP_SUITES = tuple(s for s in targets.SUITES if s not in targets.AGENT_SUITES)
STATUS_MEANING = {
    "PENDING": "Not verified yet: never probed until an owner or admin confirms the organization owns it.",
    "VERIFIED": "May be probed with the consented suites.",
    "RETIRED": "Retired: never probed again.",
}


def _suites_of(target: RuntimeTarget) -> tuple[str, ...]:
    return targets.AGENT_SUITES if target.kind == "agent-url" else MCP_SUITES


async def _targets_page(
    page: PageContext, *, status: int = 200, error: str | None = None, values: Mapping[str, str] | None = None
) -> Response:
    system = await manage.member_system(page)
    if system is None:
        return page.renderer.not_found(page.user)
    base = urls.system_targets(system.id)
    rows = await targets.list_targets(page.session, system.organization_id, system.id)
    listed = [
        {
            "row": row,
            "meaning": STATUS_MEANING.get(row.status, ""),
            "suites": _suites_of(row),
            "verify": f"{base}/{row.id}/verify" if row.status == "PENDING" else None,
            "consent": f"{base}/{row.id}/consent" if row.status != "RETIRED" else None,
            "retire": f"{base}/{row.id}/retire" if row.status != "RETIRED" else None,
        }
        for row in rows
    ]
    return await system_page(
        page,
        system,
        "targets.html",
        "targets",
        status=status,
        targets=listed,
        kinds=KINDS,
        protocols=targets.PROTOCOLS,
        action=base,
        error=error,
        # Header values are secrets: a refused form never shows them again.
        values={name: "" if name == "headers" else (values or {}).get(name, "") for name in FORM_FIELDS},
    )


async def targets_page(page: PageContext) -> Response:
    return await _targets_page(page)


def _spec(form: Mapping[str, str]) -> targets.TargetSpec:
    kind = form.get("kind", "")
    if kind not in KINDS:
        raise provisioning.ProvisioningError("INVALID", "choose an MCP server or an agent endpoint")
    url = form.get("url", "").strip()
    if not url:
        raise provisioning.ProvisioningError("INVALID", "give the target's URL")
    headers = [line.strip() for line in form.get("headers", "").splitlines() if line.strip()]
    if kind == "mcp-url":
        return targets.TargetSpec(mcp_url=url, headers=headers)
    return targets.TargetSpec(agent_url=url, protocol=manage.field(form, "protocol"), headers=headers)


@manage.system_change("add runtime targets", _targets_page)
async def add_target(page: PageContext, system: AiSystem, form: Mapping[str, str]) -> Response:
    settings = page.services.settings
    await targets.add_target(
        page.session,
        system.organization_id,
        system.id,
        _spec(form),
        key_dir=settings.key_directory(),
        allowed_networks=settings.runtime_allowed_networks,
    )
    await page.session.commit()
    return manage.done(urls.system_targets(system.id))


async def _consent(page: PageContext, target: RuntimeTarget, form: Mapping[str, str]) -> RuntimeTarget:
    chosen = [suite for suite in _suites_of(target) if form.get(f"suite_{suite}") == "on"]
    if not chosen:
        raise provisioning.ProvisioningError("INVALID", "tick at least one suite to consent to")
    return await targets.consent_target(page.session, target.id, chosen)


Change = Callable[[PageContext, RuntimeTarget, Mapping[str, str]], Awaitable[RuntimeTarget]]


def _target_action(change: Change, action: str) -> Endpoint:
    @manage.system_change(action, _targets_page, refill=False)
    async def run(page: PageContext, system: AiSystem, form: Mapping[str, str]) -> Response:
        target = await page.session.get(RuntimeTarget, page.request.path_params["targetId"])
        if target is None or target.ai_system_id != system.id or target.organization_id != system.organization_id:
            return page.renderer.not_found(page.user)
        await change(page, target, form)
        await page.session.commit()
        return manage.done(urls.system_targets(system.id))

    return run


async def _verify(page: PageContext, target: RuntimeTarget, form: Mapping[str, str]) -> RuntimeTarget:
    return await targets.verify_target(page.session, target.id)


async def _retire(page: PageContext, target: RuntimeTarget, form: Mapping[str, str]) -> RuntimeTarget:
    return await targets.retire_target(page.session, target.id)


PAGES: list[tuple[str, Endpoint, tuple[str, ...]]] = [
    ("/dashboard/systems/{aiSystemId}/targets", targets_page, ("GET",)),
    ("/dashboard/systems/{aiSystemId}/targets", add_target, ("POST",)),
    (
        "/dashboard/systems/{aiSystemId}/targets/{targetId}/verify",
        _target_action(_verify, "verify runtime targets"),
        ("POST",),
    ),
    (
        "/dashboard/systems/{aiSystemId}/targets/{targetId}/consent",
        _target_action(_consent, "consent to probe suites"),
        ("POST",),
    ),
    (
        "/dashboard/systems/{aiSystemId}/targets/{targetId}/retire",
        _target_action(_retire, "retire runtime targets"),
        ("POST",),
    ),
]

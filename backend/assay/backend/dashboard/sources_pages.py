"""The sources of an AI System: their list with status, and for owners and admins the forms that connect a
local path or a git repository, verify a source and retire one (docs/dashboard.md, "Provisioning").

The add form is one include per kind of source (``_source_local_form.html``, ``_source_git_form.html``);
the POST names its kind in the ``kind`` field. A git repository's deploy credential comes in a password
field, is sealed before it is stored (docs/sources.md), and is never put back in a page.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from pathlib import PurePath

from sqlmodel import col, select
from starlette.responses import Response

from assay.backend import provisioning
from assay.backend.dashboard import manage, urls
from assay.backend.dashboard.access import Endpoint, PageContext
from assay.backend.dashboard.systems_pages import system_page
from assay.backend.scans.sources import repo_kind
from assay.backend.storage.models import AiSystem, SourceAsset

STATUS_MEANING = {
    "PENDING": "Not verified yet: runs cannot scan it until an owner or admin verifies it.",
    "VERIFIED": "Runs may scan it.",
    "CONFLICTED": "Its binding is disputed; runs cannot scan it.",
    "UNAVAILABLE": "Marked unavailable; runs cannot scan it.",
    "RETIRED": "Retired: never scanned again.",
}
Adder = Callable[[PageContext, AiSystem, Mapping[str, str]], Awaitable[SourceAsset]]


async def _add_local(page: PageContext, system: AiSystem, form: Mapping[str, str]) -> SourceAsset:
    """A directory on the machine that runs the service, by its absolute path."""
    path = manage.field(form, "path") or ""
    if not path:
        raise provisioning.ProvisioningError("INVALID", "give the absolute path of the source's directory")
    if repo_kind(path) == "git" or not PurePath(path).is_absolute():
        raise provisioning.ProvisioningError(
            "INVALID", "a local source is an absolute path on the machine that runs Assay (such as /srv/agent)"
        )
    return await provisioning.add_source(
        page.session, system.organization_id, system.id, path, branch=manage.field(form, "branch")
    )


async def _add_git(page: PageContext, system: AiSystem, form: Mapping[str, str]) -> SourceAsset:
    """A git remote over https or ssh, with its deploy credential (optional for a public repository)."""
    url = manage.field(form, "url")
    if not url:
        raise provisioning.ProvisioningError("INVALID", "give the repository's URL (https://... or ssh://...)")
    credential = form.get("credential", "").strip() or None
    return await provisioning.add_source(
        page.session,
        system.organization_id,
        system.id,
        url,
        branch=manage.field(form, "branch"),
        credential=credential,
        key_dir=page.services.settings.key_directory() if credential is not None else None,
        remote_only=True,
    )


ADDERS: dict[str, Adder] = {"local": _add_local, "git": _add_git}
# What a refused form is shown again with: never the credential.
FORM_FIELDS = ("kind", "path", "url", "branch")


def _shown_again(form: Mapping[str, str]) -> Mapping[str, str]:
    """A refused form's fields to fill back in: a URL that carries a password or token is left out too."""
    url = form.get("url", "")
    userinfo = url.partition("://")[2].split("/", 1)[0].rpartition("@")[0]
    return {**form, "url": ""} if ":" in userinfo else form


async def _sources_page(
    page: PageContext, *, status: int = 200, error: str | None = None, values: Mapping[str, str] | None = None
) -> Response:
    system = await manage.member_system(page)
    if system is None:
        return page.renderer.not_found(page.user)
    rows = (
        await page.session.exec(
            select(SourceAsset)
            .where(SourceAsset.ai_system_id == system.id, SourceAsset.organization_id == system.organization_id)
            .order_by(col(SourceAsset.created_at), col(SourceAsset.id))
        )
    ).all()
    base = urls.system_sources(system.id)
    sources = [
        {
            "row": row,
            "meaning": STATUS_MEANING.get(row.status, ""),
            "updated": urls.display_time(row.updated_at),
            # A git remote is verified again whenever asked (it fetches: the credential or branch may have changed).
            "verify": f"{base}/{row.id}/verify"
            if row.status != "RETIRED" and (row.status != "VERIFIED" or row.repo_kind == "git")
            else None,
            "retire": f"{base}/{row.id}/retire" if row.status != "RETIRED" else None,
        }
        for row in rows
    ]
    shown = _shown_again(values or {})
    return await system_page(
        page,
        system,
        "sources.html",
        "sources",
        status=status,
        sources=sources,
        action=base,
        error=error,
        values={name: shown.get(name, "") for name in FORM_FIELDS},
    )


async def sources_page(page: PageContext) -> Response:
    return await _sources_page(page)


@manage.system_change("connect sources", _sources_page)
async def add_source(page: PageContext, system: AiSystem, form: Mapping[str, str]) -> Response:
    adder = ADDERS.get(form.get("kind", "local"))
    if adder is None:
        raise provisioning.ProvisioningError("INVALID", "unknown kind of source")
    await adder(page, system, form)
    await page.session.commit()
    return manage.done(urls.system_sources(system.id))


async def _verify(page: PageContext, source_id: str) -> SourceAsset:
    # A git remote is fetched with the service's secret key (its credential) and bounds.
    settings = page.services.settings
    return await provisioning.verify_source(page.session, source_id, key_dir=settings.key_directory(), git=settings.git)


async def _retire(page: PageContext, source_id: str) -> SourceAsset:
    return await provisioning.retire_source(page.session, source_id)


def _source_action(change: Callable[[PageContext, str], Awaitable[SourceAsset]], action: str) -> Endpoint:
    @manage.system_change(action, _sources_page, refill=False)
    async def run(page: PageContext, system: AiSystem, form: Mapping[str, str]) -> Response:
        source = await page.session.get(SourceAsset, page.request.path_params["sourceId"])
        if source is None or source.ai_system_id != system.id or source.organization_id != system.organization_id:
            return page.renderer.not_found(page.user)
        await change(page, source.id)
        await page.session.commit()
        return manage.done(urls.system_sources(system.id))

    return run


PAGES: list[tuple[str, Endpoint, tuple[str, ...]]] = [
    ("/dashboard/systems/{aiSystemId}/sources", sources_page, ("GET",)),
    ("/dashboard/systems/{aiSystemId}/sources", add_source, ("POST",)),
    (
        "/dashboard/systems/{aiSystemId}/sources/{sourceId}/verify",
        _source_action(_verify, "verify sources"),
        ("POST",),
    ),
    (
        "/dashboard/systems/{aiSystemId}/sources/{sourceId}/retire",
        _source_action(_retire, "retire sources"),
        ("POST",),
    ),
]

"""The API keys page of an organization (``/dashboard/organizations/{organizationId}/keys``): every key with
its purpose, scopes, creation, expiry and revocation; owners and admins create a key (its secret shown once,
on the answer to the form, never again) and revoke one after a confirmation page. Keys are issued and
revoked by ``provisioning`` (the functions behind ``assay admin key``)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import timedelta
from typing import Any, cast, get_args

from starlette.responses import RedirectResponse, Response

from assay.backend import provisioning
from assay.backend.dashboard import manage, urls
from assay.backend.dashboard.access import PageContext
from assay.backend.provisioning import ProvisioningError
from assay.backend.scopes import PURPOSE_SCOPES, Purpose
from assay.backend.storage.models import ApiKey, Organization

logger = logging.getLogger(__name__)

PURPOSES: dict[str, str] = {
    "assurance-agent": "Assurance agent: run assurance, read reports and the agent audit, discover systems",
    "evidence-intake": "Evidence intake: send evidence records to the intake routes only",
}
# Form value -> lifetime; "none" is a key that never expires.
EXPIRIES: dict[str, tuple[str, timedelta | None]] = {
    "7d": ("7 days", timedelta(days=7)),
    "30d": ("30 days", timedelta(days=30)),
    "90d": ("90 days", timedelta(days=90)),
    "365d": ("1 year", timedelta(days=365)),
    "none": ("Never (revoke it by hand)", None),
}
DEFAULT_EXPIRY = "90d"
assert set(PURPOSES) == set(get_args(Purpose)) == set(PURPOSE_SCOPES)


def _state(page: PageContext, key: ApiKey) -> str:
    if key.revoked_at is not None:
        return "revoked"
    if key.expires_at is not None and key.expires_at <= page.now:
        return "expired"
    return "active"


def _row(page: PageContext, key: ApiKey) -> dict[str, Any]:
    return {
        "id": key.id,
        "prefix": key.display_prefix,
        "purpose": key.purpose or "explicit scopes",
        "scopes": list(key.scopes),
        "created": urls.display_time(key.created_at),
        "expires": urls.display_time(key.expires_at) if key.expires_at is not None else "never",
        "revoked": urls.display_time(key.revoked_at) if key.revoked_at is not None else None,
        "state": _state(page, key),
        "revoke": urls.key_revoke(key.organization_id, key.id),
    }


async def _keys_page(
    page: PageContext,
    org: Organization,
    *,
    status: int = 200,
    error: str | None = None,
    created: dict[str, Any] | None = None,
    notice: str | None = None,
    purpose: str = "assurance-agent",
    expiry: str = DEFAULT_EXPIRY,
) -> Response:
    assert page.user is not None
    keys = await provisioning.list_api_keys(page.session, org.id)
    return page.renderer.page(
        "keys.html",
        user=page.user,
        status=status,
        org=org,
        keys=[_row(page, key) for key in keys],
        manage=manage.can_manage(page, org.id),
        purposes=PURPOSES,
        expiries={value: label for value, (label, _) in EXPIRIES.items()},
        chosen_purpose=purpose,
        chosen_expiry=expiry,
        error=error,
        created=created,
        notice=notice,
        action=urls.keys(org.id),
        people=urls.people(org.id),
        systems_url=urls.organization_systems(org.id),
    )


async def keys_page(page: PageContext) -> Response:
    org = await manage.member_organization(page)
    if org is None:
        return page.renderer.not_found(page.user)
    # Shown only for a key of this organization that is revoked: a crafted link cannot claim otherwise.
    revoked = await page.session.get(ApiKey, page.request.query_params.get("revoked", ""))
    notice = None
    if revoked is not None and revoked.organization_id == org.id and revoked.revoked_at is not None:
        notice = f"Key {revoked.id} is revoked: the API refuses it from now on."
    return await _keys_page(page, org, notice=notice)


@manage.organization_change("create or revoke API keys")
async def create_key(page: PageContext, org: Organization, form: Mapping[str, str]) -> Response:
    assert page.user is not None
    purpose = form.get("purpose", "")
    expiry = form.get("expiry", "")
    if purpose not in PURPOSES or expiry not in EXPIRIES:
        return await _keys_page(
            page, org, status=400, error="Choose a purpose and an expiry from the lists.", expiry=DEFAULT_EXPIRY
        )
    issued = await provisioning.create_api_key(
        page.session,
        org.id,
        purpose=cast(Purpose, purpose),
        expires_in=EXPIRIES[expiry][1],
        now=page.now,
    )
    await page.session.commit()
    logger.info(
        "dashboard API key created",
        extra={"event": "dashboard.key.created", "keyId": issued.record.id, "userId": page.user.user_id},
    )
    # The secret is in this answer only (sent no-store, like every page); the database keeps its hash.
    created = {"id": issued.record.id, "secret": issued.api_key, **_row(page, issued.record)}
    return await _keys_page(page, org, status=201, created=created)


async def _key_of(page: PageContext) -> tuple[Organization, ApiKey] | None:
    org = await manage.member_organization(page)
    if org is None:
        return None
    key = await page.session.get(ApiKey, page.request.path_params["keyId"])
    if key is None or key.organization_id != org.id:
        return None
    return org, key


async def revoke_form(page: PageContext) -> Response:
    assert page.user is not None
    found = await _key_of(page)
    if found is None:
        return page.renderer.not_found(page.user)
    org, key = found
    if not manage.can_manage(page, org.id):
        return manage.role_refused(page, org.id, "create or revoke API keys")
    return page.renderer.page("key_revoke.html", user=page.user, org=org, key=_row(page, key), back=urls.keys(org.id))


async def revoke_key(page: PageContext) -> Response:
    assert page.user is not None
    found = await _key_of(page)
    if found is None:
        return page.renderer.not_found(page.user)
    org, key = found
    form = await manage.change_form(page, org.id, "create or revoke API keys")
    if isinstance(form, Response):
        return form
    try:
        await provisioning.revoke_api_key(page.session, key.id, organization_id=org.id, now=page.now)
    except ProvisioningError:
        return page.renderer.not_found(page.user)
    await page.session.commit()
    logger.info(
        "dashboard API key revoked",
        extra={"event": "dashboard.key.revoked", "keyId": key.id, "userId": page.user.user_id},
    )
    return RedirectResponse(f"{urls.keys(org.id)}?revoked={key.id}", status_code=303)

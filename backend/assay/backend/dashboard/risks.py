"""Decisions people record: a reason of an Evaluation accepted as a known risk (docs/dashboard.md, "Accepted
risks"; the methodology's side is docs/methodology.md, "Risk acceptances").

Members and above record an acceptance from the evaluation page, next to the reason, and revoke one on the
AI System's risk page; viewers see both pages without their forms, and their POSTs are refused. Recording
never touches the Evaluation it was read from (Evaluations are immutable): it is a row the next run of the
system freezes into its evidence. At most one acceptance per reason fingerprint is active: recording a new
one (a renewal) revokes the one before it in the same transaction.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, timedelta

from anyio import to_thread
from sqlmodel import col, func, select
from starlette.responses import RedirectResponse, Response

from assay.backend.dashboard import urls
from assay.backend.dashboard.access import PageContext
from assay.backend.dashboard.security import CSRF_FIELD, cross_site, read_form, tokens_match
from assay.backend.dashboard.systems_pages import system_page
from assay.backend.evaluation.acceptance import RULE as ACCEPTANCE_RULE
from assay.backend.evaluation.fingerprint import fingerprints
from assay.backend.storage.models import AiSystem, Evaluation, RiskAcceptance, new_id

MAX_OWNER = 200
MAX_JUSTIFICATION = 2000
# The longest an acceptance may last: a year, then someone must decide again.
MAX_DAYS = 366
# Active acceptances one AI System may hold (each is frozen into every run and bound into every passport).
MAX_ACTIVE = 200
_REFUSED = "This form has expired or did not come from this page. Reload and try again."


@dataclass(frozen=True, slots=True)
class AcceptanceForm:
    owner: str
    justification: str
    expires_on: str


def validate(form: dict[str, str], today: date) -> AcceptanceForm | str:
    """The form's values, or what is wrong with them (a sentence for the 400 page)."""
    owner = " ".join(form.get("owner", "").split())
    justification = form.get("justification", "").strip()
    expires = form.get("expires_on", "").strip()
    if not owner:
        return "Name the owner of this risk: the person answerable for it (an email or a name)."
    if len(owner) > MAX_OWNER:
        return f"The owner is at most {MAX_OWNER} characters."
    if not justification:
        return "Write the justification: why this risk is accepted rather than fixed."
    if len(justification) > MAX_JUSTIFICATION:
        return f"The justification is at most {MAX_JUSTIFICATION} characters."
    try:
        day = date.fromisoformat(expires)
    except ValueError:
        return "Give the expiry as a date (YYYY-MM-DD)."
    if len(expires) != 10:
        return "Give the expiry as a date (YYYY-MM-DD)."
    if day <= today:
        return f"The expiry must be after today ({today.isoformat()}): an acceptance that has ended accepts nothing."
    if day > today + timedelta(days=MAX_DAYS - 1):
        latest = (today + timedelta(days=MAX_DAYS - 1)).isoformat()
        return f"The expiry is at most a year away (on or before {latest}); renew it then if the risk remains."
    return AcceptanceForm(owner=owner, justification=justification, expires_on=day.isoformat())


def _refused(page: PageContext, message: str = _REFUSED) -> Response:
    return page.renderer.error(page.user, 403, "Refused", message)


async def record(page: PageContext) -> Response:
    """POST from the evaluation page: accept one of its reasons (by fingerprint) as a known risk."""
    assert page.user is not None
    row = await page.session.get(Evaluation, page.request.path_params["evaluationId"])
    if row is None or not page.user.member_of(row.organization_id):
        return page.renderer.not_found(page.user)
    if cross_site(page.request):
        return _refused(page, "A form sent from another site is refused.")
    form = dict(await read_form(page.request))
    if not tokens_match(page.user.csrf_token, form.get(CSRF_FIELD)):
        return _refused(page)
    if not page.user.can(row.organization_id, "member"):
        return _refused(page, "Viewers read; recording a decision takes a member of the organization.")
    data = await to_thread.run_sync(json.loads, row.payload_json)
    reasons = [r for r in data.get("reasons", []) if isinstance(r, dict)]
    prints = fingerprints([(str(r.get("ruleId")), str(r.get("message"))) for r in reasons])
    wanted = form.get("fingerprint", "")
    reason = next((r for r, fp in zip(reasons, prints, strict=True) if fp == wanted), None)
    if reason is None or reason.get("ruleId") == ACCEPTANCE_RULE:
        return page.renderer.not_found(page.user)
    checked = validate(form, page.now.date())
    if isinstance(checked, str):
        return page.renderer.error(page.user, 400, "The risk was not accepted", checked)
    previous = (
        await page.session.exec(
            select(RiskAcceptance).where(
                RiskAcceptance.ai_system_id == row.ai_system_id,
                RiskAcceptance.fingerprint == wanted,
                col(RiskAcceptance.revoked_at).is_(None),
            )
        )
    ).all()
    if not previous:
        active = (
            await page.session.exec(
                select(func.count())
                .select_from(RiskAcceptance)
                .where(
                    RiskAcceptance.ai_system_id == row.ai_system_id,
                    col(RiskAcceptance.revoked_at).is_(None),
                    RiskAcceptance.expires_on >= page.now.date().isoformat(),
                )
            )
        ).one()
        if active >= MAX_ACTIVE:
            return page.renderer.error(
                page.user,
                400,
                "The risk was not accepted",
                f"This AI System already has {MAX_ACTIVE} active acceptances; revoke some first.",
            )
    for old in previous:
        old.revoked_at = page.now
        old.revoked_by = page.user.email
        page.session.add(old)
    page.session.add(
        RiskAcceptance(
            id=new_id("risk"),
            organization_id=row.organization_id,
            ai_system_id=row.ai_system_id,
            evaluation_id=row.id,
            fingerprint=wanted,
            rule_id=str(reason["ruleId"]),
            message=str(reason.get("message", "")),
            owner=checked.owner,
            justification=checked.justification,
            expires_on=checked.expires_on,
            recorded_by=page.user.email,
            recorded_at=page.now,
        )
    )
    await page.session.commit()
    return RedirectResponse(urls.system_risks(row.ai_system_id), status_code=303)


async def _system(page: PageContext) -> AiSystem | None:
    assert page.user is not None
    system = await page.session.get(AiSystem, page.request.path_params["aiSystemId"])
    if system is None or not page.user.member_of(system.organization_id):
        return None
    return system


def _status(row: RiskAcceptance, today: str) -> str:
    if row.revoked_at is not None:
        return "REVOKED"
    return "ACTIVE" if row.expires_on >= today else "EXPIRED"


async def risks_page(page: PageContext) -> Response:
    """GET: every acceptance of the AI System, newest first, with revoke buttons for members."""
    assert page.user is not None
    system = await _system(page)
    if system is None:
        return page.renderer.not_found(page.user)
    rows = (
        await page.session.exec(
            select(RiskAcceptance)
            .where(RiskAcceptance.ai_system_id == system.id, RiskAcceptance.organization_id == system.organization_id)
            .order_by(col(RiskAcceptance.recorded_at).desc(), col(RiskAcceptance.id).desc())
        )
    ).all()
    today = page.now.date().isoformat()
    acceptances = [
        {
            "id": r.id,
            "status": _status(r, today),
            "rule_id": r.rule_id,
            "message": r.message,
            "fingerprint": r.fingerprint,
            "owner": r.owner,
            "justification": r.justification,
            "expires_on": r.expires_on,
            "recorded_by": r.recorded_by,
            "recorded": urls.display_time(r.recorded_at),
            "revoked": urls.display_time(r.revoked_at) if r.revoked_at is not None else None,
            "revoked_by": r.revoked_by,
            "evaluation": urls.evaluation(r.evaluation_id),
            "revoke": urls.revoke_risk(system.id, r.id),
        }
        for r in rows
    ]
    return await system_page(
        page,
        system,
        "risks.html",
        "risks",
        acceptances=acceptances,
        active=sum(1 for a in acceptances if a["status"] == "ACTIVE"),
        can_decide=page.user.can(system.organization_id, "member"),
    )


async def revoke(page: PageContext) -> Response:
    """POST: revoke one acceptance; runs created from now on no longer apply it."""
    assert page.user is not None
    system = await _system(page)
    if system is None:
        return page.renderer.not_found(page.user)
    acceptance = await page.session.get(RiskAcceptance, page.request.path_params["acceptanceId"])
    if acceptance is None or acceptance.ai_system_id != system.id:
        return page.renderer.not_found(page.user)
    if cross_site(page.request):
        return _refused(page, "A form sent from another site is refused.")
    form = await read_form(page.request)
    if not tokens_match(page.user.csrf_token, form.get(CSRF_FIELD)):
        return _refused(page)
    if not page.user.can(system.organization_id, "member"):
        return _refused(page, "Viewers read; revoking a decision takes a member of the organization.")
    if acceptance.revoked_at is None:
        acceptance.revoked_at = page.now
        acceptance.revoked_by = page.user.email
        page.session.add(acceptance)
        await page.session.commit()
    return RedirectResponse(urls.system_risks(system.id), status_code=303)


async def active_by_fingerprint(page: PageContext, ai_system_id: str) -> dict[str, RiskAcceptance]:
    """The AI System's acceptances that the next run would apply, by fingerprint (for the evaluation page)."""
    rows = (
        await page.session.exec(
            select(RiskAcceptance).where(
                RiskAcceptance.ai_system_id == ai_system_id,
                col(RiskAcceptance.revoked_at).is_(None),
                RiskAcceptance.expires_on >= page.now.date().isoformat(),
            )
        )
    ).all()
    return {r.fingerprint: r for r in rows}


PAGES = [
    ("/dashboard/systems/{aiSystemId}/risks", risks_page, ("GET",)),
    ("/dashboard/systems/{aiSystemId}/risks/{acceptanceId}/revoke", revoke, ("POST",)),
    ("/dashboard/evaluations/{evaluationId}/risks", record, ("POST",)),
]

"""The pages behind a finished run's ``dashboard*`` links and the Master Report's dashboard links: the
evaluation (verdict first, reasons by rule with their chains), the Master Report document, the assurance
page, the decision receipt, the reports page with every artifact to download, and the system workspace.

Each page reads exactly one persisted Evaluation (or one AI System's list of them) and shows it only to a
member of its organization; to anyone else it is the same 404 as a missing one. Artifacts are produced by
the API's own handlers (``api/evaluations.py``), called with the signed-in user's organization, so a
download is byte for byte what the API answers.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from html import unescape
from typing import Any

from anyio import to_thread
from sqlalchemy import func
from sqlmodel import col, select
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from assay.backend.api import evaluations as artifacts
from assay.backend.dashboard import chains, compare, manage, risks, runs, urls
from assay.backend.dashboard.access import Endpoint, PageContext, acting_in
from assay.backend.dashboard.security import CSP
from assay.backend.dashboard.systems_pages import system_page
from assay.backend.errors import ApiError
from assay.backend.evaluation.methodology import EvaluationPayload
from assay.backend.storage.models import AiSystem, Evaluation, Run
from assay.backend.web.routing import RequestContext

PAGE_SIZE = 50
MEANING = {
    "ALLOW": "Nothing found in the evaluated scope requires review, within the evidence available.",
    "REVIEW": "A person must review the reasons below before this system ships.",
    "BLOCK": "At least one reason below must be fixed before this system ships.",
}
_STYLE = re.compile(r"<style>(.*?)</style>", re.DOTALL)
_STYLE_ATTRIBUTE = re.compile(r'\sstyle="([^"]*)"')


@dataclass(frozen=True, slots=True)
class Artifact:
    """A download of the reports page: the API handler that makes it, with which query, under which name."""

    label: str
    handler: Callable[[Request, RequestContext], Awaitable[Response]]
    query: str
    filename: str
    applies: Callable[[dict[str, Any]], bool] = lambda data: True


ARTIFACTS: dict[str, Artifact] = {
    "master-report.pdf": Artifact("Master Report (PDF)", artifacts.master_report_pdf, "", "master-report-{id}.pdf"),
    "master-report.html": Artifact("Master Report (HTML)", artifacts.master_report_html, "", "master-report-{id}.html"),
    "master-report.json": Artifact(
        "Master Report (JSON, full detail)", artifacts.master_report, "detail=full", "master-report-{id}.json"
    ),
    "summary.json": Artifact("Summary (JSON)", artifacts.summary, "", "summary-{id}.json"),
    "agent-audit.json": Artifact(
        "Agent audit (JSON, full detail)", artifacts.agent_audit, "detail=full", "agent-audit-{id}.json"
    ),
    "passport.json": Artifact("Passport (signed DSSE envelope)", artifacts.passport, "", "passport-{id}.json"),
    "evidence-report.json": Artifact(
        "Assurance Evidence Report (JSON, legacy)", artifacts.evidence_report, "", "evidence-report-{id}.json"
    ),
    **{
        f"evidence-report-{profile}.pdf": Artifact(
            f"Assurance Evidence Report, {profile} profile (PDF, legacy)",
            artifacts.evidence_report_pdf,
            f"profile={profile}",
            f"evidence-report-{{id}}-{profile}.pdf",
        )
        for profile in ("executive", "technical", "auditor")
    },
    "oscal-assessment-results.json": Artifact(
        "Jurisdiction controls (OSCAL assessment results)",
        artifacts.oscal_results,
        "",
        "oscal-assessment-results-{id}.json",
        lambda data: (data.get("jurisdiction") or {}).get("status") == "ASSESSED",
    ),
    "ll144-summary.pdf": Artifact(
        "NYC LL144 bias audit summary (PDF)",
        artifacts.ll144_summary_pdf,
        "",
        "ll144-summary-{id}.pdf",
        lambda data: bool(((data.get("jurisdiction") or {}).get("figures") or {}).get("ll144")),
    ),
}
# The API's artifact routes (relative to the Evaluation), as the Master Report document links them, mapped to
# the downloads a browser with a session can open.
_ROUTE_TO_ARTIFACT = {
    "master-report": "master-report.json",
    "master-report/pdf": "master-report.pdf",
    "agent-audit": "agent-audit.json",
    "passport": "passport.json",
    "report": "evidence-report.json",
    "report/pdf": "evidence-report-executive.pdf",
    "summary": "summary.json",
}


async def _evaluation(page: PageContext) -> Evaluation | None:
    """The Evaluation named in the path when the user is a member of its organization, else None."""
    assert page.user is not None
    row = await page.session.get(Evaluation, page.request.path_params["evaluationId"])
    if row is None or not page.user.member_of(row.organization_id):
        return None
    return row


async def _payload(row: Evaluation) -> EvaluationPayload:
    return EvaluationPayload(await to_thread.run_sync(json.loads, row.payload_json))


def _context(page: PageContext, row: Evaluation) -> RequestContext:
    """A request context acting in the Evaluation's organization for the API's artifact handlers (the user's
    membership was checked; these handlers read by organization and id only)."""
    return acting_in(page, row.organization_id, frozenset({"report:read"}))


async def _header(page: PageContext, row: Evaluation, data: dict[str, Any] | None = None) -> dict[str, Any]:
    system = await page.session.get(AiSystem, row.ai_system_id)
    run = await page.session.get(Run, row.run_id)
    return {
        "id": row.id,
        "disposition": row.disposition,
        "meaning": MEANING.get(row.disposition, ""),
        "created": urls.display_time(row.created_at),
        "methodology": row.methodology_version,
        "core_truth_digest": row.core_truth_digest,
        "evidence_digest": row.evidence_bundle_digest,
        "system_name": system.name if system is not None else row.ai_system_id,
        "system_id": row.ai_system_id,
        "run_id": row.run_id,
        "run_mode": run.static_execution_mode if run is not None else None,
        "links": {
            "evaluation": urls.evaluation(row.id),
            "master_report": urls.master_report(row.id),
            "assurance": urls.assurance(row.id),
            "reports": urls.reports(row.id),
            "receipt": urls.decision_receipt(row.id),
            "workspace": urls.system_workspace(row.ai_system_id),
        },
    }


async def evaluation_page(page: PageContext) -> Response:
    row = await _evaluation(page)
    if row is None:
        return page.renderer.not_found(page.user)
    data = (await _payload(row)).data
    groups = await to_thread.run_sync(chains.rule_groups, data)
    cited = {id(item) for group in groups for reason in group.reasons for item in reason.items}
    others = [item for item in data.get("verificationItems", []) if id(item) not in cited]
    counts = {d: sum(1 for r in data.get("reasons", []) if r.get("disposition") == d) for d in ("BLOCK", "REVIEW")}
    counts["accepted"] = sum(1 for r in data.get("reasons", []) if "acceptance" in r)
    today = page.now.date()
    return page.renderer.page(
        "evaluation.html",
        pending=await risks.active_by_fingerprint(page, row.ai_system_id),
        can_decide=page.user is not None and page.user.can(row.organization_id, "member"),
        accept_url=urls.accept_risk(row.id),
        risks_url=urls.system_risks(row.ai_system_id),
        first_day=(today + timedelta(days=1)).isoformat(),
        last_day=(today + timedelta(days=risks.MAX_DAYS - 1)).isoformat(),
        max_owner=risks.MAX_OWNER,
        max_justification=risks.MAX_JUSTIFICATION,
        user=page.user,
        e=await _header(page, row),
        groups=groups,
        counts=counts,
        other_items=others,
        limitations=data.get("limitations", []),
        location_text=chains.location_text,
    )


async def master_report_redirect(page: PageContext) -> Response:
    row = await _evaluation(page)
    if row is None:
        return page.renderer.not_found(page.user)
    return RedirectResponse(urls.master_report_document(row.id), status_code=303)


async def master_report_document(page: PageContext) -> Response:
    row = await _evaluation(page)
    if row is None:
        return page.renderer.not_found(page.user)
    payload = await _payload(row)
    evaluation_id = row.id

    def link(route: str) -> str | None:
        if route.startswith(urls.PREFIX + "/"):
            return route
        relative = route.split(f"/{evaluation_id}/", 1)[-1]
        if relative == "master-report/html":
            return urls.master_report_document(evaluation_id)
        artifact = _ROUTE_TO_ARTIFACT.get(relative)
        return urls.download(evaluation_id, artifact) if artifact else None

    ctx = _context(page, row)
    try:
        html = await artifacts.master_report_page(ctx, row, payload, link)
    finally:
        await ctx.close()
    csp = await to_thread.run_sync(_document_csp, html)
    return HTMLResponse(html, headers={"Content-Security-Policy": csp})


def _document_csp(html: str) -> str:
    """The policy of a self-contained report page: its own stylesheet and its style attributes are allowed
    by their SHA-256 (CSP 3 ``'unsafe-hashes'`` admits hashed attributes only), nothing else inline."""
    styles = [m.group(1) for m in _STYLE.finditer(html)]
    styles += sorted({unescape(m.group(1)) for m in _STYLE_ATTRIBUTE.finditer(html)})
    if not styles:
        return CSP
    hashes = " ".join(f"'sha256-{_sha256_b64(text)}'" for text in dict.fromkeys(styles))
    unsafe_hashes = " 'unsafe-hashes'" if _STYLE_ATTRIBUTE.search(html) else ""
    return CSP.replace("style-src 'self'", f"style-src 'self'{unsafe_hashes} {hashes}")


def _sha256_b64(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


async def reports_page(page: PageContext) -> Response:
    row = await _evaluation(page)
    if row is None:
        return page.renderer.not_found(page.user)
    data = (await _payload(row)).data
    downloads = [
        {"label": artifact.label, "url": urls.download(row.id, name), "name": artifact.filename.format(id=row.id)}
        for name, artifact in ARTIFACTS.items()
        if artifact.applies(data)
    ]
    return page.renderer.page(
        "reports.html",
        user=page.user,
        e=await _header(page, row),
        downloads=downloads,
        document=urls.master_report_document(row.id),
    )


async def download(page: PageContext) -> Response:
    row = await _evaluation(page)
    artifact = ARTIFACTS.get(page.request.path_params["artifact"])
    if row is None or artifact is None:
        return page.renderer.not_found(page.user)
    scope = {**page.request.scope, "query_string": artifact.query.encode("ascii")}
    request = Request(scope, page.request.receive)
    ctx = _context(page, row)
    try:
        response = await artifact.handler(request, ctx)
    except ApiError as exc:
        if exc.status == 404:
            return page.renderer.error(page.user, 404, "Not available", exc.message)
        return page.renderer.error(page.user, exc.status, "This artifact could not be made", exc.message)
    finally:
        await ctx.close()
    filename = artifact.filename.format(id=row.id)
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


async def assurance_page(page: PageContext) -> Response:
    row = await _evaluation(page)
    if row is None:
        return page.renderer.not_found(page.user)
    data = (await _payload(row)).data
    section = data.get("jurisdiction")
    age_days = None
    if isinstance(section, dict) and section.get("asOf"):
        from datetime import date

        age_days = (row.created_at.date() - date.fromisoformat(section["asOf"])).days
    return page.renderer.page(
        "assurance.html",
        user=page.user,
        e=await _header(page, row),
        section=section if isinstance(section, dict) else None,
        age_days=age_days,
    )


async def receipt_page(page: PageContext) -> Response:
    row = await _evaluation(page)
    if row is None:
        return page.renderer.not_found(page.user)
    data = (await _payload(row)).data
    counts = {d: sum(1 for r in data.get("reasons", []) if r.get("disposition") == d) for d in ("BLOCK", "REVIEW")}
    return page.renderer.page(
        "receipt.html",
        user=page.user,
        e=await _header(page, row),
        counts=counts,
        snapshot_digest=(data.get("evaluationScenarioSnapshot") or {}).get("snapshotDigest"),
        membership=data.get("membership", []),
        passport=urls.download(row.id, "passport.json"),
    )


def _page_number(request: Request) -> int | None:
    text = request.query_params.get("page", "1")
    if not text.isascii() or not text.isdigit() or len(text) > 6 or int(text) < 1:
        return None
    return int(text)


async def system_workspace(page: PageContext) -> Response:
    assert page.user is not None
    system = await manage.member_system(page)
    if system is None:
        return page.renderer.not_found(page.user)
    number = _page_number(page.request)
    if number is None:
        return page.renderer.error(page.user, 400, "Not a page number", "The page must be a whole number from 1.")
    total = (
        await page.session.exec(
            select(func.count()).select_from(Evaluation).where(Evaluation.ai_system_id == system.id)
        )
    ).one()
    pages = max(1, math.ceil(total / PAGE_SIZE))
    rows = (
        await page.session.exec(
            select(
                Evaluation.id,
                Evaluation.disposition,
                Evaluation.created_at,
                Evaluation.methodology_version,
            )
            .where(Evaluation.ai_system_id == system.id, Evaluation.organization_id == system.organization_id)
            .order_by(col(Evaluation.created_at).desc(), col(Evaluation.id).desc())
            .offset((number - 1) * PAGE_SIZE)
            # One more than a page: the oldest row's "compare with previous" names the next page's first.
            .limit(PAGE_SIZE + 1)
        )
    ).all()
    evaluations = [
        {
            "id": evaluation_id,
            "url": urls.evaluation(evaluation_id),
            "reports": urls.reports(evaluation_id),
            "disposition": disposition,
            "created": urls.display_time(created),
            "methodology": methodology,
            "compare": urls.compare(system.id, rows[n + 1][0], evaluation_id) if n + 1 < len(rows) else None,
        }
        for n, (evaluation_id, disposition, created, methodology) in enumerate(rows[:PAGE_SIZE])
    ]

    def at(n: int) -> str:
        return f"{urls.system_workspace(system.id)}?page={n}"

    return await system_page(
        page,
        system,
        "workspace.html",
        "workspace",
        evaluations=evaluations,
        total=total,
        number=number,
        pages=pages,
        previous=at(number - 1) if number > 1 else None,
        next_page=at(number + 1) if number < pages else None,
        start=await runs.start_form(page, system),
        csrf_token=page.user.csrf_token,
        recent_runs=await runs.recent_runs(page, system),
        compare_action=urls.compare(system.id),
    )


PAGES: list[tuple[str, Endpoint]] = [
    ("/dashboard/evaluations/{evaluationId}", evaluation_page),
    ("/dashboard/evaluations/{evaluationId}/master-report", master_report_redirect),
    ("/dashboard/evaluations/{evaluationId}/master-report/document", master_report_document),
    ("/dashboard/evaluations/{evaluationId}/reports", reports_page),
    ("/dashboard/evaluations/{evaluationId}/download/{artifact}", download),
    ("/dashboard/evaluations/{evaluationId}/assurance", assurance_page),
    ("/dashboard/evaluations/{evaluationId}/receipt", receipt_page),
    ("/dashboard/systems/{aiSystemId}", system_workspace),
    ("/dashboard/systems/{aiSystemId}/compare", compare.compare_page),
    ("/dashboard/runs/{runId}", runs.run_page),
]

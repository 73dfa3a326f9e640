"""Runs from the page: the system workspace's "Start a run" form, its POST, and the run's own page.

A run started here is made exactly as ``POST /api/v1/assurance/runs`` makes one (``runs.plan.plan_run``,
``api.runs.new_run``, the workers of this process woken by ``api.runs.wake_workers``), in the organization
of the AI System the signed-in user is a member of (never one named by the form), with executionMode
``ui``: a fresh scan of the system's verified source, recorded as started from the dashboard. Only members
and above start runs; viewers see no form and their POST is refused.

The run page reads the run as ``GET /api/v1/assurance/runs/{runId}`` does (``api.runs.read_envelope``).
While the run is queued or running it asks the browser to load it again every few seconds (a meta refresh:
the pages carry no script), and links to the Evaluation once there is one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, get_args

from pydantic import ValidationError
from sqlmodel import col, select
from starlette.responses import RedirectResponse, Response

from assay.backend.api import runs as run_api
from assay.backend.dashboard import urls
from assay.backend.dashboard.access import PageContext, acting_in
from assay.backend.dashboard.manage import system_change
from assay.backend.errors import ApiError
from assay.backend.provisioning import SYSTEM_RETIRED
from assay.backend.roles import Role
from assay.backend.runs.plan import FRESH_SCAN_MODES, RunPlan, plan_run
from assay.backend.runs.schemas import CreateRunRequest, Jurisdiction, RunEnvelope
from assay.backend.storage.models import AiSystem, Assessment, DashboardUser, Run, RuntimeTarget, SourceAsset

# The role a user needs in the system's organization to start a run.
STARTS_RUNS: Role = "member"
# How often a run page that is still queued or running reloads itself, in seconds.
REFRESH_SECONDS = 2
# The workspace's list of the system's latest runs.
RECENT_RUNS = 10
JURISDICTIONS: tuple[str, ...] = get_args(Jurisdiction)
_STAGES = (
    ("static", "Static analysis of the source"),
    ("runtime", "Runtime probes of the live target"),
    ("evaluation", "Evaluation (the reasons and the disposition)"),
)
_STATUS_WORDS = {
    "QUEUED": "Queued: waiting for a worker to pick it up.",
    "RUNNING": "Running.",
    "COMPLETED": "Completed: its Evaluation is ready.",
    "FAILED": "Failed: no Evaluation was made.",
}


@dataclass(frozen=True, slots=True)
class Choice:
    value: str
    label: str


async def start_form(page: PageContext, system: AiSystem) -> dict[str, Any] | None:
    """What the workspace's "Start a run" form offers: the engines the system has (static with its verified
    sources, runtime with its live targets, wizard with its assessments), or None for a user who may not
    start runs (a viewer)."""
    assert page.user is not None
    if not page.user.can(system.organization_id, STARTS_RUNS):
        return None
    if system.lifecycle_status == SYSTEM_RETIRED:
        return {"retired": True}
    owned = (
        col(SourceAsset.organization_id) == system.organization_id,
        col(SourceAsset.ai_system_id) == system.id,
    )
    sources = (
        await page.session.exec(
            select(SourceAsset).where(*owned).order_by(col(SourceAsset.created_at), col(SourceAsset.id))
        )
    ).all()
    targets = (
        await page.session.exec(
            select(RuntimeTarget)
            .where(
                RuntimeTarget.organization_id == system.organization_id,
                RuntimeTarget.ai_system_id == system.id,
                RuntimeTarget.status != "RETIRED",
            )
            .order_by(col(RuntimeTarget.created_at), col(RuntimeTarget.id))
        )
    ).all()
    assessments = (
        await page.session.exec(
            select(Assessment)
            .where(Assessment.organization_id == system.organization_id, Assessment.ai_system_id == system.id)
            .order_by(col(Assessment.created_at), col(Assessment.id))
        )
    ).all()
    verified = [s for s in sources if s.status == "VERIFIED"]
    return {
        "retired": False,
        "sources_page": urls.system_sources(system.id),
        "action": urls.start_run(system.id),
        "sources": [Choice(s.id, s.repo + (f" ({s.branch})" if s.branch else "")) for s in verified],
        "unverified": [Choice(s.id, f"{s.repo}: {s.status.lower()}") for s in sources if s.status != "VERIFIED"],
        "targets": [Choice(t.id, f"{t.address} ({t.kind}, {t.status.lower()})") for t in targets],
        "assessments": [Choice(a.id, f"{a.framework} ({a.id})") for a in assessments],
        "jurisdictions": JURISDICTIONS,
    }


async def recent_runs(page: PageContext, system: AiSystem) -> list[dict[str, Any]]:
    """The system's latest runs, newest first, for the workspace."""
    rows = (
        await page.session.exec(
            select(Run)
            .where(Run.organization_id == system.organization_id, Run.ai_system_id == system.id)
            .order_by(col(Run.created_at).desc(), col(Run.id).desc())
            .limit(RECENT_RUNS)
        )
    ).all()
    return [
        {
            "id": r.id,
            "url": urls.run(r.id),
            "status": r.status,
            "stage": r.stage,
            "mode": r.static_execution_mode,
            "created": urls.display_time(r.created_at),
        }
        for r in rows
    ]


def _request_body(system: AiSystem, form: Mapping[str, str]) -> dict[str, Any]:
    """The run request the form asks for, as the API would receive it (the system from the path)."""
    engines: dict[str, Any] = {}
    if form.get("static"):
        engines["static"] = {"enabled": True, "executionMode": "ui"}
        if form.get("source"):
            engines["static"]["sourceAssetId"] = form["source"]
    if form.get("runtime"):
        engines["runtime"] = {"enabled": True}
        if form.get("target"):
            engines["runtime"]["targetId"] = form["target"]
    if form.get("wizard"):
        engines["wizard"] = {"enabled": True}
        if form.get("assessment"):
            engines["wizard"]["assessmentId"] = form["assessment"]
    body: dict[str, Any] = {"aiSystemId": system.id, "engines": engines}
    if form.get("jurisdiction"):
        body["jurisdiction"] = form["jurisdiction"]
    return body


@system_change("start runs", needs=STARTS_RUNS)
async def start_run(page: PageContext, system: AiSystem, form: Mapping[str, str]) -> Response:
    """POST of the "Start a run" form: 303 to the new run's page, or an error page saying why not."""
    assert page.user is not None
    body = _request_body(system, form)
    try:
        request = CreateRunRequest.model_validate(body)
    except ValidationError as exc:
        problem = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:3])
        return page.renderer.error(page.user, 400, "The run could not be started", f"The form is not valid: {problem}.")
    ctx = acting_in(page, system.organization_id, frozenset({"scan:create"}))
    try:
        plan = await plan_run(ctx, request, from_dashboard=True)
        run = run_api.new_run(ctx, plan, body)
        ctx.session.add(run)
        await ctx.session.commit()
    except ApiError as exc:
        return page.renderer.error(page.user, exc.status, "The run could not be started", exc.message)
    finally:
        await ctx.close()
    run_api.wake_workers(page.request)
    return RedirectResponse(urls.run(run.id), status_code=303)


def _progress(envelope: RunEnvelope, plan: RunPlan) -> list[dict[str, str]]:
    """The run's stages with where it is: done, current or to come."""
    applies = {"static": plan.static_mode is not None, "runtime": plan.runtime is not None, "evaluation": True}
    order = [name for name, _ in _STAGES]
    at = order.index(envelope.stage) if envelope.stage in order else -1
    steps = []
    for index, (name, label) in enumerate(_STAGES):
        if not applies[name]:
            continue
        if envelope.status == "COMPLETED" or index < at:
            state = "done"
        elif envelope.status == "RUNNING" and index == at:
            state = "current"
        else:
            state = "to come" if envelope.status != "FAILED" else "not reached"
        steps.append({"name": name, "label": label, "state": state})
    return steps


def _engines(plan: RunPlan, run: Run, source: SourceAsset | None) -> list[str]:
    """The run's engines in words."""
    out = []
    if plan.static_mode in FRESH_SCAN_MODES:
        where = source.repo if source is not None else plan.source_path or "its verified source"
        started = "started from the dashboard" if plan.static_mode == "ui" else "started over the API"
        out.append(f"static: a fresh scan of {where} (executionMode {plan.static_mode}, {started})")
    elif plan.static_mode is not None:
        out.append(f"static: the attached scan {plan.attached_scan_id} (executionMode {plan.static_mode})")
    if plan.runtime is not None:
        suites = ", ".join(plan.runtime.get("suites") or [])
        out.append(f"runtime: probes of target {plan.runtime.get('targetId', '?')} ({suites})")
    if plan.wizard is not None:
        out.append(f"wizard: the {plan.wizard.get('framework', '?')} assessment as it was when the run started")
    if plan.attachments:
        out.append(f"{len(plan.attachments)} attached evidence item(s)")
    if run.jurisdiction:
        out.append(f"jurisdiction: {run.jurisdiction}")
    return out


async def run_page(page: PageContext) -> Response:
    """GET /dashboard/runs/{runId}: status, engines, progress, then the Evaluation or the failure."""
    assert page.user is not None
    run = await page.session.get(Run, page.request.path_params["runId"])
    if run is None or not page.user.member_of(run.organization_id):
        return page.renderer.not_found(page.user)
    ctx = acting_in(page, run.organization_id, frozenset({"scan:read"}))
    try:
        envelope = await run_api.read_envelope(ctx, run.id)
    finally:
        await ctx.close()
    plan = RunPlan.from_json(json.loads(run.plan_json))
    system = await page.session.get(AiSystem, run.ai_system_id)
    source = await page.session.get(SourceAsset, plan.source_asset_id) if plan.source_asset_id else None
    starter = "an API key"
    if run.api_key_id.startswith("dashboard:"):
        person = await page.session.get(DashboardUser, run.api_key_id.removeprefix("dashboard:"))
        starter = person.email if person is not None else "a dashboard user"
    live = envelope.status in ("QUEUED", "RUNNING")
    evaluation = envelope.evaluation
    return page.renderer.page(
        "run.html",
        user=page.user,
        run=envelope,
        refresh=REFRESH_SECONDS if live else None,
        live=live,
        here=urls.run(run.id),
        status_words=_STATUS_WORDS.get(envelope.status, envelope.status),
        system_name=system.name if system is not None else run.ai_system_id,
        workspace=urls.system_workspace(run.ai_system_id),
        engines=_engines(plan, run, source),
        steps=_progress(envelope, plan),
        starter=starter,
        created=urls.display_time(envelope.createdAt),
        started=urls.display_time(envelope.startedAt) if envelope.startedAt else None,
        completed=urls.display_time(envelope.completedAt) if envelope.completedAt else None,
        evaluation_url=urls.evaluation(evaluation.evaluationId) if evaluation is not None else None,
    )

"""Wizard assessments (an extension of the contract, docs/api.md): create, read, answer, attach data, list.

Writes need ``scan:submit`` (an assessment is evidence a caller submits, as a qualified scan is); reads
need ``scan:read``. The organization comes from the key; another organization's assessment is a 404.
"""

from __future__ import annotations

import io
from typing import Any

import orjson
from anyio import to_thread
from pydantic import BaseModel, ConfigDict, Field
from starlette.requests import Request
from starlette.responses import Response

from assay.backend.engines.wizard import assessments
from assay.backend.engines.wizard.lawpack import Framework
from assay.backend.settings import MAX_SCAN_BODY_SETTING
from assay.backend.web.http_io import JSON_MEDIA_TYPE, invalid, read_body, read_json_object, validate_model
from assay.backend.web.routing import Parameter, RequestContext, RouteSpec

BASE = "/api/v1/assessments"


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class CreateAssessmentRequest(_Request):
    aiSystemId: str = Field(min_length=1, max_length=64)
    framework: Framework


class AnswerRequest(_Request):
    value: bool | str = Field(description="yes/no as a boolean (or 'yes'/'no'), a choice value, YYYY-MM-DD, or text.")
    evidenceRefs: list[str] = Field(
        default_factory=list, max_length=20, description="Where the answer can be checked: paths, URLs, ids."
    )


class AssessmentView(BaseModel):
    """The assessment with its open questions (next first), answers, data, figures and control statuses."""

    model_config = ConfigDict(extra="allow")
    assessmentId: str
    aiSystemId: str
    framework: Framework
    pack: dict[str, Any]
    revision: int
    answers: list[dict[str, Any]]
    nextQuestion: dict[str, Any] | None
    openQuestions: list[dict[str, Any]]
    complete: bool
    data: list[dict[str, Any]]
    figures: dict[str, Any]
    controls: list[dict[str, Any]]


class AssessmentList(BaseModel):
    assessments: list[dict[str, Any]]


def _json(value: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(value), status_code=status, media_type=JSON_MEDIA_TYPE)


async def _view(ctx: RequestContext, row: Any, **extra: Any) -> dict[str, Any]:
    data = await assessments.data_of(ctx.session, row)
    return {**assessments.assessment_view(row, data, ctx.now.date()), **extra}


async def create_assessment(request: Request, ctx: RequestContext) -> Response:
    body = validate_model(CreateAssessmentRequest, await read_json_object(request, 64 * 1024))
    row = await assessments.create_assessment(
        ctx.session, ctx.organization_id, body.aiSystemId, body.framework, ctx.now
    )
    return _json(await _view(ctx, row), 201)


async def list_assessments(request: Request, ctx: RequestContext) -> Response:
    system = request.query_params.get("aiSystemId")
    rows = await assessments.list_assessments(ctx.session, ctx.organization_id, system)
    return _json(
        {
            "assessments": [
                {
                    "assessmentId": r.id,
                    "aiSystemId": r.ai_system_id,
                    "framework": r.framework,
                    "answered": len(r.answers),
                    "data": sorted(r.data),
                    "revision": r.revision,
                    "updatedAt": r.updated_at.isoformat().replace("+00:00", "Z"),
                }
                for r in rows
            ]
        }
    )


async def get_assessment(request: Request, ctx: RequestContext) -> Response:
    row = await assessments.load_assessment(ctx.session, ctx.organization_id, request.path_params["assessmentId"])
    return _json(await _view(ctx, row))


async def answer(request: Request, ctx: RequestContext) -> Response:
    body = validate_model(AnswerRequest, await read_json_object(request, 64 * 1024))
    row, changed = await assessments.answer_question(
        ctx.session,
        ctx.organization_id,
        request.path_params["assessmentId"],
        request.path_params["questionId"],
        body.value,
        list(body.evidenceRefs),
        ctx.now,
    )
    return _json(await _view(ctx, row, changed=changed))


async def attach_data(request: Request, ctx: RequestContext) -> Response:
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media not in ("text/csv", "application/octet-stream"):
        raise invalid("Send the data file as the body, with 'Content-Type: text/csv'.")
    dataset = request.query_params.get("dataset", "ll144_outcomes")
    kind = request.query_params.get("kind", "historical")
    if kind not in assessments.DATA_KINDS:
        raise invalid(f"kind is one of: {', '.join(assessments.DATA_KINDS)}.")
    row = await assessments.load_assessment(ctx.session, ctx.organization_id, request.path_params["assessmentId"])
    raw = await read_body(request, ctx.settings.max_scan_body_bytes, 413, MAX_SCAN_BODY_SETTING)
    computed = await to_thread.run_sync(assessments.compute_data, row.framework, dataset, io.BytesIO(raw))
    del raw
    data = await assessments.attach_data(
        ctx.session,
        row,
        computed,
        dataset=dataset,
        kind=kind,
        file_name=request.query_params.get("fileName"),
        now=ctx.now,
    )
    row = await assessments.load_assessment(ctx.session, ctx.organization_id, row.id)
    return _json(await _view(ctx, row, attached=assessments.data_facts(data)), 201)


_ID = Parameter("assessmentId", "path", "The assessment.")
ROUTES: list[RouteSpec] = [
    RouteSpec(
        "POST",
        BASE,
        create_assessment,
        operation_id="createAssessment",
        summary="Start a wizard assessment of an AI System under a framework",
        description="Extension (docs/api.md). The answer carries assessmentId and the first question.",
        scope="scan:submit",
        tags=("assessments",),
        request_model=CreateAssessmentRequest,
        responses={201: AssessmentView},
        errors=(400, 401, 403, 404),
    ),
    RouteSpec(
        "GET",
        BASE,
        list_assessments,
        operation_id="listAssessments",
        summary="List your organization's assessments, newest first",
        scope="scan:read",
        tags=("assessments",),
        responses={200: AssessmentList},
        errors=(400, 401, 403),
        parameters=(Parameter("aiSystemId", "query", "Only this AI System's assessments.", required=False),),
    ),
    RouteSpec(
        "GET",
        f"{BASE}/{{assessmentId}}",
        get_assessment,
        operation_id="getAssessment",
        summary="Read an assessment: answers, open questions, figures, control statuses",
        scope="scan:read",
        tags=("assessments",),
        responses={200: AssessmentView},
        errors=(401, 403, 404),
        parameters=(_ID,),
    ),
    RouteSpec(
        "PUT",
        f"{BASE}/{{assessmentId}}/answers/{{questionId}}",
        answer,
        operation_id="answerAssessmentQuestion",
        summary="Answer one question (idempotent per question id)",
        description="A question is answerable once the answers it depends on are given; the same answer again "
        "changes nothing (changed: false).",
        scope="scan:submit",
        tags=("assessments",),
        request_model=AnswerRequest,
        responses={200: AssessmentView},
        errors=(400, 401, 403, 404, 409),
        parameters=(_ID, Parameter("questionId", "path", "A question id of the assessment's law pack.")),
    ),
    RouteSpec(
        "POST",
        f"{BASE}/{{assessmentId}}/data",
        attach_data,
        operation_id="attachAssessmentData",
        summary="Attach a data file (nyc_ll144: the candidate outcomes CSV) and compute its figures",
        description="Body: the CSV itself (Content-Type: text/csv). Refused whole, with the row and reason, when "
        "any row cannot be used; nothing is stored then.",
        scope="scan:submit",
        tags=("assessments",),
        responses={201: AssessmentView},
        errors=(400, 401, 403, 404, 409, 413),
        parameters=(
            _ID,
            Parameter("dataset", "query", "The data set (default ll144_outcomes).", required=False),
            Parameter("kind", "query", "historical (default) or test.", required=False),
            Parameter("fileName", "query", "The file's name, shown in reports.", required=False),
        ),
    ),
]

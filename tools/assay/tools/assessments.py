"""Wizard assessment tools: start or read an assessment, answer its questions, attach its data file.

An agent answers the questions marked ``askWhom: code`` from what it reads in the source, and asks the
person only the ``askWhom: person`` ones (dates, audits, notices it cannot know).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import quote

import anyio
from mcp.server.mcpserver import Context
from pydantic import BaseModel, ConfigDict, Field

from assay.tools.client import AssayError
from assay.tools.context import binding, client, system_id
from assay.tools.evidence import evidence_files

ASSESSMENTS = "/api/v1/assessments"
AssessmentId = Annotated[str, Field(min_length=1, description="An assessmentId from assay_assessment.")]


class AnswerItem(BaseModel):
    """One answer: the question id, and its value (true/false, a choice value, YYYY-MM-DD or text)."""

    model_config = ConfigDict(extra="forbid")
    questionId: str = Field(min_length=1)
    value: bool | str
    evidenceRefs: list[str] = Field(
        default_factory=list, max_length=20, description="Where it can be checked: file:line, URL, document id."
    )


def _next(view: dict[str, Any]) -> str:
    assessment = view["assessmentId"]
    open_questions = view.get("openQuestions") or []
    code = [q["id"] for q in open_questions if q["askWhom"] == "code"]
    person = [q["id"] for q in open_questions if q["askWhom"] == "person"]
    if code:
        return (
            f"answer {', '.join(code)} from the source yourself with assay_answer_assessment("
            f"assessment_id={assessment!r}, answers=[...]); the next answers may open more questions."
        )
    if person:
        return (
            f"ask the person: {open_questions[0]['text']} (question {open_questions[0]['id']}); then "
            "assay_answer_assessment. Answer only what the person tells you."
        )
    needs_data = [c for c in view.get("controls", []) if any(s.endswith("_outcomes") for s in c.get("closedBy", []))]
    if needs_data:
        return f"attach the candidate outcomes CSV with assay_attach_assessment_data(assessment_id={assessment!r}, path=...)."
    return (
        f"create a run with assay_create_run(assessment_id={assessment!r}) to freeze it and check the answers "
        "against the code and traces."
    )


def _shaped(view: dict[str, Any]) -> dict[str, Any]:
    """The assessment as an agent reads it: bounded (controls without their requirement details)."""
    return {
        **{k: view[k] for k in ("assessmentId", "aiSystemId", "framework", "pack", "revision", "complete")},
        **({"changed": view["changed"]} if "changed" in view else {}),
        "answers": view["answers"],
        "nextQuestion": view["nextQuestion"],
        "openQuestions": view["openQuestions"],
        "data": view["data"],
        "figures": view["figures"],
        "controls": [
            {k: c.get(k) for k in ("id", "status", "citation", "appliesFrom", "closedBy")} for c in view["controls"]
        ],
        "nextStep": _next(view),
    }


async def assessment(
    ctx: Context[Any, Any],
    framework: Annotated[
        Literal["nyc_ll144", "colorado_ai", "eu_ai_act"] | None,
        Field(description="Start a NEW assessment under this framework (omit when reading one)."),
    ] = None,
    assessment_id: Annotated[str | None, Field(description="Read this assessment instead of starting one.")] = None,
    ai_system_id: Annotated[
        str | None, Field(description="The AI System assessed; default: this workspace's system.")
    ] = None,
) -> dict[str, Any]:
    """Start a wizard assessment (framework) or read one (assessment_id): its open questions in order, each
    with askWhom (code: answer it from the source; person: ask the user), answers, figures and control
    statuses. Next: assay_answer_assessment."""
    api = client(ctx)
    if assessment_id is not None:
        view = await api.get_json(f"{ASSESSMENTS}/{quote(assessment_id, safe='')}")
    elif framework is not None:
        body = {"aiSystemId": await system_id(binding(ctx), ai_system_id, api), "framework": framework}
        view = await api.post_json(ASSESSMENTS, body)
    else:
        raise AssayError("INVALID_REQUEST", "Give framework (to start) or assessment_id (to read)")
    return _shaped(view)


async def answer_assessment(
    ctx: Context[Any, Any],
    assessment_id: AssessmentId,
    answers: Annotated[
        list[AnswerItem],
        Field(
            min_length=1,
            max_length=30,
            description="Answers in the wizard's order (a later question may need an earlier answer).",
        ),
    ],
) -> dict[str, Any]:
    """Answer questions of an assessment, in order; each answer is recorded on its own (the same answer again
    changes nothing). Stops at the first refused answer and says which were recorded. Next: the returned
    nextStep (more questions, the data file, or a run)."""
    api = client(ctx)
    path = f"{ASSESSMENTS}/{quote(assessment_id, safe='')}/answers"
    recorded: list[str] = []
    view: dict[str, Any] = {}
    for item in answers:
        try:
            view = await api.put_json(
                f"{path}/{quote(item.questionId, safe='')}", {"value": item.value, "evidenceRefs": item.evidenceRefs}
            )
        except AssayError as exc:
            done = f" Recorded before it: {', '.join(recorded)}." if recorded else " Nothing was recorded."
            raise AssayError(exc.code, f"{exc.message}{done}", status=exc.status, retryable=exc.retryable) from exc
        recorded.append(item.questionId)
    return _shaped(view)


async def attach_assessment_data(
    ctx: Context[Any, Any],
    assessment_id: AssessmentId,
    path: Annotated[
        str,
        Field(
            description="The CSV file (nyc_ll144: sex, race_ethnicity, selected 0/1 or score), relative to the workspace."
        ),
    ],
    kind: Annotated[
        Literal["historical", "test"],
        Field(
            description="historical data of the tool's use, or test data (only when historical data is insufficient)."
        ),
    ] = "historical",
) -> dict[str, Any]:
    """Attach a data file to an assessment; Assay computes its figures (LL144: selection or scoring rates and
    impact ratios by sex, race/ethnicity and both). A file with any unusable row is refused whole, naming the
    row. Next: the returned nextStep."""
    file = evidence_files(binding(ctx), [path])[0]
    data = await anyio.to_thread.run_sync(Path.read_bytes, file)
    view = await client(ctx).post_content(
        f"{ASSESSMENTS}/{quote(assessment_id, safe='')}/data", data, "text/csv", {"kind": kind, "fileName": file.name}
    )
    return _shaped(view)

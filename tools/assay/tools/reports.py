"""Report tools: summary, agent audit, Master Report and passport of one exact Evaluation.

Each answer fits one tool result (``answers.ANSWER_BUDGET``): verification items come whole, as many a page
as fit; a large document comes with its largest parts left out and named, each readable by ``section``.
A missing Evaluation, or another organization's, is an error (RESOURCE_NOT_FOUND on the tool-error
channel), never an empty success; no tool resolves a "latest" one.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, cast
from urllib.parse import quote

from mcp.server.mcpserver import Context
from pydantic import Field

from assay.tools.answers import ANSWER_BUDGET, DOCUMENT_BUDGET, fit, item_pages, select, size
from assay.tools.client import AssayClient, AssayError
from assay.tools.context import client
from assay.tools.models import AgentAuditPage, DocumentPart, PassportNote, Summary

EVALUATIONS = "/api/v1/assurance/evaluations"
# Ids are opaque to the client, but they are one path segment: no slashes, no dots that could climb.
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_:-]{0,127}$"

EvaluationId = Annotated[
    str,
    Field(
        pattern=ID_PATTERN,
        description="Exact evaluationId (assay_assess_workspace, assay_get_run); there is no 'latest'.",
    ),
]


def evaluation_path(evaluation_id: str, suffix: str) -> str:
    """The route of one artifact of one Evaluation."""
    return f"{EVALUATIONS}/{quote(evaluation_id, safe='')}/{suffix}"


async def read_artifact(
    api: AssayClient, evaluation_id: str, suffix: str, params: dict[str, Any] | None = None
) -> dict[str, Any]:
    """One artifact of one Evaluation as JSON (tools and resources share it)."""
    result: dict[str, Any] = await api.get_json(evaluation_path(evaluation_id, suffix), params=params)
    return result


# What a page of verification items leaves for everything else in the answer.
PAGE_ENVELOPE = 2_000
Section = Annotated[
    str | None,
    Field(
        max_length=200,
        description="One part to read: a key of `omitted` (a dotted path); default: the whole, largest parts left out.",
    ),
]


async def get_summary(ctx: Context[Any, Any], evaluation_id: EvaluationId) -> Summary:
    """Summary of one Evaluation: disposition (ALLOW, REVIEW or BLOCK), digests, counts per question, top
    reasons with rule ids. Next: assay_get_agent_audit(evaluation_id) for the verification items."""
    return cast(Summary, await read_artifact(client(ctx), evaluation_id, "summary"))


async def verification_items(api: AssayClient, evaluation_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The whole agent audit of one Evaluation and its verification items (most severe first)."""
    audit = (await read_artifact(api, evaluation_id, "agent-audit", {"detail": "full"}))["agentAudit"]
    items: list[dict[str, Any]] = audit["verificationItems"]
    return audit, items


def page_of(items: list[dict[str, Any]], page: int, reserved: int = 0) -> tuple[list[dict[str, Any]], int, range]:
    """Page ``page`` of ``items`` (whole items, as many as fit one answer), the page count and its range;
    INVALID_REQUEST past the last page."""
    pages = item_pages(items, ANSWER_BUDGET - PAGE_ENVELOPE - reserved)
    if not 1 <= page <= len(pages):
        raise AssayError("INVALID_REQUEST", f"page must be between 1 and {len(pages)}", next_step="call with page=1.")
    span = pages[page - 1]
    return [items[n] for n in span], len(pages), span


def span_text(span: range) -> str:
    return f"{span.start + 1}-{span.stop}" if span else "none"


def _part(evaluation_id: str, document: Any, section: str | None, read: str, next_step: str) -> DocumentPart:
    try:
        value = select(document, section) if section else document
    except KeyError:
        raise AssayError(
            "INVALID_REQUEST",
            f"there is no section {section!r}",
            next_step="call without section and pick one of the paths its `omitted` lists.",
        ) from None
    prefix = f"{section}." if section else ""
    fitted, omitted = fit(value, DOCUMENT_BUDGET, lambda path: read.format(section=prefix + path))
    renamed = {prefix + path: entry for path, entry in omitted.items()}
    return {
        "evaluationId": evaluation_id,
        "section": section,
        "value": fitted,
        "omitted": renamed,
        "nextStep": next_step,
    }


async def get_agent_audit(
    ctx: Context[Any, Any],
    evaluation_id: EvaluationId,
    page: Annotated[int, Field(ge=1, description="Page of verification items (paging.nextPage).")] = 1,
    section: Section = None,
) -> AgentAuditPage | DocumentPart:
    """Verification items of one Evaluation, most severe first, whole, as many a page as fit: id, severity,
    location, tool, actionClass and `verificationNeeded`, the only evidence to gather. Follow
    paging.nextPage; section='sections' or 'narrative' reads the rest. Next: change the workspace as the
    items ask, then assay_assess_workspace."""
    api = client(ctx)
    audit, items = await verification_items(api, evaluation_id)
    if section:
        read = f"assay_get_agent_audit(evaluation_id={evaluation_id!r}, section='{{section}}')"
        return _part(evaluation_id, audit, section, read, "follow `omitted` for the parts left out.")
    chosen, pages, span = page_of(items, page)
    next_page = page + 1 if page < pages else None
    if next_page:
        next_step = (
            f"assay_get_agent_audit(evaluation_id={evaluation_id!r}, page={next_page}) for items from {span.stop + 1} "
            f"of {len(items)}."
        )
    else:
        next_step = "change the workspace as the items ask, then assay_assess_workspace for a NEW Evaluation."
    return {
        "evaluationId": evaluation_id,
        "disposition": audit.get("disposition"),
        "methodologyVersion": audit.get("methodologyVersion"),
        "verificationItems": cast(Any, chosen),
        "paging": {
            "page": page,
            "pages": pages,
            "items": span_text(span),
            "totalItems": len(items),
            "nextPage": next_page,
        },
        "nextStep": next_step,
    }


async def get_master_report(
    ctx: Context[Any, Any],
    evaluation_id: EvaluationId,
    section: Section = None,
    detail: Annotated[
        Literal["bounded", "full"],
        Field(description="bounded (default): lists capped with omitted counts; full: every entry."),
    ] = "bounded",
) -> DocumentPart:
    """Master Assurance Report of one Evaluation (Four Questions, scenario snapshot, digests, limitations),
    its largest parts left out and listed in `omitted`. Next: read one with section=PATH from `omitted`."""
    report = (await read_artifact(client(ctx), evaluation_id, "master-report", {"detail": detail}))["masterReport"]
    read = f"assay_get_master_report(evaluation_id={evaluation_id!r}, section='{{section}}'"
    read += ", detail='full')" if detail == "full" else ")"
    return _part(evaluation_id, report, section, read, "read a part left out with the call its `omitted` entry gives.")


async def get_passport(ctx: Context[Any, Any], evaluation_id: EvaluationId) -> PassportNote:
    """Where the signed passport of one Evaluation is (a DSSE envelope, in-toto Statement v1, Ed25519) and
    its key ids. Next: save the `resource` verbatim to a file, then `assay passport verify FILE --jwks JWKS`."""
    envelope = await read_artifact(client(ctx), evaluation_id, "passport")
    return {
        "evaluationId": evaluation_id,
        "payloadType": str(envelope.get("payloadType")),
        "keyIds": [str(s.get("keyid")) for s in envelope.get("signatures") or []],
        "bytes": size(envelope),
        "resource": f"assay://evaluations/{evaluation_id}/passport",
        "route": evaluation_path(evaluation_id, "passport"),
        "nextStep": "read the resource (or GET the route with your API key), save it verbatim, then verify offline: "
        "`assay passport verify FILE --jwks JWKS` (JWKS: the service's /.well-known/jwks.json).",
    }

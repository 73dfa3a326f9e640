"""Resources for assistants that read rather than call. Each is bound to an exact Evaluation id, never
"latest"; the verification items are exactly as the agent audit gives them, whole, in pages that each fit
one answer (``answers.ANSWER_BUDGET``); the reports keep their largest parts out and name the tool call that
reads each. A missing or foreign Evaluation is a resource-not-found error, never an empty document.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError

from assay.tools.answers import DOCUMENT_BUDGET, dumps, fit, size
from assay.tools.client import AssayClient, AssayError
from assay.tools.context import BindingSource, binding
from assay.tools.reports import page_of, read_artifact, span_text, verification_items

NOT_FOUND_CODES = frozenset({"RESOURCE_NOT_FOUND", "RUN_NOT_FOUND", "AI_SYSTEM_NOT_FOUND"})


def _dumps(value: Any) -> str:
    return dumps(value)


def pages_uri(evaluation_id: str, page: int) -> str:
    return f"assay://evaluations/{evaluation_id}/verification-needed/pages/{page}"


def _resource_error(exc: AssayError) -> ResourceError:
    return ResourceNotFoundError(str(exc)) if exc.code in NOT_FOUND_CODES else ResourceError(str(exc))


async def _artifact(ctx: Context[Any, Any], evaluation_id: str, suffix: str, **params: str) -> dict[str, Any]:
    try:
        return await read_artifact(binding(ctx).client_for(ctx), evaluation_id, suffix, params or None)
    except AssayError as exc:
        raise _resource_error(exc) from exc


def item_id(item: dict[str, Any], position: int) -> str:
    """An item's id: its ``id`` member, or its 1-based position for services that give none."""
    return str(item.get("id") or position)


async def _items(ctx: Context[Any, Any], evaluation_id: str) -> list[dict[str, Any]]:
    try:
        return (await verification_items(binding(ctx).client_for(ctx), evaluation_id))[1]
    except AssayError as exc:
        raise _resource_error(exc) from exc


async def _page(ctx: Context[Any, Any], evaluation_id: str, page: int) -> str:
    items = await _items(ctx, evaluation_id)
    ids = [item_id(item, n) for n, item in enumerate(items, start=1)]
    try:
        chosen, pages, span = page_of(items, page, reserved=size(ids))
    except AssayError as exc:
        raise ResourceNotFoundError(str(exc)) from exc
    return _dumps(
        {
            "evaluationId": evaluation_id,
            "itemIds": ids,
            "page": page,
            "pages": pages,
            "items": span_text(span),
            "verificationItems": chosen,
            "nextPage": pages_uri(evaluation_id, page + 1) if page < pages else None,
        }
    )


async def verification_needed(evaluationId: str, ctx: Context[Any, Any]) -> str:  # noqa: N803 (URI variable)
    """The first page of the Evaluation's verification items, verbatim, and every item's id."""
    return await _page(ctx, evaluationId, 1)


async def verification_page(evaluationId: str, page: str, ctx: Context[Any, Any]) -> str:  # noqa: N803
    """One page of the Evaluation's verification items, verbatim."""
    if not page.isdigit():
        raise ResourceNotFoundError(f"RESOURCE_NOT_FOUND: there is no page {page!r}")
    return await _page(ctx, evaluationId, int(page))


async def verification_item(evaluationId: str, itemId: str, ctx: Context[Any, Any]) -> str:  # noqa: N803
    """One verification item of the Evaluation, verbatim."""
    for n, item in enumerate(await _items(ctx, evaluationId), start=1):
        if item_id(item, n) == itemId:
            return _dumps({"evaluationId": evaluationId, "verificationItem": item})
    raise ResourceNotFoundError(
        f"RESOURCE_NOT_FOUND: Evaluation {evaluationId} has no verification item {itemId}. Next: read "
        f"assay://evaluations/{evaluationId}/verification-needed for its itemIds."
    )


async def summary(evaluationId: str, ctx: Context[Any, Any]) -> str:  # noqa: N803
    """The Evaluation's summary."""
    return _dumps(await _artifact(ctx, evaluationId, "summary"))


def _fitted(evaluation_id: str, document: dict[str, Any], tool: str) -> str:
    fitted, omitted = fit(
        document, DOCUMENT_BUDGET, lambda path: f"{tool}(evaluation_id={evaluation_id!r}, section='{path}')"
    )
    return _dumps({"evaluationId": evaluation_id, **fitted, "omitted": omitted})


async def master_report(evaluationId: str, ctx: Context[Any, Any]) -> str:  # noqa: N803
    """The Evaluation's Master Report, bounded detail, its largest parts named in `omitted`."""
    report = (await _artifact(ctx, evaluationId, "master-report", detail="bounded"))["masterReport"]
    return _fitted(evaluationId, report, "assay_get_master_report")


async def agent_audit(evaluationId: str, ctx: Context[Any, Any]) -> str:  # noqa: N803
    """The Evaluation's agent audit, bounded, its largest parts named in `omitted` (items: verification-needed)."""
    audit = (await _artifact(ctx, evaluationId, "agent-audit"))["agentAudit"]
    return _fitted(evaluationId, audit, "assay_get_agent_audit")


async def passport(evaluationId: str, ctx: Context[Any, Any]) -> str:  # noqa: N803
    """The Evaluation's passport, verbatim (a signed DSSE envelope): save it as it is to verify it offline."""
    return _dumps(await _artifact(ctx, evaluationId, "passport"))


async def systems(current: BindingSource) -> str:
    """The AI Systems of the organization (a static resource gets no request context from the SDK)."""
    try:
        api: AssayClient = (await current()).client_for(None)
        return _dumps(await api.get_json("/api/v1/systems"))
    except AssayError as exc:
        raise _resource_error(exc) from exc

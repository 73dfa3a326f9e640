"""Registers every Assay tool and resource on an MCP server (a function, never a module-level server)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

from assay.tools import assessments, discovery, evidence, reports, resources, runs, runtime, workspace
from assay.tools.answers import ANSWER_BUDGET, DOCUMENT_BUDGET, dumps, fit, size
from assay.tools.context import BindingSource

# Reads change nothing. Creating a run adds a NEW run and Evaluation and never alters an existing one:
# not destructive, and not idempotent (each call is a new run). No tool reaches beyond the service.
READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
CREATE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
# An answer replaces the previous answer to the same question (the same answer again changes nothing).
ANSWER = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
# A probe contacts the MCP server it names (a process it starts, or a URL): open world, changes nothing there.
PROBE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=True)


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One tool: its stable name (prompts and agents refer to it), title, function and hints."""

    name: str
    title: str
    function: Callable[..., Any]
    annotations: ToolAnnotations


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec("assay_assess_workspace", "Assess this workspace (one call)", workspace.assess_workspace, CREATE),
    ToolSpec("assay_create_run", "Create an assurance run", runs.create_run, CREATE),
    ToolSpec("assay_get_run", "Read or wait for a run", runs.get_run, READ),
    ToolSpec("assay_list_runs", "List runs", runs.list_runs, READ),
    ToolSpec("assay_get_summary", "Evaluation summary", reports.get_summary, READ),
    ToolSpec("assay_get_agent_audit", "Agent audit and verification items", reports.get_agent_audit, READ),
    ToolSpec("assay_get_master_report", "Master Assurance Report", reports.get_master_report, READ),
    ToolSpec("assay_get_passport", "Evaluation passport", reports.get_passport, READ),
    ToolSpec("assay_list_systems", "List AI Systems", discovery.list_systems, READ),
    ToolSpec("assay_get_evaluation_sources", "Evaluation sources of a system", discovery.get_evaluation_sources, READ),
    ToolSpec("assay_list_evidence_binders", "List evidence binders", discovery.list_evidence_binders, READ),
    ToolSpec("assay_ingest_evidence", "Send local traces or SARIF to intake", evidence.ingest_evidence, CREATE),
    ToolSpec("assay_assessment", "Start or read a wizard assessment", assessments.assessment, CREATE),
    ToolSpec("assay_answer_assessment", "Answer assessment questions", assessments.answer_assessment, ANSWER),
    ToolSpec(
        "assay_attach_assessment_data", "Attach an assessment's data file", assessments.attach_assessment_data, CREATE
    ),
    ToolSpec("assay_probe_mcp_server", "Probe an MCP server (runtime engine)", runtime.probe_mcp_server, PROBE),
)


@dataclass(frozen=True, slots=True)
class ResourceSpec:
    uri: str
    name: str
    title: str
    description: str
    function: Callable[..., Any]


EVALUATION = "assay://evaluations/{evaluationId}"
RESOURCE_TEMPLATES: tuple[ResourceSpec, ...] = (
    ResourceSpec(
        f"{EVALUATION}/verification-needed",
        "verification-needed",
        "Verification needed",
        "Verification items, verbatim, first page (nextPage: the rest); verificationNeeded is the only evidence "
        "to gather. itemIds: every item's id, for the per-item resource.",
        resources.verification_needed,
    ),
    ResourceSpec(
        f"{EVALUATION}/verification-needed/pages/{{page}}",
        "verification-needed-page",
        "Verification needed (one page)",
        "One page of the verification items, verbatim.",
        resources.verification_page,
    ),
    ResourceSpec(
        f"{EVALUATION}/verification-needed/{{itemId}}",
        "verification-item",
        "One verification item",
        "One verification item of the Evaluation, verbatim: attach exactly the evidence request being worked on.",
        resources.verification_item,
    ),
    ResourceSpec(f"{EVALUATION}/summary", "summary", "Summary", "The Evaluation's summary.", resources.summary),
    ResourceSpec(
        f"{EVALUATION}/master-report",
        "master-report",
        "Master Report (bounded)",
        "The Evaluation's Master Report, bounded, its largest parts named in `omitted`.",
        resources.master_report,
    ),
    ResourceSpec(
        f"{EVALUATION}/agent-audit",
        "agent-audit",
        "Agent audit",
        "The Evaluation's agent audit, its largest parts named in `omitted`.",
        resources.agent_audit,
    ),
    ResourceSpec(
        f"{EVALUATION}/passport",
        "passport",
        "Passport",
        "The Evaluation's signed passport (DSSE envelope), verbatim: save it as is to verify it offline.",
        resources.passport,
    ),
)
SYSTEMS_URI = "assay://systems"


def answer_text(value: Any) -> str:
    """A tool's answer as the one compact JSON text the model reads; never over ``ANSWER_BUDGET`` bytes."""
    if size(value) <= ANSWER_BUDGET:
        return dumps(value)
    # Tools page and split their own documents; this keeps any other answer (a long run list) in bounds.
    fitted, omitted = fit(value, DOCUMENT_BUDGET, lambda path: "ask for less (page, limit) to see it")
    return dumps({**fitted, "omitted": omitted} if isinstance(fitted, dict) else fitted)


def as_text(function: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[str]]:
    """``function`` answering :func:`answer_text` of what it returns, with the same arguments and schema."""
    signature = inspect.signature(function, eval_str=True)

    @functools.wraps(function)
    async def answer(*args: Any, **kwargs: Any) -> str:
        return answer_text(await function(*args, **kwargs))

    # The SDK reads arguments (and the Context parameter) from the signature and the type hints.
    answer.__signature__ = signature.replace(return_annotation=str)  # type: ignore[attr-defined]
    answer.__annotations__ = {name: p.annotation for name, p in signature.parameters.items()} | {"return": str}
    return answer


NULL = {"type": "null"}


def compact_schema(schema: Any) -> Any:
    """A tool's input schema as short as it says the same to a model, which reads it on every turn: no
    ``title`` (pydantic's copy of the name), and an optional argument (``X | None = None``) as ``X`` alone,
    since leaving it out is how a caller says "none"."""
    if isinstance(schema, list):
        return [compact_schema(entry) for entry in schema]
    if not isinstance(schema, dict):
        return schema
    kept: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in ("properties", "$defs") and isinstance(value, dict):
            kept[key] = {name: compact_schema(entry) for name, entry in value.items()}
        else:
            kept[key] = compact_schema(value)
    options = kept.get("anyOf")
    optional = "default" in kept and kept["default"] is None
    if optional and isinstance(options, list) and len(options) == 2 and NULL in options:
        (only,) = [option for option in options if option != NULL]
        rest = {k: v for k, v in kept.items() if k not in ("anyOf", "default")}
        return {**only, **rest}
    return kept


def register_all(server: MCPServer[Any], current: BindingSource) -> None:
    """Add every tool and resource to ``server``. Tools find the binding through the request's lifespan
    context; the static resource (the SDK gives it no request context) asks ``current`` for it."""
    for tool in TOOLS:
        description = inspect.cleandoc(tool.function.__doc__ or tool.title)
        server.tool(
            name=tool.name,
            title=tool.title,
            description=description,
            annotations=tool.annotations,
            structured_output=False,
        )(as_text(tool.function))
        # The SDK keeps the schema on its Tool; the model reads it on every turn (docs/mcp.md, tools/list size).
        registered = server._tool_manager.get_tool(tool.name)
        if registered is not None:
            registered.parameters = compact_schema(registered.parameters)
    for spec in RESOURCE_TEMPLATES:
        server.resource(
            spec.uri, name=spec.name, title=spec.title, description=spec.description, mime_type="application/json"
        )(spec.function)

    async def systems() -> str:
        return await resources.systems(current)

    server.resource(
        SYSTEMS_URI,
        name="systems",
        title="AI Systems",
        description="The AI Systems of your organization.",
        mime_type="application/json",
    )(systems)

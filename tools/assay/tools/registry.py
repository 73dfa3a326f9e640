"""Registers every Assay tool and resource on an MCP server (a factory, never a module-level server)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

from assay.tools import discovery, reports, resources, runs, workspace

READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
CREATE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)

# (name, title, function, annotations): the stable tool ids agents and prompts refer to.
TOOLS: tuple[tuple[str, str, Callable[..., Any], ToolAnnotations], ...] = (
    ("assay_assess_workspace", "Assess this workspace", workspace.assess_workspace, CREATE),
    ("assay_create_run", "Create an assurance run", runs.create_run, CREATE),
    ("assay_get_run", "Read or wait for a run", runs.get_run, READ),
    ("assay_list_runs", "List runs", runs.list_runs, READ),
    ("assay_get_summary", "Evaluation summary", reports.get_summary, READ),
    ("assay_get_agent_audit", "Agent audit and verification items", reports.get_agent_audit, READ),
    ("assay_get_master_report", "Master Assurance Report", reports.get_master_report, READ),
    ("assay_get_passport", "Signed passport", reports.get_passport, READ),
    ("assay_list_systems", "List AI Systems", discovery.list_systems, READ),
    ("assay_get_evaluation_sources", "Evaluation sources of a system", discovery.get_evaluation_sources, READ),
    ("assay_list_evidence_binders", "List evidence binders", discovery.list_evidence_binders, READ),
)

RESOURCES: tuple[tuple[str, str, str, Callable[..., Any]], ...] = (
    (
        "assay://evaluations/{evaluationId}/verification-needed",
        "verification-needed",
        "The Evaluation's verificationNeeded items, verbatim: the only evidence to gather.",
        resources.verification_needed,
    ),
    (
        "assay://evaluations/{evaluationId}/verification-needed/{itemId}",
        "verification-item",
        "One verification item of the Evaluation, verbatim.",
        resources.verification_item,
    ),
    ("assay://evaluations/{evaluationId}/summary", "summary", "The Evaluation's summary.", resources.summary),
    (
        "assay://evaluations/{evaluationId}/master-report",
        "master-report",
        "The bounded Master Report.",
        resources.master_report,
    ),
    ("assay://evaluations/{evaluationId}/agent-audit", "agent-audit", "The agent audit.", resources.agent_audit),
)


def register_all(server: MCPServer[Any]) -> None:
    for name, title, function, hints in TOOLS:
        server.tool(name=name, title=title, annotations=hints)(function)
    for uri, name, description, function in RESOURCES:
        server.resource(uri, name=name, description=description, mime_type="application/json")(function)

"""Exactly what the scan finds in each example system under examples/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from assay.backend.engines.static.scan import scan_tree
from assay.backend.scans.bundle import EvidenceBundle

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _pinned(bundle: EvidenceBundle) -> dict[str, Any]:
    tools = {t.id: t.name for t in bundle.tools}
    gates = {g.id: g.kind for g in bundle.gates}
    return {
        "models": sorted((m.provider, m.api, f"{m.location.path}:{m.location.line}") for m in bundle.models),
        "tools": sorted((t.name, t.framework, f"{t.location.path}:{t.location.line}") for t in bundle.tools),
        "actions": sorted(
            (
                a.actionClass,
                a.target,
                f"{a.location.path}:{a.location.line}",
                tuple(sorted(tools[p.toolId] for p in a.reachedFrom)),
                tuple(sorted(gates[g] for g in a.gateIds)),
            )
            for a in bundle.actions
        ),
        "gates": sorted((g.kind, f"{g.location.path}:{g.location.line}") for g in bundle.gates),
        "flows": sorted(
            (f.sourceKind, f"{f.source.path}:{f.source.line}", f.actionClass, f"{f.sink.path}:{f.sink.line}")
            for f in bundle.taintFlows
        ),
        "frontier": sorted(
            (f.kind, f"{f.location.path}:{f.location.line}" if f.location else f.path) for f in bundle.frontier
        ),
        "findings": sorted(
            (f.ruleId, f"{f.locations[0].path}:{f.locations[0].line}" if f.locations else "") for f in bundle.findings
        ),
    }


EXPECTED: dict[str, dict[str, Any]] = {
    "ops-agent": {
        "models": [
            # The Agent(...) the runner runs names its provider (the Agents SDK's OpenAI default).
            ("openai", "agents.Agent", "ops_agent/agent.py:10"),
            ("openai", "agents.Runner.run_sync", "ops_agent/agent.py:32"),
            ("openai", "openai.OpenAI.chat.completions.create", "ops_agent/agent.py:20"),
        ],
        "tools": [
            ("lookup_incident", "openai-agents", "ops_agent/tools.py:17"),
            ("purge_cache", "openai-agents", "ops_agent/tools.py:42"),
            ("restart_service", "openai-agents", "ops_agent/tools.py:25"),
            ("run_diagnostic", "openai-agents", "ops_agent/tools.py:35"),
        ],
        "actions": [
            ("file.delete", "shutil.rmtree", "ops_agent/tools.py:44", ("purge_cache",), ()),
            ("network.egress", "httpx.get", "ops_agent/tools.py:19", ("lookup_incident",), ()),
            (
                "shell.exec",
                "subprocess.run",
                "ops_agent/infra.py:7",
                ("restart_service",),
                ("allowlist", "human_approval"),
            ),
            ("shell.exec", "subprocess.run", "ops_agent/tools.py:37", ("run_diagnostic",), ()),
        ],
        "gates": [
            ("allowlist", "ops_agent/tools.py:27"),
            ("human_approval", "ops_agent/approval.py:5"),
            ("human_approval", "ops_agent/tools.py:29"),
        ],
        "flows": [
            ("tool_argument", "ops_agent/tools.py:17", "network.egress", "ops_agent/tools.py:19"),
            ("tool_argument", "ops_agent/tools.py:35", "shell.exec", "ops_agent/tools.py:37"),
            ("tool_argument", "ops_agent/tools.py:42", "file.delete", "ops_agent/tools.py:44"),
        ],
        "frontier": [],
        "findings": [
            ("F-TAINT-EXEC", "ops_agent/tools.py:35"),
            ("F-UNDECLARED-ACTION", "ops_agent/tools.py:37"),
            ("F-UNDECLARED-ACTION", "ops_agent/tools.py:44"),
            ("F-UNDECLARED-TOOL", "ops_agent/tools.py:42"),
            ("F-UNGATED-HIGH-IMPACT", "ops_agent/tools.py:37"),
            ("F-UNGATED-HIGH-IMPACT", "ops_agent/tools.py:44"),
        ],
    },
    "support-agent-ts": {
        "models": [("openai", "ai.generateText", "src/agent.ts:46")],
        "tools": [
            ("createTicket", "vercel-ai", "src/agent.ts:21"),
            ("searchDocs", "vercel-ai", "src/agent.ts:13"),
            ("sendReply", "vercel-ai", "src/agent.ts:29"),
        ],
        "actions": [
            ("db.write", "@prisma/client.PrismaClient.ticket.create", "src/agent.ts:25", ("createTicket",), ()),
            (
                "message.send",
                "nodemailer.createTransport.sendMail",
                "src/mailer.ts:6",
                ("sendReply",),
                ("human_approval",),
            ),
            ("network.egress", "fetch", "src/agent.ts:17", ("searchDocs",), ()),
            ("network.egress", "fetch", "src/approval.ts:3", ("sendReply",), ()),
        ],
        "gates": [("human_approval", "src/agent.ts:33")],
        "flows": [
            ("tool_argument", "src/agent.ts:13", "network.egress", "src/agent.ts:17"),
            ("tool_argument", "src/agent.ts:21", "db.write", "src/agent.ts:25"),
            ("tool_argument", "src/agent.ts:29", "message.send", "src/mailer.ts:6"),
            ("tool_argument", "src/agent.ts:29", "network.egress", "src/approval.ts:3"),
        ],
        "frontier": [("runtime_registered_tools", "src/agent.ts:45")],
        "findings": [("F-UNDECLARED-ACTION", "src/approval.ts:3"), ("F-UNRESOLVED-REACH", "src/agent.ts:45")],
    },
    "research-assistant": {
        "models": [("anthropic", "langchain_anthropic.ChatAnthropic", "research/graph.py:10")],
        "tools": [
            ("save_summary", "langchain", "research/tools.py:21"),
            ("search_papers", "langchain", "research/tools.py:13"),
        ],
        "actions": [
            ("file.write", "pathlib.Path.write_text", "research/tools.py:25", ("save_summary",), ()),
            ("network.egress", "httpx.get", "research/tools.py:15", ("search_papers",), ()),
        ],
        "gates": [],
        "flows": [
            ("tool_argument", "research/tools.py:13", "network.egress", "research/tools.py:15"),
            ("tool_argument", "research/tools.py:21", "file.write", "research/tools.py:25"),
        ],
        "frontier": [],
        "findings": [],
    },
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_scan_is_pinned(name: str) -> None:
    bundle = scan_tree(EXAMPLES / name)
    assert _pinned(bundle) == EXPECTED[name]
    assert bundle.coverage.complete is True
    assert bundle.declaration is not None


def test_typescript_example_names_the_model_behind_its_call() -> None:
    """support-agent-ts calls ``generateText({ model: openai("gpt-4o") })``: one model use (the provider
    function inside the call only names its model), whose model id the bundle carries."""
    bundle = scan_tree(EXAMPLES / "support-agent-ts")
    assert [(m.provider, m.api, m.model) for m in bundle.models] == [("openai", "ai.generateText", "gpt-4o")]

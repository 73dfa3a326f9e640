"""Tools whose definition and whose use sit apart (issue 13), joined across files: a factory returning
``tool({...})`` named by the key its result is placed under (``{ runCommand: runCommand({ writer }) }``),
a tool defined in one file and placed under a key in another, a tool set's key whose definition is
outside the tree (a tool, and a frontier item), tool definitions written as objects (``{ name, handler }``)
registered under their own name through a barrel file (``server.registerTool(def.name, ...)``), names
imported through a project path alias (``~/utils/x``) found in the tree; what cannot be named (tools built
from data, registered in a loop, a factory's tools keyed at run time) is a frontier item, never a silent miss."""

from __future__ import annotations

import shutil
from pathlib import Path

from jsfix import FIXTURES

from assay.backend.engines.static.scan import scan_tree
from assay.backend.scans.bundle import EvidenceBundle


def _scan(tmp_path: Path) -> EvidenceBundle:
    shutil.copytree(FIXTURES / "tool_uses", tmp_path / "app")
    return scan_tree(tmp_path / "app")


def test_tools_are_named_where_they_are_placed_or_registered(tmp_path: Path) -> None:
    bundle = _scan(tmp_path)
    assert sorted((t.name, t.location.path, t.location.line, t.framework) for t in bundle.tools) == [
        ("fetchPdf", "ai/agent.ts", 10, "vercel-ai"),  # defined behind a path alias outside the tree
        ("get_data", "src/mcp/tools/get-data-tool.ts", 11, "mcp"),  # the definition's name literal
        ("runCommand", "ai/tools/index.ts", 6, "vercel-ai"),  # the factory's result, under its key
        ("unusedTool", "ai/tools/weather.ts", 10, "vercel-ai"),
        ("weather", "ai/agent.ts", 9, "vercel-ai"),  # defined in weather.ts, placed under a key here
    ]
    frontier = {(f.location.path, f.location.line): f.detail for f in bundle.frontier if f.location}
    assert "fetchPdf is defined outside what analysis sees" in frontier[("ai/agent.ts", 10)]
    assert "known only at run time" in frontier[("ai/agent.ts", 17)]  # tools built from data
    assert "known only at run time" in frontier[("src/mcp/server.ts", 12)]  # registered in a loop
    assert "named where its result is used" in frontier[("ai/tools/registry.ts", 5)]  # keys chosen at run time


def test_placed_and_registered_tools_reach_what_their_definitions_do(tmp_path: Path) -> None:
    bundle = _scan(tmp_path)
    names = {t.id: t.name for t in bundle.tools}
    kinds = {g.id: g.kind for g in bundle.gates}
    tainted = {f.actionId for f in bundle.taintFlows if f.sourceKind == "tool_argument"}
    reached = {
        (a.actionClass, a.location.path, a.location.line): (
            sorted(names[p.toolId] for p in a.reachedFrom),
            sorted({kinds[g] for g in a.gateIds}),
            a.id in tainted,
        )
        for a in bundle.actions
    }
    assert reached[("shell.exec", "ai/tools/run-command.ts", 17)] == (["runCommand"], ["sandbox"], True)
    assert reached[("network.egress", "ai/tools/weather.ts", 7)] == (["weather"], [], True)
    # registerTool's handler -> getDataTool.handler (a barrel re-export, a property naming a function)
    # -> getData -> fetchJSON imported through ~/utils -> fetch
    assert reached[("network.egress", "src/utils/fetch-json.ts", 2)] == (["get_data"], [], True)
    # The path alias answered by the tree is no longer an unresolved call.
    assert not [f for f in bundle.frontier if f.kind == "unresolved_call" and "fetch-json" in f.detail]

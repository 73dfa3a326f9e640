"""Tools given to a model that the framework defines (issue 13): Vercel AI SDK provider tools named by
their key (``openai.tools.localShell`` with ``execute`` runs locally, its ``needsApproval`` a gate),
OpenAI Agents JS built-in tools named by type (``shellTool({ shell })`` reaches the executor's ``run``),
and toolkit definitions built as data (``{ method, name, inputSchema, execute }``: known by ``method``)."""

from __future__ import annotations

import shutil
from pathlib import Path

from jsfix import FIXTURES, actions, expected, fixture, gated

from assay.backend.engines.static.scan import scan_tree


def test_framework_tools_are_named_and_found_with_their_gates() -> None:
    facts = fixture("tools_builtin.ts")
    assert {(t.name, t.framework, t.location.line) for t in facts.tools} == {
        ("shell", "vercel-ai", 10),
        ("webSearch", "vercel-ai", 18),
        ("shell", "openai-agents", 33),
        ("web_search", "openai-agents", 33),
        ("create_refund", "mcp", 39),
    }
    assert actions(facts) == expected("tools_builtin.ts").actions
    assert gated(facts) == expected("tools_builtin.ts").gated


def test_each_tool_reaches_its_handler_or_executor(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "tools_builtin.ts", tmp_path / "agent.ts")
    bundle = scan_tree(tmp_path)
    names = {t.id: (t.name, t.framework) for t in bundle.tools}
    reached = {(a.actionClass, a.location.line): sorted(names[p.toolId] for p in a.reachedFrom) for a in bundle.actions}
    assert reached[("shell.exec", 24)] == [("shell", "openai-agents")]
    (executor,) = [a for a in bundle.actions if a.location.line == 24]
    assert [g.kind for g in bundle.gates if g.id in executor.gateIds] == ["human_approval"]  # needsApproval: true
    assert reached[("shell.exec", 15)] == [("shell", "vercel-ai")]
    assert reached[("payment", 44)] == [("create_refund", "mcp")]

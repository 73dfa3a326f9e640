"""Sandboxed command runners and what helpers return (issue 13): a tool that runs the model's command
in a Vercel Sandbox or an E2B sandbox is ``shell.exec`` under a ``sandbox`` gate, also when the sandbox
comes from a helper (``await getSandbox()``) in the same file (its ``Promise<Sandbox>`` annotation) or
in another (what its return statement gives); sandbox file writes and reads are actions too, and
provisioning a sandbox is ``cloud.change``. Model ids that fall back to a literal (``?? "gpt-5.6"``)
are that literal; AgentKit model functions name their provider."""

from __future__ import annotations

import shutil
from pathlib import Path

from jsfix import FIXTURES, fixture

from assay.backend.engines.static.scan import scan_tree
from assay.backend.scans.bundle import EvidenceBundle


def _scan(tmp_path: Path) -> EvidenceBundle:
    shutil.copytree(FIXTURES / "sandboxes", tmp_path / "src")
    return scan_tree(tmp_path)


def _reached(bundle: EvidenceBundle) -> dict[tuple[str, str, int], tuple[list[str], list[str], bool]]:
    """(class, file, line) -> (tools reaching it, kinds of its gates, tainted by a tool argument)."""
    names = {t.id: t.name for t in bundle.tools}
    kinds = {g.id: g.kind for g in bundle.gates}
    tainted = {f.actionId for f in bundle.taintFlows if f.sourceKind == "tool_argument"}
    return {
        (a.actionClass, a.location.path.rsplit("/", 1)[1], a.location.line): (
            sorted(names[p.toolId] for p in a.reachedFrom),
            sorted({kinds[g] for g in a.gateIds}),
            a.id in tainted,
        )
        for a in bundle.actions
    }


def test_a_sandbox_from_a_helper_in_another_file_runs_the_models_command(tmp_path: Path) -> None:
    reached = _reached(_scan(tmp_path))
    assert reached[("shell.exec", "agentkit.ts", 18)] == (["terminal"], ["sandbox"], True)
    assert reached[("file.write", "agentkit.ts", 27)] == (["writeFiles"], ["sandbox"], True)
    assert reached[("file.read", "agentkit.ts", 28)] == (["writeFiles"], ["sandbox"], True)


def test_a_sandbox_from_an_annotated_helper_and_a_session_sandbox(tmp_path: Path) -> None:
    reached = _reached(_scan(tmp_path))
    # openai.tools.localShell's execute: the helper's Promise<Sandbox> says what runCommand is.
    assert reached[("shell.exec", "vercel.ts", 31)] == (["shell"], ["human_approval", "sandbox"], True)
    # The helper's first call provisions the sandbox and writes into it (no sandbox gate on provisioning).
    assert reached[("cloud.change", "vercel.ts", 12)] == (["shell"], ["human_approval"], False)
    assert reached[("file.write", "vercel.ts", 14)] == (["shell"], ["human_approval", "sandbox"], False)
    # An E2B AI SDK sandbox session's restricted() handle.
    assert reached[("shell.exec", "vercel.ts", 37)] == (["bash"], ["sandbox"], True)


def test_model_ids_falling_back_to_a_literal_and_agentkit_providers(tmp_path: Path) -> None:
    models = {
        (m.location.path.rsplit("/", 1)[1], m.location.line): (m.provider, m.model) for m in _scan(tmp_path).models
    }
    assert models[("agentkit.ts", 10)] == ("anthropic", "claude-haiku-4-5")
    assert models[("vercel.ts", 22)] == ("openai", "gpt-5.6")


def test_hosted_literal_tools_search_results_and_commented_arguments() -> None:
    facts = fixture("literal_tools.ts")
    assert sorted((t.name, t.location.line) for t in facts.tools) == [
        ("get_weather", 20),  # the tool-search result's literal at 30 is the same tool: not another
        ("lookup_weather", 36),  # comments between tool()'s arguments
        ("programmatic_tool_calling", 33),
        ("search_tools", 27),
        ("shell", 13),  # { type: "shell" } in a tools list: a hosted tool, named by its type
    ]
    assert not [f for f in facts.frontier if f.kind == "dynamic_dispatch"]

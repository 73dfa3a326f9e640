"""Issue 20, frameworks the corpus had never seen (ADK for TypeScript): a tool class wrapping an agent given
as an option is a tool named after that agent and reaching what its tools reach; a library's ready-made tool
object placed in a tools list is that library's tool; an agent constructor given a bare model id of a
vendor's model family names that vendor."""

from __future__ import annotations

from pathlib import Path

from scanned import scan_files

ADK_AGENTS = """
import { AgentTool, FunctionTool, GOOGLE_SEARCH, LlmAgent } from "@google/adk";
import { execSync } from "node:child_process";
import { z } from "zod";

const shell = new FunctionTool({
  name: "run_shell",
  description: "Run a shell command",
  parameters: z.object({ cmd: z.string() }),
  execute: ({ cmd }) => execSync(cmd).toString(),
});

const opsAgent = new LlmAgent({
  name: "ops_agent",
  model: "gemini-2.5-flash",
  tools: [shell],
});

export const rootAgent = new LlmAgent({
  name: "root_agent",
  model: "gpt-4o-mini",
  tools: [new AgentTool({ agent: opsAgent }), GOOGLE_SEARCH],
});

export const helper = new LlmAgent({ name: "helper", model: "my-local-model" });
"""


def test_an_agent_wrapped_as_a_tool_is_named_after_the_agent_and_reaches_its_tools(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"agent.ts": ADK_AGENTS})
    tools = {t["name"]: t["location"]["line"] for t in bundle["tools"]}
    assert tools == {"run_shell": 6, "ops_agent": 22, "google_search": 22}
    ids = {t["name"]: t["id"] for t in bundle["tools"]}
    shell_exec = [a for a in bundle["actions"] if a["actionClass"] == "shell.exec"]
    assert len(shell_exec) == 1
    assert {p["toolId"] for p in shell_exec[0]["reachedFrom"]} == {ids["run_shell"], ids["ops_agent"]}


def test_an_agent_given_a_bare_model_id_of_a_model_family_names_its_vendor(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"agent.ts": ADK_AGENTS})
    models = sorted((m["location"]["line"], m["provider"], m["model"]) for m in bundle["models"])
    # An id of no known family (a local model's) names no vendor: no model use this rule vouches for.
    assert models == [(13, "google", "gemini-2.5-flash"), (19, "openai", "gpt-4o-mini")]


def test_an_agent_tool_whose_agent_cannot_be_named_is_a_frontier_item(tmp_path: Path) -> None:
    code = (
        'import { AgentTool, LlmAgent } from "@google/adk";\n'
        "export function build(inner: LlmAgent) {\n"
        '  return new LlmAgent({ name: "outer", tools: [new AgentTool({ agent: inner })] });\n'
        "}\n"
    )
    bundle = scan_files(tmp_path, {"agent.ts": code})
    assert bundle["tools"] == []
    assert [(f["kind"], f["location"]["line"]) for f in bundle["frontier"] if f["location"]] == [
        ("dynamic_dispatch", 3)
    ]

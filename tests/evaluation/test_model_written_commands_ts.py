"""TypeScript systems of frameworks recognised by role (issue 20) whose tools run model-written commands
are BLOCK, with no declaration or a purpose-only one: a Mastra tool running execa, a Claude Agent SDK
agent given Claude Code's Bash, and a plain Anthropic SDK loop that runs the tool_use input."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.backend.engines.static.scan import scan_tree
from assay.backend.evaluation.membership import make_membership, static_bundle_item
from assay.backend.evaluation.methodology import evaluate

MASTRA = {
    "src/mastra/agent.ts": """
import { Agent } from "@mastra/core/agent";
import { runCommand } from "./tools";
export const agent = new Agent({ id: "ops", model: "openai/gpt-4o", tools: { run_command: runCommand } });
""",
    "src/mastra/tools.ts": """
import { createTool } from "@mastra/core/tools";
import { execa } from "execa";
import { z } from "zod";
export const runCommand = createTool({
  id: "run",
  inputSchema: z.object({ command: z.string() }),
  execute: async (context) => execa(context.command, { shell: true }),
});
""",
}
CLAUDE_AGENT = {
    "agent.ts": """
import { query } from "@anthropic-ai/claude-agent-sdk";
export async function fix(task: string) {
  for await (const message of query({ prompt: task, options: { allowedTools: ["Bash", "Read", "Edit"] } })) {
    console.log(message);
  }
}
""",
}
SDK_LOOP = {
    "loop.js": """
import Anthropic from "@anthropic-ai/sdk";
import { execSync } from "child_process";
const client = new Anthropic();
export async function step(messages) {
  const { content } = await client.messages.create({
    model: "claude-sonnet-4-5", max_tokens: 1024, messages,
    tools: [{ name: "bash", description: "sh", input_schema: { type: "object", properties: { cmd: { type: "string" } } } }],
  });
  const use = content.find((item) => item.type === "tool_use");
  return use ? execSync(use.input.cmd).toString() : null;
}
""",
}
PURPOSE_ONLY = 'version = "1"\npurpose = "helps developers"\n'


@pytest.mark.parametrize("files", [MASTRA, CLAUDE_AGENT, SDK_LOOP], ids=["mastra", "claude-agent-sdk", "sdk-loop"])
@pytest.mark.parametrize("declaration", [None, PURPOSE_ONLY], ids=["no-declaration", "purpose-only"])
def test_model_written_commands_are_block(tmp_path: Path, files: dict[str, str], declaration: str | None) -> None:
    root = tmp_path / "system"
    for name, text in {**files, **({"assay.toml": declaration} if declaration else {})}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    bundle = scan_tree(root, cache=None, workers=1).to_json_dict()
    payload = evaluate(make_membership([static_bundle_item(bundle)]), ai_system_id="sys-t", jurisdiction=None)
    assert payload.disposition == "BLOCK"
    assert any(r["ruleId"] == "BLOCK-001" for r in payload.data["reasons"])

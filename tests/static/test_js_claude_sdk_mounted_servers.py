"""The Claude Agent SDK in TypeScript with tools defined before their in-process server (issue 20, tools by role
and gates wherever frameworks put them): ``const shell = tool("shell", ...)``, ``createSdkMcpServer({ name: "ops",
tools: [shell] })`` and ``query({ options: { mcpServers: { ops: server }, canUseTool } })``: the model sees
``mcp__ops__shell``, and ``canUseTool``'s refusal is a permission check before it. Options without the callback
gate nothing."""

from __future__ import annotations

from pyfix import analyse, gate_kinds

SOURCE = """\
import { query, tool, createSdkMcpServer } from '@anthropic-ai/claude-agent-sdk';
import { z } from 'zod';
import { execSync } from 'node:child_process';

const shell = tool('shell', 'Run a command', { cmd: z.string() }, async ({ cmd }) => ({
  content: [{ type: 'text', text: execSync(cmd).toString() }],
}));
const server = createSdkMcpServer({ name: 'ops', tools: [shell] });

export async function run(prompt: string) {
  const options = {
    mcpServers: { ops: server },
    canUseTool: async (name: string, input: any) => {
      if (String(input.cmd).includes('rm ')) return { behavior: 'deny', message: 'not allowed' };
      return { behavior: 'allow', updatedInput: input };
    },
  };
  for await (const message of query({ prompt, options })) console.log(message);
}
"""


def test_a_tool_listed_by_name_takes_the_server_s_name_and_the_callback_gates_it() -> None:
    linked = analyse({"src/agent.ts": SOURCE})
    assert {t.name for t in linked.tools} == {"mcp__ops__shell"}
    assert gate_kinds(linked, "shell.exec") == {"permission_check"}


def test_options_without_the_callback_gate_nothing() -> None:
    open_options = SOURCE.replace(SOURCE[SOURCE.index("    canUseTool:") : SOURCE.index("  };\n  for await")], "")
    linked = analyse({"src/agent.ts": open_options})
    assert {t.name for t in linked.tools} == {"mcp__ops__shell"}
    assert gate_kinds(linked, "shell.exec") == set()

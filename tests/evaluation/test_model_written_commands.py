"""Systems that run model-written commands come out BLOCK, with or without a declaration (issue 13):
a declaration with only a purpose, or one that even declares shell execution, never excuses model-chosen
text reaching a shell or the code a code agent runs, even in a sandbox (BLOCK-001). Each system is written the way real agent code spells it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from assay.backend.engines.static.scan import scan_tree
from assay.backend.evaluation.membership import make_membership, static_bundle_item
from assay.backend.evaluation.methodology import EvaluationPayload, evaluate

FIXTURES = Path(__file__).resolve().parents[1] / "static" / "fixtures"

MCP_LOWLEVEL_PY = """
import subprocess
from mcp.server.lowlevel import Server
from mcp.types import TextContent, Tool

server = Server("shell")

@server.list_tools()
async def list_tools() -> list[Tool]:
    return [Tool(name="run_command", description="Run a shell command", inputSchema={"type": "object"})]

@server.call_tool()
async def call_tool(name: str, arguments: dict) -> list[TextContent]:
    if name == "run_command":
        done = subprocess.run(arguments["command"], shell=True, capture_output=True, text=True)
        return [TextContent(type="text", text=done.stdout)]
    raise ValueError(name)
"""

BASH_TOOL_CLASS = '''
import asyncio
from anthropic import Anthropic

class BashTool:
    """A long-lived bash session the model drives."""

    name = "bash"
    api_type = "bash_20250124"

    def __init__(self) -> None:
        self._process = None

    async def start(self) -> None:
        self._process = await asyncio.create_subprocess_shell(
            "/bin/bash", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
        )

    async def __call__(self, command: str | None = None, **kwargs) -> str:
        await self.start()
        self._process.stdin.write(command.encode() + b"\\n")
        await self._process.stdin.drain()
        return (await self._process.stdout.readline()).decode()


TOOLS = {tool.name: tool for tool in [BashTool()]}


def loop(messages: list) -> None:
    Anthropic().beta.messages.create(model="claude-sonnet-4-5", max_tokens=1024, messages=messages, tools=[{"type": "bash_20250124", "name": "bash"}])
'''

VERCEL_TS = """
import { generateText, tool } from "ai";
import { openai } from "@ai-sdk/openai";
import { execSync } from "node:child_process";
import { z } from "zod";

export async function agent(prompt: string) {
  return generateText({
    model: openai("gpt-4o"),
    prompt,
    tools: {
      shell: tool({
        description: "Run a shell command",
        inputSchema: z.object({ command: z.string() }),
        execute: async ({ command }) => execSync(command).toString(),
      }),
    },
  });
}
"""

# A code agent: the library runs the Python its model writes; no tool stands between them.
CODE_AGENT_PY = """
from smolagents import CodeAgent, InferenceClientModel, WebSearchTool

agent = CodeAgent(tools=[WebSearchTool()], model=InferenceClientModel(), executor_type="e2b")
print(agent.run("How far is the moon?"))
"""

PURPOSE_ONLY = 'version = "1"\npurpose = "helps developers"\n'
DECLARES_SHELL = PURPOSE_ONLY + '[[actions]]\nclass = "shell.exec"\nrequires_approval = true\n'


def _system(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    if name == "mcp-lowlevel-py":
        root.mkdir()
        (root / "server.py").write_text(MCP_LOWLEVEL_PY)
    elif name == "bash-tool-class":
        root.mkdir()
        (root / "bash.py").write_text(BASH_TOOL_CLASS)
    elif name == "vercel-ai-ts":
        root.mkdir()
        (root / "agent.ts").write_text(VERCEL_TS)
    elif name == "code-agent-py":
        root.mkdir()
        (root / "agent.py").write_text(CODE_AGENT_PY)
    elif name == "mcp-lowlevel-ts":
        shutil.copytree(FIXTURES / "js" / "mcp_lowlevel", root)
    return root


def _evaluate(root: Path) -> EvaluationPayload:
    bundle = scan_tree(root).to_json_dict()
    return evaluate(make_membership([static_bundle_item(bundle)]), ai_system_id="sys-t", jurisdiction=None)


@pytest.mark.parametrize(
    "system", ["mcp-lowlevel-py", "bash-tool-class", "vercel-ai-ts", "mcp-lowlevel-ts", "code-agent-py"]
)
@pytest.mark.parametrize("declaration", [None, PURPOSE_ONLY, DECLARES_SHELL], ids=["none", "purpose", "shell"])
def test_model_written_commands_block(tmp_path: Path, system: str, declaration: str | None) -> None:
    root = _system(tmp_path, system)
    if declaration is not None:
        (root / "assay.toml").write_text(declaration)
    payload = _evaluate(root)
    assert payload.disposition == "BLOCK", [r["ruleId"] for r in payload.data["reasons"]]
    assert any(r["ruleId"] == "BLOCK-001" for r in payload.data["reasons"])


@pytest.mark.parametrize(
    "system", ["mcp-lowlevel-py", "bash-tool-class", "vercel-ai-ts", "mcp-lowlevel-ts", "code-agent-py"]
)
@pytest.mark.parametrize("declaration", [None, DECLARES_SHELL], ids=["none", "shell"])
def test_every_item_advice_fits_its_case(tmp_path: Path, system: str, declaration: str | None) -> None:
    root = _system(tmp_path, system)
    if declaration is not None:
        (root / "assay.toml").write_text(declaration)
    items = _evaluate(root).data["verificationItems"]
    for item in items:
        # Never an empty tool name ("remove the capability from tool no tool (module code)").
        text = " ".join(str(item[m]) for m in ("whatHaiecFound", "verificationNeeded"))
        assert "tool no tool" not in text and "tool(s) no tool" not in text and "(tool )" not in text, text
        assert "tool ``" not in text and "from tool ;" not in text, text
    flows = [i for i in items if i["kind"] == "model_output_to_execution"]
    assert flows
    for item in flows:
        needed = item["verificationNeeded"]
        if system == "code-agent-py":
            # Model-written code: nothing to allowlist and no tool to take it from; contain where it runs.
            assert "sandbox with no credentials and no network" in needed, needed
            assert "human approval for each execution" in needed and "allowlist" not in needed
            assert "with no tool in between (module code)" in item["whatHaiecFound"]
        else:
            assert "allowlist" in needed and "remove the capability from tool `" in needed, needed
    if system == "code-agent-py":
        # The code agent is also an action no tool reaches: the same advice, not "define that tool".
        unattributed = [i for i in items if i["kind"] == "unattributed_action" and i["actionClass"] == "code.exec"]
        assert unattributed and all("sandbox with no credentials" in i["verificationNeeded"] for i in unattributed)

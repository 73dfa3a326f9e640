"""The Claude Agent SDK's permission callback over the tools of an in-process MCP server (issue 20, gates wherever
frameworks put them): ``ClaudeAgentOptions(mcp_servers={"ops": server}, can_use_tool=check)`` with ``server =
create_sdk_mcp_server(name="ops", tools=[shell])`` runs ``check`` before ``mcp__ops__shell``, whose refusal
(``{"behavior": "deny"}``) is a permission check over it; options without the callback gate nothing."""

from __future__ import annotations

from pyfix import analyse, gate_kinds

SOURCE = """\
import subprocess
from claude_agent_sdk import ClaudeAgentOptions, tool, create_sdk_mcp_server


@tool("shell", "Run a command", {"cmd": str})
async def shell(args):
    return {"content": [{"type": "text", "text": subprocess.check_output(args["cmd"], shell=True, text=True)}]}


async def check(name, tool_input, context):
    if "rm " in tool_input.get("cmd", ""):
        return {"behavior": "deny", "message": "not allowed"}
    return {"behavior": "allow", "updatedInput": tool_input}


server = create_sdk_mcp_server(name="ops", tools=[shell])
options = ClaudeAgentOptions(mcp_servers={"ops": server}, can_use_tool=check)
"""


def test_the_permission_callback_gates_the_mounted_server_s_tools() -> None:
    linked = analyse({"agent.py": SOURCE})
    assert {t.name for t in linked.tools} == {"mcp__ops__shell"}
    assert gate_kinds(linked, "shell.exec") == {"permission_check"}


def test_options_without_the_callback_gate_nothing() -> None:
    linked = analyse({"agent.py": SOURCE.replace(", can_use_tool=check", "")})
    assert gate_kinds(linked, "shell.exec") == set()

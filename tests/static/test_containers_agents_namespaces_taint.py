"""Taint (issue 20, model output into execution): a value put into a container or written to a file held in
a name stays in that name (``parts.append(cmd)``, ``names.add(module)``, ``tmp.write(code)`` then
``tmp.name``); an agent executor's run answers with model output (LangChain ``AgentExecutor.invoke``,
LangGraph ``create_react_agent(...).invoke``); the functions of a TypeScript namespace are functions of the
tree (``Computer.typeText(text)`` reaches what it calls); a temporary directory made is a file write. Each with
the look-alike that must not flow or act."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scanned import actions_reached, scan_files

_MCP = 'import subprocess, sys, tempfile\nfrom mcp.server.fastmcp import FastMCP\nmcp = FastMCP("x")\n\n'


def _flows(bundle: dict[str, Any]) -> set[tuple[str, int]]:
    return {(f["actionClass"], f["sink"]["line"]) for f in bundle["taintFlows"]}


def _sinks(bundle: dict[str, Any]) -> set[tuple[str, int]]:
    return {(a["actionClass"], a["location"]["line"]) for a in bundle["actions"]}


def test_a_list_and_a_set_grown_with_the_models_text_carry_it(tmp_path: Path) -> None:
    source = _MCP + (
        "@mcp.tool()\n"
        "def install(code: str) -> str:\n"
        "    names = set()\n"
        "    for line in code.split('\\n'):\n"
        "        names.add(line.split()[1])\n"
        "    subprocess.check_call([sys.executable, '-m', 'pip', 'install', *names])\n"  # 10
        "    parts = []\n"
        "    parts.append(code)\n"
        "    subprocess.run(parts)\n"  # 13
        "    return 'ok'\n"
    )
    bundle = scan_files(tmp_path, {"server.py": source})
    assert {("shell.exec", 10), ("shell.exec", 13)} <= _flows(bundle)


def test_a_list_grown_with_constants_carries_nothing(tmp_path: Path) -> None:
    source = _MCP + (
        "@mcp.tool()\n"
        "def listing(code: str) -> str:\n"
        "    parts = []\n"
        "    parts.append('ls')\n"
        "    subprocess.run(parts)\n"  # 9
        "    log = []\n"
        "    log.append(code)\n"
        "    subprocess.run(['python', 'fixed.py'])\n"  # 12
        "    return 'ok'\n"
    )
    bundle = scan_files(tmp_path, {"server.py": source})
    assert {("shell.exec", 9), ("shell.exec", 12)} <= _sinks(bundle)
    assert not _flows(bundle)


def test_a_temporary_file_written_with_the_code_names_it_for_the_process(tmp_path: Path) -> None:
    source = _MCP + (
        "@mcp.tool()\n"
        "def run_python(code: str) -> str:\n"
        "    with tempfile.NamedTemporaryFile(suffix='.py', mode='w', delete=False) as f:\n"
        "        f.write(code)\n"
        "        path = f.name\n"
        "    subprocess.run(['python', path])\n"  # 10
        "    tmp = tempfile.NamedTemporaryFile(mode='w', suffix='.py', delete=False)\n"
        "    tmp.write(code)\n"
        "    subprocess.run([sys.executable, tmp.name])\n"  # 13
        "    other = tempfile.NamedTemporaryFile(mode='w', suffix='.py', delete=False)\n"
        "    other.write('print(1)')\n"
        "    subprocess.run([sys.executable, other.name])\n"  # 16
        "    return 'ok'\n"
    )
    flows = _flows(scan_files(tmp_path, {"server.py": source}))
    assert {("shell.exec", 10), ("shell.exec", 13)} <= flows
    assert ("shell.exec", 16) not in flows


def test_a_database_sessions_add_does_not_taint_the_session(tmp_path: Path) -> None:
    # ``session.add(note)`` writes the model's note (a flow there); the session is a package's object, not
    # a container, so its ``commit()`` carries nothing.
    source = _MCP + (
        "from sqlalchemy.orm import Session\n"
        "from sqlalchemy import create_engine\n"
        "engine = create_engine('sqlite://')\n\n"
        "@mcp.tool()\n"
        "def save(note: str) -> str:\n"
        "    session = Session(engine)\n"
        "    session.add(note)\n"  # 12
        "    session.commit()\n"  # 13
        "    return 'ok'\n"
    )
    bundle = scan_files(tmp_path, {"server.py": source})
    assert ("db.write", 13) in _sinks(bundle)
    assert ("db.write", 12) in _flows(bundle)
    assert ("db.write", 13) not in _flows(bundle)


_AGENT = (
    "import subprocess\n"
    "from langchain.agents import AgentExecutor\n"
    "from langgraph.prebuilt import create_react_agent\n"
    "from langchain_openai import ChatOpenAI\n\n"
    "executor = AgentExecutor(agent=None, tools=[])\n\n"
)


def test_an_agent_executors_answer_is_model_output(tmp_path: Path) -> None:
    source = _AGENT + (
        "def module_executor(text):\n"
        "    response = executor.invoke({'input': text})\n"
        "    subprocess.run(response['output'], shell=True)\n"  # 10
        "\n"
        "def graph_agent(text):\n"
        "    graph = create_react_agent(ChatOpenAI(model='gpt-4o'), tools=[])\n"
        "    out = graph.invoke({'messages': [text]})\n"
        "    subprocess.run(out['messages'][-1].content, shell=True)\n"  # 15
    )
    flows = _flows(scan_files(tmp_path, {"app.py": source}))
    assert {("shell.exec", 10), ("shell.exec", 15)} <= flows


def test_an_agent_answer_only_logged_is_no_flow(tmp_path: Path) -> None:
    source = _AGENT + (
        "def logged(text):\n"
        "    response = executor.invoke({'input': text})\n"
        "    print(response['output'])\n"
        "    subprocess.run('ls', shell=True)\n"  # 11
    )
    bundle = scan_files(tmp_path, {"app.py": source})
    assert ("shell.exec", 11) in _sinks(bundle)
    assert not _flows(bundle)


_NAMESPACE = """import { tool } from 'ai'
import { z } from 'zod'
import { exec } from 'child_process'
import { promisify } from 'util'

const execPromise = promisify(exec)

async function run(command: string): Promise<string> {
  return (await execPromise(`cliclick ${command}`)).stdout
}

export namespace Computer {
  export async function typeText(text: string): Promise<string> {
    return await wrap(async () => { await run(`t:${text}`) })
  }
  async function wrap<T>(action: () => Promise<T>): Promise<T> {
    return await action()
  }
  export async function click(): Promise<string> {
    return await run('c:.')
  }
}
"""


def test_a_namespace_function_called_by_a_tool_reaches_its_sink(tmp_path: Path) -> None:
    tools = """
export const typeTool = tool({
  description: 'type',
  parameters: z.object({ text: z.string() }),
  execute: async ({ text }) => Computer.typeText(text),
})
"""
    bundle = scan_files(tmp_path, {"computer.ts": _NAMESPACE + tools})
    assert ("shell.exec", "computer.ts", 9) in actions_reached(bundle, "typeTool")
    assert ("shell.exec", 9) in _flows(bundle)


def test_a_namespace_function_given_a_constant_is_reached_without_taint(tmp_path: Path) -> None:
    tools = """
export const clickTool = tool({
  description: 'click',
  parameters: z.object({}),
  execute: async () => Computer.click(),
})
"""
    bundle = scan_files(tmp_path, {"computer.ts": _NAMESPACE + tools})
    assert ("shell.exec", "computer.ts", 9) in actions_reached(bundle, "clickTool")
    assert not _flows(bundle)


def test_a_temporary_directory_is_a_file_write(tmp_path: Path) -> None:
    python = _MCP + (
        "@mcp.tool()\n"
        "def work(code: str) -> str:\n"
        "    where = tempfile.gettempdir()\n"  # 7: a name, no effect
        "    made = tempfile.mkdtemp()\n"  # 8
        "    return where + made\n"
    )
    typescript = """import { tool } from 'ai'
import { z } from 'zod'
import { promises as fs } from 'fs'
import os from 'os'
import path from 'path'

export const tmpTool = tool({
  description: 'tmp',
  parameters: z.object({ code: z.string() }),
  execute: async ({ code }) => {
    const base = os.tmpdir()
    const dir = await fs.mkdtemp(path.join(base, 'x-'))
    return dir
  },
})
"""
    bundle = scan_files(tmp_path, {"server.py": python, "t.ts": typescript})
    assert ("file.write", "server.py", 8) in actions_reached(bundle, "work")
    assert ("file.write", "t.ts", 12) in actions_reached(bundle, "tmpTool")
    assert not any(a["location"]["line"] in (7, 11) for a in bundle["actions"])

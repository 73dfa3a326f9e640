"""Issue 20, model output into execution: code executors configured on agents (AutoGen 0.4 executors a
helper builds, AutoGen 0.2 ``code_execution_config``), model replies that application code puts into
commands through a model factory, templates and helpers, and values a class stores in its instance's
fields (``self.command``, ``this.command``) and runs in another method."""

from __future__ import annotations

import pytest
from pyfix import analyse

from assay.backend.engines.static.link import Linked


def _flows(linked: Linked) -> set[tuple[str, str, str, int]]:
    return {(f.sourceKind, f.actionClass, f.sink.path, f.sink.line) for f in linked.taintFlows}


def _reached(linked: Linked, tool: str) -> set[tuple[str, int]]:
    ids = {t.id for t in linked.tools if t.name == tool}
    return {(a.actionClass, a.location.line) for a in linked.actions if any(p.toolId in ids for p in a.reachedFrom)}


def _gate_kinds(linked: Linked, line: int) -> list[str]:
    kinds = {g.id: g.kind for g in linked.gates}
    return sorted(kinds[g] for a in linked.actions if a.location.line == line for g in a.gateIds)


# ----- AutoGen code executors -------------------------------------------------------------------------

AUTOGEN_TOOL = """\
from pathlib import Path
from autogen_agentchat.agents import AssistantAgent
from autogen_core import CancellationToken
from autogen_core.code_executor import CodeBlock
from autogen_ext.code_executors.local import LocalCommandLineCodeExecutor
from autogen_ext.code_executors.docker import DockerCommandLineCodeExecutor


class Coder:
    def __init__(self, model_client):
        self.agent = AssistantAgent(name="coder", model_client=model_client, tools=[self.execute_code])

    async def execute_code(self, code: str) -> str:
        executor = self.make_executor()
        return await executor.execute_code_blocks([CodeBlock(code, language="python")], CancellationToken())

    def make_executor(self):
        local = {executor}
        return local
"""


@pytest.mark.parametrize(
    ("executor", "gates"),
    [
        ('LocalCommandLineCodeExecutor(work_dir=Path("coding"))', []),
        ('DockerCommandLineCodeExecutor(work_dir="coding")', ["sandbox"]),
    ],
)
def test_a_tool_runs_its_code_argument_on_an_executor_a_helper_method_builds(executor: str, gates: list[str]) -> None:
    linked = analyse({"coder.py": AUTOGEN_TOOL.format(executor=executor)})
    assert _reached(linked, "execute_code") == {("code.exec", 15)}
    assert _flows(linked) == {("tool_argument", "code.exec", "coder.py", 15)}
    assert _gate_kinds(linked, 15) == gates


def test_an_executor_used_where_it_is_built_runs_the_code_too() -> None:
    code = (
        "from autogen_ext.code_executors.local import LocalCommandLineCodeExecutor\n"
        "from autogen_core.code_executor import CodeBlock\n\n"
        "async def run_code(code: str) -> str:\n"
        "    executor = LocalCommandLineCodeExecutor()\n"
        "    return await executor.execute_code_blocks([CodeBlock(code, 'python')], None)\n"
    )
    linked = analyse({"m.py": code})
    assert [(a.actionClass, a.location.line) for a in linked.actions] == [("code.exec", 6)]


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ('{"work_dir": "coding", "use_docker": False}', [[]]),
        ('{"work_dir": "coding"}', [[]]),
        ('{"work_dir": "coding", "use_docker": True}', [["sandbox"]]),
        ('{"executor": DockerCommandLineCodeExecutor(work_dir="coding")}', [["sandbox"]]),
        ('{"executor": LocalCommandLineCodeExecutor(work_dir="coding")}', [[]]),
        ("False", []),
    ],
)
def test_an_autogen_02_agent_runs_the_code_of_the_replies_it_gets(config: str, expected: list[list[str]]) -> None:
    code = (
        "from autogen import AssistantAgent, UserProxyAgent\n"
        "from autogen.coding import DockerCommandLineCodeExecutor, LocalCommandLineCodeExecutor\n\n"
        "assistant = AssistantAgent(name='assistant', llm_config={'model': 'gpt-4o-mini'})\n"
        f"user_proxy = UserProxyAgent(name='user', code_execution_config={config})\n"
        "user_proxy.initiate_chat(assistant, message='plot a chart')\n"
    )
    linked = analyse({"chat.py": code})
    executions = [a for a in linked.actions if a.actionClass == "code.exec"]
    kinds = {g.id: g.kind for g in linked.gates}
    assert [sorted(kinds[g] for g in a.gateIds) for a in executions] == expected
    # The code the other agent's model writes reaches execution: a flow without a tool.
    assert _flows(linked) == ({("model_output", "code.exec", "chat.py", 5)} if expected else set())


# ----- instance fields ------------------------------------------------------------------------------------

PY_FIELDS = """\
import subprocess
from langchain_core.tools import tool


class Runner:
    def __init__(self, command: str, cwd: str = "."):
        self.command = command
        self.shell = "/bin/sh"

    def run(self) -> str:
        return subprocess.check_output(self.command, shell=True, cwd=".").decode()

    def version(self) -> str:
        return subprocess.check_output([self.shell, "--version"]).decode()


@tool
def shell(command: str) -> str:
    \"\"\"Run a command.\"\"\"
    runner = Runner(command)
    return runner.run() + runner.version()
"""


def test_a_value_a_python_class_stores_in_a_field_reaches_the_sink_of_another_method() -> None:
    linked = analyse({"runner.py": PY_FIELDS})
    assert _reached(linked, "shell") == {("shell.exec", 11), ("shell.exec", 14)}
    # ``self.command`` holds the model's command; ``self.shell`` only a literal: no flow there.
    assert _flows(linked) == {("tool_argument", "shell.exec", "runner.py", 11)}


JS_FIELDS = """\
import { tool } from "ai";
import { z } from "zod";
import { execSync } from "child_process";

class Runner {
  constructor(command, shell = "/bin/sh") {
    this.command = command;
    this.shell = "/bin/sh";
  }
  run() { return execSync(`${this.shell} -c "${this.command}"`).toString(); }
  version() { return execSync(this.shell + " --version").toString(); }
}

export const shell = tool({
  description: "Run a command",
  inputSchema: z.object({ command: z.string() }),
  execute: async ({ command }) => {
    const runner = new Runner(command);
    return runner.run() + runner.version();
  },
});
"""


def test_a_value_a_js_class_stores_in_a_field_reaches_the_sink_of_another_method() -> None:
    linked = analyse({"runner.mjs": JS_FIELDS})
    assert _flows(linked) == {("tool_argument", "shell.exec", "runner.mjs", 10)}


# ----- model output through a model factory, templates and helpers -----------------------------------------

JS_FACTORY = {
    "src/llm.mjs": """\
import { ChatAnthropic } from "@langchain/anthropic";
import { ChatOllama } from "@langchain/ollama";
import env from "./env.mjs";

export default function llm() {
  if (process.env.ANTHROPIC_API_KEY) {
    return new ChatAnthropic({ model: env("ANTHROPIC_MODEL", "claude-sonnet-4-5") });
  }
  return new ChatOllama({ model: env("OLLAMA_MODEL") });
}
""",
    "src/env.mjs": "export default function env(key, fallback) { return process.env[key] || fallback; }\n",
    "src/execute.mjs": """\
import { execaCommand } from "execa";

export default async function execute(command) {
  const { all } = await execaCommand(command, { shell: true, all: true });
  return all;
}
""",
    "src/text.mjs": "export default function textOf(result) { return result.content ? result.content : result; }\n",
    "src/branch.mjs": """\
import llm from "./llm.mjs";
import execute from "./execute.mjs";
import textOf from "./text.mjs";

export async function createBranch(description) {
  const reply = await llm().invoke([["user", `Name a git branch for: ${description}`]]);
  const name = textOf(reply);
  await execute(`git checkout -b ${name}`);
  await execute("git status -s");
}
""",
}


def test_a_model_reply_put_into_a_command_by_application_code_reaches_the_shell() -> None:
    linked = analyse(JS_FACTORY)
    # ``llm()`` returns one of two vendors' chat models: its ``invoke`` is a model call, its reply model output.
    assert _flows(linked) == {("model_output", "shell.exec", "src/execute.mjs", 4)}
    (flow,) = linked.taintFlows
    assert (flow.source.path, flow.source.line) == ("src/branch.mjs", 6)


def test_a_model_named_by_a_setting_with_a_default_is_that_default() -> None:
    linked = analyse({"src/llm.mjs": JS_FACTORY["src/llm.mjs"]})
    assert [(m.provider, m.model) for m in linked.models] == [("anthropic", "claude-sonnet-4-5"), ("ollama", None)]


def test_a_python_model_call_on_a_client_a_factory_of_another_module_returns_gives_model_output() -> None:
    linked = analyse(
        {
            "app/llm.py": "from openai import OpenAI\n\ndef get_client():\n    return OpenAI()\n",
            "app/main.py": (
                "import subprocess\nfrom app.llm import get_client\n\ndef main(task):\n"
                "    r = get_client().chat.completions.create(model='gpt-4o', messages=[])\n"
                "    cmd = r.choices[0].message.content\n"
                "    subprocess.run(cmd, shell=True)\n"
            ),
        }
    )
    assert _flows(linked) == {("model_output", "shell.exec", "app/main.py", 7)}

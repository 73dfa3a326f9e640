"""Gates recognised by what makes them gates, wherever a framework puts them (issue 20): a map of tool
names a person must approve in an agent's middleware, a call limit placed in that list, a value tested
against each entry of a collection written in the code with one branch ending the path, a pause in a
branch that ends (the code after it runs on the resumed path), and a run's option holding every tool call
for approval. Each is a gate only where it can refuse or pause the path: a middleware built but never
placed, an entry switched off, a branch that goes on, an option set to false are not."""

from __future__ import annotations

import pytest
from pyfix import analyse, gate_kinds

from assay.backend.engines.static.link import Linked

AGENT = (
    "import subprocess\n"
    "from langchain.agents import create_agent\n"
    "from langchain.agents.middleware import HumanInTheLoopMiddleware, ModelCallLimitMiddleware\n"
    "from langchain.tools import tool\n\n"
    "@tool\ndef run(cmd: str) -> str:\n    '''Run a command.'''\n    return subprocess.run(cmd, shell=True).stdout\n\n"
)


def _kinds(linked: Linked, action_class: str = "shell.exec") -> set[str]:
    return gate_kinds(linked, action_class)


@pytest.mark.parametrize(
    ("middleware", "kinds"),
    [
        ('HumanInTheLoopMiddleware(interrupt_on={"run": True})', {"human_approval"}),
        (
            'HumanInTheLoopMiddleware(interrupt_on={"run": {"allowed_decisions": ["approve", "reject"]}})',
            {"human_approval"},
        ),
        # An entry switched off, or naming another tool, holds nothing over ``run``.
        ('HumanInTheLoopMiddleware(interrupt_on={"run": False})', set()),
        ('HumanInTheLoopMiddleware(interrupt_on={"send_email": True})', set()),
        ("ModelCallLimitMiddleware(thread_limit=10, run_limit=5)", {"rate_limit"}),
    ],
)
def test_agent_middleware_gates_the_tools_it_names(middleware: str, kinds: set[str]) -> None:
    source = AGENT + f"agent = create_agent(model='ollama:qwen3:4b', tools=[run], middleware=[{middleware}])\n"
    assert _kinds(analyse({"a.py": source})) == kinds


def test_a_limit_built_but_never_placed_is_no_gate() -> None:
    source = AGENT + (
        "limiter = ModelCallLimitMiddleware(thread_limit=10, run_limit=5)\n"
        "agent = create_agent(model='ollama:qwen3:4b', tools=[run])\n"
    )
    linked = analyse({"a.py": source})
    assert _kinds(linked) == set()
    assert not [g for g in linked.gates if g.kind == "rate_limit"]


def test_an_approval_map_holds_over_tools_given_through_a_list() -> None:
    source = AGENT + (
        "tools = [run]\n"
        "agent = create_agent(model='ollama:qwen3:4b', tools=tools,\n"
        "    middleware=[HumanInTheLoopMiddleware(interrupt_on={'run': True})])\n"
    )
    assert _kinds(analyse({"a.py": source})) == {"human_approval"}


FETCH = (
    "import requests\nfrom langchain.tools import tool\n\nALLOWED = ['https://docs.example.com/']\n\n"
    "@tool\ndef fetch(url: str) -> str:\n    '''Fetch a page.'''\n"
)


@pytest.mark.parametrize(
    ("check", "kinds"),
    [
        ("    if not any(url.startswith(d) for d in ALLOWED):\n        return 'not allowed'\n", {"allowlist"}),
        (
            "    if any(url.startswith(d) for d in ALLOWED):\n        pass\n    else:\n        raise ValueError(url)\n",
            {"allowlist"},
        ),
        # A branch that goes on, or a list the code does not write out, refuses nothing.
        ("    if not any(url.startswith(d) for d in ALLOWED):\n        print('odd')\n", set()),
        ("    if not any(url.startswith(d) for d in load()):\n        return 'not allowed'\n", set()),
    ],
)
def test_a_value_checked_against_each_entry_of_a_written_list(check: str, kinds: set[str]) -> None:
    source = FETCH + check + "    return requests.get(url).text\n"
    assert _kinds(analyse({"a.py": source}), "network.egress") == kinds


@pytest.mark.parametrize(
    ("call", "model"),
    [
        ("ChatOllama(model='qwen3:4b')", "qwen3:4b"),
        ("init_chat_model('ollama:qwen3:4b')", "qwen3:4b"),
        ("create_agent('ollama:llama3.2:3b', tools=[])", "llama3.2:3b"),
    ],
)
def test_an_ollama_model_keeps_its_tag(call: str, model: str) -> None:
    source = (
        "from langchain_ollama import ChatOllama\nfrom langchain.chat_models import init_chat_model\n"
        f"from langchain.agents import create_agent\n\nm = {call}\n"
    )
    found = {(m.provider, m.model) for m in analyse({"a.py": source}).models}
    assert found == {("ollama", model)}


MASTRA = """import { createTool } from "@mastra/core/tools";
import { z } from "zod";

export const galleries = createTool({
  id: "galleries",
  description: "Galleries near a place",
  inputSchema: z.object({ location: z.string() }),
  execute: async ({ location }, { workflow } = {}) => {
    const { resumeData: { approved } = {}, suspend } = workflow ?? {};
    BRANCH
    const response = await fetch(`https://example.com/search?q=${location}`);
    return { found: await response.json() };
  },
});
"""


@pytest.mark.parametrize(
    ("branch", "kinds"),
    [
        (
            'if (!approved) {\n      return suspend?.({ reason: "Human approval required." });\n    }',
            {"human_approval"},
        ),
        ('if (!approved) return suspend({ reason: "ask" });', {"human_approval"}),
        # A pause whose branch goes on to the request holds nothing over it (the run never stops there).
        ('if (!approved) {\n      console.log("unapproved");\n    }', set()),
    ],
)
def test_a_pause_in_a_branch_that_ends_gates_what_follows_the_if(branch: str, kinds: set[str]) -> None:
    linked = analyse({"tool.ts": MASTRA.replace("BRANCH", branch)})
    assert _kinds(linked, "network.egress") == kinds


@pytest.mark.parametrize(("value", "found"), [("true", True), ("false", False)])
def test_a_run_option_holding_every_tool_call_for_approval(value: str, found: bool) -> None:
    source = (
        'import { mastra } from "./mastra";\n\n'
        'const agent = mastra.getAgent("weather");\n'
        f'const stream = await agent.stream("Weather in London?", {{\n  requireToolApproval: {value}\n}});\n'
    )
    gates = [(g.kind, g.location.line) for g in analyse({"run.ts": source}).gates]
    assert gates == ([("human_approval", 5)] if found else [])

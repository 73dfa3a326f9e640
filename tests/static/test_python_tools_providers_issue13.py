"""Tools and providers of issue 13 in Python: Anthropic-defined tool classes, an MCP server's single
call_tool handler, re-exported Agents SDK decorators, calls followed through class fields and awaited
attributes; providers and model ids from clients, agents and model strings."""

from __future__ import annotations

from pyfix import analyse


def test_anthropic_defined_tool_classes_run_their_call_method() -> None:
    code = (
        "import asyncio\nfrom typing import Any, Literal\n\nclass BaseAnthropicTool:\n"
        "    def to_params(self) -> Any:\n        raise NotImplementedError\n\n"
        "class _Session:\n    async def start(self):\n"
        "        self._process = await asyncio.create_subprocess_shell('/bin/bash', stdin=asyncio.subprocess.PIPE)\n\n"
        "    async def run(self, command: str):\n        self._process.stdin.write(command.encode())\n\n"
        "class BashTool(BaseAnthropicTool):\n    '''Run commands in a shell.'''\n"
        "    name: Literal['bash'] = 'bash'\n    api_type: Literal['bash_20250124'] = 'bash_20250124'\n\n"
        "    def __init__(self):\n        self._session = _Session()\n\n"
        "    def to_params(self) -> Any:\n        return {'type': self.api_type, 'name': self.name}\n\n"
        "    async def __call__(self, command: str | None = None, restart: bool = False, **kwargs):\n"
        "        await self._session.start()\n        return await self._session.run(command)\n\n"
        "class ToolCollection:\n    def __init__(self, *tools):\n"
        "        self.tool_map = {tool.to_params()['name']: tool for tool in tools}\n"
    )
    linked = analyse({"tools.py": code})
    assert [(t.name, t.framework, t.parameters) for t in linked.tools] == [
        ("bash", "anthropic", ["command", "restart"])
    ]
    reached = {(a.actionClass, a.location.line) for a in linked.actions if a.reachedFrom}
    assert reached == {("shell.exec", 10), ("shell.exec", 13)}
    assert [(f.sourceKind, f.sink.line) for f in linked.taintFlows] == [("tool_argument", 13)]


def test_an_mcp_server_without_branches_runs_each_tool_in_its_call_tool_handler() -> None:
    code = (
        "import httpx\nimport mcp.types as types\nfrom mcp.server import Server\n\n"
        "async def fetch(url: str) -> str:\n    async with httpx.AsyncClient() as client:\n"
        "        return (await client.get(url)).text\n\n"
        "async def list_tools(ctx, params):\n    return [types.Tool(name='fetch', input_schema={'type': 'object'})]\n\n"
        "async def call_tool(ctx, params):\n    if params.name != 'fetch':\n        raise ValueError(params.name)\n"
        "    return await fetch(params.arguments['url'])\n\n"
        "app = Server('x', on_list_tools=list_tools, on_call_tool=call_tool)\n"
    )
    linked = analyse({"server.py": code})
    (tool,) = linked.tools
    assert tool.function is not None  # the handler: no branch names it, it runs every tool
    assert [(a.actionClass, bool(a.reachedFrom)) for a in linked.actions] == [("network.egress", True)]


def test_re_exported_agents_decorator_and_fields_of_dataclasses() -> None:
    code = (
        "from dataclasses import dataclass\nfrom agents.decorators import tool\nfrom slack_sdk import WebClient\n\n"
        "@dataclass\nclass Deps:\n    slack: WebClient\n\n"
        "@tool(name_override='notify')\nasync def notify_user(deps: Deps, text: str) -> None:\n"
        "    deps.slack.chat_postMessage(channel='c', text=text)\n"
    )
    linked = analyse({"a.py": code})
    assert [(t.name, t.framework) for t in linked.tools] == [("notify", "openai-agents")]
    assert [(a.actionClass, a.target) for a in linked.actions] == [
        ("message.send", "slack_sdk.WebClient.chat_postMessage")
    ]


def test_providers_and_model_ids_from_clients_agents_and_model_strings() -> None:
    code = (
        "import anthropic\nfrom agents import Agent\nfrom pydantic_ai import Agent as PAgent\n"
        "from langchain.chat_models import init_chat_model\nfrom langchain_openai import ChatOpenAI\n\n"
        "MODEL = 'anthropic:claude-sonnet-4-5'\n\n"
        "client = anthropic.AnthropicBedrock()\ntriage = Agent(name='t', model='gpt-4.1')\n"
        "helper = PAgent(MODEL)\nllm = init_chat_model('gemini-2.0-flash', model_provider='google_genai')\n\n"
        "class Crew:\n    llm = ChatOpenAI(model='gpt-4o')\n"
    )
    linked = analyse({"a.py": code})
    assert [(m.provider, m.model, m.location.line) for m in linked.models] == [
        ("bedrock", None, 9),
        ("openai", "gpt-4.1", 10),
        ("anthropic", "claude-sonnet-4-5", 11),
        ("google", "gemini-2.0-flash", 12),
        ("openai", "gpt-4o", 15),
    ]


def test_library_tools_given_by_instance_and_toolkits_handed_to_an_agent() -> None:
    code = (
        "from crewai import Agent\nfrom crewai_tools import SerperDevTool\n"
        "from langchain_community.agent_toolkits import SQLDatabaseToolkit\n"
        "from langchain_community.agent_toolkits.sql.base import create_sql_agent\n\n"
        "def researcher(llm):\n    search = SerperDevTool()\n    unused = SerperDevTool()\n"
        "    return Agent(role='r', tools=[search], llm=llm)\n\n"
        "def sql_agent(db, llm):\n    toolkit = SQLDatabaseToolkit(db=db, llm=llm)\n"
        "    return create_sql_agent(llm=llm, toolkit=toolkit)\n"
    )
    linked = analyse({"a.py": code})
    assert sorted((t.name, t.location.line) for t in linked.tools) == [
        ("Search the internet with Serper", 7),
        ("sql_db_list_tables", 12),
        ("sql_db_query", 12),
        ("sql_db_query_checker", 12),
        ("sql_db_schema", 12),
    ]
    names = {t.id: t.name for t in linked.tools}
    assert sorted((a.actionClass, names[a.reachedFrom[0].toolId]) for a in linked.actions) == [
        ("db.read", "sql_db_list_tables"),
        ("db.read", "sql_db_schema"),
        ("network.egress", "Search the internet with Serper"),
        ("sql.exec", "sql_db_query"),
    ]
    # The model's query is what the toolkit's query tool runs.
    assert [f.actionClass for f in linked.taintFlows if f.actionClass == "sql.exec"] == ["sql.exec"]


def test_connections_from_a_pool_run_sql() -> None:
    code = (
        "import asyncpg\nfrom dataclasses import dataclass\n\n@dataclass\nclass Deps:\n    pool: asyncpg.Pool\n\n"
        "async def save(deps: Deps, content: str):\n    async with deps.pool.acquire() as conn:\n"
        "        await conn.execute('INSERT INTO m (c) VALUES ($1)', content)\n"
        "        return await conn.fetch('SELECT c FROM m')\n"
    )
    linked = analyse({"a.py": code})
    assert [(a.actionClass, a.location.line) for a in linked.actions] == [("db.write", 10), ("db.read", 11)]


def test_a_client_made_when_none_is_given_types_the_attribute() -> None:
    # ``self.client = client or Anthropic()``: the client the method calls is the one made when none is given.
    code = (
        "from anthropic import Anthropic\n\n"
        "class Agent:\n    def __init__(self, client=None):\n        self.client = client or Anthropic()\n\n"
        "    def run(self, params):\n        return self.client.messages.create(**params)\n"
    )
    linked = analyse({"agent.py": code})
    assert [(m.provider, m.api, m.location.line) for m in linked.models] == [
        ("anthropic", "anthropic.Anthropic", 5),
        ("anthropic", "anthropic.Anthropic.messages.create", 8),
    ]


def test_model_ids_read_from_settings_here_and_in_another_module() -> None:
    # The default of a settings field, read through ``**params`` a method builds (this file's dataclass) and
    # through a settings object of another module (a pydantic-settings class with a nested model).
    agent = (
        "from dataclasses import dataclass\nfrom anthropic import Anthropic\nfrom google.adk import Agent\n"
        "from .config import Config\n\n"
        "@dataclass\nclass ModelConfig:\n    model: str = 'claude-sonnet-4-20250514'\n\n"
        "class Loop:\n    def __init__(self, config=None):\n"
        "        self.config = config or ModelConfig()\n        self.client = Anthropic()\n\n"
        "    def params(self):\n        return {'model': self.config.model, 'max_tokens': 10}\n\n"
        "    def run(self):\n        params = self.params()\n        return self.client.messages.create(**params)\n\n"
        "configs = Config()\nroot = Agent(model=configs.agent_settings.model, name='root')\n"
        "other = Agent(model=configs.agent_settings.unset, name='other')\n"
    )
    config = (
        "from pydantic import BaseModel, Field\nfrom pydantic_settings import BaseSettings\n\n"
        "class AgentModel(BaseModel):\n    model: str = Field(default='gemini-2.0-flash-001')\n\n"
        "class Config(BaseSettings):\n    agent_settings: AgentModel = Field(default=AgentModel())\n"
    )
    linked = analyse({"pkg/__init__.py": "", "pkg/agent.py": agent, "pkg/config.py": config})
    assert [(m.provider, m.model, m.location.line) for m in linked.models] == [
        ("anthropic", None, 13),
        ("anthropic", "claude-sonnet-4-20250514", 20),
        ("google", "gemini-2.0-flash-001", 23),
    ]  # the field no default names says nothing of whose model it is: not reported


def test_resuming_an_e2b_sandbox_is_a_call_to_its_service() -> None:
    code = (
        "from e2b_code_interpreter import Sandbox\n\n"
        "def sandbox_status(sandbox_id: str) -> str:\n"
        "    sandbox = Sandbox.connect(sandbox_id)\n"
        "    return sandbox.run_code('print(1)').text\n"
    )
    linked = analyse({"tools.py": code})
    assert [(a.actionClass, a.location.line) for a in linked.actions] == [("network.egress", 4), ("code.exec", 5)]

"""Tools of issue 13 given as values: plain functions listed across files (located at their def), tool
lists built by appends or imported, LlamaIndex FunctionTools, agents and tool specs, LangChain toolkits
with a selection and a root directory, library tools passed as typed parameters or run by the code."""

from __future__ import annotations

from pyfix import analyse, gate_kinds


def _tools(linked: object) -> list[tuple[str, str, int]]:
    return sorted((t.name, t.location.path, t.location.line) for t in linked.tools)  # type: ignore[attr-defined]


def test_a_plain_function_listed_in_another_file_is_a_tool_at_its_def() -> None:
    files = {
        "pkg/_github.py": (
            "import asyncio\n\nasync def issue(owner: str, number: int) -> str:\n"
            "    proc = await asyncio.create_subprocess_exec('gh', 'issue', 'view', str(number), '--repo', owner)\n"
            "    return str(await proc.communicate())\n"
        ),
        "pkg/_app.py": (
            "from autogen_agentchat.agents import AssistantAgent\nfrom ._github import issue\n\n"
            "def build(client):\n    return AssistantAgent(name='a', model_client=client, tools=[issue])\n"
        ),
    }
    linked = analyse(files)
    assert _tools(linked) == [("issue", "pkg/_github.py", 3)]
    (action,) = linked.actions
    assert action.actionClass == "shell.exec" and action.reachedFrom
    assert [f.sink.line for f in linked.taintFlows] == [4]


def test_a_tools_list_imported_from_another_module_and_bound_with_bind_tools() -> None:
    files = {
        "tools.py": (
            "from typing import Any, Callable, List\nimport httpx\n\n"
            "async def search(query: str) -> str:\n    return httpx.get('https://s.example', params={'q': query}).text\n\n"
            "def clock() -> str:\n    return 'now'\n\n"
            "TOOLS: List[Callable[..., Any]] = [search]\nTOOLS.append(clock)\n"
        ),
        # Scanned from inside the package: ``react_agent`` is no module of the tree.
        "graph.py": (
            "from langchain_anthropic import ChatAnthropic\nfrom langgraph.prebuilt import ToolNode\n"
            "from react_agent.tools import TOOLS\n\n"
            "async def call_model(state):\n    model = ChatAnthropic(model='claude-sonnet-4-5').bind_tools(TOOLS)\n"
            "    return await model.ainvoke(state)\n\nnode = ToolNode(TOOLS)\n"
        ),
    }
    linked = analyse(files)
    assert _tools(linked) == [("clock", "tools.py", 7), ("search", "tools.py", 4)]
    assert [(a.actionClass, bool(a.reachedFrom)) for a in linked.actions] == [("network.egress", True)]


def test_tool_lists_built_by_appends_extends_and_concatenation() -> None:
    code = (
        "from langgraph.prebuilt import create_react_agent\n\n"
        "def a(x: str) -> str:\n    return x\n\ndef b(x: str) -> str:\n    return x\n\n"
        "def c(x: str) -> str:\n    return x\n\ndef d(x: str) -> str:\n    return x\n\n"
        "def build(model):\n    tools = [a]\n    tools.append(b)\n    tools += [c]\n    extra = [d]\n"
        "    picked = tools[0]\n    return create_react_agent(model, tools + extra + [picked])\n"
    )
    linked = analyse({"agent.py": code})
    assert _tools(linked) == [("a", "agent.py", 3), ("b", "agent.py", 6), ("c", "agent.py", 9), ("d", "agent.py", 12)]


def test_llamaindex_agents_function_tools_and_tool_specs() -> None:
    code = (
        "import os\nfrom llama_index.core.agent.workflow import AgentWorkflow, FunctionAgent\n"
        "from llama_index.core.tools import FunctionTool, ToolMetadata\n"
        "from llama_index.tools.yahoo_finance import YahooFinanceToolSpec\n"
        "from llama_index.tools.tavily_research import TavilyToolSpec\n"
        "from llama_index.tools.notion import NotionToolSpec\n\n"
        "def multiply(a: float, b: float) -> float:\n    return a * b\n\n"
        "async def lookup(q: str) -> str:\n    return q\n\n"
        "def rename(q: str) -> str:\n    return q\n\n"
        "finance = YahooFinanceToolSpec().to_tool_list()\nfinance.extend([multiply])\n"
        "workflow = AgentWorkflow.from_tools_or_functions(finance, llm=None)\n"
        "tavily = TavilyToolSpec(api_key=os.getenv('TAVILY_API_KEY'))\n\n"
        "agent = FunctionAgent(\n    tools=[\n        tavily.to_tool_list()[0],\n"
        "        FunctionTool.from_defaults(async_fn=lookup),\n"
        "        FunctionTool(fn=rename, metadata=ToolMetadata(name='renamer', description='r')),\n    ],\n)\n"
        "notion = NotionToolSpec().to_tool_list()\n"
    )
    linked = analyse({"agent.py": code})
    assert _tools(linked) == [
        ("balance_sheet", "agent.py", 17),
        ("cash_flow", "agent.py", 17),
        ("income_statement", "agent.py", 17),
        ("lookup", "agent.py", 11),  # FunctionTool.from_defaults(async_fn=lookup): lookup's tool, at its def
        ("multiply", "agent.py", 8),
        ("renamer", "agent.py", 26),
        ("search", "agent.py", 20),
        ("stock_analyst_recommendations", "agent.py", 17),
        ("stock_basic_info", "agent.py", 17),
        ("stock_news", "agent.py", 17),
    ]
    # The spec's tools span from its constructor to where they are taken.
    search = next(t for t in linked.tools if t.name == "search")
    assert (search.location.line, search.location.endLine) == (20, 24)
    reached = sorted({(a.actionClass, a.location.line) for a in linked.actions if a.reachedFrom})
    assert reached == [("network.egress", 17), ("network.egress", 20)]
    # A spec the rule pack does not describe gives tools nobody can see: a frontier item, not a silence.
    assert [(f.kind, f.location.line) for f in linked.frontier if f.ruleId == "PY-FRONTIER-TOOLKIT-001"] == [
        ("config_registered_tools", 29)
    ]


def test_a_llamaindex_tool_spec_written_in_the_code_gives_its_spec_functions() -> None:
    code = (
        "import subprocess\nfrom llama_index.core.tools.tool_spec.base import BaseToolSpec\n\n"
        "class OpsSpec(BaseToolSpec):\n    spec_functions = ['run', 'status']\n\n"
        "    def run(self, command: str) -> str:\n        return subprocess.check_output(command, shell=True).decode()\n\n"
        "    def status(self) -> str:\n        return 'ok'\n\n    def helper(self) -> None:\n        pass\n"
    )
    linked = analyse({"spec.py": code})
    assert _tools(linked) == [("run", "spec.py", 7), ("status", "spec.py", 10)]
    assert [(f.actionClass, f.sink.line) for f in linked.taintFlows] == [("shell.exec", 8)]


def test_a_langchain_toolkit_in_a_class_attribute_with_selected_tools_and_a_root_dir() -> None:
    code = (
        "from crewai import Agent\n"
        "from langchain_community.agent_toolkits.file_management.toolkit import FileManagementToolkit\n\n"
        "class Crew:\n    toolkit = FileManagementToolkit(\n      root_dir='workdir',\n"
        "      selected_tools=['read_file', 'list_directory'],\n    )\n\n"
        "    def engineer(self) -> Agent:\n        return Agent(role='r', tools=[] + self.toolkit.get_tools())\n"
    )
    linked = analyse({"crew.py": code})
    assert _tools(linked) == [("list_directory", "crew.py", 5), ("read_file", "crew.py", 5)]
    assert {(a.actionClass, a.location.line) for a in linked.actions} == {("file.read", 5)}
    assert gate_kinds(linked, "file.read") == {"path_containment"}


def test_a_library_tool_given_through_a_typed_parameter_is_the_one_the_file_constructs() -> None:
    code = (
        "from crewai import Agent\nfrom crewai_tools import E2BPythonTool\n\n"
        "def build(python_tool: E2BPythonTool) -> Agent:\n    return Agent(role='r', tools=[python_tool])\n\n"
        "def run() -> None:\n    tool = E2BPythonTool(persistent=True)\n    build(tool)\n"
    )
    linked = analyse({"main.py": code})
    assert _tools(linked) == [("E2B Sandbox Python", "main.py", 8)]
    assert gate_kinds(linked, "code.exec") == {"sandbox"}
    assert [(f.actionClass, f.sink.line) for f in linked.taintFlows] == [("code.exec", 8)]


def test_a_library_tool_run_by_the_code_does_what_the_tool_does() -> None:
    code = (
        "from langchain_tavily import TavilySearch\nfrom langgraph.prebuilt import ToolNode\n\n"
        "async def search(query: str) -> dict:\n    wrapped = TavilySearch(max_results=3)\n"
        "    return await wrapped.ainvoke({'query': query})\n\nnode = ToolNode([search])\n"
    )
    linked = analyse({"tools.py": code})
    assert _tools(linked) == [("search", "tools.py", 4)]
    assert [(a.actionClass, a.location.line, bool(a.reachedFrom)) for a in linked.actions] == [
        ("network.egress", 6, True)
    ]


def test_a_llamaindex_workflow_waiting_for_a_human_answer_it_compares() -> None:
    code = (
        "import shutil\nfrom llama_index.core.agent.workflow import AgentWorkflow\n"
        "from llama_index.core.workflow import Context, HumanResponseEvent\n\n"
        "async def wipe(ctx: Context, path: str) -> str:\n"
        "    response = await ctx.wait_for_event(HumanResponseEvent)\n"
        "    if response.response.strip().lower() == 'yes':\n        shutil.rmtree(path)\n    return 'done'\n\n"
        "async def ask(ctx: Context) -> str:\n    await ctx.wait_for_event(HumanResponseEvent)\n"
        "    shutil.rmtree('/tmp/x')\n    return 'done'\n\n"
        "workflow = AgentWorkflow.from_tools_or_functions([wipe, ask])\n"
    )
    linked = analyse({"hitl.py": code})
    gated = {a.location.line: bool(a.gateIds) for a in linked.actions}
    assert gated == {8: True, 13: False}
    # Decided where the answer is compared, not where it is awaited.
    lines = {g.id: g.location.line for g in linked.gates}
    assert [lines[g] for a in linked.actions if a.location.line == 8 for g in a.gateIds] == [7]


def test_an_mcp_server_imported_from_another_module_its_credentials_and_their_check() -> None:
    files = {
        "core/server.py": "from mcp.server.fastmcp import FastMCP\n\nserver = FastMCP(name='workspace')\n",
        "core/agent.py": "from pydantic_ai import Agent\n\nagent = Agent('openai:gpt-4o')\n",
        "auth/google_auth.py": (
            "import json\nfrom typing import Optional\nfrom google.oauth2.credentials import Credentials\n"
            "from google.auth.transport.requests import Request\n\n"
            "def load(email: str) -> Optional[Credentials]:\n    creds_path = f'.credentials/{email}.json'\n"
            "    with open(creds_path, 'r') as f:\n        return Credentials(**json.load(f))\n\n"
            "def get_credentials(email: str) -> Optional[Credentials]:\n    credentials = load(email)\n"
            "    if credentials.expired:\n        credentials.refresh(Request())\n    return credentials\n"
        ),
        "gmail/tools.py": (
            "import asyncio\nfrom googleapiclient.discovery import build\n"
            "from auth.google_auth import get_credentials\nfrom core.server import server\n"
            "from core.agent import agent\n\n"
            "@server.tool()\n# a comment between the decorator and the def\n"
            "async def search(query: str, email: str) -> str:\n"
            "    credentials = await asyncio.to_thread(get_credentials, email)\n"
            "    if not credentials or not credentials.valid:\n        return 'authenticate first'\n"
            "    service = build('gmail', 'v1', credentials=credentials)\n"
            "    found = await asyncio.to_thread(service.users().messages().list(userId='me', q=query).execute)\n"
            "    return str(found)\n\n"
            "@agent.tool_plain\ndef shout(text: str) -> str:\n    return text.upper()\n"
        ),
    }
    linked = analyse(files)
    # ``server`` is a FastMCP and ``agent`` a pydantic-ai Agent: one tool each, of its own framework.
    assert sorted((t.name, t.framework, t.location.line) for t in linked.tools) == [
        ("search", "mcp", 9),
        ("shout", "pydantic-ai", 18),
    ]
    reached = sorted((a.actionClass, a.location.path, a.location.line) for a in linked.actions if a.reachedFrom)
    assert reached == [
        ("credential.read", "auth/google_auth.py", 8),
        ("credential.read", "auth/google_auth.py", 14),
        ("network.egress", "gmail/tools.py", 14),
    ]
    # The Gmail call runs only once the credentials are valid; the reads before the check are not gated.
    assert gate_kinds(linked, "network.egress") == {"authentication"}
    assert gate_kinds(linked, "credential.read") == set()


def test_a_decorator_on_an_imported_object_of_no_tool_class_makes_no_tool() -> None:
    files = {
        "app/routes.py": "from fastapi import APIRouter\n\nrouter = APIRouter()\n",
        "app/views.py": "from app.routes import router\n\n@router.tool()\ndef health() -> str:\n    return 'ok'\n",
    }
    assert analyse(files).tools == []


STRIPE_LIKE = {
    "kit/tools.py": (
        "tools = [\n    {\n        'method': 'create_customer',\n        'description': 'Create a customer',\n    },\n"
        "    {\n        'method': 'create_refund',\n        'description': 'Refund a payment',\n    },\n]\n"
    ),
    "kit/functions.py": (
        "import stripe\n\ndef create_customer(context, name: str):\n    return stripe.Customer.create(name=name)\n\n"
        "def create_refund(context, payment_intent: str):\n    return stripe.Refund.create(payment_intent=payment_intent)\n"
    ),
    "kit/api.py": (
        "import stripe\nfrom .functions import create_customer, create_refund\n\nclass API:\n"
        "    def __init__(self):\n        self._dispatch = {\n            'create_customer': create_customer,\n"
        "            'create_refund': create_refund,\n        }\n\n"
        "    def meter(self, event: str):\n        stripe.billing.MeterEvent.create(event_name=event)\n\n"
        "    def run(self, method: str, **kwargs):\n        function = self._dispatch[method]\n"
        "        return function(None, **kwargs)\n"
    ),
    "kit/crewai/tool.py": (
        "from crewai.tools import BaseTool\nfrom ..api import API\n\nclass KitTool(BaseTool):\n"
        "    api: API\n    method: str\n    name: str = ''\n    description: str = ''\n\n"
        "    def _run(self, **kwargs):\n        return self.api.run(self.method, **kwargs)\n"
    ),
    "kit/crewai/toolkit.py": (
        "from ..api import API\nfrom ..tools import tools\nfrom .tool import KitTool\n\nclass Toolkit:\n"
        "    def __init__(self, allowed):\n        api = API()\n"
        "        filtered = [tool for tool in tools if tool['method'] in allowed]\n"
        "        self._tools = [\n            KitTool(name=tool['method'], description=tool['description'],"
        " method=tool['method'], api=api)\n            for tool in filtered\n        ]\n"
    ),
    "kit/openai/tool.py": (
        "from agents import FunctionTool\n\ndef KitTool(api, tool) -> FunctionTool:\n"
        "    async def on_invoke_tool(ctx, input_str: str) -> str:\n        return api.run(tool['method'])\n\n"
        "    return FunctionTool(name=tool['method'], description='', params_json_schema={},"
        " on_invoke_tool=on_invoke_tool)\n"
    ),
}


def test_tools_built_from_records_are_named_by_a_field_and_run_what_their_name_dispatches_to() -> None:
    linked = analyse(STRIPE_LIKE)
    # One tool per record, at its name's literal; the unnamed tool class is no tool of its own.
    assert sorted((t.name, t.location.path, t.location.line, t.framework) for t in linked.tools) == [
        ("create_customer", "kit/tools.py", 3, "crewai"),
        ("create_refund", "kit/tools.py", 7, "crewai"),
    ]
    tool_names = {t.id: t.name for t in linked.tools}
    reached = sorted(
        (a.actionClass, a.location.line, tool_names[p.toolId]) for a in linked.actions for p in a.reachedFrom
    )
    assert reached == [("network.egress", 4, "create_customer"), ("payment", 7, "create_refund")]
    # The factory adapter names its tools from a parameter: which tools it gives is not visible.
    assert [(f.kind, f.path) for f in linked.frontier if f.kind == "runtime_registered_tools"] == [
        ("runtime_registered_tools", "kit/openai/tool.py")
    ]


def test_an_unnamed_tool_class_nothing_constructs_from_records_stays_a_tool() -> None:
    linked = analyse({"kit/crewai/tool.py": STRIPE_LIKE["kit/crewai/tool.py"]})
    assert [(t.name, t.location.line) for t in linked.tools] == [("KitTool", 4)]


def test_tool_objects_with_literal_names_from_the_agents_sdk_and_strands() -> None:
    code = (
        "import subprocess\nfrom agents import FunctionTool\nfrom strands.tools.tools import PythonAgentTool\n\n"
        "async def invoke(ctx, args: str) -> str:\n    return subprocess.check_output(args, shell=True).decode()\n\n"
        "def callback(tool_input, **kwargs):\n    return subprocess.check_output(tool_input, shell=True)\n\n"
        "shell = FunctionTool(name='shell', description='d', params_json_schema={}, on_invoke_tool=invoke)\n"
        "strand = PythonAgentTool(tool_name='run', tool_spec={}, callback=callback)\n"
    )
    linked = analyse({"tools.py": code})
    assert sorted((t.name, t.framework) for t in linked.tools) == [("run", "strands"), ("shell", "openai-agents")]
    assert sorted(f.sink.line for f in linked.taintFlows) == [6, 9]


def test_a_schema_the_model_is_forced_to_call_is_structured_output_not_a_tool() -> None:
    code = (
        "from openai import OpenAI\nfrom pydantic import BaseModel\nfrom langchain_openai import ChatOpenAI\n"
        "from langgraph.prebuilt import ToolNode\n\n"
        "class Route(BaseModel):\n    step: str\n\n"
        "def search(q: str) -> str:\n    return q\n\n"
        "client = OpenAI()\n"
        "def extract(text: str):\n    return client.chat.completions.create(\n        model='gpt-4o',\n"
        "        messages=[{'role': 'user', 'content': text}],\n"
        "        tools=[{'type': 'function', 'function': {'name': 'extract_fields', 'parameters': {}}},\n"
        "               {'type': 'function', 'function': {'name': 'lookup', 'parameters': {}}}],\n"
        "        tool_choice={'type': 'function', 'function': {'name': 'extract_fields'}},\n    )\n\n"
        "llm = ChatOpenAI(model='gpt-4o')\nrouter = llm.bind_tools([Route], tool_choice='Route')\n"
        "structured = llm.with_structured_output(Route)\nagent = llm.bind_tools([search], tool_choice='any')\n"
    )
    linked = analyse({"a.py": code})
    assert sorted(t.name for t in linked.tools) == ["lookup", "search"]


def test_a_tool_under_a_custom_decorator_reaches_the_wrapper_the_decorator_returns() -> None:
    files = {
        "auth/service.py": (
            "from functools import wraps\nfrom google.oauth2.credentials import Credentials\n\n"
            "def require_google_service(service: str):\n    def decorator(func):\n        @wraps(func)\n"
            "        async def wrapper(*args, **kwargs):\n"
            "            creds = Credentials.from_authorized_user_file('token.json')\n"
            "            return await func(creds, *args, **kwargs)\n        return wrapper\n    return decorator\n"
        ),
        "gmail/tools.py": (
            "from mcp.server.fastmcp import FastMCP\nfrom auth.service import require_google_service\n\n"
            "server = FastMCP('w')\n\n@server.tool()\n@require_google_service('gmail')\n"
            "async def search(service, query: str) -> str:\n    return query\n"
        ),
    }
    linked = analyse(files)
    assert [(t.name, t.location.line) for t in linked.tools] == [("search", 8)]
    assert [(a.actionClass, a.location.line, bool(a.reachedFrom)) for a in linked.actions] == [
        ("credential.read", 8, True)
    ]


def test_schema_classes_bound_as_tools_run_the_graph_branch_that_tests_their_name() -> None:
    code = (
        "import smtplib\nfrom pydantic import BaseModel\nfrom langchain_openai import ChatOpenAI\n"
        "from langgraph.types import interrupt\n\n"
        "class Question(BaseModel):\n    '''Ask the user.'''\n    content: str\n\n"
        "class SendEmail(BaseModel):\n    '''Send an email.'''\n    to: str\n    body: str\n\n"
        "class Done(BaseModel):\n    done: bool\n\n"
        "tools = [Question, SendEmail]\ntools.append(Done)\n"
        "llm = ChatOpenAI(model='gpt-4o').bind_tools(tools)\n\n"
        "def tool_node(state):\n    for call in state['messages'][-1].tool_calls:\n"
        "        if call['name'] == 'Question':\n            interrupt(call['args'])\n"
        "        elif call['name'] == 'SendEmail':\n"
        "            smtplib.SMTP('localhost').sendmail('me', call['args']['to'], call['args']['body'])\n"
    )
    linked = analyse({"graph.py": code})
    assert sorted((t.name, t.location.line, t.function is not None) for t in linked.tools) == [
        ("Done", 15, False),
        ("Question", 6, True),
        ("SendEmail", 10, True),
    ]
    names = {t.id: t.name for t in linked.tools}
    assert [(a.actionClass, [names[p.toolId] for p in a.reachedFrom]) for a in linked.actions] == [
        ("message.send", ["SendEmail"])
    ]
    # A schema no branch runs is not silently nothing: what runs it is not visible.
    assert any(f.kind == "dynamic_dispatch" and "Done" in f.detail for f in linked.frontier)


def test_more_langchain_toolkits_and_tools_by_their_library_names() -> None:
    code = (
        "from langchain_community.agent_toolkits import PlayWrightBrowserToolkit, SlackToolkit\n"
        "from langchain_community.tools import WriteFileTool\nfrom langgraph.prebuilt import create_react_agent\n\n"
        "def build(llm, browser):\n    web = PlayWrightBrowserToolkit.from_browser(async_browser=browser)\n"
        "    tools = web.get_tools() + SlackToolkit().get_tools() + [WriteFileTool()]\n"
        "    return create_react_agent(llm, tools)\n"
    )
    linked = analyse({"agent.py": code})
    names = {t.name for t in linked.tools}
    assert {"navigate_browser", "send_message", "write_file"} <= names
    sent = {a.location.line for a in linked.actions if a.actionClass == "message.send" and a.reachedFrom}
    assert sent == {7}


def test_tools_a_function_of_another_file_returns_are_its_listed_functions_not_the_function() -> None:
    files = {
        "app/tools.py": (
            "import subprocess\n\n"
            "def run_shell(cmd: str) -> str:\n"
            "    return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout\n\n"
            "def search(q: str) -> str:\n    return q\n\n"
            "async def get_tools(config):\n    tools = [search]\n    tools.append(run_shell)\n    return tools\n"
        ),
        "app/graph.py": (
            "from langchain_openai import ChatOpenAI\nfrom langgraph.prebuilt import ToolNode\n"
            "from app.tools import get_tools\n\n"
            "async def build(config):\n    tools = await get_tools(config)\n"
            "    model = ChatOpenAI(model='gpt-4o').bind_tools(tools)\n    return model, ToolNode(await get_tools(config))\n"
        ),
    }
    linked = analyse(files)
    assert _tools(linked) == [("run_shell", "app/tools.py", 3), ("search", "app/tools.py", 6)]
    (action,) = linked.actions
    assert action.actionClass == "shell.exec" and action.reachedFrom
    assert [f.sink.line for f in linked.taintFlows] == [4]
    assert not linked.frontier


def test_tools_a_function_returns_that_analysis_cannot_list_are_a_frontier_item_not_a_tool() -> None:
    files = {
        "app/plugins.py": "import importlib\n\ndef load_plugins(names):\n    return [importlib.import_module(n).tool for n in names]\n",
        "app/graph.py": (
            "from langchain_openai import ChatOpenAI\nfrom app.plugins import load_plugins\n\n"
            "def build():\n    plugins = load_plugins(['a'])\n    return ChatOpenAI(model='gpt-4o').bind_tools(plugins)\n"
        ),
    }
    linked = analyse(files)
    assert linked.tools == []
    (item,) = linked.frontier
    assert item.kind == "runtime_registered_tools" and "app.plugins.load_plugins returns" in item.detail
    assert (item.location.path, item.location.line) == ("app/graph.py", 6)


def test_what_a_returned_list_holds_beyond_named_functions_is_a_frontier_item_beside_its_tools() -> None:
    files = {
        "app/tools.py": (
            "from app.base import BASE\n\n"
            "def search(q: str) -> str:\n    return q\n\n"
            "def get_tools(make):\n    tools = BASE + [search]\n    tools.append(make())\n    return tools\n"
        ),
        "app/base.py": "def clock() -> str:\n    return 'now'\n\nBASE = [clock]\n",
        "app/graph.py": (
            "from langgraph.prebuilt import create_react_agent\nfrom app.tools import get_tools\n\n"
            "def build(model, make):\n    tools = get_tools(make)\n    return create_react_agent(model, tools)\n"
        ),
    }
    linked = analyse(files)
    assert _tools(linked) == [("clock", "app/base.py", 1), ("search", "app/tools.py", 3)]
    (item,) = linked.frontier
    assert item.kind == "runtime_registered_tools" and "app.tools.get_tools returns" in item.detail
    assert "cannot list in full" in item.detail
    assert (item.location.path, item.location.line) == ("app/graph.py", 6)

"""Python: every model provider, tool framework and action class of the issue, on small fixtures."""

from __future__ import annotations

import pytest
from pyfix import analyse, tools


@pytest.mark.parametrize(
    ("code", "provider", "api"),
    [
        (
            "from openai import OpenAI\nc = OpenAI()\nc.chat.completions.create(model='x', messages=[])\n",
            "openai",
            "openai.OpenAI.chat.completions.create",
        ),
        (
            "from openai import OpenAI\nc = OpenAI()\nc.responses.create(model='x', input='hi')\n",
            "openai",
            "openai.OpenAI.responses.create",
        ),
        (
            "from openai import AzureOpenAI\nc = AzureOpenAI()\nc.chat.completions.create(model='x', messages=[])\n",
            "azure_openai",
            "openai.AzureOpenAI.chat.completions.create",
        ),
        (
            "import anthropic\nc = anthropic.Anthropic()\nc.messages.create(model='x', max_tokens=5, messages=[])\n",
            "anthropic",
            "anthropic.Anthropic.messages.create",
        ),
        (
            "import google.generativeai as genai\nm = genai.GenerativeModel('g')\nm.generate_content('hi')\n",
            "google",
            "google.generativeai.GenerativeModel.generate_content",
        ),
        (
            "from google import genai\nc = genai.Client()\nc.models.generate_content(model='g', contents='hi')\n",
            "google",
            "google.genai.Client.models.generate_content",
        ),
        (
            "import boto3\nb = boto3.client('bedrock-runtime')\nb.converse(modelId='m', messages=[])\n",
            "bedrock",
            "boto3.client:bedrock-runtime.converse",
        ),
        (
            "from mistralai import Mistral\nc = Mistral(api_key='k')\nc.chat.complete(model='m', messages=[])\n",
            "mistral",
            "mistralai.Mistral.chat.complete",
        ),
        ("import cohere\nc = cohere.ClientV2()\nc.chat(model='c', messages=[])\n", "cohere", "cohere.ClientV2.chat"),
        ("import ollama\nollama.chat(model='llama3', messages=[])\n", "ollama", "ollama.chat"),
        ("import litellm\nlitellm.completion(model='gpt-4o', messages=[])\n", "litellm", "litellm.completion"),
        (
            "from langchain_openai import ChatOpenAI\nllm = ChatOpenAI(model='gpt-4o')\n",
            "openai",
            "langchain_openai.ChatOpenAI",
        ),
        (
            "import requests\nrequests.post('https://api.openai.com/v1/chat/completions', json={})\n",
            "openai",
            "requests.post",
        ),
        ("import httpx\nhttpx.post(f'https://api.anthropic.com/v1/messages', json={})\n", "anthropic", "httpx.post"),
    ],
)
def test_model_providers(code: str, provider: str, api: str) -> None:
    linked = analyse({"app.py": code})
    # A provider's client constructed in the code is a model use of its own (PY-MODEL-CLIENT-001).
    assert [(m.provider, m.api) for m in linked.models if m.ruleId != "PY-MODEL-CLIENT-001"] == [(provider, api)]
    # A model call is a model use, never network egress.
    assert linked.actions == []


TOOL_FIXTURES = {
    "openai-function": (
        "import json\nfrom openai import OpenAI\n\ndef get_weather(city):\n    return city\n\n"
        "TOOLS = [{'type': 'function', 'function': {'name': 'get_weather', 'description': 'Weather', 'parameters': {'type': 'object', 'properties': {'city': {'type': 'string'}}}}}]\n"
        "IMPL = {'get_weather': get_weather}\n",
        {("get_weather", "openai")},
    ),
    "openai-responses": (
        "TOOLS = [{'type': 'function', 'name': 'lookup', 'description': 'Look up', 'parameters': {}}]\n",
        {("lookup", "openai")},
    ),
    "anthropic": (
        "TOOLS = [{'name': 'search', 'description': 'Search', 'input_schema': {'type': 'object', 'properties': {}}}]\n",
        {("search", "anthropic")},
    ),
    "agents-sdk": (
        "from agents import function_tool\n\n@function_tool\ndef refund(order_id: str) -> str:\n    '''Refund an order.'''\n    return order_id\n",
        {("refund", "openai-agents")},
    ),
    "langchain-tool": (
        "from langchain_core.tools import tool\n\n@tool('web_search')\ndef search(q: str) -> str:\n    '''Search.'''\n    return q\n",
        {("web_search", "langchain")},
    ),
    "langchain-structured": (
        "from langchain_core.tools import StructuredTool\n\ndef add(a: int, b: int) -> int:\n    return a + b\n\n"
        "calc = StructuredTool.from_function(func=add, name='calculator', description='Add')\n",
        {("calculator", "langchain")},
    ),
    "langgraph-toolnode": (
        "from langchain_core.tools import tool\nfrom langgraph.prebuilt import ToolNode\n\n@tool\ndef ping(host: str) -> str:\n    '''Ping.'''\n    return host\n\nnode = ToolNode([ping])\n",
        {("ping", "langchain")},
    ),
    "crewai-decorator": (
        "from crewai.tools import tool\n\n@tool('Search the web')\ndef search(q: str) -> str:\n    '''Search.'''\n    return q\n",
        {("Search the web", "crewai")},
    ),
    "crewai-class": (
        "from crewai.tools import BaseTool\n\nclass Deploy(BaseTool):\n    name: str = 'deploy'\n    description: str = 'Deploy'\n\n    def _run(self, env: str) -> str:\n        return env\n",
        {("deploy", "crewai")},
    ),
    "autogen": (
        "from autogen_core.tools import FunctionTool\n\ndef quote(sym: str) -> str:\n    return sym\n\nt = FunctionTool(quote, description='Quote')\n",
        {("quote", "autogen")},
    ),
    "pydantic-ai": (
        "from pydantic_ai import Agent\nagent = Agent('openai:gpt-4o')\n\n@agent.tool_plain\ndef roll() -> int:\n    '''Roll a die.'''\n    return 4\n",
        {("roll", "pydantic-ai")},
    ),
    "smolagents-decorator": (
        "from smolagents import tool\n\n@tool\ndef fetch(url: str) -> str:\n    '''Fetch.'''\n    return url\n",
        {("fetch", "smolagents")},
    ),
    "smolagents-class": (
        "from smolagents import Tool\n\nclass Shell(Tool):\n    name = 'shell'\n    description = 'Run'\n\n    def forward(self, cmd: str) -> str:\n        return cmd\n",
        {("shell", "smolagents")},
    ),
    "llamaindex": (
        "from llama_index.core.tools import FunctionTool\n\ndef mult(a: int, b: int) -> int:\n    return a * b\n\nt = FunctionTool.from_defaults(fn=mult)\n",
        {("mult", "llamaindex")},
    ),
    "mcp": (
        "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x')\n\n@mcp.tool()\ndef delete_user(user_id: str) -> str:\n    '''Delete a user.'''\n    return user_id\n",
        {("delete_user", "mcp")},
    ),
}


@pytest.mark.parametrize("name", sorted(TOOL_FIXTURES))
def test_tool_frameworks(name: str) -> None:
    code, expected = TOOL_FIXTURES[name]
    linked = analyse({"agent.py": code})
    assert tools(linked) == expected


def test_tool_carries_name_description_location_and_function() -> None:
    linked = analyse({"pkg/agent.py": TOOL_FIXTURES["agents-sdk"][0]})
    (tool,) = linked.tools
    assert (tool.name, tool.description, tool.location.path, tool.location.line) == (
        "refund",
        "Refund an order.",
        "pkg/agent.py",
        4,
    )
    assert tool.parameters == ["order_id"]
    assert tool.function is not None


def test_literal_tool_linked_through_dispatch_table_reaches_its_action() -> None:
    code = (
        "import subprocess\n\ndef run(cmd):\n    return subprocess.run(cmd, shell=True)\n\n"
        "TOOLS = [{'type': 'function', 'function': {'name': 'run', 'description': 'Run'}}]\nIMPL = {'run': run}\n"
    )
    linked = analyse({"a.py": code})
    (action,) = linked.actions
    assert [p.toolId for p in action.reachedFrom] == [linked.tools[0].id]
    assert [f.kind for f in linked.frontier] == []


def test_literal_tool_without_implementation_is_frontier() -> None:
    linked = analyse({"a.py": TOOL_FIXTURES["anthropic"][0]})
    assert [f.kind for f in linked.frontier] == ["dynamic_dispatch"]


def test_mcp_annotations_are_recorded_never_a_gate() -> None:
    code = (
        "from mcp.server.fastmcp import FastMCP\nfrom mcp.types import ToolAnnotations\nimport os\nmcp = FastMCP('x')\n\n"
        "@mcp.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=True))\n"
        "def wipe(path: str) -> str:\n    '''Wipe.'''\n    os.remove(path)\n    return path\n"
    )
    linked = analyse({"s.py": code})
    assert linked.tools[0].annotations == {"readOnlyHint": False, "destructiveHint": True}
    # An annotation is what the server says of its tool, not a check: it excuses nothing.
    assert linked.actions[0].gateIds == []
    assert linked.gates == []


ACTION_FIXTURES = [
    ("import subprocess\nsubprocess.run(['ls'])\n", "shell.exec"),
    ("import os\nos.system('ls')\n", "shell.exec"),
    ("import asyncio\nasync def f():\n    await asyncio.create_subprocess_shell('ls')\n", "shell.exec"),
    ("eval(x)\n", "code.exec"),
    ("import pickle\npickle.loads(b)\n", "code.exec"),
    ("import importlib\nimportlib.import_module(name)\n", "code.exec"),
    ("open('out.txt', 'w').write('x')\n", "file.write"),
    ("from pathlib import Path\nPath('a').write_text('x')\n", "file.write"),
    ("import os\nos.remove('a')\n", "file.delete"),
    ("import shutil\nshutil.rmtree('d')\n", "file.delete"),
    ("import requests\nrequests.post('https://example.com', json={})\n", "network.egress"),
    ("import urllib.request\nurllib.request.urlopen('https://example.com')\n", "network.egress"),
    ("import sqlite3\nc = sqlite3.connect('x')\nc.execute('DELETE FROM t')\n", "db.write"),
    ("def f(cur):\n    cur.cursor().execute('INSERT INTO t VALUES (1)')\n", "db.write"),
    ("import smtplib\ns = smtplib.SMTP('h')\ns.send_message(msg)\n", "message.send"),
    ("from slack_sdk import WebClient\nc = WebClient()\nc.chat_postMessage(channel='c', text='t')\n", "message.send"),
    ("from twilio.rest import Client\nc = Client()\nc.messages.create(to='1', body='b')\n", "message.send"),
    ("import stripe\nstripe.Refund.create(charge='c')\n", "payment"),
    ("import stripe\nstripe.PaymentIntent.create(amount=1)\n", "payment"),
    ("import boto3\nec2 = boto3.client('ec2')\nec2.terminate_instances(InstanceIds=[])\n", "cloud.change"),
    (
        "import boto3\niam = boto3.client('iam')\niam.attach_role_policy(RoleName='r', PolicyArn='p')\n",
        "privilege.change",
    ),
    ("import boto3\nsm = boto3.client('secretsmanager')\nsm.get_secret_value(SecretId='s')\n", "secret.access"),
    ("import keyring\nkeyring.get_password('s', 'u')\n", "secret.access"),
]


@pytest.mark.parametrize(("code", "action_class"), ACTION_FIXTURES)
def test_action_classes(code: str, action_class: str) -> None:
    linked = analyse({"m.py": code})
    assert [a.actionClass for a in linked.actions] == [action_class]


@pytest.mark.parametrize(
    ("code", "classes"),
    [
        ("open('in.txt').read()\n", ["file.read"]),
        ("import sqlite3\nc = sqlite3.connect('x')\nc.execute('SELECT 1')\n", ["db.read"]),
        ("import os\nos.environ.get('HOME')\n", []),
        ("import os\nos.environ.get('GITHUB_TOKEN')\nos.environ['OPENAI_API_KEY']\n", ["credential.read"] * 2),
        ("import boto3\ns3 = boto3.client('s3')\ns3.get_object(Bucket='b', Key='k')\n", ["network.egress"]),
    ],
)
def test_reads_have_their_own_classes(code: str, classes: list[str]) -> None:
    """File, database and credential reads are actions of their own (low or medium impact); an object
    fetched from a store's API is data through an API (network.egress); an environment variable that
    holds no credential is no action."""
    assert [a.actionClass for a in analyse({"m.py": code}).actions] == classes


def test_actions_reached_across_files_with_the_call_chain() -> None:
    linked = analyse(
        {
            "pkg/__init__.py": "",
            "pkg/tools.py": "from langchain_core.tools import tool\nfrom pkg import helpers\n\n@tool\ndef clean(p: str) -> str:\n    '''Clean.'''\n    return helpers.wipe(p)\n",
            "pkg/helpers.py": "from .deep import really_wipe\n\ndef wipe(p):\n    return really_wipe(p)\n",
            "pkg/deep.py": "import shutil\n\ndef really_wipe(p):\n    shutil.rmtree(p)\n",
        }
    )
    (action,) = linked.actions
    assert action.location.path == "pkg/deep.py"
    (path,) = action.reachedFrom
    assert [(c.path, c.line) for c in path.calls] == [("pkg/tools.py", 7), ("pkg/helpers.py", 4)]
    assert {f.sourceKind for f in linked.taintFlows} == {"tool_argument"}

"""Python: tools whose effects sit in service layers. A package's object built over an open connection to a service
(a generated gRPC stub over ``grpc.insecure_channel``, returned by a factory of the module) is that service's client;
a parameter the callers give different requests of one client (``self._execute(op, service.events().insert(...))``
and ``...list(...)``) runs each where it is called (``request.execute()``); a local declared with a class
(``creds: Credentials | None = None``) keeps that class when bound to one of the class's factories."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link.linker import Linked


def _reached(linked: Linked) -> set[tuple[str, str, int]]:
    return {(a.actionClass, a.location.path, a.location.line) for a in linked.actions if a.reachedFrom}


STUB_CLIENT = (
    "import grpc\n"
    "from generated import shop_pb2, shop_pb2_grpc\n"
    "def get_stub():\n"
    "    channel = grpc.insecure_channel('localhost:9555')\n"
    "    return shop_pb2_grpc.CartServiceStub(channel)\n"
    "def add_item(user_id: str, product_id: str):\n"
    "    '''Add an item to the cart.'''\n"
    "    stub = get_stub()\n"
    "    stub.AddItem(shop_pb2.AddItemRequest(user_id=user_id, product_id=product_id))\n"
    "def summary(text: str):\n"
    "    '''Format text.'''\n"
    "    box = shop_pb2.Summary(text)\n"
    "    return box.render()\n"
)

AGENT = (
    "from mcp_agent.agents.agent import Agent\n"
    "from clients.cart import add_item, summary\n"
    "cart = Agent(name='cart', instruction='x', functions=[add_item, summary])\n"
)


def test_a_stub_built_over_a_grpc_channel_is_a_client_of_that_service() -> None:
    linked = analyse({"clients/cart.py": STUB_CLIENT, "agents/cart.py": AGENT})
    reached = _reached(linked)
    assert ("network.egress", "clients/cart.py", 9) in reached
    # An object of the same package built over no connection is no client.
    assert not {r for r in reached if r[2] == 13}


CALENDAR = (
    "from googleapiclient.discovery import build\n"
    "class Calendar:\n"
    "    def __init__(self):\n"
    "        self._service = self._build()\n"
    "    def _build(self):\n"
    "        return build('calendar', 'v3')\n"
    "    def list_events(self):\n"
    "        return self._execute('list', self._service.events().list(calendarId='primary'))\n"
    "    def delete_event(self, event_id):\n"
    "        return self._execute('delete', self._service.events().delete(calendarId='primary', eventId=event_id))\n"
    "    def _execute(self, operation, request):\n"
    "        return request.execute()\n"
)

TOOLS = (
    "from langchain.tools import tool\n"
    "from services.calendar import Calendar\n"
    "@tool\n"
    "def list_events_tool() -> list:\n"
    "    '''List events.'''\n"
    "    return Calendar().list_events()\n"
    "@tool\n"
    "def delete_event_tool(event_id: str) -> dict:\n"
    "    '''Delete an event.'''\n"
    "    return Calendar().delete_event(event_id)\n"
)


def test_a_request_the_callers_build_differently_runs_each_where_it_is_executed() -> None:
    linked = analyse({"services/calendar.py": CALENDAR, "tools.py": TOOLS})
    reached = [a for a in linked.actions if a.reachedFrom and a.location.line == 12]
    assert {a.actionClass for a in reached} == {"network.egress"}
    names = {t.id: t.name for t in linked.tools}
    assert {names[p.toolId] for a in reached for p in a.reachedFrom} == {"list_events_tool", "delete_event_tool"}


CREDENTIALS = (
    "from google.auth.transport.requests import Request\n"
    "from google.oauth2.credentials import Credentials\n"
    "from mcp.server.fastmcp import FastMCP\n"
    "mcp = FastMCP('x')\n"
    "def load(path):\n"
    "    creds: Credentials | None = None\n"
    "    creds = Credentials.from_authorized_user_file(path)\n"
    "    if creds and creds.expired:\n"
    "        creds.refresh(Request())\n"
    "    return creds\n"
    "@mcp.tool()\n"
    "def whoami() -> str:\n"
    "    return str(load('token.json'))\n"
)


def test_a_local_declared_with_a_class_keeps_it_through_the_class_factory() -> None:
    linked = analyse({"server.py": CREDENTIALS})
    assert ("credential.read", "server.py", 9) in _reached(linked)


CONFIG = (
    "from dataclasses import dataclass, field\n"
    "import httpx\n"
    "@dataclass\n"
    "class Config:\n"
    "    client: httpx.Client = field(default_factory=httpx.Client)\n"
    "    base_url: str = 'https://api.example.com'\n"
    "config = Config()\n"
)


def test_a_client_field_of_another_module_config_object_is_that_client() -> None:
    tools = (
        "from langchain_core.tools import tool\n"
        "from cfg import config\n"
        "@tool\n"
        "def fetch(path: str) -> str:\n"
        "    '''Fetch a page.'''\n"
        "    return config.client.get(config.base_url + path).text\n"
    )
    linked = analyse({"cfg.py": CONFIG, "tools.py": tools})
    assert ("network.egress", "tools.py", 6) in _reached(linked)


def test_a_package_client_every_construction_hands_a_service_is_its_field() -> None:
    service = (
        "class Notifier:\n"
        "    def __init__(self, client):\n"
        "        self.client = client\n"
        "    def send(self, channel, text):\n"
        "        self.client.chat_postMessage(channel=channel, text=text)\n"
    )
    tools = (
        "import os\n"
        "from langchain_core.tools import tool\n"
        "from slack_sdk import WebClient\n"
        "from svc import Notifier\n"
        "notifier = Notifier(client=WebClient(token=os.environ['SLACK_TOKEN']))\n"
        "@tool\n"
        "def notify(text: str) -> str:\n"
        "    '''Tell the team.'''\n"
        "    notifier.send('#team', text)\n"
        "    return 'sent'\n"
    )
    assert ("message.send", "svc.py", 5) in _reached(analyse({"svc.py": service, "tools.py": tools}))
    # Constructions that disagree (a Slack client here, something unknown there) say nothing of the field.
    other = tools + "quiet = Notifier(client=make_client())\n"
    assert ("message.send", "svc.py", 5) not in _reached(analyse({"svc.py": service, "tools.py": other}))


def test_a_classmethod_building_cls_with_a_package_client_is_a_construction() -> None:
    service = (
        "import os\n"
        "from slack_sdk import WebClient\n"
        "class Notifier:\n"
        "    def __init__(self, client):\n"
        "        self.client = client\n"
        "    @classmethod\n"
        "    def from_env(cls):\n"
        "        return cls(WebClient(token=os.environ['SLACK_TOKEN']))\n"
        "    def send(self, channel, text):\n"
        "        self.client.chat_postMessage(channel=channel, text=text)\n"
    )
    tools = (
        "from langchain_core.tools import tool\n"
        "from svc import Notifier\n"
        "notifier = Notifier.from_env()\n"
        "@tool\n"
        "def notify(text: str) -> str:\n"
        "    '''Tell the team.'''\n"
        "    notifier.send('#team', text)\n"
        "    return 'sent'\n"
    )
    assert ("message.send", "svc.py", 10) in _reached(analyse({"svc.py": service, "tools.py": tools}))


def test_a_tool_built_from_a_partial_runs_the_function_it_wraps() -> None:
    client = (
        "import requests\n"
        "def post(base: str, text: str) -> str:\n"
        "    '''Post a note.'''\n"
        "    return requests.post(base, data=text).text\n"
    )
    agent = (
        "from functools import partial\n"
        "from langchain_core.tools import StructuredTool\n"
        "from langgraph.prebuilt import create_react_agent\n"
        "from client import post\n"
        "note = StructuredTool.from_function(func=partial(post, 'https://notes'), name='note', description='n')\n"
        "agent = create_react_agent('openai:gpt-4o', [note])\n"
    )
    assert ("network.egress", "client.py", 4) in _reached(analyse({"client.py": client, "agent.py": agent}))

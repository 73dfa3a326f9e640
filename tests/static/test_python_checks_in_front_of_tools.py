"""Gates in front of Python tools, recognised by what makes them gates (issue 20): a check that decides
whether the effect happens, on the path to it. A helper of the file that answers yes or no is a check of
what it tests (a path's containment, a host or command against a written list), decided where the tool
tests its answer; a statement kind tested against a literal tuple, text searched for each entry of a deny
list, an exception saying a person must approve, a confirmation requested in a branch that ends, guardrails
and authentication providers a tool or its server is built with, and limiters. Each has a negative twin:
input validation, a check whose answer nobody tests, a branch that goes on, an empty list, a size compared
with a maximum, and a prompt that only asks the model to ask first are not gates."""

from __future__ import annotations

import pytest
from pyfix import analyse, gate_kinds

from assay.backend.engines.static.link import Linked

MCP = "import os\nimport subprocess\nfrom pathlib import Path\nfrom fastmcp import FastMCP\n\nmcp = FastMCP('files')\n"


def _gates_at(linked: Linked, action_class: str) -> set[tuple[str, int]]:
    """(kind, line) of the gates on every path to the actions of that class."""
    sites = {g.id: (g.kind, g.location.line) for g in linked.gates}
    return {sites[g] for a in linked.actions if a.actionClass == action_class for g in a.gateIds}


PATH_HELPERS = (
    "ROOTS = [Path('/srv/data').resolve()]\n\n"
    "def is_path_allowed(p: Path) -> bool:\n"
    "    rp = p.resolve()\n"
    "    for root in ROOTS:\n"
    "        try:\n"
    "            rp.relative_to(root)\n"
    "            return True\n"
    "        except ValueError:\n"
    "            continue\n"
    "    return False\n\n"
    "def ensure_path_allowed(p: Path) -> None:\n"
    "    if not is_path_allowed(p):\n"
    "        raise ValueError(f'not allowed: {p}')\n\n"
)


def test_a_helper_answering_whether_a_path_is_contained_gates_where_the_tool_calls_it() -> None:
    source = (
        MCP + PATH_HELPERS + "@mcp.tool()\ndef read(path: str) -> str:\n    p = Path(path)\n"
        "    ensure_path_allowed(p)\n    return p.read_text()\n"
    )
    linked = analyse({"server.py": source})
    call_line = source.splitlines().index("    ensure_path_allowed(p)") + 1
    assert ("path_containment", call_line) in _gates_at(linked, "file.read")


def test_a_helper_that_only_looks_at_the_file_is_input_validation() -> None:
    source = MCP + (
        "def usable(p: Path) -> bool:\n    if not p.exists():\n        return False\n    return p.is_file()\n\n"
        "@mcp.tool()\ndef read(path: str) -> str:\n    p = Path(path)\n"
        "    if not usable(p):\n        return 'no such file'\n    if not os.path.isdir(p.parent):\n        return 'bad'\n"
        "    return p.read_text()\n"
    )
    assert gate_kinds(analyse({"server.py": source}), "file.read") == set()


COMMAND_CHECK = (
    "BLOCKED = {'rm', 'sudo', 'shutdown'}\n\n"
    "def is_command_safe(command: str) -> tuple[bool, str]:\n"
    "    parts = command.split()\n"
    "    if parts[0] in BLOCKED:\n"
    "        return False, f'blocked: {parts[0]}'\n"
    "    return True, ''\n\n"
)


@pytest.mark.parametrize(
    ("use", "kinds"),
    [
        # The first value of the helper's answer, tested before the command runs.
        ("    ok, reason = is_command_safe(command)\n    if not ok:\n        return reason\n", {"allowlist"}),
        # An answer nobody tests decides nothing.
        ("    is_command_safe(command)\n", set()),
        ("    ok, reason = is_command_safe(command)\n    print(ok, reason)\n", set()),
    ],
)
def test_a_helper_answering_yes_or_no_with_a_reason(use: str, kinds: set[str]) -> None:
    source = (
        MCP + COMMAND_CHECK + "@mcp.tool()\ndef run(command: str) -> str:\n" + use
        + "    return subprocess.run(command, shell=True, capture_output=True, text=True).stdout\n"
    )  # fmt: skip
    assert gate_kinds(analyse({"server.py": source}), "shell.exec") == kinds


def test_a_helper_that_returns_data_is_not_a_check() -> None:
    source = MCP + (
        "BLOCKED = {'rm'}\n\n"
        "def parse(command: str):\n    if command.split()[0] in BLOCKED:\n        return False\n"
        "    return {'argv': command.split()}\n\n"
        "@mcp.tool()\ndef run(command: str) -> str:\n    if not parse(command):\n        return 'no'\n"
        "    return subprocess.run(command, shell=True).stdout\n"
    )
    assert gate_kinds(analyse({"server.py": source}), "shell.exec") == set()


HOSTS = (
    "import requests\nfrom urllib.parse import urlparse\nfrom fastmcp import FastMCP\n\nmcp = FastMCP('web')\n"
    "ALLOW_HOSTS = ['example.com']\n\n"
    "def is_host_allowed(host: str) -> bool:\n"
    "    return any(host == h or host.endswith('.' + h) for h in ALLOW_HOSTS)\n\n"
    "@mcp.tool()\ndef fetch(url: str) -> str:\n    host = urlparse(url).hostname or ''\n"
)


@pytest.mark.parametrize(
    ("check", "kinds"),
    [
        ("    if not is_host_allowed(host):\n        raise ValueError(host)\n", {"allowlist"}),
        ("    allowed = is_host_allowed(host)\n    if not allowed:\n        return 'no'\n", {"allowlist"}),
        # A test whose failing branch goes on refuses nothing.
        ("    if not is_host_allowed(host):\n        print('unknown host')\n", set()),
    ],
)
def test_a_host_tested_against_each_entry_of_an_allow_list_in_a_helper(check: str, kinds: set[str]) -> None:
    source = HOSTS + check + "    return requests.get(url).text\n"
    assert gate_kinds(analyse({"server.py": source}), "network.egress") == kinds


SQL = "import sqlite3\nfrom fastmcp import FastMCP\n\nmcp = FastMCP('db')\nMODE = 'ro'\n\n@mcp.tool()\ndef query(sql: str) -> list:\n"


@pytest.mark.parametrize(
    ("check", "kinds"),
    [
        (
            "    if sql.split()[0].lower() not in ('select', 'with'):\n        raise ValueError('read only')\n",
            {"allowlist"},
        ),
        # A membership test whose branch goes on, or of a value the model does not choose, is no check.
        ("    if sql.split()[0].lower() in ('select', 'with'):\n        print('read')\n", set()),
        ("    if MODE not in ('ro', 'rw'):\n        raise ValueError('bad mode')\n", set()),
    ],
)
def test_a_statement_kind_tested_against_a_tuple_written_in_place(check: str, kinds: set[str]) -> None:
    source = SQL + check + "    return sqlite3.connect('x.db').execute(sql).fetchall()\n"
    assert gate_kinds(analyse({"server.py": source}), "sql.exec") == kinds


@pytest.mark.parametrize(
    ("loop", "kinds"),
    [
        ("    for pattern in PATTERNS:\n        if pattern in command:\n            return 'blocked'\n", {"allowlist"}),
        # A loop that only reports what it found stops nothing.
        ("    for pattern in PATTERNS:\n        if pattern in command:\n            print(pattern)\n", set()),
    ],
)
def test_text_searched_for_each_entry_of_a_deny_list(loop: str, kinds: set[str]) -> None:
    source = (
        MCP + "PATTERNS = ['&&', ';', '|']\n\n@mcp.tool()\ndef run(command: str) -> str:\n" + loop
        + "    return subprocess.run(command, shell=True).stdout\n"
    )  # fmt: skip
    assert gate_kinds(analyse({"server.py": source}), "shell.exec") == kinds


@pytest.mark.parametrize(
    ("check", "kinds"),
    [
        # A size compared with a maximum is no spend limit; an amount is.
        ("    if len(note) > MAX_LENGTH:\n        return 'too long'\n", set()),
        ("    if amount > MAX_REFUND:\n        return 'too much'\n", {"spend_limit"}),
    ],
)
def test_a_size_is_not_an_amount_spent(check: str, kinds: set[str]) -> None:
    source = (
        "import stripe\nfrom fastmcp import FastMCP\n\nmcp = FastMCP('pay')\nMAX_LENGTH = 500\nMAX_REFUND = 100\n\n"
        "@mcp.tool()\ndef refund(charge: str, amount: int, note: str) -> str:\n" + check
        + "    stripe.Refund.create(charge=charge, amount=amount)\n    return 'ok'\n"
    )  # fmt: skip
    assert gate_kinds(analyse({"server.py": source}), "payment") == kinds


@pytest.mark.parametrize(
    ("check", "kinds"),
    [
        ("    if not ctx.tool_call_approved:\n        raise ApprovalRequired\n", {"human_approval"}),
        (
            "    if not ctx.tool_call_approved:\n        raise ApprovalRequired(metadata={'path': path})\n",
            {"human_approval"},
        ),
        ("    if not path:\n        raise ValueError('path')\n", set()),
    ],
)
def test_an_exception_saying_a_person_must_approve_first(check: str, kinds: set[str]) -> None:
    source = (
        "import os\nfrom pydantic_ai import Agent, ApprovalRequired, RunContext\n\nagent = Agent('openai:gpt-4o')\n\n"
        "@agent.tool\ndef delete_file(ctx: RunContext, path: str) -> str:\n"
        + check
        + "    os.remove(path)\n    return 'ok'\n"
    )
    assert gate_kinds(analyse({"agent.py": source}), "file.delete") == kinds


@pytest.mark.parametrize(
    ("branch", "kinds"),
    [
        (
            "    if not tool_context.tool_confirmation:\n"
            "        tool_context.request_confirmation(hint='Delete it?')\n"
            "        return {'status': 'pending'}\n",
            {"human_approval"},
        ),
        # A request whose branch goes on to the deletion pauses nothing.
        (
            "    if not tool_context.tool_confirmation:\n        tool_context.request_confirmation(hint='Delete it?')\n",
            set(),
        ),
        ("    if not tool_context.tool_confirmation:\n        print('unconfirmed')\n", set()),
    ],
)
def test_a_confirmation_requested_in_a_branch_that_ends(branch: str, kinds: set[str]) -> None:
    source = (
        "import os\nfrom google.adk.agents import Agent\nfrom google.adk.tools.tool_context import ToolContext\n\n"
        "def delete_file(path: str, tool_context: ToolContext) -> dict:\n" + branch
        + "    os.remove(path)\n    return {'status': 'deleted'}\n\n"
        "root_agent = Agent(name='files', model='gemini-2.0-flash', tools=[delete_file])\n"
    )  # fmt: skip
    assert gate_kinds(analyse({"agent.py": source}), "file.delete") == kinds


def test_a_confirmation_requested_after_the_effect_gates_nothing() -> None:
    source = (
        "import os\nfrom google.adk.agents import Agent\nfrom google.adk.tools.tool_context import ToolContext\n\n"
        "def delete_file(path: str, tool_context: ToolContext) -> dict:\n    os.remove(path)\n"
        "    if not tool_context.tool_confirmation:\n        tool_context.request_confirmation(hint='Done?')\n"
        "        return {'status': 'pending'}\n    return {'status': 'deleted'}\n\n"
        "root_agent = Agent(name='files', model='gemini-2.0-flash', tools=[delete_file])\n"
    )
    assert gate_kinds(analyse({"agent.py": source}), "file.delete") == set()


@pytest.mark.parametrize(("guardrails", "kinds"), [("[no_system_paths]", {"permission_check"}), ("[]", set())])
def test_guardrails_a_tool_runs_on_each_call(guardrails: str, kinds: set[str]) -> None:
    source = (
        "import os\nfrom agents import Agent, ToolGuardrailFunctionOutput, function_tool, tool_input_guardrail\n\n"
        "@tool_input_guardrail\ndef no_system_paths(data):\n"
        "    if '/etc' in data.context.tool_arguments:\n        return ToolGuardrailFunctionOutput.reject_content('no')\n"
        "    return ToolGuardrailFunctionOutput.allow()\n\n"
        f"@function_tool(tool_input_guardrails={guardrails})\ndef delete_file(path: str) -> str:\n"
        "    os.remove(path)\n    return 'ok'\n\nagent = Agent(name='files', tools=[delete_file])\n"
    )
    assert gate_kinds(analyse({"agent.py": source}), "file.delete") == kinds


def test_an_authentication_provider_on_the_server_gates_its_tools_only() -> None:
    source = (
        "import subprocess\nfrom fastmcp import FastMCP\nfrom fastmcp.server.auth.providers.jwt import JWTVerifier\n\n"
        "secured = FastMCP('ops', auth=JWTVerifier(jwks_uri='https://id.example.com/jwks', audience='ops'))\n"
        "public = FastMCP('public')\nopen_auth = FastMCP('open', auth=None)\n\n"
        "@secured.tool()\ndef restart(service: str) -> str:\n"
        "    return subprocess.run(['systemctl', 'restart', service]).stdout\n\n"
        "@public.tool()\ndef status(service: str) -> str:\n    return subprocess.run(['systemctl', 'status', service]).stdout\n\n"
        "@open_auth.tool()\ndef stop(service: str) -> str:\n    return subprocess.run(['systemctl', 'stop', service]).stdout\n"
    )
    linked = analyse({"server.py": source})
    kinds = {g.id: g.kind for g in linked.gates}
    names = {t.id: t.name for t in linked.tools}
    gated = {
        names[p.toolId]: {kinds[g] for g in a.gateIds}
        for a in linked.actions
        if a.actionClass == "shell.exec"
        for p in a.reachedFrom
    }
    assert gated == {"restart": {"authentication"}, "status": set(), "stop": set()}


@pytest.mark.parametrize(
    ("serve", "kinds"),
    [
        # MCP authorization is for HTTP transports: over stdio the client starts the server and no request
        # carries a token, so auth= checks nothing.
        ("mcp.run()\n", set()),
        ("mcp.run(transport='stdio')\n", set()),
        ("import asyncio\nasyncio.run(mcp.run_stdio_async())\n", set()),
        ("mcp.run(transport='http', port=8000)\n", {"authentication"}),
        ("app = mcp.http_app()\n", {"authentication"}),
        # stdio by default, HTTP when configured: a transport the file does not write could be HTTP.
        ("mcp.run()\nmcp.run(transport='sse')\n", {"authentication"}),
        ("mcp.run(transport=os.environ['TRANSPORT'])\n", {"authentication"}),
        # served by another file: nothing says stdio.
        ("", {"authentication"}),
    ],
)
def test_an_authentication_provider_gates_nothing_over_stdio(serve: str, kinds: set[str]) -> None:
    source = (
        "import os\nimport subprocess\nfrom fastmcp import FastMCP\nfrom fastmcp.server.auth.providers.jwt import JWTVerifier\n\n"
        "mcp = FastMCP('ops', auth=JWTVerifier(jwks_uri='https://id.example.com/jwks', audience='ops'))\n\n"
        "@mcp.tool()\ndef restart(service: str) -> str:\n"
        "    return subprocess.run(['systemctl', 'restart', service]).stdout\n\n"
        f"{serve}"
    )
    assert gate_kinds(analyse({"server.py": source}), "shell.exec") == kinds


@pytest.mark.parametrize(
    ("limit", "kinds"),
    [
        (
            "@mcp.tool()\n@limiter.limit('5/minute')\ndef fetch(url: str) -> str:\n    return requests.get(url).text\n",
            {"rate_limit"},
        ),
        (
            "@mcp.tool()\nasync def fetch(url: str) -> str:\n    async with throttle:\n        return requests.get(url).text\n",
            {"rate_limit"},
        ),
        # A lock serialises calls; it limits nothing.
        (
            "@mcp.tool()\nasync def fetch(url: str) -> str:\n    async with lock:\n        return requests.get(url).text\n",
            set(),
        ),
    ],
)
def test_limiters_in_front_of_a_tool(limit: str, kinds: set[str]) -> None:
    source = (
        "import asyncio\nimport requests\nfrom aiolimiter import AsyncLimiter\nfrom fastmcp import FastMCP\n"
        "from slowapi import Limiter\nfrom slowapi.util import get_remote_address\n\n"
        "mcp = FastMCP('web')\nlimiter = Limiter(key_func=get_remote_address)\nthrottle = AsyncLimiter(10, 60)\n"
        "lock = asyncio.Lock()\n\n" + limit
    )
    assert gate_kinds(analyse({"server.py": source}), "network.egress") == kinds


@pytest.mark.parametrize(
    ("body", "kinds"),
    [
        ("    if not questionary.confirm(f'Run {cmd}?').ask():\n        return 'cancelled'\n", {"human_approval"}),
        # A description asking the model to check with the user first is no check in the code.
        ("    '''Run a command. Always ask the user for confirmation before calling this.'''\n", set()),
    ],
)
def test_a_confirmation_prompt_and_a_prompt_that_only_asks_the_model(body: str, kinds: set[str]) -> None:
    source = (
        "import subprocess\nimport questionary\nfrom langchain.tools import tool\n\n@tool\ndef run(cmd: str) -> str:\n"
        "    '''Run a command.'''\n" * ("'''" not in body) + body
        + "    return subprocess.run(cmd, shell=True).stdout\n"
    )  # fmt: skip
    assert gate_kinds(analyse({"agent.py": source}), "shell.exec") == kinds


STRANDS = (
    "import os\nfrom strands import Agent, tool\n"
    "from strands.hooks import AfterToolCallEvent, BeforeToolCallEvent, HookProvider, HookRegistry\n\n"
    "class Guard(HookProvider):\n"
    "    def register_hooks(self, registry: HookRegistry) -> None:\n"
    "        registry.add_callback(EVENT, self.check)\n\n"
    "    def check(self, event) -> None:\n"
    "        if event.tool_use['name'] == 'delete_file':\nBODY\n"
    "@tool\ndef delete_file(path: str) -> str:\n    '''Delete a file.'''\n    os.remove(path)\n    return 'ok'\n\n"
    "agent = Agent(tools=[delete_file], hooks=[Guard()])\n"
)


@pytest.mark.parametrize(
    ("event", "body", "kinds"),
    [
        (
            "BeforeToolCallEvent",
            "            if event.interrupt('approve', reason='Delete?') != 'y':\n"
            "                event.cancel_tool = 'denied'\n",
            {"human_approval"},
        ),
        ("BeforeToolCallEvent", "            event.cancel_tool = 'not allowed'\n", {"permission_check"}),
        # A hook that only logs, or one run after the tool, refuses nothing.
        ("BeforeToolCallEvent", "            print('deleting', event.tool_use)\n", set()),
        ("AfterToolCallEvent", "            event.cancel_tool = 'too late'\n", set()),
    ],
)
def test_a_hook_provider_run_before_each_tool_call(event: str, body: str, kinds: set[str]) -> None:
    source = STRANDS.replace("EVENT", event).replace("BODY\n", body)
    assert gate_kinds(analyse({"agent.py": source}), "file.delete") == kinds


MIDDLEWARE = (
    "import subprocess\nfrom fastapi import FastAPI\nfrom fastmcp import FastMCP\n"
    "from starlette.middleware.base import BaseHTTPMiddleware\nfrom starlette.responses import JSONResponse\n"
    "from myauth import BearerAuthMiddleware, TimingMiddleware\n\nmcp = FastMCP('ops')\n\n"
    "@mcp.tool()\ndef restart(service: str) -> str:\n    return subprocess.run(['systemctl', 'restart', service]).stdout\n\n"
    "class KeyCheck(BaseHTTPMiddleware):\n    async def dispatch(self, request, call_next):\n"
    "        if request.headers.get('x-api-key') != 'k':\n            return JSONResponse({'error': 'no'}, status_code=CODE)\n"
    "        return await call_next(request)\n\n"
)


@pytest.mark.parametrize(
    ("front", "kinds"),
    [
        ("app = mcp.streamable_http_app()\napp.add_middleware(BearerAuthMiddleware, token='t')\n", {"authentication"}),
        ("mcp.add_middleware(BearerAuthMiddleware())\n", {"authentication"}),
        # A middleware of the file that answers 401 (403) itself, whatever its name.
        ("app = mcp.http_app()\napp.add_middleware(KeyCheck)\n", {"authentication"}),
        # A middleware that checks nothing, or one in front of another app, gates nothing.
        ("app = mcp.http_app()\napp.add_middleware(TimingMiddleware)\n", set()),
        ("other = FastAPI()\nother.add_middleware(BearerAuthMiddleware)\n", set()),
    ],
)
def test_a_middleware_in_front_of_the_server_s_tools(front: str, kinds: set[str]) -> None:
    source = MIDDLEWARE.replace("CODE", "401") + front
    assert gate_kinds(analyse({"server.py": source}), "shell.exec") == kinds


def test_a_middleware_answering_403_is_a_permission_check() -> None:
    source = MIDDLEWARE.replace("CODE", "403") + "app = mcp.http_app()\napp.add_middleware(KeyCheck)\n"
    assert gate_kinds(analyse({"server.py": source}), "shell.exec") == {"permission_check"}


OPS = (
    "import os\nimport subprocess\nfrom fastapi import HTTPException\nfrom fastmcp import Context, FastMCP\n\n"
    "mcp = FastMCP('ops')\nROOT = '/srv'\nCALLS: list[str] = []\n\n"
    "class RateLimitError(Exception):\n    pass\n\n"
)
ASKED = (
    "from pydantic import BaseModel\n\n"
    "class Confirm(BaseModel):\n    confirm: bool\n\n"
    "class Contact(BaseModel):\n    name: str\n    confirm: bool\n\n"
)


@pytest.mark.parametrize(
    ("check", "kinds"),
    [
        # Refused with an HTTP status that says why.
        (
            "    if key != os.environ['OPS_KEY']:\n        raise HTTPException(status_code=401, detail='bad key')\n",
            {"authentication"},
        ),
        (
            "    if key not in os.environ['OPS_ADMINS']:\n        raise HTTPException(403, 'admins only')\n",
            {"permission_check"},
        ),
        ("    if len(CALLS) >= 10:\n        raise HTTPException(status_code=429)\n", {"rate_limit"}),
        ("    if len(CALLS) >= 10:\n        raise RateLimitError('slow down')\n", {"rate_limit"}),
        # A status that refuses nothing (not found) is input validation.
        ("    if not cmd:\n        raise HTTPException(status_code=404, detail='no command')\n", set()),
    ],
)
def test_a_refusal_raised_with_a_status_or_a_rate_limit_error(check: str, kinds: set[str]) -> None:
    source = OPS + "@mcp.tool()\ndef run(cmd: str, key: str) -> str:\n" + check
    source += "    return subprocess.run(cmd, shell=True).stdout\n"
    assert gate_kinds(analyse({"server.py": source}), "shell.exec") == kinds


@pytest.mark.parametrize(
    ("check", "kinds"),
    [
        (
            "    if os.path.commonpath([ROOT, full]) != ROOT:\n        raise ValueError('outside')\n",
            {"path_containment"},
        ),
        (
            "    if os.path.commonpath([ROOT, full]) == ROOT:\n        return open(full).read()\n    return 'outside'\n",
            {"path_containment"},
        ),
        # Compared with a literal, or a test whose branch goes on, contains nothing.
        ("    if os.path.commonpath([ROOT, full]) != ROOT:\n        print('outside')\n", set()),
    ],
)
def test_the_common_path_of_a_root_and_a_path_compared_with_the_root(check: str, kinds: set[str]) -> None:
    source = OPS + "@mcp.tool()\ndef read(path: str) -> str:\n    full = os.path.realpath(os.path.join(ROOT, path))\n"
    source += check + "    return open(full).read()\n"
    assert gate_kinds(analyse({"server.py": source}), "file.read") == kinds


@pytest.mark.parametrize(
    ("check", "kinds"),
    [
        (
            "    result = await ctx.elicit(f'Run {cmd}?', response_type=None)\n"
            "    if result.action != 'accept':\n        return 'cancelled'\n",
            {"human_approval"},
        ),
        # An elicitation whose answer is never compared decides nothing.
        ("    await ctx.elicit(f'Running {cmd}', response_type=None)\n", set()),
        # A yes or no: no type, bool, written choices, a class of the file holding only bools.
        (
            "    result = await ctx.elicit(f'Run {cmd}?')\n    if result.action != 'accept':\n        return 'no'\n",
            {"human_approval"},
        ),
        (
            "    result = await ctx.elicit(f'Run {cmd}?', response_type=bool)\n"
            "    if result.action != 'accept' or not result.data:\n        return 'no'\n",
            {"human_approval"},
        ),
        (
            "    result = await ctx.elicit(f'Run {cmd}?', response_type=['run', 'skip'])\n"
            "    if result.action != 'accept' or result.data != 'run':\n        return 'no'\n",
            {"human_approval"},
        ),
        (
            "    result = await ctx.elicit(f'Run {cmd}?', Confirm)\n    if result.action != 'accept':\n        return 'no'\n",
            {"human_approval"},
        ),
        # Asking for input is no approval: the person gives data, not a yes to the call.
        (
            "    result = await ctx.elicit('Which directory?', response_type=str)\n"
            "    if result.action != 'accept':\n        return 'no'\n",
            set(),
        ),
        (
            "    result = await ctx.elicit('Who are you?', schema=Contact)\n    if result.action != 'accept':\n        return 'no'\n",
            set(),
        ),
    ],
)
def test_an_mcp_server_eliciting_the_user_s_answer(check: str, kinds: set[str]) -> None:
    source = OPS + ASKED + "@mcp.tool()\nasync def run(cmd: str, ctx: Context) -> str:\n" + check
    source += "    return subprocess.run(cmd, shell=True).stdout\n"
    assert gate_kinds(analyse({"server.py": source}), "shell.exec") == kinds


@pytest.mark.parametrize(("value", "kinds"), [("admin_only", {"permission_check"}), ("True", set())])
def test_a_tool_offered_only_when_a_function_says(value: str, kinds: set[str]) -> None:
    source = (
        "import os\nfrom agents import Agent, function_tool\n\ndef admin_only(ctx, agent) -> bool:\n"
        f"    return ctx.context.is_admin\n\n@function_tool(is_enabled={value})\ndef delete_file(path: str) -> str:\n"
        "    os.remove(path)\n    return 'ok'\n\nagent = Agent(name='files', tools=[delete_file])\n"
    )
    assert gate_kinds(analyse({"agent.py": source}), "file.delete") == kinds


RISKY = "DANGEROUS = ['rm ', 'sudo', 'mkfs']\n\ndef is_dangerous(cmd: str) -> bool:\n    return any(k in cmd for k in DANGEROUS)\n\n"


@pytest.mark.parametrize(
    ("check", "kinds"),
    [
        # A confirmation asked only for input a written list says is risky, the path stopped on a refusal.
        (
            "    if any(k in cmd for k in DANGEROUS):\n        if input(f'Run {cmd}? ') != 'y':\n"
            "            return 'cancelled'\n",
            {"human_approval"},
        ),
        (
            "    if cmd.split()[0] in ('rm', 'dd'):\n        if not Confirm.ask('Run it?'):\n            return 'no'\n",
            {"human_approval"},
        ),
        (
            "    if is_dangerous(cmd):\n        if input('Run it? ') != 'y':\n            return 'cancelled'\n",
            {"human_approval"},
        ),
        # The answer is asked for and ignored: nothing stops the command.
        ("    if is_dangerous(cmd):\n        input('Run it? ')\n", set()),
        # Risky input only logged.
        ("    if any(k in cmd for k in DANGEROUS):\n        print('careful')\n", set()),
        # A confirmation asked under a setting, not a test of the input: the other branch runs unasked.
        ("    if VERBOSE:\n        if input('Run it? ') != 'y':\n            return 'cancelled'\n", set()),
        # A confirmation a setting turns off: asked unless the configuration says otherwise (unset, it is asked).
        (
            "    if not settings.auto_confirm:\n        if not Confirm.ask('Run it?'):\n            return 'no'\n",
            {"human_approval"},
        ),
        (
            "    if not AUTO_APPROVE:\n        if input('Run it? ') != 'y':\n            return 'cancelled'\n",
            {"human_approval"},
        ),
        # The model's own input decides whether it is asked: no gate.
        ("    if not cmd:\n        if input('Run it? ') != 'y':\n            return 'cancelled'\n", set()),
    ],
)
def test_a_confirmation_asked_for_risky_input(check: str, kinds: set[str]) -> None:
    source = (
        MCP + "from rich.prompt import Confirm\nfrom config import settings\nVERBOSE = os.getenv('VERBOSE') == '1'\n"
        + "AUTO_APPROVE = os.getenv('AUTO_APPROVE') == '1'\n" + RISKY
        + "@mcp.tool()\ndef shell(cmd: str) -> str:\n" + check
        + "    return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout\n"
    )  # fmt: skip
    assert gate_kinds(analyse({"server.py": source}), "shell.exec") == kinds


@pytest.mark.parametrize(
    ("entry", "kinds"),
    [
        # The framework calls the base's public ``run``, which asks a person before it hands over to ``_run``.
        (
            "    def run(self, cmd: str) -> str:\n        if input(f'Run {cmd}? ') != 'y':\n"
            "            return 'denied'\n        return self._run(cmd)\n",
            {"human_approval"},
        ),
        (
            "    def run(self, cmd: str) -> str:\n        if any(w in cmd for w in ('rm', 'sudo')):\n"
            "            return 'refused'\n        result = self._run(cmd)\n        return result\n",
            {"allowlist"},
        ),
        # A base ``run`` that checks nothing, one that only logs, and one whose question is not listened to.
        ("    def run(self, cmd: str) -> str:\n        return self._run(cmd)\n", set()),
        (
            "    def run(self, cmd: str) -> str:\n        if 'rm' in cmd:\n            print('careful')\n        return self._run(cmd)\n",
            set(),
        ),
        ("    def run(self, cmd: str) -> str:\n        input('Run it? ')\n        return self._run(cmd)\n", set()),
    ],
)
def test_a_base_class_entry_that_checks_before_the_subclass_implementation(entry: str, kinds: set[str]) -> None:
    source = (
        "import subprocess\nfrom langchain_core.tools import BaseTool\n\n"
        "class GuardedTool(BaseTool):\n" + entry + "\n"
        "class ShellTool(GuardedTool):\n    name: str = 'shell'\n    description: str = 'Run a command'\n\n"
        "    def _run(self, cmd: str) -> str:\n"
        "        return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout\n"
    )  # fmt: skip
    assert gate_kinds(analyse({"tools.py": source}), "shell.exec") == kinds


def test_a_confirmation_an_injected_setting_turns_off_gates_the_tool() -> None:
    deps = "from dataclasses import dataclass\n\n@dataclass\nclass Deps:\n    auto_confirm: bool = False\n"
    tool = (
        "import subprocess\n"
        "from rich.prompt import Confirm\n"
        "from pydantic_ai import Agent, RunContext\n"
        "from pkg.deps import Deps\n\n"
        "def run_shell_command(ctx: RunContext[Deps], cmd: str) -> str:\n"
        "    if not ctx.deps.auto_confirm:\n"
        "        if not Confirm.ask(f'Execute {cmd}?', default=False):\n"
        "            return 'cancelled'\n"
        "    return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout\n\n"
        "agent = Agent('openai:gpt-4o', deps_type=Deps)\n"
        "agent.tool(run_shell_command)\n"
    )
    linked = analyse({"pkg/__init__.py": "", "pkg/deps.py": deps, "pkg/agent.py": tool})
    assert gate_kinds(linked, "shell.exec") == {"human_approval"}

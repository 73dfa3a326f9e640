"""Issue 20: checks FastMCP runs before one tool (``auth=`` on ``@mcp.tool(...)`` or ``Tool.from_function(...)``),
and the authentication provider of a server a function builds and hands to another module's ``register_tools``."""

from __future__ import annotations

import pytest
from pyfix import analyse, gate_kinds

from assay.backend.engines.static.link import Linked


def _gated(linked: Linked, action_class: str) -> dict[str, set[str]]:
    kinds = {g.id: g.kind for g in linked.gates}
    names = {t.id: t.name for t in linked.tools}
    return {
        names[p.toolId]: {kinds[g] for g in a.gateIds}
        for a in linked.actions
        if a.actionClass == action_class
        for p in a.reachedFrom
    }


@pytest.mark.parametrize(
    ("check", "kinds"),
    [
        ("auth=require_roles('admin')", {"permission_check"}),
        ("auth=require_scopes('files:write')", {"permission_check"}),
        ("auth=verify_token", {"authentication"}),
        ("auth=None", set()),
        ("", set()),
    ],
)
def test_a_check_handed_to_a_tool_decorator_gates_that_tool(check: str, kinds: set[str]) -> None:
    source = (
        "import os\nfrom fastmcp import FastMCP\nfrom fastmcp.server.auth import require_roles, require_scopes\n"
        "from .auth import verify_token\n\n"
        "mcp = FastMCP('files')\n\n"
        f"@mcp.tool({check})\ndef remove(path: str) -> str:\n    os.remove(path)\n    return 'ok'\n"
    )
    assert gate_kinds(analyse({"server.py": source}), "file.delete") == kinds


def test_a_check_handed_to_a_tool_object_gates_that_tool_only() -> None:
    source = (
        "import os\nfrom fastmcp import FastMCP\nfrom fastmcp.tools import Tool\n"
        "from fastmcp.server.auth import require_roles\n\n"
        "def _remove(path: str) -> str:\n    os.remove(path)\n    return 'ok'\n\n"
        "def _wipe(path: str) -> str:\n    os.remove(path)\n    return 'ok'\n\n"
        "remove = Tool.from_function(_remove, name='remove', auth=require_roles('admin'))\n"
        "wipe = Tool.from_function(_wipe, name='wipe')\n"
        "mcp = FastMCP('files')\nmcp.add_tool(remove)\nmcp.add_tool(wipe)\n"
    )
    assert _gated(analyse({"server.py": source}), "file.delete") == {"remove": {"permission_check"}, "wipe": set()}


REGISTER = (
    "import subprocess\n\n"
    "def register_tools(mcp):\n"
    "    @mcp.tool()\n"
    "    def restart(service: str) -> str:\n"
    "        return subprocess.run(['systemctl', 'restart', service]).stdout\n"
)


@pytest.mark.parametrize(
    ("auth", "kinds"),
    [("auth=JWTVerifier(jwks_uri='https://id.example.com/jwks')", {"authentication"}), ("auth=None", set())],
)
def test_a_server_a_function_builds_with_a_provider_gates_what_another_module_registers_on_it(
    auth: str, kinds: set[str]
) -> None:
    server = (
        "from fastmcp import FastMCP\nfrom fastmcp.server.auth.providers.jwt import JWTVerifier\n"
        "from tools import register_tools\n\n"
        f"def create_mcp():\n    mcp = FastMCP('ops', {auth})\n    register_tools(mcp)\n    return mcp\n\n"
        "app = create_mcp().http_app()\n"
    )
    assert gate_kinds(analyse({"server.py": server, "tools.py": REGISTER}), "shell.exec") == kinds


SETUP = (
    "import subprocess\nfrom mcp.server.fastmcp import FastMCP\n\n"
    "def run(cmd: str) -> str:\n    return subprocess.run(cmd, shell=True).stdout\n\n"
    "def set_up_tools_server() -> FastMCP:\n"
    "    server = FastMCP('tools')\n"
    "    server.tool(name='run_command')(run)\n"
    "    return server\n"
)


@pytest.mark.parametrize(
    ("middleware", "kinds"),
    [
        ("app.add_middleware(APIKeyMiddleware)\n", {"authentication"}),
        ("app.add_middleware(GZipMiddleware)\n", set()),
        ("", set()),
    ],
)
def test_middleware_on_the_app_of_a_server_another_module_returns_gates_the_tools_it_registers(
    middleware: str, kinds: set[str]
) -> None:
    serve = (
        "from starlette.middleware.gzip import GZipMiddleware\n"
        "from setup import set_up_tools_server\nfrom keys import APIKeyMiddleware\n\n"
        "mcp_server = set_up_tools_server()\napp = mcp_server.sse_app()\n"
        f"{middleware}"
    )
    assert gate_kinds(analyse({"setup.py": SETUP, "serve.py": serve}), "shell.exec") == kinds

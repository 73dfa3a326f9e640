"""Issue 20 gates, the dev units of the gate rules no dev unit had exercised: tool registries handed to a
function that registers tools on its parameter (``register_tools(mcp)`` in another module, ``def
register(agent: Agent[Deps, str])``), the gates the server holds over those tools wherever they are
registered, and the middleware a FastMCP server's constructor lists. Each has a negative twin: a
container of registries, an object that registers nothing, a middleware that checks nothing, a server
served over stdio only."""

from __future__ import annotations

import pytest
from pyfix import analyse

from assay.backend.engines.static.link import Linked

TOOLS = (
    "import subprocess\n\ndef register_tools(mcp):\n    @mcp.tool(name='restart')\n"
    "    async def restart(service: str) -> str:\n"
    "        return subprocess.run(['systemctl', 'restart', service]).stdout\n"
)


def _tools(linked: Linked) -> list[tuple[str, str, int]]:
    return sorted((t.name, t.location.path, t.location.line) for t in linked.tools)


def _gates_over(linked: Linked, action_class: str) -> set[tuple[str, str, int]]:
    """(kind, path, line) of the gates on the tools' paths to the actions of that class."""
    where = {g.id: (g.kind, g.location.path, g.location.line) for g in linked.gates}
    return {where[g] for a in linked.actions if a.actionClass == action_class for p in a.reachedFrom for g in p.gateIds}


@pytest.mark.parametrize(
    "call",
    ["register_tools(mcp)\n", "register_tools(mcp=mcp)\n", "def main():\n    register_tools(mcp)\n"],
)
def test_a_server_given_to_another_module_s_function_gets_the_tools_it_registers_on_its_parameter(
    call: str,
) -> None:
    server = "from fastmcp import FastMCP\nfrom tools import register_tools\n\nmcp = FastMCP('ops')\n" + call
    linked = analyse({"server.py": server, "tools.py": TOOLS})
    assert _tools(linked) == [("restart", "tools.py", 5)]
    assert {a.actionClass for a in linked.actions if a.reachedFrom} == {"shell.exec"}


def test_an_object_that_registers_no_tools_makes_no_tool_of_the_parameter() -> None:
    server = "from jobs import Scheduler\nfrom tools import register_tools\n\nmcp = Scheduler()\nregister_tools(mcp)\n"
    linked = analyse({"server.py": server, "tools.py": TOOLS})
    assert _tools(linked) == []


@pytest.mark.parametrize(
    ("annotation", "found"),
    [
        ("Agent[Deps, str]", True),
        ("Agent[Deps, ...]", True),
        # A container of agents is no agent: its ``tool`` is no decorator of the framework.
        ("list[Agent]", False),
    ],
)
def test_a_parameterised_class_annotation_types_the_parameter_as_that_class(annotation: str, found: bool) -> None:
    source = (
        "from __future__ import annotations\nimport subprocess\nfrom typing import TYPE_CHECKING\n"
        "from pydantic_ai import RunContext\n\nif TYPE_CHECKING:\n    from pydantic_ai import Agent\n\n"
        "class Deps:\n    pass\n\n"
        f"def register(agent: {annotation}) -> None:\n"
        "    @agent.tool(requires_approval=True)\n"
        "    async def run(ctx: RunContext[Deps], cmd: str) -> str:\n"
        "        return subprocess.run(cmd, shell=True).stdout\n"
    )
    linked = analyse({"tools.py": source})
    assert bool(_tools(linked)) is found
    if found:
        assert {kind for kind, _, _ in _gates_over(linked, "shell.exec")} == {"human_approval"}


@pytest.mark.parametrize(
    ("server", "gates"),
    [
        # An authentication middleware the constructor lists, in front of every tool of the server.
        (
            "mcp = FastMCP('ops', middleware=[BearerAuthMiddleware()])\nregister_tools(mcp)\nmcp.run(transport='http')\n",
            {("authentication", "server.py", 5)},
        ),
        # The server's authentication provider holds over the tools another module registers on it.
        (
            "mcp = FastMCP('ops', auth=JWTVerifier(jwks_uri='https://idp/jwks'))\nregister_tools(mcp)\n",
            {("authentication", "server.py", 5)},
        ),
        # A middleware that checks nothing gates nothing; a provider over stdio checks no request.
        ("mcp = FastMCP('ops', middleware=[TimingMiddleware()])\nregister_tools(mcp)\n", set()),
        (
            "mcp = FastMCP('ops', auth=JWTVerifier(jwks_uri='https://idp/jwks'))\nregister_tools(mcp)\nmcp.run()\n",
            set(),
        ),
    ],
)
def test_the_server_s_gates_hold_over_the_tools_another_module_registers_on_it(
    server: str, gates: set[tuple[str, str, int]]
) -> None:
    head = (
        "from fastmcp import FastMCP\nfrom fastmcp.server.auth.providers.jwt import JWTVerifier\n"
        "from middleware import BearerAuthMiddleware, TimingMiddleware\nfrom tools import register_tools\n"
    )
    linked = analyse({"server.py": head + server, "tools.py": TOOLS})
    assert _tools(linked) == [("restart", "tools.py", 5)]
    assert _gates_over(linked, "shell.exec") == gates


@pytest.mark.parametrize(
    ("middleware", "kinds"),
    [("ApiKeyMiddleware()", {"authentication"}), ("TimingMiddleware()", set())],
)
def test_a_middleware_the_server_s_constructor_lists(middleware: str, kinds: set[str]) -> None:
    source = (
        "import subprocess\nfrom fastmcp import FastMCP\nfrom middleware import ApiKeyMiddleware, TimingMiddleware\n\n"
        f"mcp = FastMCP('ops', middleware=[{middleware}])\n\n"
        "@mcp.tool()\ndef restart(service: str) -> str:\n"
        "    return subprocess.run(['systemctl', 'restart', service]).stdout\n"
    )
    linked = analyse({"server.py": source})
    assert {kind for kind, _, _ in _gates_over(linked, "shell.exec")} == kinds

"""Issue 20, Python: MCP tools registered in a loop over a literal (``for name, f in {...}.items():
mcp.tool(name)(f)``) are the literal's functions under the names it gives; a loop over anything else stays
visible as tools registered at run time."""

from __future__ import annotations

from pyfix import analyse


def test_tools_registered_in_a_loop_over_a_literal_dict_or_list_are_named_as_the_literal_names_them() -> None:
    code = (
        "import os\n"
        "from mcp.server.fastmcp import FastMCP\n\n"
        "def ls(path: str) -> list:\n"
        "    return os.listdir(path)\n\n"
        "def rm(path: str) -> None:\n"
        "    os.remove(path)\n\n"
        "def du(path: str) -> int:\n"
        "    return os.path.getsize(path)\n\n"
        "HANDLERS = [ls, du]\n\n"
        "class Server:\n"
        "    def __init__(self) -> None:\n"
        "        self.mcp = FastMCP('files')\n\n"
        "    def register(self) -> None:\n"
        "        tools = {\n"
        "            'list_dir': self.list_dir,\n"
        "            'delete_file': rm,\n"
        "        }\n"
        "        for name, handler in tools.items():\n"
        "            self.mcp.tool(name)(handler)\n\n"
        "    def list_dir(self, path: str) -> list:\n"
        "        return os.listdir(path)\n\n"
        "mcp = FastMCP('more')\n"
        "for fn in HANDLERS:\n"
        "    mcp.tool()(fn)\n"
    )
    linked = analyse({"server.py": code})
    assert sorted((t.name, t.location.line) for t in linked.tools) == [
        ("delete_file", 22),  # where the dict spells the name the model sees
        ("du", 10),  # no name given: the function's own, at its def
        ("list_dir", 27),  # named as its function: at its def
        ("ls", 4),
    ]
    reached = {
        (t.name, a.actionClass)
        for t in linked.tools
        for a in linked.actions
        if any(p.toolId == t.id for p in a.reachedFrom)
    }
    assert ("delete_file", "file.delete") in reached and ("list_dir", "file.read") in reached
    assert not [f for f in linked.frontier if f.kind == "runtime_registered_tools"]


def test_tools_registered_in_a_loop_over_what_is_not_a_literal_are_no_tool_named_after_the_loop_variable() -> None:
    code = (
        "from mcp.server.fastmcp import FastMCP\n\n"
        "mcp = FastMCP('x')\n\n"
        "def register(handlers: dict) -> None:\n"
        "    for name, handler in handlers.items():\n"
        "        mcp.tool(name)(handler)\n"
    )
    linked = analyse({"server.py": code})
    assert [t.name for t in linked.tools] == []
    assert [(f.kind, f.location.line) for f in linked.frontier if f.kind == "runtime_registered_tools"] == [
        ("runtime_registered_tools", 7)
    ]


GROWN = (
    "import subprocess\n"
    "from mcp.server.fastmcp import FastMCP\n\n"
    "def run(cmd: str) -> str:\n"
    "    return subprocess.run(cmd, shell=True).stdout\n\n"
    "def setup(enabled: bool) -> FastMCP:\n"
    "    tools = {}\n"
    "    if enabled:\n"
    "        tools['run_command'] = run\n"
    "{extra}"
    "    server = FastMCP('tools')\n"
    "    for name, tool in tools.items():\n"
    "        server.tool(name=name)(tool)\n"
    "    return server\n"
)


def test_a_dict_grown_under_literal_keys_before_the_loop_names_the_tools_it_registers() -> None:
    linked = analyse({"server.py": GROWN.replace("{extra}", "")})
    assert [(t.name, t.location.line) for t in linked.tools] == [("run_command", 10)]
    assert {a.actionClass for a in linked.actions if a.reachedFrom} == {"shell.exec"}


def test_a_dict_also_changed_another_way_stays_registered_at_run_time() -> None:
    # ``tools.update(...)`` (or a key computed at run time) may add entries the code does not spell.
    for extra in ("    tools.update(load_plugins())\n", "    tools[prefix + 'x'] = run\n"):
        linked = analyse({"server.py": GROWN.replace("{extra}", extra)})
        assert [t.name for t in linked.tools] == []
        assert [f.kind for f in linked.frontier if f.kind == "runtime_registered_tools"] == ["runtime_registered_tools"]

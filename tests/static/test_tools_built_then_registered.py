"""Issue 20, tools by role: a tool object a framework builds from a function (FastMCP
``Tool.from_function(fn, name=...)``) and registers later (``mcp.add_tool(tool)``) is one tool, named as the
framework names it, wherever the building and the registering happen."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked


def _tools(linked: Linked) -> list[tuple[str, str, int]]:
    return sorted((t.name, t.location.path, t.location.line) for t in linked.tools)


def _reached(linked: Linked, tool: str) -> set[tuple[str, int]]:
    ids = {t.id for t in linked.tools if t.name == tool}
    return {(a.actionClass, a.location.line) for a in linked.actions if any(p.toolId in ids for p in a.reachedFrom)}


FACTORIES = (
    "import shlex\n"
    "import subprocess\n"
    "from fastmcp import FastMCP\n"
    "from fastmcp.tools import FunctionTool\n\n"
    "def build_start_tool(manager: object):\n"
    "    def start_process(command: str) -> int:\n"
    "        return subprocess.Popen(shlex.split(command)).pid\n\n"
    "    def register_tool(mcp: FastMCP) -> None:\n"
    "        tool = FunctionTool.from_function(\n"
    "            start_process,\n"
    "            name='start_process',\n"
    "            description='Start a process.',\n"
    "        )\n"
    "        mcp.add_tool(tool)\n\n"
    "    return register_tool\n"
)

SERVER = (
    "import os\n"
    "from fastmcp import FastMCP\n"
    "from fastmcp.tools.tool import Tool\n"
    "from factories import build_start_tool\n"
    "from records import get_record_by_id, list_records\n\n"
    "mcp = FastMCP('s')\n"
    "build_start_tool(None)(mcp)\n"
    "mcp.add_tool(Tool.from_function(get_record_by_id, name='get_record'))\n"
    "mcp.add_tool(Tool.from_function(list_records))\n"
)

RECORDS = (
    "import requests\n\n"
    "def get_record_by_id(record_id: str) -> dict:\n"
    "    return requests.get(f'https://mdm.example/records/{record_id}').json()\n\n"
    "def list_records() -> list:\n"
    "    return requests.get('https://mdm.example/records').json()\n\n"
    "def purge_records() -> None:\n"
    "    requests.delete('https://mdm.example/records')\n"
)


def test_a_tool_built_from_a_function_and_registered_later_is_named_as_the_framework_names_it() -> None:
    linked = analyse({"factories.py": FACTORIES, "server.py": SERVER, "records.py": RECORDS})
    # named by ``name=`` at the building call, or else by the function at its def; never ``from_function``
    assert _tools(linked) == [
        ("get_record", "server.py", 9),
        ("list_records", "records.py", 6),
        ("start_process", "factories.py", 11),
    ]
    assert _reached(linked, "start_process") == {("shell.exec", 8)}
    assert _reached(linked, "get_record") == {("network.egress", 4)}
    assert _reached(linked, "list_records") == {("network.egress", 7)}
    # the function of the module no registration names reaches nothing
    assert not any(a.reachedFrom for a in linked.actions if a.location.line == 10 and a.location.path == "records.py")


def test_a_function_registered_directly_keeps_its_tool_and_one_never_registered_is_none() -> None:
    server = (
        "import subprocess\n"
        "from fastmcp import FastMCP\n\n"
        "mcp = FastMCP('s')\n\n"
        "def run(command: str) -> str:\n"
        "    return subprocess.run(command, shell=True, capture_output=True, text=True).stdout\n\n"
        "def cleanup() -> None:\n"
        "    subprocess.run(['rm', '-rf', '/tmp/cache'])\n\n"
        "mcp.add_tool(run)\n"
    )
    linked = analyse({"server.py": server})
    assert _tools(linked) == [("run", "server.py", 6)]
    assert _reached(linked, "run") == {("shell.exec", 7)}


def test_a_tool_object_bound_in_one_module_and_registered_in_another_is_one_tool_at_its_building() -> None:
    tool_module = (
        "import os\n"
        "from fastmcp.tools.base import Tool\n\n"
        "def _remove(path: str) -> None:\n"
        "    os.remove(path)\n\n"
        "remove: Tool = Tool.from_function(\n"
        "    _remove,\n"
        "    name='remove_file',\n"
        ")\n"
    )
    register = (
        "from fastmcp import FastMCP\n"
        "from app.tools.remove import remove\n\n"
        "def register_tools(mcp: FastMCP) -> None:\n"
        "    mcp.add_tool(remove)\n"
    )
    linked = analyse({"app/tools/remove.py": tool_module, "app/tools/__init__.py": register})
    assert _tools(linked) == [("remove_file", "app/tools/remove.py", 7)]
    assert _reached(linked, "remove_file") == {("file.delete", 5)}


def test_a_function_of_another_module_registered_directly_stays_its_own_tool() -> None:
    tool_module = "import os\n\ndef remove(path: str) -> None:\n    os.remove(path)\n"
    register = (
        "from fastmcp import FastMCP\nfrom app.tools.remove import remove\n\nmcp = FastMCP('s')\nmcp.add_tool(remove)\n"
    )
    linked = analyse({"app/tools/remove.py": tool_module, "app/tools/__init__.py": register})
    assert [name for name, _, _ in _tools(linked)] == ["remove"]
    assert _reached(linked, "remove") == {("file.delete", 4)}

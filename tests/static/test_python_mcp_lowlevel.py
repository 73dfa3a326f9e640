"""MCP low-level servers (issue 13): ``Tool(name=...)`` objects listed by a ``list_tools`` handler, names
from a ``str`` ``Enum`` or module constants, dispatched by ``match``/``if`` in ``call_tool``; each
branch's actions belong to its tool only. Annotations are disclosures, never gates."""

from __future__ import annotations

from pathlib import Path

from pyfix import analyse

from assay.backend.engines.static.scan import scan_tree

SERVER = """\
from enum import Enum
from pathlib import Path
import subprocess
import mcp.types as types
from mcp.server.lowlevel import Server

WIPE = "wipe_dir"


class Tools(str, Enum):
    LIST = "list_dir"
    RUN = "run_command"


class RunArgs:
    command: str
    cwd: str


def run(command: str) -> str:
    return subprocess.run(command, shell=True, capture_output=True, text=True).stdout


server = Server("demo")


@server.list_tools()
async def list_tools() -> list[types.Tool]:
    return [
        types.Tool(name=Tools.LIST, description="List", inputSchema={"type": "object", "properties": {"path": {}}},
                   annotations=types.ToolAnnotations(readOnlyHint=True)),
        types.Tool(name=Tools.RUN.value, description="Run", inputSchema=RunArgs.model_json_schema()),
        types.Tool(name=WIPE, description="Wipe", inputSchema={"type": "object"},
                   annotations=types.ToolAnnotations(readOnlyHint=True, destructiveHint=False)),
    ]


@server.call_tool()
async def call_tool(name: str, arguments: dict) -> list[types.TextContent]:
    target = Path(arguments.get("path", "."))
    match name:
        case Tools.LIST:
            return [types.TextContent(type="text", text="\\n".join(p.name for p in target.iterdir()))]
        case Tools.RUN:
            return [types.TextContent(type="text", text=run(arguments["command"]))]
    if name == WIPE:
        target.write_text("")
    raise ValueError(name)
"""


def test_tools_named_by_enum_members_and_constants_run_their_own_branch() -> None:
    linked = analyse({"server.py": SERVER})
    tools = {t.name: t for t in linked.tools}
    assert sorted(tools) == ["list_dir", "run_command", "wipe_dir"]
    assert {t.framework for t in linked.tools} == {"mcp"}
    assert tools["run_command"].parameters == ["command", "cwd"]
    assert tools["list_dir"].parameters == ["path"]
    names = {t.id: t.name for t in linked.tools}
    reached = {(a.actionClass, a.location.line): sorted(names[p.toolId] for p in a.reachedFrom) for a in linked.actions}
    # Each branch's actions are its tool's only: listing is not running, running is not wiping.
    assert reached == {
        ("shell.exec", 21): ["run_command"],
        ("file.read", 43): ["list_dir"],
        ("file.write", 47): ["wipe_dir"],
    }
    assert [(f.sourceKind, f.sink.line) for f in linked.taintFlows] == [
        ("tool_argument", 21),
        ("tool_argument", 43),
        ("tool_argument", 47),
    ]
    assert not [f for f in linked.frontier if f.kind == "dynamic_dispatch"]


def test_annotations_are_disclosures_and_a_read_only_tool_that_writes_is_a_finding(tmp_path: Path) -> None:
    (tmp_path / "server.py").write_text(SERVER)
    bundle = scan_tree(tmp_path)
    assert {t.name: t.annotations for t in bundle.tools}["wipe_dir"] == {"readOnlyHint": True, "destructiveHint": False}
    assert not any(g.kind == "tool_annotation" for g in bundle.gates)
    contradicted = [f for f in bundle.findings if f.ruleId == "F-READONLY-WRITES"]
    # list_dir is read-only and only reads; wipe_dir says read-only and writes.
    assert [(f.category, f.severity, f.locations[1].line) for f in contradicted] == [
        ("annotation_contradicted", "high", 47)
    ]


def test_a_tool_object_whose_name_no_constant_gives_is_a_frontier_item() -> None:
    code = "from mcp.types import Tool\n\ndef tools(specs):\n    return [Tool(name=s.name, inputSchema={}) for s in specs]\n"
    linked = analyse({"s.py": code})
    assert linked.tools == []
    assert [(f.kind, f.location.line if f.location else 0) for f in linked.frontier] == [("dynamic_dispatch", 4)]

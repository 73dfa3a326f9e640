"""MCP servers in TypeScript (issue 13): the low-level ``Server`` with tools listed as object literals
(names from strings, constants and enums) and dispatched by name in the CallTool handler, each branch's
actions attributed to its tool; the high-level ``registerTool`` with a constant name and configuration;
annotations as disclosures, never gates."""

from __future__ import annotations

from jsfix import FIXTURES
from pyfix import analyse

from assay.backend.engines.static.scan import scan_tree
from assay.backend.scans.bundle import EvidenceBundle


def _reach(bundle: EvidenceBundle) -> set[tuple[str, str, int, tuple[str, ...]]]:
    names = {t.id: t.name for t in bundle.tools}
    return {
        (a.actionClass, a.location.path, a.location.line, tuple(sorted(names[p.toolId] for p in a.reachedFrom)))
        for a in bundle.actions
    }


def test_lowlevel_tools_named_by_enum_and_constant_and_dispatched_per_branch() -> None:
    bundle = scan_tree(FIXTURES / "mcp_lowlevel")
    tools = {(t.name, t.location.path, t.location.line, t.framework) for t in bundle.tools}
    assert tools == {
        ("read_note", "src/tools.ts", 11, "mcp"),
        ("run_script", "src/tools.ts", 17, "mcp"),
        ("delete_note", "src/tools.ts", 22, "mcp"),
    }
    read = next(t for t in bundle.tools if t.name == "read_note")
    assert read.annotations == {"readOnlyHint": True}
    assert read.parameters == ["path"]
    # Each branch of the switch (and of the if on the name) is reached from its own tool only.
    assert _reach(bundle) == {
        ("file.read", "src/server.ts", 15, ("read_note",)),
        ("shell.exec", "src/server.ts", 19, ("run_script",)),
        ("file.delete", "src/server.ts", 27, ("delete_note",)),
    }
    flows = {(f.actionClass, f.sink.line, f.sourceKind) for f in bundle.taintFlows}
    assert ("shell.exec", 19, "tool_argument") in flows
    # The literal tools' dispatch items are answered by the branches; a tool named at run time is not.
    dispatch = [(f.path, f.location.line if f.location else 0) for f in bundle.frontier if f.kind == "dynamic_dispatch"]
    assert dispatch == [("src/tools.ts", 31)]


def test_registertool_with_constant_name_and_config_and_annotations_are_not_gates() -> None:
    bundle = scan_tree(FIXTURES / "mcp_highlevel")
    task, tool = sorted(bundle.tools, key=lambda t: t.name)
    assert (task.name, task.description) == ("long-job", "Runs a long job")  # experimental.tasks.registerToolTask
    assert (tool.name, tool.description, tool.parameters) == ("save-file", "Writes a file", ["path", "body"])
    assert tool.annotations == {"readOnlyHint": True}
    (action,) = bundle.actions
    assert action.actionClass == "file.write"
    assert [p.toolId for p in action.reachedFrom] == [tool.id]
    assert action.gateIds == [] and bundle.gates == []


SUBCLASS_TOOL = """\
export class Tool {
  name: string;
  constructor({ name }: { name: string }) {
    this.name = name;
  }
}
"""

SUBCLASS_SERVER = """\
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { tools } from './tools.js';

class Server extends McpServer {
  registerTools = (): void => {
    for (const { name, description, paramsSchema, callback } of tools) {
      this.tool(name, description, paramsSchema, callback);
    }
  };
  register = (): void => {
    this.tool('ping', 'Ping', {}, async () => ({ content: [] }));
  };
}

export const server = new Server({ name: 'x', version: '1' });
"""

OWN_TOOL_METHOD = """\
class Registry {
  tool(name: string, fn: () => void): void {
    console.log(name, fn);
  }
  register = (): void => {
    this.tool(process.argv[2], () => undefined);
  };
}
export const registry = new Registry();
"""


def test_a_tool_registered_on_a_class_extending_mcpserver_is_mcps_registration() -> None:
    # ``this.tool(...)`` in a subclass that does not define ``tool`` runs McpServer.tool: a literal name is a
    # tool, a name known only at run time is a frontier item at the call (never a silent zero).
    linked = analyse({"src/server.ts": SUBCLASS_SERVER, "src/tool.ts": SUBCLASS_TOOL})
    assert {(t.name, t.framework, t.location.line) for t in linked.tools} == {("ping", "mcp", 11)}
    dispatch = [f for f in linked.frontier if f.kind == "dynamic_dispatch"]
    assert [f.location.line for f in dispatch if f.location is not None] == [7]


def test_a_tree_class_defining_its_own_tool_method_registers_nothing() -> None:
    linked = analyse({"src/registry.ts": OWN_TOOL_METHOD})
    assert linked.tools == []
    assert not [f for f in linked.frontier if f.kind == "dynamic_dispatch"]


OWN_TOOL_CLASS = """\
export class Tool {
  name: string;
  callback: (args: { path: string }) => Promise<string>;
  constructor({ name, callback }: { name: string; callback: (args: { path: string }) => Promise<string> }) {
    this.name = name;
    this.callback = callback;
  }
}

export class Widget {
  constructor(options: { name: string; callback: () => void }) {
    console.log(options);
  }
}
"""

OWN_TOOL_DEFS = """\
import { unlink } from 'node:fs/promises';
import { Tool, Widget } from './tool.js';

export const deleteTool = new Tool({
  name: 'delete-file',
  callback: async ({ path }) => {
    await unlink(path);
    return 'ok';
  },
});

export const widget = new Widget({ name: 'not-a-tool', callback: () => undefined });
export const bare = new Tool(makeOptions());

function makeOptions(): any {
  return {};
}
"""


def test_a_tree_class_named_tool_built_with_an_options_object_is_a_tool_run_by_its_callback() -> None:
    linked = analyse({"src/tool.ts": OWN_TOOL_CLASS, "src/defs.ts": OWN_TOOL_DEFS})
    assert {(t.name, t.location.path, t.location.line) for t in linked.tools} == {("delete-file", "src/defs.ts", 4)}
    tool = linked.tools[0]
    assert {
        (a.actionClass, a.location.line) for a in linked.actions if any(r.toolId == tool.id for r in a.reachedFrom)
    } == {("file.delete", 7)}


def test_a_tree_class_not_named_for_a_tool_or_built_without_options_makes_no_tool() -> None:
    linked = analyse({"src/tool.ts": OWN_TOOL_CLASS, "src/defs.ts": OWN_TOOL_DEFS})
    assert "not-a-tool" not in {t.name for t in linked.tools}
    assert len(linked.tools) == 1

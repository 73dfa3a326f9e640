"""Tool definitions made by a factory of the tree (issue 20, tools by role, TypeScript): a function returning
an MCP tool definition whose name is one of its parameters (``function defineTool(name, description, schema)
{ return { name, description, inputSchema } }``) is a definition factory, wherever it lives; each call of it
given a string at that position, in any file, is the tool of that name, placed at the string. A helper
returning some other object named by a parameter makes no tool, nor does a string at another position."""

from __future__ import annotations

from pyfix import analyse

DEFINE = """\
import { z } from 'zod';

export function defineTool(name: string, description: string, schema: z.ZodType) {
  return {
    name,
    description,
    inputSchema: z.toJSONSchema(schema),
  };
}
"""

THINGS = """\
import { z } from 'zod';
import { defineTool } from './defineTool.js';
import { makeLabel } from './labels.js';

export const listThingsToolDef = defineTool(
  'list_things',
  'List things.',
  z.object({}),
);

export const deleteThingToolDef = defineTool('delete_thing', 'Delete a thing.', z.object({ id: z.number() }));

export const urgent = makeLabel('urgent', 'red');
"""

LABELS = """\
export function makeLabel(name: string, color: string) {
  return { name, color };
}
"""


def test_each_string_a_definition_factory_is_given_as_the_name_is_that_tool_where_it_is_written() -> None:
    linked = analyse({"src/tools/defineTool.ts": DEFINE, "src/tools/things.ts": THINGS, "src/tools/labels.ts": LABELS})
    assert {(t.name, t.framework, t.location.path, t.location.line) for t in linked.tools} == {
        ("list_things", "mcp", "src/tools/things.ts", 6),
        ("delete_thing", "mcp", "src/tools/things.ts", 11),
    }


def test_a_helper_returning_another_object_named_by_a_parameter_makes_no_tool() -> None:
    linked = analyse({"src/tools/things.ts": THINGS, "src/tools/labels.ts": LABELS})
    assert linked.tools == []


NAMED_INSIDE = DEFINE.replace("    name,\n", "    name: name.toLowerCase(),\n")


def test_a_factory_whose_definition_is_not_named_by_its_parameter_names_no_tool_at_its_calls() -> None:
    linked = analyse({"src/tools/defineTool.ts": NAMED_INSIDE, "src/tools/things.ts": THINGS})
    assert linked.tools == []


SERVER = """\
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { execFile } from 'node:child_process';
import { unlink } from 'node:fs/promises';
import { listThingsToolDef, deleteThingToolDef } from './tools/things.js';
import { Widget } from './widget.js';

export function createMcpServer(): Server {
  const tools = [
    { def: listThingsToolDef, handle: (args: any) => execFile('ls', [String(args.dir)]) },
    { def: deleteThingToolDef, handle: async (args: any) => unlink(String(args.path)) },
  ];
  const widgets = [{ view: Widget, render: (p: any) => unlink(String(p)) }];
  const byName = new Map(tools.map((tool) => [tool.def.name, tool]));
  const server = new Server({ name: 'x', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.map((tool) => tool.def) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name);
    if (!tool) return { content: [], isError: true };
    return { content: [{ type: 'text', text: String(await tool.handle(request.params.arguments)) }] };
  });
  return { server, widgets };
}
"""

WIDGET = """\
export class Widget {}
"""


def _reached(files: dict[str, str]) -> set[tuple[str, str, int]]:
    linked = analyse(files)
    names = {t.id: t.name for t in linked.tools}
    return {
        (names[p.toolId], a.actionClass, a.location.line)
        for a in linked.actions
        for p in a.reachedFrom
        if a.location is not None
    }


def test_a_record_pairing_a_tool_definition_with_a_function_is_that_tools_body() -> None:
    files = {
        "src/tools/defineTool.ts": DEFINE,
        "src/tools/things.ts": THINGS,
        "src/tools/labels.ts": LABELS,
        "src/server.ts": SERVER,
        "src/widget.ts": WIDGET,
    }
    linked = analyse(files)
    # the tools stay where their definitions name them; the records add none of their own
    assert {(t.name, t.location.path, t.location.line) for t in linked.tools} == {
        ("list_things", "src/tools/things.ts", 6),
        ("delete_thing", "src/tools/things.ts", 11),
    }
    reached = _reached(files)
    assert ("list_things", "shell.exec", 10) in reached
    assert ("delete_thing", "file.delete", 11) in reached
    assert not [r for r in reached if r[0] == "list_things" and r[1] == "file.delete"]
    # the widget record pairs a class with a callback: no tool, and nothing claims the callback's delete
    assert not [r for r in reached if r[2] == 13]
    assert not [f for f in linked.frontier if f.location is not None and f.location.path == "src/server.ts"]


def test_a_record_pairing_a_value_that_defines_no_tool_with_a_function_is_no_tool() -> None:
    files = {"src/server.ts": SERVER, "src/widget.ts": WIDGET, "src/tools/things.ts": THINGS}
    linked = analyse(files)
    # without the definition factory, the held values define no tool: nothing, and no frontier item
    assert linked.tools == []
    assert not [f for f in linked.frontier if f.location is not None and f.location.path == "src/server.ts"]

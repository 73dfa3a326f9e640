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

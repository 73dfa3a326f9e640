"""Tools registered element by element from a collection typed by an interface of the tree (issue 20, tools by
role): ``for (const tool of this.tools) server.tool(tool.name, tool.description, tool.schema, (p) =>
tool.handler(p))`` with ``tools: Tool[]`` filled by a dependency injection container (``@multiInject(TOOL)``)
registers every class of the tree implementing ``Tool`` that names itself, each run by the method the handler
calls on the element; nothing constructs them in the tree (the container does). The registration's frontier item
(a name known only at run time) is answered once a class is served, and stays when none is. A field of an element
of such a loop (``for (const tool of group.tools)`` with ``tools: Tool[]`` declared on the ``ToolGroup``
interface in another file) holds the elements that file declares."""

from __future__ import annotations

from pyfix import analyse, tools

TYPES = """\
export interface Tool {
  readonly name: string;
  readonly description: string;
  handler(params: any): Promise<unknown>;
}

export interface ToolGroup {
  readonly tools: Tool[];
}
"""

DELETE = """\
import { unlink } from 'node:fs/promises';
import type { Tool } from './types.js';
import { tool } from './decorators.js';

@tool()
export class DeleteFile implements Tool {
  readonly name = 'delete-file';
  readonly description = 'Delete a file';

  async handler({ path }: { path: string }) {
    await unlink(path);
    return { ok: true };
  }
}
"""

LIST = """\
import { readdir } from 'node:fs/promises';
import type { Tool } from './types.js';

export class ListDir implements Tool {
  readonly name = 'list-dir';
  readonly description = 'List a directory';

  async handler({ path }: { path: string }) {
    return readdir(path);
  }
}
"""

DECORATORS = """\
import { injectable } from 'inversify';
import { container } from './container.js';

export function tool() {
  return function (target: any) {
    injectable()(target);
    container.bind('Tool').to(target);
    return target;
  };
}
"""

FACTORY = """\
import { injectable, multiInject } from 'inversify';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Tool } from './types.js';

@injectable()
export class ServerFactory {
  constructor(@multiInject('Tool') private tools: Tool[]) {}

  create(): McpServer {
    const server = new McpServer({ name: 'files', version: '1' });
    for (const tool of this.tools) {
      server.tool(tool.name, tool.description, {}, async (params: any) => {
        return await tool.handler(params);
      });
    }
    return server;
  }
}
"""

GROUPS = """\
import { injectable, multiInject } from 'inversify';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolGroup } from './types.js';

@injectable()
export class GroupedServer {
  constructor(@multiInject('Groups') private readonly groups: ToolGroup[]) {}

  create(): McpServer {
    const server = new McpServer({ name: 'files', version: '1' });
    for (const group of this.groups) {
      for (const tool of group.tools) {
        server.registerTool(tool.name, { description: tool.description }, async (args: any) => tool.handler(args));
      }
    }
    return server;
  }
}
"""


def test_every_class_implementing_the_element_type_is_a_tool_run_by_the_method_called() -> None:
    linked = analyse(
        {
            "src/types.ts": TYPES,
            "src/delete.ts": DELETE,
            "src/list.ts": LIST,
            "src/decorators.ts": DECORATORS,
            "src/factory.ts": FACTORY,
        }
    )
    assert {name for name, _ in tools(linked)} == {"delete-file", "list-dir"}
    reached = {(a.actionClass, a.location.path) for a in linked.actions if a.reachedFrom}
    assert ("file.delete", "src/delete.ts") in reached
    assert not any(f.kind == "dynamic_dispatch" and f.path == "src/factory.ts" for f in linked.frontier)


def test_a_field_of_an_element_holds_what_its_interface_declares() -> None:
    linked = analyse({"src/types.ts": TYPES, "src/delete.ts": DELETE, "src/groups.ts": GROUPS})
    assert {name for name, _ in tools(linked)} == {"delete-file"}


def test_a_registration_nothing_implements_stays_a_frontier_item() -> None:
    linked = analyse({"src/types.ts": TYPES, "src/factory.ts": FACTORY})
    assert not linked.tools
    assert any(f.kind == "dynamic_dispatch" and f.path == "src/factory.ts" for f in linked.frontier)


def test_a_loop_over_keys_types_nothing() -> None:
    keyed = FACTORY.replace("for (const tool of this.tools)", "for (const tool in this.tools)")
    linked = analyse({"src/types.ts": TYPES, "src/delete.ts": DELETE, "src/factory.ts": keyed})
    assert not linked.tools

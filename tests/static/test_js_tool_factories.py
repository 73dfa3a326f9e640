"""Tools made by a factory of the tree (issue 20, tools by role): a function whose parameter names the tool a
framework's registration makes (``function registerTool(server, name, ...) { server.tool(name, ...) }``) is a
tool factory; each call of it with a literal name is that tool, run by the function the call is given. A
helper that hands its literal to no registration makes no tool, and a factory given a name chosen at run time
stays a frontier item."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked

FACTORY_SERVER = """\
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { unlink, readFile } from 'node:fs/promises';
import { z } from 'zod';

const server = new McpServer({ name: 'notes', version: '1.0.0' });

registerTool(
  server,
  'read_note',
  'Read one note.',
  { path: z.string() },
  async ({ path }) => readFile(path, 'utf8'),
);

function registerTool(server, name, description, schema, handler) {
  server.tool(name, description, schema, async (input) => {
    try {
      return { content: [{ type: 'text', text: String(await handler(input)) }] };
    } catch (error) {
      return { content: [{ type: 'text', text: String(error) }], isError: true };
    }
  });
}

export function registerAll() {
  registerTool(server, 'delete_note', 'Delete one note.', { path: z.string() }, async ({ path }) => unlink(path));
}
"""

CONFIG_FACTORY = """\
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { execFile } from 'node:child_process';

const server = new McpServer({ name: 'ops', version: '1.0.0' });

function addTool(server: McpServer, name: string, config: object, handler: (args: any) => Promise<any>) {
  server.registerTool(name, config, handler);
}

addTool(server, 'restart_service', { description: 'Restart the service.' }, async ({ unit }) => {
  execFile('systemctl', ['restart', unit]);
  return { content: [] };
});
"""

NOT_A_FACTORY = """\
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

const server = new McpServer({ name: 'x', version: '1.0.0' });

function logEvent(name: string, payload: object): void {
  console.log(name, payload);
}

logEvent('startup', { ok: true });
server.tool('ping', 'Ping.', {}, async () => ({ content: [] }));
"""

RUNTIME_NAMED = """\
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

const server = new McpServer({ name: 'x', version: '1.0.0' });

function registerTool(server: McpServer, name: string, handler: () => Promise<any>) {
  server.tool(name, handler);
}

function unused(server: McpServer, name: string, handler: () => Promise<any>) {
  server.tool(name, handler);
}

registerTool(server, 'ping', async () => ({ content: [] }));
registerTool(server, process.argv[2], async () => ({ content: [] }));
"""


EXPORTED_FACTORY = """\
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

export function registerTool(server: McpServer, name: string, handler: () => Promise<any>) {
  server.tool(name, handler);
}

registerTool(new McpServer({ name: 'x', version: '1.0.0' }), 'ping', async () => ({ content: [] }));
"""


def _reached(linked: Linked) -> set[tuple[str, str, int]]:
    names = {t.id: t.name for t in linked.tools}
    return {
        (names[p.toolId], a.actionClass, a.location.line)
        for a in linked.actions
        for p in a.reachedFrom
        if a.location is not None
    }


def _unknown_names(linked: Linked) -> list[int]:
    return sorted(
        f.location.line
        for f in linked.frontier
        if f.kind == "dynamic_dispatch" and f.location is not None and "known only at run time" in f.detail
    )


def test_each_literal_call_of_a_registration_factory_is_a_tool_run_by_the_function_it_is_given() -> None:
    linked = analyse({"src/server.mjs": FACTORY_SERVER})
    # ``server`` is the factory's parameter: the registration is recognised by its role (name first,
    # implementation last), the framework word of such tools
    assert {(t.name, t.framework, t.location.line) for t in linked.tools} == {
        ("read_note", "role", 7),
        ("delete_note", "role", 26),
    }
    reached = _reached(linked)
    assert ("read_note", "file.read", 12) in reached
    assert ("delete_note", "file.delete", 26) in reached
    assert not [(n, c, line) for n, c, line in reached if n == "read_note" and c == "file.delete"]
    assert _unknown_names(linked) == []  # every call names its tool: nothing is left unknown


def test_a_factory_handing_its_handler_to_register_tool_makes_the_tool_of_that_name() -> None:
    linked = analyse({"src/ops.ts": CONFIG_FACTORY})
    assert {(t.name, t.location.line) for t in linked.tools} == {("restart_service", 10)}
    assert ("restart_service", "shell.exec", 11) in _reached(linked)


def test_a_helper_handing_its_literal_to_no_registration_makes_no_tool() -> None:
    linked = analyse({"src/server.ts": NOT_A_FACTORY})
    assert {t.name for t in linked.tools} == {"ping"}


def test_a_factory_given_a_name_chosen_at_run_time_stays_a_frontier_item() -> None:
    linked = analyse({"src/server.ts": RUNTIME_NAMED})
    assert {(t.name, t.location.line) for t in linked.tools} == {("ping", 13)}
    # the factory called with process.argv[2] and the one never called keep their frontier items
    assert _unknown_names(linked) == [6, 10]


def test_an_exported_factory_keeps_its_frontier_item_for_the_calls_other_files_make() -> None:
    linked = analyse({"src/register.ts": EXPORTED_FACTORY})
    assert {(t.name, t.location.line) for t in linked.tools} == {("ping", 7)}
    assert _unknown_names(linked) == [4]

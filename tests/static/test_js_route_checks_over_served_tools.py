"""Checks in front of the HTTP route that serves a TypeScript MCP server (issue 20, gates in front of tools):
an authentication check that refuses the request (``if (!(await isMcpAuthorized(req))) { 401; return }``)
before the route builds the server (``createMcpServer()``) and hands it the request
(``transport.handleRequest(req, res, body)``) gates every tool that server serves - those whose records the
server's function pairs with their bodies. A stdio entry point serving the same server hands over no
request and takes nothing away; a second HTTP route building the server without the check does."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked

TOOLS = """\
export function defineTool(name: string, description: string) {
  return { name, description, inputSchema: { type: 'object' } };
}

export const deleteThingToolDef = defineTool('delete_thing', 'Delete a thing.');
"""

SERVER = """\
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { unlink } from 'node:fs/promises';
import { deleteThingToolDef } from './tools.js';

export function createMcpServer(): Server {
  const tools = [{ def: deleteThingToolDef, handle: async (args: any) => unlink(String(args.path)) }];
  const byName = new Map(tools.map((tool) => [tool.def.name, tool]));
  const server = new Server({ name: 'x', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.map((t) => t.def) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name);
    return { content: [{ type: 'text', text: String(await tool?.handle(request.params.arguments)) }] };
  });
  return server;
}
"""

HTTP = """\
import http from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isMcpAuthorized } from './auth.js';
import { createMcpServer } from './server.js';

const server = http.createServer(async (req, res) => {
  if (!(await isMcpAuthorized(req))) {
    res.writeHead(401);
    res.end();
    return;
  }
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  const mcpServer = createMcpServer();
  await mcpServer.connect(transport);
  await transport.handleRequest(req, res);
});
server.listen(3000);
"""

AUTH = """\
export async function isMcpAuthorized(req: any): Promise<boolean> {
  return req.headers.authorization === `Bearer ${process.env.MCP_KEY}`;
}
"""

STDIO = """\
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer } from './server.js';

async function main() {
  const server = createMcpServer();
  await server.connect(new StdioServerTransport());
}
main();
"""

OPEN_ROUTE = """\
import http from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpServer } from './server.js';

http.createServer(async (req, res) => {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await createMcpServer().connect(transport);
  await transport.handleRequest(req, res);
}).listen(3001);
"""


def _gates_on_delete(linked: Linked) -> set[tuple[str, str, int]]:
    sites = {g.id: g for g in linked.gates}
    return {
        (sites[g].kind, sites[g].location.path, sites[g].location.line)
        for a in linked.actions
        if a.actionClass == "file.delete" and a.reachedFrom
        for g in a.gateIds
        if sites[g].location is not None
    }


def test_a_check_in_front_of_the_route_serving_the_server_gates_its_tools_stdio_beside_it_or_not() -> None:
    files = {"src/tools.ts": TOOLS, "src/server.ts": SERVER, "src/http.ts": HTTP, "src/auth.ts": AUTH}
    assert ("authentication", "src/http.ts", 7) in _gates_on_delete(analyse(files))
    with_stdio = analyse({**files, "src/index.ts": STDIO})
    assert ("authentication", "src/http.ts", 7) in _gates_on_delete(with_stdio)


def test_a_second_route_serving_the_server_without_the_check_leaves_its_tools_ungated() -> None:
    files = {
        "src/tools.ts": TOOLS,
        "src/server.ts": SERVER,
        "src/http.ts": HTTP,
        "src/auth.ts": AUTH,
        "src/open.ts": OPEN_ROUTE,
    }
    assert ("authentication", "src/http.ts", 7) not in _gates_on_delete(analyse(files))


def test_a_server_served_over_stdio_only_has_no_check_in_front_of_its_tools() -> None:
    linked = analyse({"src/tools.ts": TOOLS, "src/server.ts": SERVER, "src/index.ts": STDIO, "src/auth.ts": AUTH})
    assert [a for a in linked.actions if a.actionClass == "file.delete" and a.reachedFrom]
    assert _gates_on_delete(linked) == set()

"""Tools registered by a file's top-level code on a server that an HTTP route connects (issue 20, gates in front
of MCP routes): ``server.tool("shell", ..., handler)`` at the top level, ``app.use("/mcp", bearerAuth(...))`` and
``app.all("/mcp", (c) => { server.connect(t); return t.handleRequest(c) })`` (Hono with ``@hono/mcp``): the
middleware's authentication holds over the tool. The same file without the middleware gates nothing."""

from __future__ import annotations

from pyfix import analyse, gate_kinds

SOURCE = """\
import { Hono } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPTransport } from '@hono/mcp';
import { z } from 'zod';
import { execSync } from 'node:child_process';

const server = new McpServer({ name: 'ops', version: '1' });
server.tool('shell', 'Run a command', { cmd: z.string() }, async ({ cmd }) => ({ content: [{ type: 'text', text: execSync(cmd).toString() }] }));

const app = new Hono();
app.use('/mcp', bearerAuth({ token: process.env.TOKEN! }));
app.all('/mcp', async (c) => {
  const transport = new StreamableHTTPTransport();
  await server.connect(transport);
  return transport.handleRequest(c);
});
export default app;
"""


def test_the_route_s_middleware_gates_tools_registered_at_the_top_level() -> None:
    assert gate_kinds(analyse({"src/server.ts": SOURCE}), "shell.exec") == {"authentication"}


def test_without_the_middleware_nothing_is_gated() -> None:
    open_route = SOURCE.replace("app.use('/mcp', bearerAuth({ token: process.env.TOKEN! }));\n", "")
    assert gate_kinds(analyse({"src/server.ts": open_route}), "shell.exec") == set()

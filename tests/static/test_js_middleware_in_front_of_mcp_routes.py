"""Middleware in front of the HTTP route that serves a TypeScript MCP server (issue 20, gates in front of
tools): a middleware (a function given ``next``) that answers some requests with 401 instead of passing them
on is one authentication gate, recorded at the middleware, whatever it is named; put in front of the route
(``app.use("/mcp", auth)``, ``app.post("/", auth, handler)``, a factory's middleware ``bearerAuth(key)``), it
gates every tool the server behind that route serves, tools registered by functions the route's handler calls
included. Middleware that refuses nothing (logging, cors), middleware on another path, and a second route
without it gate nothing."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked

TOOLS = """\
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { unlink } from 'node:fs/promises';

export function registerFileTools(server: McpServer) {
  server.tool(
    'delete_file',
    'Delete a file',
    { path: z.string() },
    async ({ path }) => {
      await unlink(path);
      return { content: [] };
    },
  );
}
"""

SERVER = """\
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { registerFileTools } from './tools.js';

export function buildServer(): McpServer {
  const server = new McpServer({ name: 'files', version: '1' });
  registerFileTools(server);
  return server;
}
"""

EXPRESS = """\
import express from 'express';
import cors from 'cors';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { buildServer } from './server.js';

const app = express();
app.use(express.json());
app.use(cors());
app.use((req: any, _res: any, next: any) => {
  console.log(req.method, req.path);
  next();
});
app.use(MOUNT, async (req: any, res: any, next: any) => {
  const key = req.headers['x-api-key'];
  if (!key || key !== process.env.API_KEY) {
    res.status(401).json({ error: 'unauthorized' });
    return;
  }
  next();
});

app.post('/mcp', async (req: any, res: any) => {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  const server = buildServer();
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
});
app.listen(3000);
"""

AUTH = """\
export function checkKey(req: any, res: any, next: any) {
  if (req.headers.authorization !== `Bearer ${process.env.KEY}`) {
    return res.status(401).json({ error: 'unauthorized' });
  }
  next();
}
"""

HANDLER = """\
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { unlink } from 'node:fs/promises';

export const handleMcp = async (req: any, res: any) => {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  const server = new McpServer({ name: 'files', version: '1' });
  server.registerTool('delete_file', { inputSchema: { path: z.string() } }, async ({ path }) => {
    await unlink(path);
    return { content: [] };
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
};
"""

NAMED_ROUTE = """\
import express from 'express';
import { checkKey } from './auth.js';
import { handleMcp } from './handler.js';

const app = express();
app.post('/', checkKey, handleMcp);
"""

HONO_AUTH = """\
import type { MiddlewareHandler } from 'hono';

export function bearer(expected: string): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.header('authorization') !== `Bearer ${expected}`) {
      return c.json({ error: 'unauthorized' }, 401);
    }
    await next();
  };
}
"""

HONO = """\
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { StreamableHTTPTransport } from '@hono/mcp';
import { bearer } from './auth.js';
import { buildServer } from './server.js';

export function createApp(key: string): Hono {
  const app = new Hono();
  app.use('/mcp', bearer(key));
  app.use('/mcp', bodyLimit({ maxSize: 1024, onError: (c) => c.json({ error: 'too large' }, 413) }));
  app.post('/mcp', async (c) => {
    const server = buildServer();
    const transport = new StreamableHTTPTransport();
    await server.connect(transport);
    return transport.handleRequest(c);
  });
  return app;
}
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


def _express(mount: str) -> Linked:
    return analyse(
        {"src/tools.ts": TOOLS, "src/server.ts": SERVER, "src/index.ts": EXPRESS.replace("MOUNT", f"'{mount}'")}
    )


def test_a_middleware_refusing_with_401_before_the_route_gates_the_tools_registered_behind_it() -> None:
    assert _gates_on_delete(_express("/mcp")) == {("authentication", "src/index.ts", 13)}


def test_logging_cors_and_a_middleware_on_another_path_gate_nothing() -> None:
    linked = _express("/admin")
    assert [a for a in linked.actions if a.actionClass == "file.delete" and a.reachedFrom]
    assert _gates_on_delete(linked) == set()


def test_a_middleware_of_another_module_in_front_of_a_handler_named_by_reference() -> None:
    files = {"src/auth.ts": AUTH, "src/handler.ts": HANDLER, "src/index.ts": NAMED_ROUTE}
    assert _gates_on_delete(analyse(files)) == {("authentication", "src/auth.ts", 1)}


def test_a_handler_registered_without_the_middleware_on_a_second_route_is_not_gated() -> None:
    files = {
        "src/auth.ts": AUTH,
        "src/handler.ts": HANDLER,
        "src/index.ts": NAMED_ROUTE + "app.post('/open', handleMcp);\n",
    }
    assert _gates_on_delete(analyse(files)) == set()


def test_a_factory_of_the_tree_making_the_middleware_on_a_hono_app() -> None:
    files = {"src/tools.ts": TOOLS, "src/server.ts": SERVER, "src/auth.ts": HONO_AUTH, "src/app.ts": HONO}
    assert _gates_on_delete(analyse(files)) == {("authentication", "src/auth.ts", 4)}


def test_a_factory_whose_middleware_refuses_nothing_gates_nothing() -> None:
    passing = HONO_AUTH.replace("return c.json({ error: 'unauthorized' }, 401);", "console.warn('no key');")
    files = {"src/tools.ts": TOOLS, "src/server.ts": SERVER, "src/auth.ts": passing, "src/app.ts": HONO}
    linked = analyse(files)
    assert [a for a in linked.actions if a.actionClass == "file.delete" and a.reachedFrom]
    assert _gates_on_delete(linked) == set()


DEFINITION = """\
import { z } from 'zod';
import { unlink } from 'node:fs/promises';

const definition = { name: 'delete_file', description: 'Delete a file', inputSchema: { path: z.string() } };

const handler = async ({ path }: { path: string }) => {
  await unlink(path);
  return { content: [] };
};

export { definition, handler };
"""

REGISTERING_HANDLER = """\
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { deleteFile } from './tools/index.js';

export const handleMcp = async (req: any, res: any) => {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  const server = new McpServer({ name: 'files', version: '1' });
  server.registerTool(deleteFile.definition.name, {
    description: deleteFile.definition.description,
    inputSchema: deleteFile.definition.inputSchema,
  }, deleteFile.handler);
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
};
"""


def _defined_elsewhere(routes: str) -> Linked:
    return analyse(
        {
            "src/auth.ts": AUTH,
            "src/tools/delete-file.ts": DEFINITION,
            "src/tools/index.ts": "export * as deleteFile from './delete-file.js';\n",
            "src/handler.ts": REGISTERING_HANDLER,
            "src/index.ts": routes,
        }
    )


def test_a_tool_defined_in_another_module_and_registered_by_the_handler_behind_the_middleware() -> None:
    # the tool is named and located by its definition's file; the route's handler registering it serves it
    assert _gates_on_delete(_defined_elsewhere(NAMED_ROUTE)) == {("authentication", "src/auth.ts", 1)}


def test_a_tool_defined_in_another_module_served_on_a_second_open_route_is_not_gated() -> None:
    linked = _defined_elsewhere(NAMED_ROUTE + "app.post('/open', handleMcp);\n")
    assert [a for a in linked.actions if a.actionClass == "file.delete" and a.reachedFrom]
    assert _gates_on_delete(linked) == set()


FASTIFY = """\
import Fastify from 'fastify';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { buildServer } from './server.js';

async function verify(request: any, reply: any) {
  if (request.headers.authorization !== `Bearer ${process.env.KEY}`) {
    return reply.code(401).send({ error: 'unauthorized' });
  }
}

const app = Fastify();
app.post('/mcp', OPTIONS, async (request: any, reply: any) => {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  const server = buildServer();
  await server.connect(transport);
  await transport.handleRequest(request.raw, reply.raw, request.body);
});
"""


def _fastify(options: str) -> Linked:
    return analyse(
        {"src/tools.ts": TOOLS, "src/server.ts": SERVER, "src/index.ts": FASTIFY.replace("OPTIONS", options)}
    )


def test_a_fastify_hook_given_in_the_route_options_gates_the_tools_behind_the_route() -> None:
    for options in ("{ preHandler: verify }", "{ onRequest: [verify] }"):
        assert _gates_on_delete(_fastify(options)) == {("authentication", "src/index.ts", 5)}


def test_a_route_option_hook_run_after_the_handler_or_a_plain_option_gates_nothing() -> None:
    for options in ("{ onResponse: verify }", "{ bodyLimit: 1024 }"):
        linked = _fastify(options)
        assert [a for a in linked.actions if a.actionClass == "file.delete" and a.reachedFrom]
        assert _gates_on_delete(linked) == set()


DECLARED_ROUTE = """\
import Fastify from 'fastify';
import { handleMcp } from './handler.js';

async function verify(request: any, reply: any) {
  if (request.headers.authorization !== `Bearer ${process.env.KEY}`) {
    return reply.code(401).send({ error: 'unauthorized' });
  }
}
const app = Fastify();
app.route({ method: 'POST', url: '/mcp', HOOK, handler: handleMcp });
"""


def test_a_hook_of_a_fastify_route_declaration_gates_its_named_handler() -> None:
    gated = analyse({"src/handler.ts": HANDLER, "src/index.ts": DECLARED_ROUTE.replace("HOOK", "preHandler: verify")})
    assert _gates_on_delete(gated) == {("authentication", "src/index.ts", 4)}
    after = analyse({"src/handler.ts": HANDLER, "src/index.ts": DECLARED_ROUTE.replace("HOOK", "onResponse: verify")})
    assert [a for a in after.actions if a.actionClass == "file.delete" and a.reachedFrom]
    assert _gates_on_delete(after) == set()

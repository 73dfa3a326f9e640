"""Guards of the Node web frameworks in front of the route that serves a TypeScript MCP server (issue 20, gates
in front of tools), recognised by what makes them guards - they run before the route's handler and can refuse
the request - not by their names: a global ``app.use(mw)`` registered before the route, also under a
configuration test, in front of tools registered on a module-level server the route connects; a Fastify hook
(``addHook('onRequest' | 'preHandler' | 'preValidation', fn)``) answering 401/403, itself or through a function of
the file it calls; a check inside the route's handler, also under a configuration test, before it hands the request
to the transport; a NestJS ``@UseGuards(G)`` whose ``canActivate`` throws (401 when unauthorized) or can return
``false`` (a permission check). A hook that only logs or sets headers, a hook that runs after the handler
(``onResponse``), a middleware that never refuses, a guard that always allows and a check after the transport
handled the request gate nothing."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked

TOOLS = """\
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { unlink } from 'node:fs/promises';

export function registerFileTools(server: McpServer): void {
  server.registerTool('delete_file', { inputSchema: { path: z.string() } }, async ({ path }) => {
    await unlink(path);
    return { content: [] };
  });
}
"""

EXPRESS = """\
import express from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { registerFileTools } from './tools.js';

const server = new McpServer({ name: 'files', version: '1' });
registerFileTools(server);

async function runHTTP(): Promise<void> {
  const app = express();
  app.use(express.json());
  app.use((req, res, next) => {
    const token = process.env.MCP_AUTH_TOKEN;
    if (!token) return next();
    if (req.headers.authorization !== `Bearer ${token}`) {
      REFUSE;
      return;
    }
    next();
  });
  app.post('/mcp', async (req, res) => {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  app.listen(3000);
}
runHTTP();
"""

FASTIFY = """\
import Fastify from 'fastify';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { registerFileTools } from './tools.js';

function buildServer(): McpServer {
  const server = new McpServer({ name: 'files', version: '1' });
  registerFileTools(server);
  return server;
}

async function checkKey(request: any, reply: any, enabled: boolean): Promise<void> {
  if (!enabled) return;
  if (request.headers['x-api-key'] !== process.env.API_KEY) {
    reply.code(401).send({ error: 'unauthorized' });
  }
}

const app = Fastify();
app.addHook(PHASE, async (request, reply) => {
  HOOK_BODY;
});
app.post('/mcp', async (request, reply) => {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  const server = buildServer();
  await server.connect(transport);
  await transport.handleRequest(request.raw, reply.raw, request.body);
});
app.listen({ port: 3000 });
"""

IN_HANDLER = """\
import express from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { registerFileTools } from './tools.js';

const authEnabled = process.env.AUTH === 'on';
const app = express();
app.post('/mcp', async (req, res) => {
  const server = new McpServer({ name: 'files', version: '1' });
  registerFileTools(server);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  BODY
});
"""

CHECK = """if (authEnabled) {
    if (req.headers.authorization !== `Bearer ${process.env.KEY}`) {
      return res.status(401).json({ error: 'unauthorized' });
    }
  }"""
HAND_OVER = "await transport.handleRequest(req, res, req.body);"


def _gates_on_delete(linked: Linked) -> set[tuple[str, str, int]]:
    sites = {g.id: g for g in linked.gates}
    assert [a for a in linked.actions if a.actionClass == "file.delete" and a.reachedFrom]
    return {
        (sites[g].kind, sites[g].location.path, sites[g].location.line)
        for a in linked.actions
        if a.actionClass == "file.delete" and a.reachedFrom
        for g in a.gateIds
        if sites[g].location is not None
    }


def _express(refuse: str) -> Linked:
    return analyse({"src/tools.ts": TOOLS, "src/index.ts": EXPRESS.replace("REFUSE", refuse)})


def _fastify(phase: str, body: str) -> Linked:
    return analyse({"src/tools.ts": TOOLS, "src/index.ts": FASTIFY.replace("PHASE", phase).replace("HOOK_BODY", body)})


def test_a_global_conditional_middleware_gates_tools_registered_on_a_module_level_server_served_later() -> None:
    assert _gates_on_delete(_express("res.status(401).json({ error: 'unauthorized' })")) == {
        ("authentication", "src/index.ts", 12)
    }


def test_a_global_middleware_that_never_refuses_gates_nothing() -> None:
    assert _gates_on_delete(_express("console.warn('no token')")) == set()


def test_a_fastify_onrequest_hook_refusing_through_a_function_of_the_file_gates_the_route() -> None:
    linked = _fastify("'onRequest'", "await checkKey(request, reply, true)")
    assert _gates_on_delete(linked) == {("authentication", "src/index.ts", 12)}


def test_a_fastify_prehandler_hook_refusing_itself_gates_the_route() -> None:
    body = "if (!request.headers.authorization) { return reply.status(403).send({ error: 'forbidden' }); }"
    assert _gates_on_delete(_fastify("'preHandler'", body)) == {("permission_check", "src/index.ts", 20)}


def test_a_fastify_hook_refusing_origins_a_list_leaves_out_is_an_allowlist() -> None:
    # 403 decided by whether where the request comes from is listed: an allow-list, not a check of who asks.
    body = (
        "const origin = request.headers.origin; if (origin && TRUSTED.includes(origin)) { reply.header('a', origin); }"
        " else { return reply.status(403).send({ error: 'forbidden' }); }"
    )
    assert _gates_on_delete(_fastify("'preHandler'", body)) == {("allowlist", "src/index.ts", 20)}
    # The same refusal decided by the caller's role stays a permission check.
    role = "if (!ADMINS.includes(request.user.role)) { return reply.status(403).send({ error: 'forbidden' }); }"
    assert _gates_on_delete(_fastify("'preHandler'", role)) == {("permission_check", "src/index.ts", 20)}


def test_a_fastify_hook_that_only_sets_headers_or_runs_after_the_handler_gates_nothing() -> None:
    assert _gates_on_delete(_fastify("'onRequest'", "reply.header('x-frame-options', 'DENY')")) == set()
    assert _gates_on_delete(_fastify("'onResponse'", "await checkKey(request, reply, true)")) == set()


def test_a_check_in_the_handler_under_a_configuration_test_before_the_hand_over_gates_the_tools() -> None:
    linked = analyse({"src/tools.ts": TOOLS, "src/index.ts": IN_HANDLER.replace("BODY", CHECK + "\n  " + HAND_OVER)})
    assert {kind for kind, _path, _line in _gates_on_delete(linked)} == {"authentication"}


def test_a_check_after_the_transport_handled_the_request_gates_nothing() -> None:
    linked = analyse({"src/tools.ts": TOOLS, "src/index.ts": IN_HANDLER.replace("BODY", HAND_OVER + "\n  " + CHECK)})
    assert _gates_on_delete(linked) == set()


NEST = """\
import { CanActivate, Controller, ExecutionContext, Post, Req, Res, UnauthorizedException, UseGuards } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { registerFileTools } from './tools.js';

export class ApiKeyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest();
    GUARD_BODY
  }
}

@Controller()
export class McpController {
  @UseGuards(ApiKeyGuard)
  @Post('/mcp')
  async handle(@Req() req: any, @Res() res: any): Promise<void> {
    const server = new McpServer({ name: 'files', version: '1' });
    registerFileTools(server);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  }
}
"""


def _nest(guard_body: str) -> Linked:
    return analyse({"src/tools.ts": TOOLS, "src/mcp.controller.ts": NEST.replace("GUARD_BODY", guard_body)})


def test_a_nest_guard_whose_can_activate_throws_unauthorized_gates_the_route_it_guards() -> None:
    body = (
        "if (request.headers['x-api-key'] !== process.env.KEY) { throw new UnauthorizedException(); }\n    return true;"
    )
    assert _gates_on_delete(_nest(body)) == {("authentication", "src/mcp.controller.ts", 16)}


def test_a_nest_guard_returning_false_is_a_permission_check_and_one_always_allowing_gates_nothing() -> None:
    assert _gates_on_delete(_nest("const role = request.user?.role;\n    return role === 'admin' ? true : false;")) == {
        ("permission_check", "src/mcp.controller.ts", 16)
    }
    assert _gates_on_delete(_nest("console.log(request.url);\n    return true;")) == set()

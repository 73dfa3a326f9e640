"""Tools kept as objects or modules that carry their schema beside a function, found by name when the model
calls one (issue 20): ``tools.find((t) => t.definition.name === name).handler(args)`` over modules imported
as namespaces, a ``Map`` keyed by each object's name. The function the lookup calls on what it finds runs
the tool, whatever the fields are called; a lookup by anything but the name, or a member the module does
not define as a function, attributes nothing. Also: generic tagged templates (``prisma.$queryRaw<Row[]>`...```),
which the grammar misreads, are read as the calls they are, and Prisma's raw SQL given as fixed text is a
read or a write by that text, also through a client another package of the tree exports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.static.scanned import actions_reached, scan_files

_DB = {
    "packages/db/package.json": json.dumps({"name": "@acme/db", "main": "./dist/index.js"}),
    "packages/db/src/index.ts": 'export * from "./client";\n',
    "packages/db/src/client.ts": 'import { PrismaClient } from "@prisma/client";\n'
    "export const prisma = globalThis.prisma ?? new PrismaClient();\n",
}

_STATS = """import { z } from "zod";
import { prisma } from "@acme/db";
export const schema = z.object({ id: z.string() });
export const definition = {
  name: "get_stats",
  description: "Statistics of a provider",
  inputSchema: { type: "object", properties: { id: { type: "string" } } },
};
export async function handler(args: { id: string }) {
  const provider = await prisma.provider.findUnique({ where: { id: args.id } });
  const rows = await prisma.$queryRaw<{ n: bigint }[]>`SELECT COUNT(*) AS n FROM claim WHERE pid = ${args.id}`;
  const more = await prisma.$queryRaw<
    Array<{ n: bigint }>
  >`SELECT COUNT(*) AS n FROM claim`;
  const near = await prisma.$queryRawUnsafe<{ id: string }[]>(`SELECT id FROM claim LIMIT $1`, 3);
  return { provider, rows, more, near };
}
"""

_PURGE = """import { prisma } from "@acme/db";
export const definition = {
  name: "purge_claims",
  description: "Delete a provider's claims",
  inputSchema: { type: "object", properties: { id: { type: "string" } } },
};
export async function handler(args: { id: string }) {
  await prisma.$executeRawUnsafe(`DELETE FROM claim WHERE pid = '${args.id}'`);
  return prisma.claim.deleteMany({ where: { pid: args.id } });
}
"""

_INDEX = """import * as getStats from "./handlers/getStats.js";
import * as purgeClaims from "./handlers/purgeClaims.js";
export const tools = [getStats, purgeClaims] as const;
"""

_SERVER = """import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { tools } from "@acme/tools";
const server = new Server({ name: "claims", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.map((t) => t.definition) }));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { name, arguments: args } = request.params;
  const tool = tools.find((t) => t.definition.name === name);
  if (!tool) throw new Error(`Unknown tool: ${name}`);
  const parsed = tool.schema.safeParse(args);
  const result = await tool.handler(parsed.data as any);
  return { content: [{ type: "text", text: JSON.stringify(result) }] };
});
"""


def _tree(server: str = _SERVER) -> dict[str, str]:
    return {
        **_DB,
        "packages/tools/package.json": json.dumps({"name": "@acme/tools", "main": "./dist/index.js"}),
        "packages/tools/src/index.ts": _INDEX,
        "packages/tools/src/handlers/getStats.ts": _STATS,
        "packages/tools/src/handlers/purgeClaims.ts": _PURGE,
        "packages/server/src/stdio.ts": server,
    }


def _dispatch_frontier(bundle: dict[str, Any]) -> list[str]:
    return [f["detail"] for f in bundle["frontier"] if f["kind"] == "dynamic_dispatch"]


def test_a_module_found_by_its_definitions_name_runs_its_handler(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, _tree())
    stats = "packages/tools/src/handlers/getStats.ts"
    assert actions_reached(bundle, "get_stats") == {
        ("db.read", stats, 10),
        ("db.read", stats, 11),  # a generic tagged template on one line
        ("db.read", stats, 12),  # ... and over three
        ("db.read", stats, 15),  # $queryRawUnsafe given fixed text: its values are bound ($1)
    }
    purge = "packages/tools/src/handlers/purgeClaims.ts"
    assert actions_reached(bundle, "purge_claims") == {("sql.exec", purge, 8), ("db.write", purge, 9)}
    assert not _dispatch_frontier(bundle)
    assert not [f for f in bundle["frontier"] if f["kind"] == "parse_error"]


def test_the_fields_are_recognised_by_role_not_by_name(tmp_path: Path) -> None:
    """``spec`` holds the name and ``invoke`` runs it; the lookup is a Map keyed by each module's name."""
    files = {
        k.replace("definition", "spec").replace("handler", "invoke"): v.replace("definition", "spec").replace(
            "handler", "invoke"
        )
        for k, v in _tree().items()
    }
    files["packages/server/src/stdio.ts"] = """import { tools } from "@acme/tools";
const byName = new Map(tools.map((t) => [t.spec.name, t]));
export async function call(name: string, args: unknown) {
  return await byName.get(name)?.invoke(args as any);
}
"""
    bundle = scan_files(tmp_path, files)
    assert {c for c, _, _ in actions_reached(bundle, "get_stats")} == {"db.read"}
    assert len(actions_reached(bundle, "get_stats")) == 4
    assert {c for c, _, _ in actions_reached(bundle, "purge_claims")} == {"sql.exec", "db.write"}


def test_a_tool_object_found_by_its_own_name_runs_the_member_called(tmp_path: Path) -> None:
    files = {
        "tools.ts": """export const weather = {
  name: "get_weather",
  description: "Weather for a city",
  inputSchema: { type: "object", properties: { city: { type: "string" } } },
  perform: async (args: { city: string }) => fetch(`https://wttr.in/${args.city}`),
};
export const tools = [weather];
""",
        "server.ts": """import { tools } from "./tools";
export async function call(name: string, args: any) {
  return tools.find((t) => t.name === name)?.perform(args);
}
""",
    }
    bundle = scan_files(tmp_path, files)
    assert actions_reached(bundle, "get_weather") == {("network.egress", "tools.ts", 5)}


def test_a_lookup_by_anything_but_the_name_attributes_nothing(tmp_path: Path) -> None:
    server = _SERVER.replace("t.definition.name === name", "t.definition.id === name")
    bundle = scan_files(tmp_path, _tree(server))
    assert actions_reached(bundle, "get_stats") == set()
    assert len(_dispatch_frontier(bundle)) == 2  # what runs each tool stays unknown, and says so


def test_a_member_the_module_does_not_define_attributes_nothing(tmp_path: Path) -> None:
    server = _SERVER.replace("tool.handler(", "tool.execute(")
    bundle = scan_files(tmp_path, _tree(server))
    assert actions_reached(bundle, "get_stats") == set()
    assert actions_reached(bundle, "purge_claims") == set()
    assert len(_dispatch_frontier(bundle)) == 2


def test_a_comparison_with_a_template_is_not_read_as_a_generic_tag(tmp_path: Path) -> None:
    """Plain JavaScript has no type arguments: ``a < b > `x``` there stays what it says (no call)."""
    files = {
        "a.js": """import { PrismaClient } from "@prisma/client";
const prisma = new PrismaClient();
export const odd = (prisma.$queryRaw < limit) > `SELECT 1`;
export async function h() { return prisma.$queryRaw`SELECT 2`; }
"""
    }
    bundle = scan_files(tmp_path, files)
    assert {(a["actionClass"], a["location"]["line"]) for a in bundle["actions"]} == {("db.read", 4)}

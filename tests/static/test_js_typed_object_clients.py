"""Clients built as object literals of functions and SQL handed to a client another module's function returns
(issue 20, TypeScript actions; engine 1.221.0). ``const client: DbClient = { run(sql) {...}, exec(sql) {...} }``
implements the interface it is declared as, as a class would, so ``client.exec("SELECT ...")`` on a parameter typed
``DbClient`` in another module runs its method; the sql.js ``db.exec(sql)`` inside, on a database another module's
function returns, is read by the SQL each caller passes (a fixed ``SELECT`` ``db.read``, an ``UPDATE`` ``db.write``, the
model's text ``sql.exec``). Prisma's ``groupBy`` reads."""

from __future__ import annotations

from pathlib import Path

from scanned import actions_reached, scan_files

SETUP = """
import * as fs from "fs";
import initSqlJs, { Database } from "sql.js";
export async function loadDatabase(path: string): Promise<Database> {
  const SQL = await initSqlJs();
  return new SQL.Database(fs.readFileSync(path));
}
"""

DECLARED = """
import { QueryExecResult } from "sql.js";
import { loadDatabase } from "./setup";
export interface DbClient {
  run(sql: string, params?: unknown[]): void;
  exec(sql: string): QueryExecResult[];
}
export async function createDbClient(path: string): Promise<DbClient> {
  const db = await loadDatabase(path);
  const client: DbClient = {
    run(sql: string, params?: unknown[]) {
      db.run(sql, params);
    },
    exec(sql: string) {
      return db.exec(sql);
    },
  };
  return client;
}
"""

RETURNED = """
import { QueryExecResult } from "sql.js";
import { loadDatabase } from "./setup";
export interface DbClient {
  run(sql: string, params?: unknown[]): void;
  exec(sql: string): QueryExecResult[];
}
export async function createDbClient(path: string): Promise<DbClient> {
  const db = await loadDatabase(path);
  return {
    run(sql: string, params?: unknown[]) { db.run(sql, params); },
    exec(sql: string) { return db.exec(sql); },
  };
}
"""

REPO = """
import { DbClient } from "./client";
export function doneTasks(client: DbClient) {
  return client.exec("SELECT id FROM tasks WHERE state = 'Done'");
}
export function markDone(client: DbClient, id: string) {
  client.run("UPDATE tasks SET state = 'Done' WHERE id = ?", [id]);
}
"""

SERVER = """
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { createDbClient } from "./client";
import { doneTasks, markDone } from "./repo";
const server = new McpServer({ name: "tasks", version: "1.0.0" });
server.registerTool("done_tasks", { description: "Done tasks" }, async () => {
  const db = await createDbClient("tasks.db");
  return { content: [{ type: "text", text: JSON.stringify(doneTasks(db)) }] };
});
server.registerTool("mark_done", { description: "Mark done", inputSchema: { id: z.string() } }, async ({ id }) => {
  const db = await createDbClient("tasks.db");
  markDone(db, id);
  return { content: [] };
});
server.registerTool("run_sql", { description: "Run SQL", inputSchema: { sql: z.string() } }, async ({ sql }) => {
  const db = await createDbClient("tasks.db");
  return { content: [{ type: "text", text: JSON.stringify(db.exec(sql)) }] };
});
"""


def test_an_object_declared_as_an_interface_implements_it(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"setup.ts": SETUP, "client.ts": DECLARED, "repo.ts": REPO, "server.ts": SERVER})
    read = ("file.read", "setup.ts", 6)  # the database file the client loads
    assert actions_reached(bundle, "done_tasks") == {("db.read", "client.ts", 15), read}
    assert actions_reached(bundle, "mark_done") == {("db.write", "client.ts", 12), read}
    assert not [f for f in bundle["frontier"] if f["kind"] == "unresolved_call"]


def test_sql_on_a_client_another_module_returns_is_read_by_each_callers_text(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"setup.ts": SETUP, "client.ts": RETURNED, "repo.ts": REPO, "server.ts": SERVER})
    read = ("file.read", "setup.ts", 6)
    assert actions_reached(bundle, "done_tasks") == {("db.read", "client.ts", 12), read}
    assert actions_reached(bundle, "mark_done") == {("db.write", "client.ts", 11), read}
    assert actions_reached(bundle, "run_sql") == {("sql.exec", "client.ts", 12), read}
    executed = {(f["sink"]["path"], f["sink"]["line"]) for f in bundle["taintFlows"] if f["actionClass"] == "sql.exec"}
    assert executed == {("client.ts", 12)}  # the model's SQL; the task id is a bound value of the write


PRISMA = """
import { PrismaClient } from "@prisma/client";
import { tool } from "ai";
import { z } from "zod";
const prisma = new PrismaClient();
export const memberCounts = tool({
  description: "Members per branch",
  inputSchema: z.object({ tenantId: z.string() }),
  execute: async ({ tenantId }) =>
    prisma.membership.groupBy({ by: ["branchId"], where: { tenantId }, _count: { branchId: true } }),
});
"""


def test_prisma_group_by_reads(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"tools.ts": PRISMA})
    assert actions_reached(bundle, "memberCounts") == {("db.read", "tools.ts", 10)}

"""A callback handed to a function of the tree, whose parameter that function fills (issue 20, TypeScript actions;
engine 1.229.0): ``withTransaction(async (conn) => conn.execute("INSERT ..."))`` with ``withTransaction(fn)``
calling ``fn(conn)`` on a connection of a pool it holds. The callback's untyped parameter holds what the function
passes it, so the call on it is that client's call (a ``mysql2`` query, read by its SQL), reached from the tool whose
code hands the callback over; a parameter the code types keeps its own type."""

from __future__ import annotations

from pathlib import Path

from scanned import actions_reached, scan_files

DB = """
import mysql from "mysql2/promise";
export const pool = mysql.createPool({ host: process.env.DB_HOST });
export async function withTransaction(fn) {
  const conn = await pool.getConnection();
  try {
    await conn.beginTransaction();
    const result = await fn(conn);
    await conn.commit();
    return result;
  } finally {
    conn.release();
  }
}
"""

TOOLS = """
import { withTransaction } from "./db.js";
export async function createUser(args) {
  return withTransaction(async (conn) => {
    await conn.execute("INSERT INTO users (name, email) VALUES (?, ?)", [args.name, args.email]);
    return "created";
  });
}
export async function countUsers() {
  return withTransaction((conn) => conn.query("SELECT count(*) FROM users"));
}
"""

SERVER = """
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { createUser, countUsers } from "./tools.js";
const server = new McpServer({ name: "users", version: "1.0.0" });
server.tool("create_user", "Create a user", { name: z.string(), email: z.string() }, async (args) => {
  return { content: [{ type: "text", text: await createUser(args) }] };
});
server.tool("count_users", "Count users", {}, async () => {
  return { content: [{ type: "text", text: String(await countUsers()) }] };
});
"""


def test_a_callbacks_parameter_holds_what_the_function_it_is_handed_to_passes(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"db.js": DB, "tools.js": TOOLS, "server.js": SERVER})
    assert actions_reached(bundle, "create_user") == {("db.write", "tools.js", 5)}
    assert actions_reached(bundle, "count_users") == {("db.read", "tools.js", 10)}


TYPED_DB = """
import { Pool, PoolClient } from "pg";
const pool = new Pool();
export async function withClient<T>(fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    return await fn(client);
  } finally {
    client.release();
  }
}
"""

TYPED_TOOLS = """
import { tool } from "ai";
import { z } from "zod";
import { withClient } from "./db";
export const deleteNote = tool({
  description: "Delete a note",
  inputSchema: z.object({ id: z.string() }),
  execute: async ({ id }) => withClient(async (client) => client.query("DELETE FROM notes WHERE id = $1", [id])),
});
"""


def test_a_function_typed_callback_parameter_in_typescript(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"db.ts": TYPED_DB, "tools.ts": TYPED_TOOLS})
    assert actions_reached(bundle, "deleteNote") == {("db.write", "tools.ts", 8)}

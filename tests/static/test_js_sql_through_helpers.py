"""SQL run on a client a helper returns or another module holds (issue 20, TypeScript round; engine 1.104.0): the
call is read by the SQL it is given, as for a client built in place. Fixed text that reads is ``db.read`` and text that writes
``db.write`` (``getPool().query("SELECT ...")``, ``pool.query("INSERT ...")`` with ``pool`` another module's
``new Pool()``); text carrying a value from elsewhere stays ``sql.exec``."""

from __future__ import annotations

from pathlib import Path

from scanned import actions_reached, scan_files

DB = """
import { Pool } from "pg";

export const pool = new Pool({ connectionString: process.env.DATABASE_URL });

let lazy: Pool | undefined;
export function getPool() {
  if (!lazy) lazy = new Pool({ connectionString: process.env.DATABASE_URL });
  return lazy;
}
"""

SERVER = """
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { getPool, pool } from "./db";
const server = new McpServer({ name: "users", version: "1.0.0" });
server.tool("count_users", "Count users", {}, async () => {
  const r = await getPool().query("SELECT count(*) AS n FROM users");
  return { content: [{ type: "text", text: String(r.rows[0].n) }] };
});
server.tool("add_user", "Add a user", { name: z.string() }, async ({ name }) => {
  await pool.query("INSERT INTO users (name) VALUES ($1)", [name]);
  return { content: [] };
});
server.tool("run_sql", "Run SQL", { sql: z.string() }, async ({ sql }) => {
  const r = await getPool().query(sql);
  return { content: [{ type: "text", text: JSON.stringify(r.rows) }] };
});
"""


def test_fixed_sql_on_a_returned_or_imported_pool_reads_or_writes(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"db.ts": DB, "server.ts": SERVER})
    assert actions_reached(bundle, "count_users") == {("db.read", "server.ts", 7)}
    assert actions_reached(bundle, "add_user") == {("db.write", "server.ts", 11)}


def test_the_models_sql_on_a_returned_pool_is_run_verbatim(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"db.ts": DB, "server.ts": SERVER})
    assert actions_reached(bundle, "run_sql") == {("sql.exec", "server.ts", 15)}

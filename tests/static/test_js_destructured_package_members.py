"""A package's member taken apart from its default or whole-module binding is that member (issue 20,
TypeScript round): ``import pkg from "pg"; const { Pool } = pkg;`` (the ESM form node-postgres documents for
a CommonJS package) and ``const cp = require("child_process"); const { exec } = cp;`` bind ``Pool`` and
``exec`` as ``pkg.Pool`` and ``cp.exec`` would name them, so a tool reaching their calls reaches what the
package does. A tree module's default export taken apart is not a package's member."""

from __future__ import annotations

from pathlib import Path

from scanned import actions_reached, scan_files

DB = """
import pkg from "pg";
const { Pool } = pkg;

export const pool = new Pool({ connectionString: process.env.DATABASE_URL });
"""

TOOLS = """
import { tool } from "@openai/agents";
import { z } from "zod";
import { pool } from "./db";

export const dbRead = tool({
  name: "db_read",
  description: "Read a row",
  parameters: z.object({ id: z.number() }),
  async execute({ id }) {
    const res = await pool.query("SELECT * FROM memory WHERE id = $1", [id]);
    return res.rows[0];
  },
});

export const dbWrite = tool({
  name: "db_write",
  description: "Write a row",
  parameters: z.object({ text: z.string() }),
  async execute({ text }) {
    await pool.query("INSERT INTO memory (text) VALUES ($1)", [text]);
    return "ok";
  },
});
"""

COMMONJS = """
const { tool } = require("@openai/agents");
const cp = require("child_process");
const { exec: run } = cp;

exports.shell = tool({
  name: "shell",
  description: "Run a command",
  parameters: {},
  async execute({ command }) {
    return run(command);
  },
});
"""


def test_a_pool_taken_from_the_default_import_of_pg_reads_and_writes_the_database(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"src/db.ts": DB, "src/tools.ts": TOOLS})
    assert actions_reached(bundle, "db_read") == {("db.read", "src/tools.ts", 11)}
    assert actions_reached(bundle, "db_write") == {("db.write", "src/tools.ts", 21)}


def test_a_member_taken_from_a_required_module_is_that_modules_member(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"tools.js": COMMONJS})
    assert ("shell.exec", "tools.js", 11) in actions_reached(bundle, "shell")

"""A Knex client keeps its type wherever it is held (issue 20, actions): a value typed with the package's
``Knex`` type (``getPool(key): Knex | null`` on a connection manager) is a Knex client, and a manager
instance exported as the module's default (``const manager = new Manager(); export default manager``) is
the same binding for the modules importing it. A class of the tree named alike, or a tree module's own
``Knex`` type, is no Knex client."""

from __future__ import annotations

from pyfix import analyse

MANAGER = """\
import knex from 'knex';
import type { Knex } from 'knex';

class ConnectionManager {
  private pools: Map<string, Knex> = new Map();
  open(key: string) {
    this.pools.set(key, knex({ client: 'pg' }));
  }
  getPool(key: string): Knex | null {
    return this.pools.get(key) || null;
  }
}

const manager = new ConnectionManager();
export default manager;
"""

QUERY = """\
import manager from './manager.js';

export function getConnection(key: string) {
  const pool = manager.getPool(key);
  if (!pool) {
    throw new Error('no pool');
  }
  return pool;
}

export async function executeQuery(key: string, query: string) {
  let connection: any = null;
  connection = getConnection(key);
  return connection.raw(query);
}
"""

SERVER = """\
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { executeQuery } from './query.js';

const server = new McpServer({ name: 'sql', version: '1' });
server.tool('run_sql', 'Run SQL', { sql: z.string() }, async ({ sql }) => {
  await executeQuery('main', sql);
  return { content: [] };
});
"""

OWN_KNEX = """\
export interface Knex {
  raw(text: string): Promise<unknown>;
}
"""


def _reached(files: dict[str, str]) -> set[tuple[str, str, int]]:
    return {(a.actionClass, a.location.path, a.location.line) for a in analyse(files).actions if a.reachedFrom}


def test_a_knex_pool_from_a_default_exported_manager_runs_the_model_sql() -> None:
    files = {"src/manager.ts": MANAGER, "src/query.ts": QUERY, "src/server.ts": SERVER}
    assert ("sql.exec", "src/query.ts", 14) in _reached(files)


def test_a_tree_type_named_knex_is_no_knex_client() -> None:
    manager = MANAGER.replace("import type { Knex } from 'knex';", "import type { Knex } from './types.js';")
    manager = manager.replace("knex({ client: 'pg' })", "{ raw: async (t: string) => t }")
    files = {"src/manager.ts": manager, "src/types.ts": OWN_KNEX, "src/query.ts": QUERY, "src/server.ts": SERVER}
    assert not any(kind == "sql.exec" for kind, _, _ in _reached(files))

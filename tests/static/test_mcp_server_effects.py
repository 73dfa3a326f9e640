"""MCP servers over databases (issue 20's MCP units), recognised by what makes each thing so: the MongoDB
driver's typed ``Collection`` / ``Db`` objects read and write the database, and an aggregation pipeline not
written in the code may write (``$out`` / ``$merge``); a read-only mode switch tested before the effect is a
permission check, a check whose refusing branch ends is a deny list, and a dispatch on a local holding the
tool's name splits the tools as ``switch (request.params.name)`` does. Cypher through the Neo4j driver is
classified by its text like raw SQL; a FastMCP tool withheld by a configured ``enabled=`` switch and a check
naming the kind of query it admits are gates."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scanned import scan_files


def _actions(bundle: dict[str, Any], path: str) -> dict[int, str]:
    return {a["location"]["line"]: a["actionClass"] for a in bundle["actions"] if a["location"]["path"] == path}


def _reached(bundle: dict[str, Any], tool: str) -> dict[int, set[tuple[str, int]]]:
    """Line -> (gate kind, gate line) of each action the named tool reaches, with the gates held on it."""
    ids = {t["id"] for t in bundle["tools"] if t["name"] == tool}
    gates = {g["id"]: (g["kind"], g["location"]["line"]) for g in bundle["gates"]}
    return {
        a["location"]["line"]: {gates[g] for g in a["gateIds"] if g in gates}
        for a in bundle["actions"]
        if any(p["toolId"] in ids for p in a.get("reachedFrom", []))
    }


MONGO_SERVER = """import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Collection, Db, Document } from "mongodb";

const WRITE_OPERATIONS = ["insert"];

export function createServer(db: Db, isReadOnlyMode: boolean) {
  const server = new Server({ name: "m", version: "1" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      { name: "query", description: "Find", inputSchema: { type: "object" } },
      { name: "insert", description: "Insert", inputSchema: { type: "object" } },
      { name: "stats", description: "Stats", inputSchema: { type: "object" } },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args = {} } = request.params;
    const operation = name as string;
    checkReadOnlyMode(operation, isReadOnlyMode);
    const collection = db.collection(args.collection as string);
    validateCollection(collection);
    switch (operation) {
      case "query":
        return handleQuery(collection, args);
      case "insert":
        return handleInsert(collection, args);
      case "stats":
        return handleStats(db);
      default:
        throw new Error("unknown");
    }
  });
  return server;
}

function checkReadOnlyMode(operation: string, isReadOnlyMode: boolean): void {
  if (isReadOnlyMode && WRITE_OPERATIONS.includes(operation)) {
    throw new Error("read-only");
  }
}

function validateCollection(collection: Collection<Document>): void {
  if (collection.collectionName.startsWith("system.")) {
    throw new Error("no system collections");
  }
}

async function handleQuery(collection: Collection<Document> | null, args: Record<string, unknown>) {
  if (!collection) throw new Error("x");
  const found = await collection.find(args.filter as Document).toArray();
  const planned = await collection.aggregate(args.pipeline as Document[], { explain: "queryPlanner" }).toArray();
  const ran = await collection.aggregate(args.pipeline as Document[]).toArray();
  const fixed = await collection.aggregate([{ $sample: { size: 5 } }]).toArray();
  const copied = await collection.aggregate([{ $out: "copy" }]).toArray();
  return [found, planned, ran, fixed, copied];
}

async function handleInsert(collection: Collection<Document> | null, args: Record<string, unknown>) {
  if (!collection) throw new Error("x");
  return collection.insertMany(args.documents as Document[]);
}

async function handleStats(db: Db) {
  return db.command({ dbStats: 1 });
}
"""


def test_the_mongodb_driver_through_its_typed_objects_reads_and_writes(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"server.ts": MONGO_SERVER})
    assert _actions(bundle, "server.ts") == {
        50: "db.read",  # collection.find(...) on a parameter typed Collection
        51: "db.read",  # aggregate run with { explain }: planned, not run
        52: "db.write",  # the model's pipeline may hold $out / $merge
        53: "db.read",  # a pipeline written in the code, reading
        54: "db.write",  # a pipeline written in the code with $out
        60: "db.write",  # insertMany
        64: "db.read",  # db.command on a parameter typed Db
    }


def test_a_dispatch_on_a_local_naming_the_tool_keeps_the_gates_checked_before_it(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"server.ts": MONGO_SERVER})
    insert, query, stats = _reached(bundle, "insert"), _reached(bundle, "query"), _reached(bundle, "stats")
    # Each tool reaches its own case only: ``operation`` holds the tool's name.
    assert set(insert) == {60}
    assert set(stats) == {64}
    assert set(query) == {50, 51, 52, 53, 54}
    # The read-only switch, tested before the dispatch, is a permission check on every tool's path.
    assert ("permission_check", 37) in insert[60]
    assert ("permission_check", 37) in stats[64]
    # A check whose refusing branch ends is a deny list: what goes on past it was checked.
    assert ("allowlist", 43) in insert[60]


def test_a_check_that_goes_on_when_it_holds_is_no_deny_list(tmp_path: Path) -> None:
    source = """import type { Collection, Document } from "mongodb";
export async function handler(request: { params: { name: string; arguments: Record<string, string> } }, c: Collection<Document>) {
  const target = request.params.arguments.target;
  if (target.startsWith("archive.")) {
    await c.insertOne({ target });
  }
  return c.deleteMany({ target });
}
"""
    bundle = scan_files(tmp_path, {"handler.ts": source})
    gates = {g["id"]: g["location"]["line"] for g in bundle["gates"]}
    held = {a["location"]["line"]: {gates.get(g) for g in a["gateIds"]} for a in bundle["actions"]}
    assert 4 not in held[7]  # the delete runs whether the check held or not


NEO4J_SERVER = """from fastmcp import FastMCP
from neo4j import AsyncDriver, Query


async def _is_write_query(query: str, driver: AsyncDriver) -> bool:
    _, summary, _ = await driver.execute_query(query_="EXPLAIN " + query)
    return "w" in (summary.query_type or "")


def create_server(driver: AsyncDriver, read_only: bool = False) -> FastMCP:
    mcp = FastMCP("graph")

    @mcp.tool(name="read_cypher")
    async def read_cypher(query: str) -> str:
        if await _is_write_query(query, driver):
            raise ValueError("Only read queries are allowed")
        records = await driver.execute_query(Query(query, timeout=5.0))
        return str(records)

    @mcp.tool(name="write_cypher", enabled=not read_only)
    async def write_cypher(query: str) -> str:
        result = await driver.execute_query(query)
        return str(result)

    @mcp.tool(name="count_nodes", enabled=True)
    async def count_nodes(sample: int) -> str:
        await driver.execute_query(f"CALL apoc.meta.stats({sample})")
        await driver.execute_query("MATCH (n) RETURN count(n)")
        await driver.execute_query("MATCH (n:Tmp) DETACH DELETE n")
        return "ok"

    return mcp
"""


def test_cypher_through_the_neo4j_driver_is_classified_by_its_text(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"server.py": NEO4J_SERVER})
    assert _actions(bundle, "server.py") == {
        6: "sql.exec",  # 'EXPLAIN ' + the model's query, passed as query_=
        17: "sql.exec",  # Query(query): the model's Cypher verbatim
        22: "sql.exec",
        27: "sql.exec",  # an f-string with a value substituted
        28: "db.read",  # literal Cypher that only matches
        29: "db.write",  # literal Cypher with a writing clause anywhere in it
    }
    sinks = {f["sink"]["line"] for f in bundle["taintFlows"]}
    assert {6, 17, 22, 27} <= sinks
    assert not {28, 29} & sinks


def test_an_enabled_switch_and_a_query_kind_check_are_gates(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"server.py": NEO4J_SERVER})
    read, write, count = (
        _reached(bundle, "read_cypher"),
        _reached(bundle, "write_cypher"),
        _reached(bundle, "count_nodes"),
    )
    assert ("allowlist", 15) in read[17]  # raises unless the query does not write
    assert not any(kind == "allowlist" for kind, _ in read[6])  # the check itself is not behind it
    assert ("permission_check", 20) in write[22]  # enabled=not read_only: withheld in read-only mode
    assert not any(kind == "permission_check" for held in count.values() for kind, _ in held)  # enabled=True


def test_a_kind_check_of_a_value_the_model_does_not_choose_is_no_gate(tmp_path: Path) -> None:
    source = """from fastmcp import FastMCP
from neo4j import AsyncDriver

SEED = "MATCH (n) RETURN n"


def create_server(driver: AsyncDriver) -> FastMCP:
    mcp = FastMCP("graph")

    @mcp.tool()
    async def reset(label: str) -> str:
        if is_write_query(SEED):
            raise ValueError("no")
        await driver.execute_query(label)
        return "ok"

    return mcp


def is_write_query(text: str) -> bool:
    return "CREATE" in text
"""
    bundle = scan_files(tmp_path, {"server.py": source})
    assert bundle["gates"] == []
    assert _actions(bundle, "server.py") == {14: "sql.exec"}


def test_a_method_chosen_between_literals_is_the_worst_of_them(tmp_path: Path) -> None:
    source = """import type { Collection, Document } from "mongodb";
export async function update(c: Collection<Document>, filter: Document, change: Document, multi: boolean) {
  const method = multi ? "updateMany" : "updateOne";
  await c[method](filter, change);
  const reader = multi ? "find" : "deleteMany";
  await c[reader](filter);
  const picked = pick();
  await c[picked](filter);
}
"""
    bundle = scan_files(tmp_path, {"update.ts": source})
    assert _actions(bundle, "update.ts") == {4: "db.write", 6: "db.write"}
    # A key chosen between literals leaves nothing unresolved; a key computed at run time does.
    assert {f["location"]["line"] for f in bundle["frontier"] if f["kind"] == "dynamic_dispatch"} == {8}

"""Clients built at the top level of one module and called from another (issue 20): ``export const pg =
postgres(url)`` in ``db/client.ts`` is a postgres client wherever it is imported, so a tool's
``pg.unsafe(query)`` is the model's SQL executed; ``new Redis(url)`` is an ioredis client whose
``call(command, ...args)`` runs any command the caller names; ``export const run = promisify(exec)`` runs
a shell. What the defining module does not type stays unknown: no action is made up for it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scanned import actions_reached, scan_files

CLIENTS = """
import postgres from "postgres";
import { Redis } from "ioredis";
import { exec } from "node:child_process";
import { promisify } from "node:util";
import { loadSettings } from "./settings";

export const pg = postgres(process.env.POSTGRES_URL ?? "");
export const redis = new Redis(process.env.REDIS_URL ?? "");
export const run = promisify(exec);
export const settings = loadSettings();
"""

SETTINGS = """
export function loadSettings() {
  return { region: "eu" };
}
"""

TOOLS = """
import { generateText, tool } from "ai";
import { openai } from "@ai-sdk/openai";
import { z } from "zod";
import { pg, redis, run, settings } from "./db/client";

const postgresTool = tool({
  description: "Run a query",
  inputSchema: z.object({ query: z.string(), params: z.array(z.string()) }),
  execute: async ({ query, params }) => JSON.stringify(await pg.unsafe(query, params)),
});

const redisTool = tool({
  description: "Run a Redis command",
  inputSchema: z.object({ command: z.string(), args: z.array(z.string()) }),
  execute: async ({ command, args }) => JSON.stringify(await redis.call(command, args)),
});

const shellTool = tool({
  description: "Run a command",
  inputSchema: z.object({ command: z.string() }),
  execute: async ({ command }) => (await run(command)).stdout,
});

const settingsTool = tool({
  description: "Save a setting",
  inputSchema: z.object({ key: z.string(), value: z.string() }),
  execute: async ({ key, value }) => settings.store(key, value),
});

export async function answer(prompt: string) {
  return generateText({
    model: openai("gpt-4o"),
    prompt,
    tools: { postgres: postgresTool, redis: redisTool, shell: shellTool, settings: settingsTool },
  });
}
"""


def _tree(tmp_path: Path) -> dict[str, Any]:
    return scan_files(tmp_path, {"src/db/client.ts": CLIENTS, "src/db/settings.ts": SETTINGS, "src/agent.ts": TOOLS})


def test_an_imported_client_is_the_package_client_its_module_built(tmp_path: Path) -> None:
    bundle = _tree(tmp_path)
    assert actions_reached(bundle, "postgres") == {("sql.exec", "src/agent.ts", 10)}
    # ioredis ``call`` runs whatever command it is given: a write as far as anyone can tell.
    assert actions_reached(bundle, "redis") == {("db.write", "src/agent.ts", 16)}
    # ``run`` is ``promisify(exec)`` in the other module: calling it starts a shell.
    assert actions_reached(bundle, "shell") == {("shell.exec", "src/agent.ts", 22)}


def test_the_model_chosen_sql_reaches_the_imported_client(tmp_path: Path) -> None:
    bundle = _tree(tmp_path)
    sinks = {(f["actionClass"], f["sink"]["line"]) for f in bundle["taintFlows"]}
    assert ("sql.exec", 10) in sinks
    assert ("shell.exec", 22) in sinks


def test_a_value_its_module_does_not_type_makes_no_action(tmp_path: Path) -> None:
    bundle = _tree(tmp_path)
    assert actions_reached(bundle, "settings") == set()
    assert not [a for a in bundle["actions"] if a["location"]["line"] == 28]

"""Issue 20 (known gaps), TypeScript: a class a dependency injection container binds to a type
(``container.bind<IStore>(TYPES.Store).to(FileStore)``) is what a value of that type is, whether or not the class
says ``implements``: a call on an injected ``IStore`` runs ``FileStore``'s method, also when the type and the class
come through a barrel under other names."""

from __future__ import annotations

from pathlib import Path

from scanned import actions_reached, scan_files

TYPES = """
export interface IStore {
  save(path: string, text: string): Promise<void>;
}
export interface IRunner {
  run(cmd: string): void;
}
export const TYPES = { Store: Symbol.for("Store"), Runner: Symbol.for("Runner") };
"""

STORE = """
import { injectable } from "inversify";
import * as fs from "fs";

@injectable()
export class FileStore {
  async save(path: string, text: string): Promise<void> {
    await fs.promises.writeFile(path, text);
  }
}
"""

RUNNER = """
import { injectable } from "inversify";
import { exec } from "child_process";

@injectable()
export class ShellRunner {
  run(cmd: string): void {
    exec(cmd);
  }
}
"""

BARREL = """
export { FileStore } from "./store.js";
export type { IStore as StoreInterface } from "./types.js";
"""

CONTAINER = """
import { Container } from "inversify";
import { FileStore, type StoreInterface } from "./index.js";
import { TYPES } from "./types.js";

export const container = new Container();
container.bind<StoreInterface>(TYPES.Store).to(FileStore);
"""

TOOLS = """
import { inject, injectable } from "inversify";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { TYPES, type IStore, type IRunner } from "./types.js";

@injectable()
export class Notes {
  constructor(
    @inject(TYPES.Store) private readonly store: IStore,
    @inject(TYPES.Runner) private readonly runner: IRunner,
  ) {}

  async add(text: string): Promise<void> {
    await this.store.save("notes.txt", text);
  }

  run(cmd: string): void {
    this.runner.run(cmd);
  }
}

export function register(server: McpServer, notes: Notes) {
  server.tool("save", "Save a note", { text: z.string() }, async ({ text }) => {
    await notes.add(text);
    return { content: [] };
  });
  server.tool("run", "Run a command", { cmd: z.string() }, async ({ cmd }) => {
    notes.run(cmd);
    return { content: [] };
  });
}
"""


def test_a_call_on_an_injected_type_runs_the_class_the_container_binds_to_it(tmp_path: Path) -> None:
    bundle = scan_files(
        tmp_path,
        {
            "types.ts": TYPES,
            "store.ts": STORE,
            "runner.ts": RUNNER,
            "index.ts": BARREL,
            "container.ts": CONTAINER,
            "tools.ts": TOOLS,
        },
    )
    assert actions_reached(bundle, "save") == {("file.write", "store.ts", 8)}
    # Nothing binds ``IRunner``: ``ShellRunner`` neither implements it nor is bound to it, so it is not guessed.
    assert actions_reached(bundle, "run") == set()

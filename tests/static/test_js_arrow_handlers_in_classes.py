"""Tools a class registers on its server, handled by injected services typed by interfaces (issue 20 actions,
TypeScript): ``this.server.registerTool("delete", {...}, async (args) => await this.handler.handle(args))`` in a
method of the class keeps that class's ``this`` (an arrow function has no ``this`` of its own), so the handler's
fields are the class's; and an interface whose members are written as function-typed properties
(``deleteFile: (p: string) => Promise<void>``) is called like one with methods, so a class implementing it answers
``this.deleter.deleteFile(p)``. A ``function`` expression has its own ``this`` and is not the class's."""

from __future__ import annotations

from pathlib import Path

from scanned import actions_reached, scan_files

HANDLER = """
import { injectable, inject } from "inversify";
import { Deleter, DeleterTag } from "@/services/deleter.js";
@injectable()
export class Handler {
  constructor(@inject(DeleterTag) private readonly deleter: Deleter) {}
  async handle(args: { p: string }) {
    return await this.deleter.deleteFile(args.p);
  }
}
"""


def _deleter(member: str) -> str:
    return f"""
import * as fs from "fs/promises";
export const DeleterTag = Symbol.for("Deleter");
export interface Deleter {{
  {member}
}}
export class DeleterImpl implements Deleter {{
  async deleteFile(p: string): Promise<void> {{
    await fs.unlink(p);
  }}
}}
"""


def _server(handler: str) -> str:
    return f"""
import {{ McpServer }} from "@modelcontextprotocol/sdk/server/mcp.js";
import {{ inject, injectable }} from "inversify";
import {{ z }} from "zod";
import {{ Handler }} from "@/services/handler.js";
@injectable()
export class MyServer {{
  private readonly server: McpServer;
  constructor(@inject(Handler) private readonly handler: Handler) {{
    this.server = new McpServer({{ name: "s", version: "1" }});
    this.registerTools();
  }}
  private registerTools(): void {{
    this.server.registerTool("delete", {{ inputSchema: {{ p: z.string() }} }}, {handler});
  }}
}}
"""


def _files(handler: str, member: str) -> dict[str, str]:
    return {
        "src/server.ts": _server(handler),
        "src/services/handler.ts": HANDLER,
        "src/services/deleter.ts": _deleter(member),
    }


ARROW = "async (args) => await this.handler.handle(args)"


def test_an_arrow_handler_calls_the_fields_of_the_class_it_is_written_in(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, _files(ARROW, "deleteFile(p: string): Promise<void>;"))
    assert actions_reached(bundle, "delete") == {("file.delete", "src/services/deleter.ts", 9)}


def test_an_interface_of_function_typed_members_is_answered_by_its_implementations(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, _files(ARROW, "deleteFile: (p: string) => Promise<void>;"))
    assert actions_reached(bundle, "delete") == {("file.delete", "src/services/deleter.ts", 9)}


def test_a_function_expression_has_a_this_of_its_own(tmp_path: Path) -> None:
    handler = "async function (args) { return await this.handler.handle(args); }"
    bundle = scan_files(tmp_path, _files(handler, "deleteFile(p: string): Promise<void>;"))
    assert actions_reached(bundle, "delete") == set()

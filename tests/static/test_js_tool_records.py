"""Issue 20 tools (TypeScript): a tool record pairing a function declaration with the function that runs it
(``export const runShell: Tool = { definition: { name: "run_shell", description, parameters }, async execute(args)
{ ... } }``, registered on a registry of the tree that lists the declarations to a model) is the tool the declaration
names, run by that function: its arguments are the model's (``Bun.spawn(["sh", "-c", args.command])`` is a tainted
``shell.exec``), also when a function builds the record (``createWebTools()``). A record its file never reads is a tool
only where another file uses it; an object pairing a plain value with a function, or a declaration with no function,
is none."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked

TOOL_TS = """\
export interface Tool {
  definition: { name: string; description: string; parameters?: Record<string, unknown> };
  execute(args: Record<string, unknown>): Promise<string>;
}
"""

SHELL_TS = """\
import type { Tool } from "../tool.ts";

export const runShell: Tool = {
  definition: {
    name: "run_shell",
    description: "Execute a shell command",
    parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
  },
  async execute(args) {
    const proc = Bun.spawn(["sh", "-c", args.command as string], { stdout: "pipe" });
    return await new Response(proc.stdout).text();
  },
};
"""

FACTORY_TS = """\
import type { Tool } from "../tool.ts";

export function createNoteTools(dir: string) {
  const writeNote: Tool = {
    definition: {
      name: "write_note",
      description: "Write a note",
      parameters: { type: "object", properties: { text: { type: "string" } } },
    },
    async execute(args) {
      await Bun.write(`${dir}/note.txt`, args.text as string);
      return "ok";
    },
  };
  return { writeNote };
}

export const settings = { definition: { name: "theme", description: "a setting" }, label: "Theme" };
export const handlers = { kind: "plain", run: () => 1 };
"""

HARNESS_TS = """\
import { runShell } from "./tools/shell.ts";
import { createNoteTools } from "./tools/notes.ts";

const tools = new Map();
tools.set(runShell.definition.name, runShell);
const { writeNote } = createNoteTools("/tmp");
tools.set(writeNote.definition.name, writeNote);

export async function chat(client: any, messages: any[]) {
  const defs = [...tools.values()].map((t) => ({ type: "function", function: t.definition }));
  return client.chat.completions.create({ model: "gpt-4o", messages, tools: defs });
}
"""


def _tree() -> Linked:
    return analyse(
        {
            "src/tool.ts": TOOL_TS,
            "src/tools/shell.ts": SHELL_TS,
            "src/tools/notes.ts": FACTORY_TS,
            "src/harness.ts": HARNESS_TS,
        }
    )


def test_a_record_pairing_a_declaration_with_its_function_is_that_tool() -> None:
    linked = _tree()
    names = {t.name for t in linked.tools}
    assert {"run_shell", "write_note"} <= names
    assert "theme" not in names
    flows = {(f.sourceKind, f.actionClass, f.sink.path, f.sink.line) for f in linked.taintFlows}
    assert ("tool_argument", "shell.exec", "src/tools/shell.ts", 10) in flows


def test_the_recorded_function_acts_for_its_tool() -> None:
    linked = _tree()
    ids = {t.id: t.name for t in linked.tools}
    reached = {
        (a.actionClass, a.location.line, ids[p.toolId])
        for a in linked.actions
        for p in a.reachedFrom
        if p.toolId in ids
    }
    assert ("shell.exec", 10, "run_shell") in reached
    assert ("file.write", 11, "write_note") in reached

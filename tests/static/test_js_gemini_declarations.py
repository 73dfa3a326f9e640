"""Gemini function declarations in JavaScript/TypeScript (issue 20, tools by role): every element of a
``functionDeclarations`` list handed to a call (``ai.models.generateContent({ config: { tools: [{
functionDeclarations }] } })``) is a tool named by its ``name``, however the list is built: written out, through
names and fields of the file, through ``.map((d) => d.declaration)`` over records pairing a declaration with its
function, ``.concat`` and lists imported from other files (one tool per record, run by the function the record
holds). What cannot be followed is a frontier item naming the call; a literal elsewhere (a reply schema) is no
tool."""

from __future__ import annotations

from pyfix import analyse, tools

INLINE = """\
import { GoogleGenAI } from "@google/genai";
const ai = new GoogleGenAI({ apiKey: process.env.KEY });
export async function ask(contents) {
  return ai.models.generateContent({
    model: "gemini-2.5-pro",
    contents,
    config: {
      tools: [{ functionDeclarations: [{ name: "lookup", description: "Look up", parameters: { type: "OBJECT" } }] }],
      responseSchema: { name: "answer", description: "The answer", parameters: { type: "OBJECT" } },
    },
  });
}
"""

SHELL = """\
import { execSync } from "child_process";

const runCommand = {
  function: ({ cmd }) => execSync(cmd).toString(),
  declaration: { name: "runCommand", description: "Run a shell command", parameters: { type: "OBJECT" } },
};

const allDefinitions = [runCommand];
export { allDefinitions };
"""

FILES = """\
import { readFileSync } from "fs";

const readNote = {
  function: ({ path }) => readFileSync(path, "utf8"),
  declaration: { name: "readNote", description: "Read a note", parameters: { type: "OBJECT" } },
};

export const allDefinitions = [readNote];
"""

AGENT = """\
import { GoogleGenAI } from "@google/genai";
import { allDefinitions as shellDefinitions } from "./tools/shell.js";
import { allDefinitions as fileDefinitions } from "./tools/files.js";

const allDefinitions = shellDefinitions.concat(fileDefinitions);
const allDeclarations = allDefinitions.map((def) => def.declaration);
const allFunctions = Object.fromEntries(allDefinitions.map((def) => [def.declaration.name, def.function]));
const ai = new GoogleGenAI({ apiKey: process.env.KEY });

export async function turn(contents) {
  const response = await ai.models.generateContent({
    model: "gemini-2.5-pro",
    contents,
    config: { tools: [{ functionDeclarations: allDeclarations }] },
  });
  for (const call of response.functionCalls ?? []) {
    allFunctions[call.name](call.args);
  }
}
"""

FETCHED = """\
import { GoogleGenAI } from "@google/genai";
import { loadDeclarations } from "some-registry";
const ai = new GoogleGenAI({ apiKey: process.env.KEY });
export async function ask(contents) {
  const declarations = await loadDeclarations();
  return ai.models.generateContent({ model: "gemini-2.5-pro", contents, config: { tools: [{ functionDeclarations: declarations }] } });
}
"""


def test_a_declaration_written_out_is_a_tool_and_a_reply_schema_is_not() -> None:
    assert {name for name, _ in tools(analyse({"src/ask.js": INLINE}))} == {"lookup"}


def test_declarations_mapped_from_imported_records_are_tools_run_by_their_functions() -> None:
    linked = analyse({"src/tools/shell.js": SHELL, "src/tools/files.js": FILES, "src/agent.js": AGENT})
    assert {name for name, _ in tools(linked)} == {"runCommand", "readNote"}
    by_id = {t.id: t.name for t in linked.tools}
    reached = {(a.actionClass, by_id[p.toolId]) for a in linked.actions for p in a.reachedFrom if p.toolId in by_id}
    assert ("shell.exec", "runCommand") in reached
    assert ("file.read", "readNote") in reached


def test_declarations_analysis_cannot_follow_are_a_frontier_item() -> None:
    linked = analyse({"src/ask.js": FETCHED})
    assert not linked.tools
    assert any(
        f.kind == "runtime_registered_tools" and "generateContent" in f.detail and "loadDeclarations()" in f.detail
        for f in linked.frontier
    )

"""Small JS/TS sources that exercise the corners of the analyzer's walk: call chains, names bound
inside the expressions that use them, wrappers, destructuring, classes, tool definitions, gates and
syntax errors. ``test_js_walk_snapshots`` checks their facts against ``js_walk_snapshots.json``."""

from __future__ import annotations

CASES: dict[str, str] = {
    "src/chains.ts": """
import OpenAI from "openai";
import * as cp from "node:child_process";
const client = new OpenAI();
export async function run(cmd: string, parts: string[]) {
  const out = parts.map((p) => p.trim()).filter((p) => p.length > 0).join(" ");
  const r = await (await client.chat.completions.create({ model: "gpt-4o", messages: [] })).choices;
  (cp as any).exec(cmd).stdout!.on("data", (d: string) => cp.execSync(d));
  new (cp.ChildProcess as any)().kill();
  return out + r;
}
""",
    "src/shadow.js": """
const fs = require("fs");
const empty = require("");
import nothing from "";
function f(x) {
  const fs = fs.promises.readFile(x);
  empty.thing().other(x);
  nothing.run(x).then((y) => require("child_process").exec(y));
  let g;
  g = new Map();
  a(b = new URL(x)).c(b.toString());
  fs.writeFileSync(x, x);
  return fs;
}
module.exports = { f };
""",
    "src/assign_in_chain.ts": """
import { exec } from "child_process";
import shell from "@/lib/shell";
export function go(input: string) {
  let runner: any;
  (runner = shell).run(input).pipe(exec(input));
  const t = [input][0];
  handlers[input](input);
  const h = table[input];
  h(input);
  shell.thing(input)["x"](input);
  return runner.go(input).catch(() => null);
}
""",
    "src/classes.ts": """
import { StructuredTool } from "@langchain/core/tools";
import Anthropic from "@anthropic-ai/sdk";
import { spawn } from "child_process";
class Base { run(cmd: string) { spawn(cmd); } }
export class Child extends Base {
  client = new Anthropic();
  constructor(private readonly other: Anthropic) { super(); this.helper = new Anthropic(); }
  async step(x: string) {
    await this.client.messages.create({ model: "claude", messages: [] });
    await this.helper.messages.create({ model: "claude", messages: [] });
    this.run(x);
    super.run(x);
    return this.other.messages.create({ model: "m", messages: [] });
  }
}
export class ShellTool extends StructuredTool {
  name = "shell";
  description = "runs a command";
  schema = z.object({ cmd: z.string() });
  async _call({ cmd }: { cmd: string }) { return spawn(cmd); }
}
export default class { go(y: string) { spawn(y); } }
""",
    "src/tools.ts": """
import { tool } from "ai";
import { z } from "zod";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { exec } from "child_process";
import tools from "./tools.json";
const ALLOWED = new Set(["ls", "pwd"]);
const MAX_REFUND = 100;
export const shellTool = tool({
  description: "Run a shell command",
  inputSchema: z.object({ cmd: z.string(), n: z.number() }).describe("x"),
  needsApproval: true,
  execute: async ({ cmd }) => {
    if (!ALLOWED.has(cmd)) { throw new Error("no"); }
    const ok = await requireApproval(cmd);
    if (ok === true && amount <= MAX_REFUND) { exec(cmd); } else { return exec(cmd + "!"); }
    return cmd ? exec(cmd) : exec("true");
  },
});
const agentTools = { shell: shellTool, other: tool({ description: "d", inputSchema: z.object({}), execute: runOther }) };
function runOther(a: string) { exec(a); }
const server = new McpServer({ name: "s", version: "1" });
server.tool("rm", "remove", { path: z.string() }, { destructiveHint: true }, async ({ path }) => exec(`rm ${path}`));
server.registerTool("ls", { description: "list", inputSchema: { dir: z.string() } }, async ({ dir }) => exec(dir));
const openaiTools = [{ type: "function", function: { name: "get_weather", description: "w", parameters: { type: "object", properties: { city: { type: "string" } } } } }];
const anthropicTools = [{ name: "search", description: "s", input_schema: { type: "object", properties: { q: {} } } }];
function dispatch(name: string, args: any) {
  switch (name) {
    case "get_weather": return getWeather(args);
    default: throw new Error(name);
  }
}
function getWeather(a: any) { return fetch("https://api.openai.com/v1/chat/completions", { body: a }); }
if (name === "search") { doSearch(args); }
export { getWeather as weather };
""",
    "src/flow.mjs": """
import { execFile } from "node:child_process";
import db from "better-sqlite3";
const conn = new db("x.db");
export default async function handler(req, res) {
  const { cmd, ...rest } = req.body;
  let total = 0;
  for (const [k, v] of Object.entries(rest)) { total += v; execFile(k, [v]); }
  for (let i = 0, j = 2; i < j; i++) { conn.prepare("DELETE FROM t WHERE id = ?").run(i); }
  while (cmd) { conn.prepare(`SELECT ${cmd}`).all(); break; }
  try { execFile(cmd); } catch ({ message }) { execFile(message); } finally { process.exit(1); }
  label: do { execFile("a" + cmd + "b" + total + "c"); } while (false);
  const s = `x${"y"}z`;
  const k = "const";
  execFile(k, [s], () => { execFile(cmd); });
  return [cmd, total].map(String);
}
exports.other = function (x) { execFile(x); };
module.exports.third = (y) => execFile(y);
""",
    "src/broken.ts": """
export function ok(x: string) { require("child_process").exec(x); }
function broken( { {{ if (
const y = exec(
""",
    "src/deep.js": "const v = " + "(" * 300 + "f()" + ")" * 300 + ";\nexec(v);\n",
    "src/app.tsx": """
import { exec } from "child_process";
export function App({ cmd }: { cmd: string }) {
  return <button onClick={() => exec(cmd)}>{cmd as string}</button>;
}
""",
}

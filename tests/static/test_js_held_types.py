"""What a class's method returns and where its instances go (issue 20): a method returning a field of the
instance whose type the field's declaration or the constructor gives (``getOperator() { return this.operator }``)
gives its call that type, so ``this.getOperator().writeFile(...)`` is the operator's method; a tool class's
instance bound to a name that a later statement gathers (``const t = new Bash(); tools.push(t)``) is gathered
as one built inside the list is. An untyped field returned gives nothing; an instance only ever called on
directly, or gathered where no model is served, makes no tool."""

from __future__ import annotations

from pathlib import Path

from tests.static.scanned import actions_reached, scan_files
from tests.static.test_js_tool_classes import _AGENT, _AGENT_BASE, _BASE, _RUN, _WRITE, _tools

_OPS = """import { promises as fs } from "fs";
import { exec } from "node:child_process";
export class LocalFileOperator {
  async writeFile(p: string, c: string) { await fs.writeFile(p, c); }
  async run(cmd: string) { exec(cmd); }
}
"""

_HELD = """import { BaseTool } from "./base.js";
import { LocalFileOperator } from "./ops.js";
export class Bash extends BaseTool {
  private operator: LocalFileOperator = new LocalFileOperator();
  private spare = new LocalFileOperator();
  private loose: any;
  constructor() {
    super();
    this.name = "bash";
    this.loose = makeLoose();
  }
  private getOperator() { return this.operator; }
  private getSpare() { return this.spare; }
  private getLoose() { return this.loose; }
  async execute(params: any) {
    const op = this.getOperator();
    await op.writeFile(params.path, params.text);
    await this.getSpare().run(params.command);
    return this.getLoose().run(params.other);
  }
}
declare function makeLoose(): any;
"""


def test_a_method_returning_a_typed_field_gives_its_call_that_type(tmp_path: Path) -> None:
    """``getOperator()`` returns a field declared ``LocalFileOperator``; ``getSpare()`` one built by ``new``."""
    bundle = scan_files(tmp_path, {"base.ts": _AGENT_BASE, "tools.ts": _HELD, "agent.ts": _AGENT, "ops.ts": _OPS})
    assert actions_reached(bundle, "bash") == {("file.write", "ops.ts", 4), ("shell.exec", "ops.ts", 5)}


def test_a_method_returning_an_untyped_field_gives_nothing(tmp_path: Path) -> None:
    """``getLoose()`` returns a field assigned from a call of unknown type: its ``run`` is nobody's method."""
    held = _HELD.replace("const op = this.getOperator();", "const op = this.getLoose();").replace(
        "await this.getSpare().run(params.command);", ""
    )
    bundle = scan_files(tmp_path, {"base.ts": _AGENT_BASE, "tools.ts": held, "agent.ts": _AGENT, "ops.ts": _OPS})
    assert actions_reached(bundle, "bash") == set()


def test_an_instance_bound_to_a_name_then_pushed_is_gathered(tmp_path: Path) -> None:
    """``const python = new PythonRun(); tools.tools.push(python)``: as if built inside the list."""
    agent = _AGENT.replace(
        "const tools = new Collection(new Bash());",
        "const python = new PythonRun();\n  const tools = new Collection(new Bash());\n  tools.tools.push(python);",
    )
    bundle = scan_files(tmp_path, {"base.ts": _AGENT_BASE, "tools.ts": _AGENT_TOOLS_ONLY, "agent.ts": agent})
    assert _tools(bundle) == {"bash": ("tools.ts", 6), "python_run": ("tools.ts", 11)}
    assert actions_reached(bundle, "python_run") == {("shell.exec", "tools.ts", 12)}


def test_an_instance_bound_to_a_name_and_only_called_on_is_no_tool(tmp_path: Path) -> None:
    """``const python = new PythonRun(); python.execute(...)``: never gathered, no tool."""
    agent = _AGENT.replace(
        "const tools = new Collection(new Bash());",
        'const python = new PythonRun();\n  await python.execute({ code: "1" });\n  const tools = new Collection(new Bash());',
    )
    bundle = scan_files(tmp_path, {"base.ts": _AGENT_BASE, "tools.ts": _AGENT_TOOLS_ONLY, "agent.ts": agent})
    assert _tools(bundle) == {"bash": ("tools.ts", 6)}


def test_instances_pushed_into_a_list_no_model_is_served_make_no_tool(tmp_path: Path) -> None:
    """Commands pushed one by one into a list dispatched by name from the command line."""
    cli = """import { RunTool } from "./run.js";
import { WriteTool } from "./write.js";
const commands: any[] = [];
const run = new RunTool();
commands.push(run);
const write = new WriteTool();
commands.push(write);
export async function main(argv: string[]) {
  const command = commands.find((c) => c.name === argv[2]);
  return command.execute({ cmd: argv[3] });
}
"""
    bundle = scan_files(tmp_path, {"base.ts": _BASE, "run.ts": _RUN, "write.ts": _WRITE, "cli.ts": cli})
    assert _tools(bundle) == {}


_AGENT_TOOLS_ONLY = """import { spawn } from "node:child_process";
import { BaseTool } from "./base.js";
export class Bash extends BaseTool {
  constructor() {
    super();
    this.name = "bash";
  }
  async execute(params: any) { return spawn("sh", ["-c", params.command]); }
}
export class PythonRun extends BaseTool {
  name = "python_run";
  async execute(params: any) { return spawn("python3", ["-c", params.code]); }
}
"""

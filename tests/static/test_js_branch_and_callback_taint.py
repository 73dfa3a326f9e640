"""JS/TS taint (issue 20, model output into execution): after an ``if``, a name reassigned in one branch
keeps what the other path left in it (``analyze_javascript``); a callback handed to a function of the tree
receives what that function passes when it calls its parameter (a scanned two-file tree)."""

from __future__ import annotations

from pathlib import Path

from jsfix import facts_of, tainted
from scanned import scan_files

HEAD = """import OpenAI from "openai";
import { exec } from "child_process";

export async function run(client: OpenAI, c: boolean) {
  const res = await client.chat.completions.create({ model: "m", messages: [] });
  let x = res.choices[0].message.content || "";
"""


def _sink_taint(body: str) -> frozenset[str]:
    facts = facts_of("src/a.ts", (HEAD + body + "  exec(x);\n}\n").encode())
    ((_, origins),) = tainted(facts)
    return origins


def test_reassigned_in_one_branch_keeps_the_other_paths_taint() -> None:
    # ``if (c) { x = "" }``: on the path where c is false, x still holds the reply.
    assert _sink_taint('  if (c) {\n    x = "";\n  }\n') == {"model_output"}


def test_reassigned_in_both_branches_holds_what_they_assign() -> None:
    assert _sink_taint('  if (c) {\n    x = "a";\n  } else {\n    x = "b";\n  }\n') == frozenset()


def test_a_branch_that_returns_adds_nothing_after_the_if() -> None:
    # the reply is kept only on a path that returns; after the ``if`` x holds the literal.
    body = '  x = "ls";\n  if (c) {\n    x = res.choices[0].message.content || "";\n    return x;\n  }\n'
    assert _sink_taint(body) == frozenset()


def test_a_branch_that_breaks_out_of_a_loop_reaches_past_it() -> None:
    body = (
        '  x = "ls";\n  for (const m of res.choices) {\n    if (c) {\n'
        '      x = m.message.content || "";\n      break;\n    }\n  }\n'
    )
    assert _sink_taint(body) == {"model_output"}


def test_cleared_on_both_paths_after_an_assignment_in_the_else_branch() -> None:
    assert _sink_taint('  if (c) {\n    x = "a";\n  } else {\n    return;\n  }\n') == frozenset()


def test_streamed_reply_kept_when_a_later_branch_resets_the_buffer() -> None:
    source = """import OpenAI from "openai";
import { exec } from "child_process";

export async function run(client: OpenAI, found: boolean) {
  const res = await client.chat.completions.create({ model: "m", messages: [], stream: true });
  let toolContent = "";
  for await (const chunk of res) {
    toolContent += chunk.choices[0].delta.content || "";
  }
  if (!found) {
    toolContent = "";
  }
  exec(toolContent.replace("<run>", "").trim());
}
"""
    ((_, origins),) = tainted(facts_of("src/b.ts", source.encode()))
    assert origins == {"model_output"}


# ----- a callback handed to a function of the tree receives what that function passes it ----------------

LOOP = """import OpenAI from "openai";

export async function runAgent(client: OpenAI, runTool: (cmd: string) => Promise<string>, label: (s: string) => void) {
  const res = await client.chat.completions.create({ model: "m", messages: [] });
  const reply = JSON.parse(res.choices[0].message.content || "{}");
  label("fixed text");
  return runTool(reply.cmd);
}
"""

APP = """import OpenAI from "openai";
import { exec, execSync } from "child_process";
import { runAgent } from "./loop";

export async function main() {
  await runAgent(
    new OpenAI(),
    async (cmd) => execSync(cmd).toString(),
    (s) => { exec(s); },
  );
}
"""


def _flows(bundle: dict[str, object]) -> set[tuple[str, str, int]]:
    return {
        (f["sourceKind"], f["sink"]["path"], f["sink"]["line"])  # type: ignore[index]
        for f in bundle["taintFlows"]  # type: ignore[attr-defined]
    }


def test_callback_parameter_receives_what_the_callee_passes_it(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"src/loop.ts": LOOP, "src/app.ts": APP})
    # the callback at position 1 runs the model's command; the one at position 2 gets a literal.
    assert _flows(bundle) == {("model_output", "src/app.ts", 8)}


def test_callback_of_a_callee_that_passes_nothing_tainted_has_no_flow(tmp_path: Path) -> None:
    loop = LOOP.replace("return runTool(reply.cmd);", 'return runTool("ls");')
    bundle = scan_files(tmp_path, {"src/loop.ts": loop, "src/app.ts": APP})
    assert _flows(bundle) == set()

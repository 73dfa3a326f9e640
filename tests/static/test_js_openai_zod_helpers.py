"""Issue 20, the OpenAI SDK's own helpers that turn a Zod schema into a function tool: ``zodFunction({ name,
parameters, function })`` (and ``zodResponsesFunction``) from ``openai/helpers/zod`` is a schema handed to the
model, a tool named by its name option, implemented by its function option when it has one."""

from __future__ import annotations

from pathlib import Path

from scanned import actions_reached, scan_files

HELPERS = """
import OpenAI from "openai";
import { zodFunction, zodResponsesFunction } from "openai/helpers/zod";
import { execSync } from "node:child_process";
import { z } from "zod";

const client = new OpenAI();

export async function ask(question: string) {
  return client.chat.completions.runTools({
    model: "gpt-4o-mini",
    messages: [{ role: "user", content: question }],
    tools: [
      zodFunction({
        name: "run_shell",
        description: "Run a command",
        parameters: z.object({ cmd: z.string() }),
        function: ({ cmd }) => execSync(cmd).toString(),
      }),
      zodFunction({ name: "get_weather", parameters: z.object({ city: z.string() }) }),
    ],
  });
}

export const responsesTools = [zodResponsesFunction({ name: "lookup", parameters: z.object({ id: z.string() }) })];
"""


def test_a_zod_function_helper_is_a_tool_named_by_its_name_option(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"agent.ts": HELPERS})
    tools = sorted((t["name"], t["location"]["line"]) for t in bundle["tools"])
    assert tools == [("get_weather", 20), ("lookup", 25), ("run_shell", 14)]


def test_the_function_option_of_a_zod_function_helper_implements_the_tool(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"agent.ts": HELPERS})
    assert {(c, line) for c, _, line in actions_reached(bundle, "run_shell")} == {("shell.exec", 18)}


MAPPED = """
import OpenAI from "openai";
import { zodFunction } from "openai/helpers/zod";
import { z } from "zod";

const definitions = [
  { name: "get_weather", description: "Weather", parameters: z.object({ city: z.string() }) },
  { name: "get_time", parameters: z.object({ zone: z.string() }) },
];

export async function ask(client: OpenAI, question: string) {
  const tools = definitions.map((definition) => zodFunction(definition));
  return client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: question }], tools });
}

export function inline() {
  return [{ name: "lookup", parameters: z.object({ id: z.string() }) }].map((d) => zodFunction(d));
}

export function opaque(records: { name: string }[]) {
  return records.map((r) => zodFunction(r));
}
"""


def test_a_tool_builder_mapped_over_a_list_of_records_is_one_tool_per_record(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"agent.ts": MAPPED})
    tools = sorted((t["name"], t["location"]["line"]) for t in bundle["tools"])
    assert tools == [("get_time", 8), ("get_weather", 7), ("lookup", 17)]

"""Issue 20: a plain loop's tools in JavaScript/TypeScript: a top-level table of the code's functions looked up by a
key the model's answer holds and called (``await TOOL_MAP[parsed.tool_name](parsed.input)``, also after a check
that the key is in the table) are the model's tools, named by their keys, run by their functions, located at the
function when named after it. A table looked up by a key nobody's model chose (a command-line argument) is no
tool, nor is a table holding anything but functions named by reference."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scanned import actions_reached, scan_files

TOOLS = """import { exec } from "child_process";
export async function executeCommand(cmd = "") {
  return new Promise((res) => exec(cmd, (error, data) => res(error ? String(error) : data)));
}
export async function readPage(url = "") {
  return (await fetch(url)).text();
}
"""


def _agent(table: str, key: str) -> str:
    return f"""import {{ OpenAI }} from "openai";
import {{ executeCommand, readPage }} from "./tools.js";
const TOOL_MAP = {table};
const client = new OpenAI();
async function main() {{
  const messages = [{{ role: "system", content: "Tools: executeCommand(cmd), fetch_page(url)" }}];
  while (true) {{
    const response = await client.chat.completions.create({{ model: "gpt-4.1-mini", messages }});
    const parsed = JSON.parse(response.choices[0].message.content);
    const tool = {key};
    if (!TOOL_MAP[tool]) {{
      continue;
    }}
    const output = await TOOL_MAP[tool](parsed.input);
    messages.push({{ role: "user", content: String(output) }});
  }}
}}
main();
"""


def _tools(bundle: dict[str, Any]) -> list[tuple[str, str, int]]:
    return sorted((t["name"], t["location"]["path"], t["location"]["line"]) for t in bundle["tools"])


def test_a_function_table_keyed_by_the_models_answer_holds_the_models_tools(tmp_path: Path) -> None:
    bundle = scan_files(
        tmp_path,
        {"tools.js": TOOLS, "agent.js": _agent("{ executeCommand, fetch_page: readPage }", "parsed.tool_name")},
    )
    assert _tools(bundle) == [("executeCommand", "tools.js", 2), ("fetch_page", "agent.js", 3)]
    assert actions_reached(bundle, "executeCommand") == {("shell.exec", "tools.js", 3)}
    assert actions_reached(bundle, "fetch_page") == {("network.egress", "tools.js", 6)}


def test_a_table_keyed_by_what_no_model_chose_or_holding_other_values_is_no_tool(tmp_path: Path) -> None:
    cases = [
        ("{ executeCommand, fetch_page: readPage }", "process.argv[2]"),
        ("{ executeCommand, fetch_page: (u) => readPage(u) }", "parsed.tool_name"),
    ]
    for case, (table, key) in enumerate(cases):
        bundle = scan_files(tmp_path / str(case), {"tools.js": TOOLS, "agent.js": _agent(table, key)})
        assert _tools(bundle) == []
        assert any(f["kind"] == "dynamic_dispatch" for f in bundle["frontier"])

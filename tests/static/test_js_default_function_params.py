"""Issue 20 actions (TypeScript): a parameter whose default is a function (``createWebTools(runner: Runner =
defaultRunner)``) runs that function when the code calls through it and the caller passes nothing
(``createWebTools()``): the process ``defaultRunner`` starts is reached from the tools the factory builds. A parameter
defaulting to a value that is no function of the tree or import binds nothing."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked

WEB_TS = """\
import { spawn } from "node:child_process";

type Runner = (payload: Record<string, unknown>) => Promise<string>;

async function defaultRunner(payload: Record<string, unknown>): Promise<string> {
  const proc = spawn("python3", ["bridge.py", JSON.stringify(payload)]);
  return String(proc.pid);
}

export function createWebTools(runner: Runner = defaultRunner, label = "web") {
  const webSearch = {
    definition: {
      name: "web_search",
      description: "Search the web",
      parameters: { type: "object", properties: { query: { type: "string" } } },
    },
    async execute(args: Record<string, unknown>) {
      return runner({ action: "search", query: args.query, label });
    },
  };
  return { webSearch };
}

export const { webSearch } = createWebTools();
"""


def _reached(linked: Linked) -> set[tuple[str, int, str]]:
    names = {t.id: t.name for t in linked.tools}
    return {
        (a.actionClass, a.location.line, names[p.toolId])
        for a in linked.actions
        for p in a.reachedFrom
        if p.toolId in names
    }


def test_a_call_through_a_parameter_runs_the_function_it_defaults_to() -> None:
    linked = analyse({"src/web.ts": WEB_TS})
    assert ("shell.exec", 6, "web_search") in _reached(linked)
    flows = {(f.sourceKind, f.actionClass, f.sink.line) for f in linked.taintFlows}
    assert ("tool_argument", "shell.exec", 6) in flows

"""Issue 20, an approval flag whatever runs the tool: ``tool({ name, execute, needsApproval })`` whose handler is a
function of the module written elsewhere (``execute,`` or ``execute: runIt``) is asked for as the inline handler
is: the approval (``needsApproval: true``, or a callback deciding per call, itself given by name) holds over what
that function does, and the model's input still reaches it. A flag set to ``false`` is no gate."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked


def _gated(linked: Linked, tool: str) -> dict[tuple[str, int], set[str]]:
    ids = {t.id for t in linked.tools if t.name == tool}
    kinds = {g.id: g.kind for g in linked.gates}
    out: dict[tuple[str, int], set[str]] = {}
    for a in linked.actions:
        for path in a.reachedFrom:
            if path.toolId in ids:
                out.setdefault((a.actionClass, a.location.line), set()).update(kinds[g] for g in path.gateIds)
    return out


CODE = """import { tool } from '@openai/agents';
import { exec } from 'node:child_process';
import { z } from 'zod';

export async function needsApproval(_ctx: any, { code }: { code: string }) {
  return process.env.AUTO_APPROVE !== '1';
}

export async function execute({ code }: { code: string }) {
  exec(code);
  return 'ok';
}

export const codeTool = tool({
  name: 'code_interpreter',
  description: 'runs code',
  parameters: z.object({ code: z.string() }),
  execute,
  needsApproval,
});

function runIt({ code }: { code: string }) {
  exec(code);
}

export const flagged = tool({
  name: 'flagged',
  description: 'runs code',
  parameters: z.object({ code: z.string() }),
  execute: runIt,
  needsApproval: true,
});

export const open = tool({
  name: 'open',
  description: 'runs code',
  parameters: z.object({ code: z.string() }),
  execute: runIt,
  needsApproval: false,
});
"""


def test_an_approval_holds_over_a_handler_given_by_name() -> None:
    linked = analyse({"tools.ts": CODE})
    assert _gated(linked, "code_interpreter") == {("shell.exec", 10): {"human_approval"}}
    assert _gated(linked, "flagged") == {("shell.exec", 23): {"human_approval"}}
    assert _gated(linked, "open") == {("shell.exec", 23): set()}
    approvals = {g.location.line for g in linked.gates if g.kind == "human_approval"}
    assert approvals == {19, 31}
    assert {f.sink.line for f in linked.taintFlows} == {10, 23}  # the model's input still reaches both

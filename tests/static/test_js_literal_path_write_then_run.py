"""Model-written code saved to a file named by a literal and then run by a command naming that literal
(issue 20, model output into execution, JS/TS): ``writeFileSync("gen.js", code)`` then ``execSync("node
gen.js")`` runs what the model wrote; a file of fixed text, and a command naming another file, carry nothing."""

from __future__ import annotations

from pyfix import analyse

SOURCE = """\
import OpenAI from 'openai';
import { execSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const client = new OpenAI();

export async function runGenerated(task: string) {
  const r = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: task }] });
  writeFileSync('gen.js', r.choices[0].message.content ?? '');
  return execSync('node gen.js').toString();
}

export async function showNotes(task: string) {
  const r = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: task }] });
  writeFileSync('notes.txt', 'fixed text');
  writeFileSync('other.js', r.choices[0].message.content ?? '');
  return execSync(`cat notes.txt`).toString();
}
"""


def test_a_command_naming_a_written_literal_path_runs_the_model_s_code() -> None:
    linked = analyse({"src/agent.ts": SOURCE})
    lines = {a.id: a.location.line for a in linked.actions if a.actionClass == "shell.exec"}
    tainted = {lines[f.actionId] for f in linked.taintFlows if f.actionId in lines}
    assert tainted == {10}

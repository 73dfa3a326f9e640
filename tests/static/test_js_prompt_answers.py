"""A person's answer to a confirmation prompt tested through its fields (issue 20, gates wherever frameworks put
them): ``const { ok } = await prompts({ type: "confirm", name: "ok", ... })``, ``const res = await prompts(...)``
then ``if (!res.ok) return``, classic ``inquirer.prompt([{ type: "confirm", name: "go" }])`` then ``answers.go``:
the field holds the approval the question proves, so the command run after it is gated by a human approval. A
field of a validator's result (``result.isValid``) stays the validator's check, and a field of an ordinary
call's result proves nothing."""

from __future__ import annotations

from pyfix import analyse, gate_kinds

HEADER = """\
import { tool } from 'ai';
import { z } from 'zod';
import { execSync } from 'node:child_process';
import prompts from 'prompts';
import inquirer from 'inquirer';
import { fetchPolicy } from './policy.js';
"""


def _run(body: str) -> set[str]:
    source = (
        HEADER
        + "export const run = tool({ description: 'Run', inputSchema: z.object({ cmd: z.string() }), "
        + "execute: async ({ cmd }) => {\n"
        + body
        + "\n  return execSync(cmd).toString();\n} });\n"
    )
    return gate_kinds(analyse({"src/run.ts": source}), "shell.exec")


def test_a_destructured_answer_gates_the_command() -> None:
    assert _run(
        "  const { ok } = await prompts({ type: 'confirm', name: 'ok', message: `Run ${cmd}?` });\n"
        "  if (!ok) return 'cancelled';"
    ) == {"human_approval"}


def test_a_field_of_the_whole_answer_gates_the_command() -> None:
    assert _run(
        "  const res = await prompts({ type: 'confirm', name: 'ok', message: `Run ${cmd}?` });\n"
        "  if (!res.ok) return 'cancelled';"
    ) == {"human_approval"}
    assert _run(
        "  const answers = await inquirer.prompt([{ type: 'confirm', name: 'go', message: `Run ${cmd}?` }]);\n"
        "  if (!answers.go) return 'cancelled';"
    ) == {"human_approval"}


def test_a_field_of_an_ordinary_result_proves_nothing() -> None:
    assert _run("  const policy = await fetchPolicy();\n  if (!policy.enabled) return 'off';") == set()

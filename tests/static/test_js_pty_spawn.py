"""A pseudo-terminal spawned with a command (``node-pty``'s ``spawn("bash", ["-c", cmd])``) runs that command:
shell execution, as writing a command into a spawned terminal already was (issue 20, actions by effect)."""

from __future__ import annotations

from pyfix import actions, analyse

SOURCE = """\
import { tool } from 'ai';
import { z } from 'zod';
import * as pty from 'node-pty';

export const terminal = tool({
  description: 'Run a command in a terminal',
  inputSchema: z.object({ command: z.string() }),
  execute: async ({ command }) => pty.spawn('bash', ['-c', command], {}),
});
"""


def test_a_spawned_terminal_runs_its_command() -> None:
    assert ("shell.exec", 8) in actions(analyse({"src/terminal.ts": SOURCE}))

"""One containment check, one gate (issue 20, gate precision): a path checked against its root
(``if (!abs.startsWith(root + sep)) throw``) and then handed to a helper that checks it again
(``relative.startsWith("..")``) is held by the first check: the helper's re-check adds no second
path-containment gate to what the caller does next. A helper checking a path the caller never checked
still gates what follows it."""

from __future__ import annotations

from pyfix import analyse

CODE = """\
import path from 'node:path';
import fs from 'node:fs/promises';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

const ROOT = '/vault';

function assertNoEscape(root: string, abs: string) {
  const relative = path.relative(root, abs);
  if (relative.startsWith('..') || path.isAbsolute(relative)) throw new Error('escapes');
}

function resolveNote(raw: string) {
  const abs = path.resolve(ROOT, raw);
  FIRST
  assertNoEscape(ROOT, abs);
  return abs;
}

const server = new McpServer({ name: 'notes', version: '1' });
server.tool('read_note', 'Read', { p: z.string() }, async ({ p }) => {
  const abs = resolveNote(p);
  const text = await fs.readFile(abs, 'utf8');
  return { content: [{ type: 'text', text }] };
});
"""


def _containment_on_read(first: str) -> set[int]:
    linked = analyse({"src/notes.ts": CODE.replace("FIRST", first)})
    sites = {g.id: g for g in linked.gates}
    return {
        sites[g].location.line
        for a in linked.actions
        if a.actionClass == "file.read" and a.reachedFrom
        for g in a.gateIds
        if sites[g].kind == "path_containment"
    }


def test_a_helper_rechecking_a_checked_path_adds_no_second_gate() -> None:
    check = "if (abs !== ROOT && !abs.startsWith(`${ROOT}${path.sep}`)) throw new Error('escapes');"
    assert _containment_on_read(check) == {15}


def test_a_helper_checking_an_unchecked_path_gates_what_follows() -> None:
    assert _containment_on_read("") == {10}

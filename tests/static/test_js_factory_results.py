"""Tools whose bodies run through what a factory of the tree returns (issue 20, TypeScript actions and
gates): a function returning an object of functions (``return Object.freeze({ async readNote(p) {...} })``)
makes each of them a function of its own, named as a member of its result, so a tool calling
``notes.readNote(p)`` on ``const notes = await createService()`` reaches it (and not the factory's own
start-up work); a name destructured out of such a result (``const { resolvePath } = makeResolver(root)``)
is that member; a package module handed to a helper as an argument (``collect(fs, dir)``) is what the
helper's calls on its parameter call; and a path equal to the root is inside it, so ``p !== root &&
!p.startsWith(root + sep)`` refused is a containment check of ``p``."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked

SERVER = """\
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { createService } from './service.mjs';

const notes = await createService({ dir: process.env.VAULT });
const server = new McpServer({ name: 'notes', version: '1.0.0' });

server.tool('read_note', 'Read a note.', { path: z.string() }, async ({ path }) => notes.readNote(path));
server.tool('list_notes', 'List notes.', {}, async () => notes.listNotes());
"""

SERVICE = """\
import fs from 'node:fs/promises';
import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { collect } from './walk.mjs';

function makeResolver(root) {
  function resolvePath(raw) {
    const abs = path.resolve(root, raw);
    if (abs !== root && !abs.startsWith(`${root}${path.sep}`)) throw new Error('Path escapes the vault');
    return abs;
  }
  return { resolvePath };
}

export async function createService({ dir }) {
  writeFileSync(path.join(dir, '.state'), 'initialised');
  const { resolvePath } = makeResolver(dir);
  return Object.freeze({
    async readNote(notePath) {
      const abs = resolvePath(notePath);
      return fs.readFile(abs, 'utf8');
    },
    async listNotes() {
      return collect(fs, dir);
    },
    async dropNote(notePath) {
      return fs.unlink(notePath);
    },
  });
}
"""

WALK = """\
export async function collect(fsApi, root) {
  const handle = await fsApi.opendir(root);
  const out = [];
  for await (const entry of handle) out.push(entry.name);
  return out;
}
"""


def _reached(linked: Linked) -> set[tuple[str, str, str, int]]:
    names = {t.id: t.name for t in linked.tools}
    return {
        (names[p.toolId], a.actionClass, a.location.path, a.location.line)
        for a in linked.actions
        for p in a.reachedFrom
        if a.location is not None
    }


def _gates_of(linked: Linked, path: str, line: int) -> set[tuple[str, int]]:
    sites = {g.id: g for g in linked.gates}
    return {
        (sites[g].kind, sites[g].location.line)
        for a in linked.actions
        if a.location is not None and (a.location.path, a.location.line) == (path, line)
        for g in a.gateIds
        if sites[g].location is not None
    }


def test_a_tool_calling_a_method_of_what_a_factory_returns_reaches_that_method_only() -> None:
    linked = analyse({"src/server.mjs": SERVER, "src/service.mjs": SERVICE, "src/walk.mjs": WALK})
    reached = _reached(linked)
    assert ("read_note", "file.read", "src/service.mjs", 21) in reached
    # the method no tool calls, and the factory's own start-up write, are no tool's
    assert not [r for r in reached if r[3] in (27, 15)]
    assert not [r for r in reached if r[0] == "read_note" and r[3] != 21]


def test_a_package_module_handed_to_a_helper_is_what_its_calls_on_the_parameter_call() -> None:
    linked = analyse({"src/server.mjs": SERVER, "src/service.mjs": SERVICE, "src/walk.mjs": WALK})
    assert ("list_notes", "file.read", "src/walk.mjs", 2) in _reached(linked)


def test_a_name_destructured_from_a_factory_result_is_its_member_and_its_check_gates_the_read() -> None:
    linked = analyse({"src/server.mjs": SERVER, "src/service.mjs": SERVICE, "src/walk.mjs": WALK})
    assert ("path_containment", 9) in _gates_of(linked, "src/service.mjs", 21)


UNRELATED_COMPARISON = SERVICE.replace("abs !== root && !abs", "abs !== raw && !abs")


def test_a_comparison_with_another_value_beside_the_containment_check_leaves_it_undecided() -> None:
    linked = analyse({"src/server.mjs": SERVER, "src/service.mjs": UNRELATED_COMPARISON, "src/walk.mjs": WALK})
    # ``abs === raw`` lets any path through: no containment holds at the read
    assert ("path_containment", 9) not in _gates_of(linked, "src/service.mjs", 21)


TWO_CALLERS = """\
import fs from 'node:fs/promises';
import { collect } from './walk.mjs';

export async function listReal(dir) {
  return collect(fs, dir);
}

export async function listOther(dir, store) {
  return collect(store, dir);
}
"""


def test_a_helper_whose_callers_hand_it_different_things_reads_nothing_known_through_it() -> None:
    linked = analyse({"src/list.mjs": TWO_CALLERS, "src/walk.mjs": WALK})
    assert not [a for a in linked.actions if a.location is not None and a.location.path == "src/walk.mjs"]
    only_fs = analyse(
        {"src/list.mjs": TWO_CALLERS.replace("collect(store, dir)", "collect(fs, dir)"), "src/walk.mjs": WALK}
    )
    assert [(a.actionClass, a.location.line) for a in only_fs.actions if a.location is not None] == [("file.read", 2)]


INLINE_CALLBACK = """\
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import fs from 'node:fs/promises';

export function rows(items) {
  return items.map((item) => {
    return { read() { return fs.readFile(item, 'utf8'); } };
  });
}

const server = new McpServer({ name: 'x', version: '1.0.0' });
server.tool('first_row', 'First row.', {}, async () => rows(['a'])[0].read());
"""


def test_an_object_a_callback_returns_is_not_the_factorys_result() -> None:
    linked = analyse({"src/rows.mjs": INLINE_CALLBACK})
    # the callback's object is not what ``rows`` returns: its method stays part of ``rows``, where the
    # tool calling ``rows`` reaches it
    assert ("first_row", "file.read", "src/rows.mjs", 6) in _reached(linked)

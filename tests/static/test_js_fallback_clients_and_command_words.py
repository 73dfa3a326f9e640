"""What a held client does (issue 20, actions): a value given or the fallback held here
(``options.fsApi || fs``, ``opts.client ?? new S3Client()``) has the fallback's type; a file handle's writes
are file writes and its ``close`` is no request to a service; node-redis ``sendCommand([...])`` and ioredis
``call(...)`` are classed by the command word written out (``ZRANGE`` a read, ``SET`` a write), a command
chosen at run time staying a write."""

from __future__ import annotations

from pyfix import analyse

NOTES = """\
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import fs from 'node:fs/promises';

async function closeQuietly(handle) {
  try {
    await handle.close();
  } catch {}
}

async function writeExclusive(fsApi, p, content) {
  const handle = await fsApi.open(p, 'wx');
  await handle.writeFile(content);
  await closeQuietly(handle);
}

export async function createNote(p, content, options = {}) {
  const fsApi = FALLBACK;
  await writeExclusive(fsApi, p, content);
}

const server = new McpServer({ name: 'notes', version: '1' });
server.tool('create_note', 'Create a note', { p: z.string(), c: z.string() }, async ({ p, c }) => {
  await createNote(p, c);
  return { content: [] };
});
"""

REDIS = """\
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { createClient } from 'redis';

const client = createClient();
const server = new McpServer({ name: 'redis', version: '1' });
server.tool('zrange', 'Range', { key: z.string(), cmd: z.string() }, async ({ key, cmd }) => {
  await client.sendCommand(['ZRANGE', key, '0', '-1']);
  await client.sendCommand(['SET', key, '1']);
  await client.sendCommand([cmd, key]);
  return { content: [] };
});
"""


def _reached(files: dict[str, str]) -> set[tuple[str, int]]:
    return {(a.actionClass, a.location.line) for a in analyse(files).actions if a.reachedFrom}


def test_a_fallback_client_keeps_the_fallbacks_type_and_a_file_handle_writes() -> None:
    found = _reached({"src/notes.js": NOTES.replace("FALLBACK", "options.fsApi || fs")})
    assert ("file.write", 13) in found
    assert not any(kind == "network.egress" for kind, _ in found)  # handle.close() is no request


def test_a_fallback_of_unknown_type_gives_nothing() -> None:
    found = _reached({"src/notes.js": NOTES.replace("FALLBACK", "options.fsApi || makeFs()")})
    assert not any(kind in ("file.write", "network.egress") for kind, _ in found)


def test_send_command_is_classed_by_its_command_word() -> None:
    assert _reached({"src/redis.ts": REDIS}) == {("db.read", 8), ("db.write", 9), ("db.write", 10)}

"""A method decorated by a call whose name says it makes a tool (issue 20, tools by role): NestJS
``@rekog/mcp-nest`` ``@Tool({ name, description, parameters })`` on a method of an injectable class is a tool
named by the options' ``name`` (after the method when there is none), run by the method, reaching what the
method does. A decorator whose name says nothing of tools (``@Get()``) makes none."""

from __future__ import annotations

from pyfix import analyse, tools

SOURCE = """\
import { Injectable, Get } from '@nestjs/common';
import { Tool } from '@rekog/mcp-nest';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';

@Injectable()
export class NotesTool {
  @Tool({ name: 'read-note', description: 'Read a note', parameters: z.object({ path: z.string() }) })
  async readNote({ path }: { path: string }) {
    return readFile(path, 'utf8');
  }

  @Tool({ description: 'List notes' })
  async listNotes() {
    return [];
  }

  @Get('/health')
  health() {
    return 'ok';
  }
}
"""


def test_a_method_decorated_as_a_tool_is_one_run_by_the_method() -> None:
    linked = analyse({"src/notes.tool.ts": SOURCE})
    assert {name for name, _ in tools(linked)} == {"read-note", "listNotes"}
    read = next(t for t in linked.tools if t.name == "read-note")
    file_read = next(a for a in linked.actions if a.actionClass == "file.read")
    assert read.id in {p.toolId for p in file_read.reachedFrom}

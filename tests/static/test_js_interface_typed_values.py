"""Values typed by interfaces of the tree in another file (issue 20, actions behind dependency injection): a
call of an interface's method gives what the implementing class's method declares it returns (``async
getNewPage(): Promise<Page>`` with ``Page`` from playwright, so ``(await pages.getNewPage()).goto(url)`` is
playwright's network egress), and a parameter destructured from an imported interface (``{ browser }:
ToolContext``) holds each member as that interface types it (``browser: BrowserService``), so calls on it reach
the classes implementing the member's type."""

from __future__ import annotations

from pyfix import analyse

TYPES = """\
import type { Page } from 'playwright';

export interface PageService {
  getNewPage(name: string): Promise<Page>;
}

export interface Uploader {
  upload(path: string): Promise<void>;
}

export interface ToolContext {
  uploader: Uploader;
}
"""

PAGES = """\
import { chromium } from 'playwright';
import type { Page } from 'playwright';
import type { PageService as PageServiceInterface } from './types.js';

export class PageService implements PageServiceInterface {
  async getNewPage(name: string): Promise<Page> {
    const browser = await chromium.launch();
    return await browser.newPage();
  }
}
"""

OPEN = """\
import type { PageService } from './types.js';

export class OpenPage {
  readonly name = 'open-page';

  constructor(private pages: PageService) {}

  async handler({ url }: { url: string }) {
    const page = await this.pages.getNewPage('main');
    await page.goto(url);
  }
}
"""

UPLOADER = """\
import { writeFile } from 'node:fs/promises';
import type { Uploader } from './types.js';

export class DiskUploader implements Uploader {
  async upload(path: string): Promise<void> {
    await writeFile(path, 'data');
  }
}
"""

SAVE = """\
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolContext } from './types.js';

export function register(server: McpServer, context: ToolContext) {
  server.tool('save', 'Save a file', {}, async (args: any) => save(args, context));
}

async function save(args: { path: string }, { uploader }: ToolContext) {
  await uploader.upload(args.path);
}
"""


def test_a_call_of_an_interface_method_gives_what_the_implementation_declares() -> None:
    linked = analyse({"src/types.ts": TYPES, "src/pages.ts": PAGES, "src/open.ts": OPEN})
    egress = [a for a in linked.actions if a.location.path == "src/open.ts"]
    assert {(a.actionClass, a.location.line) for a in egress} == {("network.egress", 10)}


def test_a_member_destructured_from_an_imported_interface_reaches_its_implementations() -> None:
    linked = analyse({"src/types.ts": TYPES, "src/uploader.ts": UPLOADER, "src/save.ts": SAVE})
    tool = next(t for t in linked.tools if t.name == "save")
    write = next(a for a in linked.actions if a.actionClass == "file.write")
    assert write.location.path == "src/uploader.ts"
    assert tool.id in {p.toolId for p in write.reachedFrom}

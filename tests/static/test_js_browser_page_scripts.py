"""Issue 20, a browser driver's page.evaluate runs JavaScript in the page: code.exec (critical), as the Python
pack already says of Playwright, Selenium and pyppeteer (PY-FX-BROWSER-001), not the network egress of a
navigation (page.goto stays network.egress)."""

from __future__ import annotations

from pathlib import Path

from scanned import actions_reached, scan_files

PAGE_TOOL = """
import { tool } from "ai";
import { chromium } from "playwright";
import { z } from "zod";

export const tools = {
  pageTitle: tool({
    description: "Read a page's title",
    inputSchema: z.object({ url: z.string(), selector: z.string() }),
    execute: async ({ url, selector }) => {
      const browser = await chromium.launch();
      const page = await browser.newPage();
      await page.goto(url);
      const text = await page.$eval(selector, (el) => el.textContent);
      return page.evaluate(() => document.title) + text;
    },
  }),
};
"""


def test_a_script_evaluated_in_a_browser_page_is_code_execution(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"agent.ts": PAGE_TOOL})
    assert {(c, line) for c, _, line in actions_reached(bundle, "pageTitle")} == {
        ("network.egress", 13),
        ("code.exec", 14),
        ("code.exec", 15),
    }

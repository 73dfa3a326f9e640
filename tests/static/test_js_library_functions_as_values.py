"""Issue 20 (known gaps), JavaScript/TypeScript: a package function used as a value still does what it does. Handed
to an array method (``paths.forEach(fs.unlinkSync)``, ``paths.map(fs.promises.readFile)``) it is called with each
element, its action at the argument; a bound copy (``const run = cp.exec.bind(cp)``) and a promisified one
(``util.promisify(exec)``) run what the function runs."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked

SOURCE = """\
import * as fs from "fs";
import * as cp from "child_process";
import { exec } from "child_process";
import util from "util";
import { tool } from "ai";
import { z } from "zod";

const run = cp.exec.bind(cp);
const execAsync = util.promisify(exec);

export const cleanup = tool({
  description: "Delete files and run a command",
  inputSchema: z.object({ paths: z.array(z.string()), cmd: z.string() }),
  execute: async ({ paths, cmd }) => {
    paths.forEach(fs.unlinkSync);
    const texts = await Promise.all(paths.map(fs.promises.readFile));
    run(cmd);
    await execAsync(cmd);
    paths.forEach(console.log);
    return paths.filter(Boolean).length + texts.length;
  },
});
"""


def _reached(linked: Linked) -> set[tuple[str, int]]:
    return {(a.actionClass, a.location.line) for a in linked.actions if a.reachedFrom}


def test_package_functions_handed_to_array_methods_bound_or_promisified_do_what_they_do() -> None:
    linked = analyse({"src/cleanup.ts": SOURCE})
    assert _reached(linked) == {("file.delete", 15), ("file.read", 16), ("shell.exec", 17), ("shell.exec", 18)}
    # The elements are the model's paths; the bound exec runs the model's command.
    assert {f.sink.line for f in linked.taintFlows} >= {15, 17, 18}

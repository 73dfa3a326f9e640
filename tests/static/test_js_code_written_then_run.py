"""Issue 20, code the model writes to a file and a process then runs (JS/TS), as the Python front-end already reads
it: ``await writeFile(tempFile, code)`` with ``code`` the model's, then ``exec(`python3 ${tempFile}`)``, runs what
the model wrote; the names the written file's path is made of carry what was written. A file written with fixed
text carries nothing."""

from __future__ import annotations

from pyfix import analyse

CODE = """import { tool } from '@openai/agents';
import { exec, execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import * as fs from 'fs';
import path from 'node:path';
import { z } from 'zod';

export const runCode = tool({
  name: 'run_code',
  description: 'runs code',
  parameters: z.object({ code: z.string() }),
  execute: async ({ code }) => {
    const tempFile = path.join(process.cwd(), `.temp_${Date.now()}.py`);
    await writeFile(tempFile, code, 'utf8');
    exec(`python3 ${tempFile}`);
    return 'ok';
  },
});

export const runScript = tool({
  name: 'run_script',
  description: 'runs a fixed script',
  parameters: z.object({ label: z.string() }),
  execute: async ({ label }) => {
    const script = '/tmp/fixed.sh';
    fs.writeFileSync(script, 'echo hello');
    execFile('sh', [script]);
    return label;
  },
});
"""


def test_code_written_to_a_file_then_run_is_the_model_code_run() -> None:
    linked = analyse({"tools.ts": CODE})
    sinks = {(f.actionClass, f.sink.line) for f in linked.taintFlows}
    assert ("shell.exec", 15) in sinks
    assert ("shell.exec", 27) not in sinks


def test_the_modules_a_path_is_built_with_carry_nothing() -> None:
    code = """import { tool } from '@openai/agents';
import { writeFile } from 'node:fs/promises';
import { exec } from 'node:child_process';
import path from 'node:path';
import { z } from 'zod';

export const save = tool({
  name: 'save',
  description: 'saves code',
  parameters: z.object({ code: z.string() }),
  execute: async ({ code }) => {
    await writeFile(path.join(process.cwd(), 'out.py'), code);
    exec(`ls ${path.join(process.cwd(), 'logs')}`);
    return 'ok';
  },
});
"""
    linked = analyse({"save.ts": code})
    assert not [f for f in linked.taintFlows if f.actionClass == "shell.exec"]

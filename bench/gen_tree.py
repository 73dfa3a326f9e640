"""A reproducible, realistic mixed Python/TypeScript agent code base of a requested size.

Files look like the agent code the engine is meant for: tools that call helpers in other modules,
helpers that reach shell, files, HTTP, databases and payments, gates in front of some of them, and
model calls whose output flows onward. The same seed and size always give the same bytes.
"""

from __future__ import annotations

import random
from pathlib import Path

_PY_HEADER = '''"""Generated agent module {idx}."""

import os
import shutil
import subprocess

import httpx
import stripe
from agents import function_tool
from openai import OpenAI

from pkg{pkg}.helpers{idx} import run_step_{idx}, store_{idx}

client = OpenAI()
ALLOWED_{idx} = {{"alpha", "beta", "gamma"}}

'''

_PY_TOOL = '''

@function_tool
def tool_{idx}_{n}(target: str, amount: int = 0) -> str:
    """Tool {n} of module {idx}: operate on a target."""
    if target not in ALLOWED_{idx}:
        raise ValueError("not allowed")
    plan = client.chat.completions.create(model="gpt-4.1", messages=[{{"role": "user", "content": target}}])
    text = plan.choices[0].message.content or ""
    values = [v * {n} for v in range(amount)]
    total = sum(values) + len(text)
    if total > {limit}:
        return "too large"
    if {n} % 3 == 0:
        run_step_{idx}(text)
    elif {n} % 3 == 1:
        store_{idx}(target, total)
    else:
        response = httpx.get(f"https://api.example.com/items/{{target}}", timeout=5)
        return response.text
    return f"{{target}}:{{total}}"
'''

_PY_HELPERS = '''"""Generated helpers {idx}."""

import os
import sqlite3
import subprocess


def run_step_{idx}(command: str) -> str:
    parts = command.split()
    if not parts:
        return ""
    result = subprocess.run(["echo", *parts], capture_output=True, text=True)
    return result.stdout


def store_{idx}(key: str, value: int) -> None:
    conn = sqlite3.connect("state.db")
    cur = conn.cursor()
    cur.execute("INSERT INTO kv (k, v) VALUES (?, ?)", (key, value))
    conn.commit()


def cleanup_{idx}(path: str) -> None:
    if os.path.exists(path):
        os.remove(path)
'''

_TS_HEADER = """import {{ tool }} from "ai";
import {{ z }} from "zod";
import {{ execFile }} from "node:child_process";
import * as fs from "node:fs";

import {{ helper{idx} }} from "./helper{idx}";

const ALLOWED_{idx} = new Set(["alpha", "beta", "gamma"]);

"""

_TS_TOOL = """
export const tool{idx}_{n} = tool({{
  description: "Tool {n} of module {idx}: operate on a target.",
  inputSchema: z.object({{ target: z.string(), count: z.number() }}),
  execute: async ({{ target, count }}) => {{
    if (!ALLOWED_{idx}.has(target)) {{
      throw new Error("not allowed");
    }}
    const items: number[] = [];
    for (let i = 0; i < count; i++) {{
      items.push(i * {n});
    }}
    const total = items.reduce((a, b) => a + b, 0);
    if ({n} % 2 === 0) {{
      fs.writeFileSync(`/tmp/out-{idx}-{n}.txt`, String(total));
    }} else {{
      execFile("echo", [target], () => undefined);
    }}
    return helper{idx}(target, total);
  }},
}});
"""

_TS_HELPER = """export function helper{idx}(name: string, total: number): string {{
  const parts = name.split("-").map((p) => p.trim()).filter((p) => p.length > 0);
  let out = "";
  for (const part of parts) {{
    out += part.toUpperCase() + ":" + String(total);
  }}
  return out;
}}
"""


def generate(root: Path, total_lines: int = 200_000, seed: int = 7, ts_share: float = 0.4) -> dict[str, int]:
    """Write the tree under ``root``; return counts of files and lines per language."""
    rng = random.Random(seed)
    written = {"python_files": 0, "typescript_files": 0, "lines": 0}
    idx = 0
    while written["lines"] < total_lines:
        idx += 1
        pkg = idx % 20
        if rng.random() < ts_share:
            directory = root / "web" / f"mod{pkg}"
            directory.mkdir(parents=True, exist_ok=True)
            body = _TS_HEADER.format(idx=idx) + "".join(_TS_TOOL.format(idx=idx, n=n) for n in range(rng.randint(4, 9)))
            helper = _TS_HELPER.format(idx=idx)
            (directory / f"agent{idx}.ts").write_text(body, encoding="utf-8")
            (directory / f"helper{idx}.ts").write_text(helper, encoding="utf-8")
            written["typescript_files"] += 2
            written["lines"] += body.count("\n") + helper.count("\n")
        else:
            directory = root / f"pkg{pkg}"
            directory.mkdir(parents=True, exist_ok=True)
            (directory / "__init__.py").touch()
            body = _PY_HEADER.format(idx=idx, pkg=pkg) + "".join(
                _PY_TOOL.format(idx=idx, n=n, limit=rng.randint(100, 10_000)) for n in range(rng.randint(4, 9))
            )
            helper = _PY_HELPERS.format(idx=idx)
            (directory / f"agent{idx}.py").write_text(body, encoding="utf-8")
            (directory / f"helpers{idx}.py").write_text(helper, encoding="utf-8")
            written["python_files"] += 2
            written["lines"] += body.count("\n") + helper.count("\n")
    return written

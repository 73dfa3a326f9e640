"""An agent eval harness: is Assay reproducible for my systems?

For each example system it starts Assay's MCP server (stdio, embedded) on a throwaway database and runs
the one-call assessment twice (two NEW runs over unchanged code), then does the same again on a second
throwaway database. It checks that the disposition and every digest of the summary are identical across
all four Evaluations, and that the Evaluations are distinct. Exit 0 when they are.

    .venv/bin/python examples/harness/reproducibility.py [EXAMPLE ...]
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

EXAMPLES = Path(__file__).resolve().parents[1]
SYSTEMS = ("ops-agent", "research-assistant", "support-agent-ts")
PASSES_PER_DATABASE = 2


async def assess(name: str, data_dir: str) -> list[dict[str, Any]]:
    """Assess one example PASSES_PER_DATABASE times through a fresh stdio server on ``data_dir``."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "assay.server.cli", "mcp", "--workspace", str(EXAMPLES / name)],
        env={"ASSAY_DATA_DIR": data_dir, "PATH": "/usr/bin:/bin"},
    )
    results = []
    async with Client(params) as client:
        for _ in range(PASSES_PER_DATABASE):
            result = await client.call_tool("assay_assess_workspace", {})
            text = getattr(result.content[0], "text", "the assessment failed")
            if result.is_error:
                raise RuntimeError(f"{name}: {text}")
            results.append(json.loads(text))  # every tool answers one JSON text block
    return results


def fingerprint(result: dict[str, Any]) -> tuple[Any, ...]:
    """What must not change between runs over the same code: the disposition and every digest."""
    summary = result["summary"]
    return (result["disposition"], summary["methodologyVersion"], tuple(sorted(summary["digests"].items())))


async def check(name: str) -> bool:
    results: list[dict[str, Any]] = []
    for _ in range(2):
        with tempfile.TemporaryDirectory(prefix="assay-harness-") as data_dir:
            results += await assess(name, data_dir)
    prints = {fingerprint(r) for r in results}
    evaluations = {r["evaluationId"] for r in results}
    same = len(prints) == 1 and len(evaluations) == len(results)
    digest = results[0]["summary"]["digests"]["coreTruthDigest"]
    verdict = "identical" if same else "DIFFERENT"
    print(f"{name}: {results[0]['disposition']}, coreTruthDigest {digest[:23]}…: {verdict} across "
          f"{len(evaluations)} Evaluations on 2 throwaway databases")  # fmt: skip
    if not same:
        for result in results:
            print(f"  {result['evaluationId']}: {fingerprint(result)}")
    return same


async def main(names: list[str]) -> int:
    outcomes = [await check(name) for name in names or SYSTEMS]
    return 0 if all(outcomes) else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))

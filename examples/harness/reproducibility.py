"""An agent eval harness: is Assay reproducible for my systems?

Starts Assay's MCP server (stdio, embedded, on a throwaway database) for each example system, runs the
one-call assessment twice, and checks that the dispositions and every digest are identical across the two
Evaluations (two NEW runs over unchanged code). Exit 0 when they are.

    .venv/bin/python examples/harness/reproducibility.py
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

from mcp import Client, StdioServerParameters

EXAMPLES = Path(__file__).resolve().parents[1]
SYSTEMS = ("ops-agent", "support-agent-ts", "research-assistant")


async def assess_twice(name: str, data_dir: str) -> bool:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "assay.server.cli", "mcp", "--workspace", str(EXAMPLES / name)],
        env={"ASSAY_DATA_DIR": data_dir, "PATH": "/usr/bin:/bin"},
    )
    async with Client(params) as client:
        results = []
        for _ in range(2):
            result = await client.call_tool("assay_assess_workspace", {})
            if result.is_error:
                print(f"{name}: {result.content[0].text}")
                return False
            results.append(result.structured_content)
    first, second = results
    same = (
        first["disposition"] == second["disposition"]
        and first["summary"]["digests"] == second["summary"]["digests"]
        and first["evaluationId"] != second["evaluationId"]
    )
    print(f"{name}: {first['disposition']} twice, coreTruthDigest {first['summary']['digests']['coreTruthDigest'][:23]}… "
          f"{'identical' if same else 'DIFFERENT'} across Evaluations {first['evaluationId']} and {second['evaluationId']}")  # fmt: skip
    return same


async def main() -> int:
    with tempfile.TemporaryDirectory(prefix="assay-harness-") as data_dir:
        outcomes = [await assess_twice(name, data_dir) for name in SYSTEMS]
    return 0 if all(outcomes) else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

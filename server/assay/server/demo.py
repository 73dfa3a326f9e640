"""``make demo``: the main job on the embedded default, over the example systems in ``examples/``."""

from __future__ import annotations

import sys
from pathlib import Path

from assay.server.cli import main as cli_main

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def main() -> int:
    example = EXAMPLES / "ops-agent"
    print(f"$ assay scan {example.relative_to(Path.cwd()) if example.is_relative_to(Path.cwd()) else example}\n")
    return cli_main(["scan", str(example), "--no-cache"])


if __name__ == "__main__":
    sys.exit(main())

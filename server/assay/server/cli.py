"""The ``assay`` command line. Reads the environment once here and passes plain values below."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import import_module

# Each subcommand lives in its own module under assay.server.commands and exposes
# ``register(subparsers)``; the parser dispatches to the ``handler`` it sets.
COMMAND_MODULES: tuple[str, ...] = ("scan", "serve", "admin", "worker", "mcp", "passport")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="assay",
        description=(
            "Assay: deterministic assurance for AI agents. Scan an AI system's source, run the assurance "
            "service, and serve it to coding agents over MCP."
        ),
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        import_module(f"assay.server.commands.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = args.handler
    code: int = handler(args)
    return code


if __name__ == "__main__":
    sys.exit(main())

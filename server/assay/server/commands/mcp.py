"""``assay mcp``: the MCP server for coding agents (stdio), embedded by default or against a remote service."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

from assay.server.settings import default_data_dir


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "mcp",
        help="serve Assay's tools, resources and prompts to coding agents over MCP",
        description=(
            "Serve Assay over MCP (stdio). With no configuration the whole assurance service runs embedded on "
            "SQLite in the data directory, and the current folder is provisioned as the workspace's AI System. "
            "With ASSAY_BASE_URL and ASSAY_API_KEY (or --base-url/--api-key) the tools call that service instead."
        ),
    )
    parser.add_argument("--transport", choices=["stdio", "http"], default="stdio", help="stdio (default)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8766)
    parser.add_argument(
        "--workspace", type=Path, default=None, help="the workspace to assess (default: the current folder)"
    )
    parser.add_argument(
        "--database-url", default=None, help="embedded mode: the database (default: SQLite in the data dir)"
    )
    parser.add_argument("--base-url", default=None, help="remote mode: the service URL (or ASSAY_BASE_URL)")
    parser.add_argument("--api-key", default=None, help="remote mode: the API key (or ASSAY_API_KEY)")
    parser.add_argument("--system-id", default=None, help="remote mode: the workspace's AI System (or ASSAY_SYSTEM_ID)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    # stdout is the protocol channel: logs go to stderr only.
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    from assay.server.embedded import embedded_context, remote_context
    from assay.server.mcp_app import build_mcp_server

    if args.transport == "http":
        print(
            "assay mcp: the streamable HTTP transport is not built yet (callers must authenticate with their own "
            "service keys, and that is not wired); use stdio, or call the REST API of `assay serve` directly.",
            file=sys.stderr,
        )
        return 2
    workspace = (args.workspace or Path.cwd()).resolve()
    base_url = args.base_url or os.environ.get("ASSAY_BASE_URL")
    api_key = args.api_key or os.environ.get("ASSAY_API_KEY")
    if bool(base_url) != bool(api_key):
        print(
            "assay mcp: remote mode needs both ASSAY_BASE_URL and ASSAY_API_KEY (or --base-url and --api-key)",
            file=sys.stderr,
        )
        return 2
    if base_url and api_key:
        system_id = args.system_id or os.environ.get("ASSAY_SYSTEM_ID")
        server = build_mcp_server(lambda: remote_context(base_url, api_key, workspace, system_id))
    else:
        data_dir = Path(os.environ.get("ASSAY_DATA_DIR") or default_data_dir())
        database_url = args.database_url or os.environ.get("ASSAY_DATABASE_URL")
        server = build_mcp_server(lambda: embedded_context(workspace, data_dir, database_url))
    server.run()
    return 0

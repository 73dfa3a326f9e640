"""``assay mcp``: the MCP server for coding agents, embedded by default or against a remote service.

The environment is read once, here: ``ASSAY_BASE_URL``, ``ASSAY_API_KEY`` and ``ASSAY_SYSTEM_ID`` for
remote mode, and the service settings (``ASSAY_DATABASE_URL``, ``ASSAY_DATA_DIR``, rate limits) through
``assay.server.settings``. In stdio mode stdout is the protocol channel: everything else goes to stderr.

Over stdio a client is answered at once: ``initialize`` before the MCP SDK is even imported
(``assay.server.mcp_handshake``), the listings of tools, resources and prompts without the service, which
is opened (the embedded database migrated and the workspace provisioned, or the remote service's system
looked up) by the first call that needs it.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from assay.server.logs import add_logging_options, configure_logging
from assay.server.mcp_handshake import STDIN, STDOUT, Prelude, answer_early, is_pipe_or_socket
from assay.server.settings import SettingsError, read_environment, service_settings

if TYPE_CHECKING:
    from mcp.server.auth.provider import TokenVerifier

    from assay.backend.settings import ServiceSettings
    from assay.tools.context import AssayBinding

ENV_BASE_URL = "ASSAY_BASE_URL"
ENV_API_KEY = "ASSAY_API_KEY"
ENV_SYSTEM_ID = "ASSAY_SYSTEM_ID"
DEFAULT_HTTP_PORT = 8766
MCP_PATH = "/mcp"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "mcp",
        help="serve Assay's tools, resources and prompts to coding agents over MCP",
        description=(
            "Serve Assay over MCP. With no configuration the whole assurance service runs embedded on SQLite in "
            "the data directory, and the workspace (default: the current folder) is provisioned as an AI System "
            "on first use. With ASSAY_BASE_URL and ASSAY_API_KEY (or --base-url and --api-key) the tools call "
            "that service instead. Over --transport http, callers authenticate with the service's API keys and "
            "the tools act with each caller's key."
        ),
    )
    parser.add_argument("--transport", choices=["stdio", "http"], default="stdio", help="stdio (default) or http")
    parser.add_argument("--host", default="127.0.0.1", help="http: interface to listen on (default: 127.0.0.1)")
    parser.add_argument(
        "--port", type=int, default=DEFAULT_HTTP_PORT, help=f"http: port (default: {DEFAULT_HTTP_PORT})"
    )
    parser.add_argument("--workspace", type=Path, default=None, help="the folder to assess (default: current folder)")
    parser.add_argument(
        "--database-url", default=None, help="embedded: the database (default: $ASSAY_DATABASE_URL, else SQLite)"
    )
    parser.add_argument("--base-url", default=None, help=f"remote: the service URL (default: ${ENV_BASE_URL})")
    parser.add_argument("--api-key", default=None, help=f"remote: the API key (default: ${ENV_API_KEY})")
    parser.add_argument(
        "--system-id", default=None, help=f"remote: the workspace's AI System (default: ${ENV_SYSTEM_ID})"
    )
    add_logging_options(parser, default_level="warning", default_format="text")
    parser.set_defaults(handler=run)


@dataclass(frozen=True, slots=True)
class McpOptions:
    """Everything ``assay mcp`` was asked for, resolved from flags and the environment."""

    transport: str
    host: str
    port: int
    workspace: Path
    base_url: str | None
    api_key: str | None
    system_id: str | None
    database_url: str | None


def resolve_options(args: argparse.Namespace, environ: Mapping[str, str]) -> McpOptions:
    """Flags first, then the environment. Raises SettingsError for combinations that cannot work."""
    base_url = args.base_url or environ.get(ENV_BASE_URL) or None
    api_key = args.api_key or environ.get(ENV_API_KEY) or None
    if base_url and args.database_url:
        raise SettingsError("--database-url is for the embedded service; remote mode uses the service's own")
    if bool(base_url) != bool(api_key) and not (args.transport == "http" and base_url):
        raise SettingsError(f"remote mode needs both {ENV_BASE_URL} and {ENV_API_KEY} (or --base-url and --api-key)")
    return McpOptions(
        transport=args.transport,
        host=args.host,
        port=args.port,
        workspace=(args.workspace or Path.cwd()).expanduser().resolve(),
        base_url=base_url,
        api_key=api_key,
        system_id=args.system_id or environ.get(ENV_SYSTEM_ID) or None,
        database_url=args.database_url,
    )


def run(args: argparse.Namespace) -> int:
    configure_logging(args.log_level, args.log_format)
    try:
        options = resolve_options(args, os.environ)
        environment = read_environment()
    except SettingsError as exc:
        print(f"assay mcp: {exc}", file=sys.stderr)
        return 2
    if not options.workspace.is_dir():
        print(f"assay mcp: the workspace {options.workspace} is not a folder", file=sys.stderr)
        return 2
    # The embedded service is local to the developer: it may start mcp-command targets (docs/runtime.md).
    settings = replace(service_settings(options.database_url, environment), runtime_allow_commands=True)
    try:
        prelude = None
        if options.transport == "stdio" and is_pipe_or_socket(STDIN) and is_pipe_or_socket(STDOUT):
            prelude = answer_early()
        import anyio  # here: the parser of every command is built without it, and initialize answered before

        anyio.run(serve, options, settings, prelude)
    except KeyboardInterrupt:
        return 130
    return 0


@asynccontextmanager
async def _open(
    options: McpOptions, settings: ServiceSettings
) -> AsyncIterator[tuple[AssayBinding, TokenVerifier | None]]:
    """The binding (and, over HTTP, the token verifier) for ``options``."""
    # Imported here: `assay --help` and the other commands need none of the MCP machinery.
    from assay.server.embedded import open_embedded, open_remote
    from assay.server.mcp_auth import RemoteKeyVerifier, ServiceKeyVerifier

    http = options.transport == "http"
    if options.base_url:
        system_id = options.system_id
        if system_id is None and not http:
            system_id = await _resolve_workspace_system(options)
        async with open_remote(
            options.base_url,
            options.api_key or "",
            workspace=options.workspace,
            ai_system_id=system_id,
            caller_keys=http,
            confine_paths=http,
        ) as bound:
            yield bound, (RemoteKeyVerifier(bound.client) if http else None)
    else:
        async with open_embedded(settings, options.workspace, caller_keys=http, confine_paths=http) as service:
            yield service.binding, (ServiceKeyVerifier(service.session_factory) if http else None)


async def _resolve_workspace_system(options: McpOptions) -> str | None:
    """The workspace's AI System on the remote service, found through discovery (its bound source), so a
    client configuration needs no system id; None (the tools then ask for one) when it cannot be found."""
    import anyio

    from assay.backend.engines.static.identity import git_identity
    from assay.tools.client import AssayClient, AssayError
    from assay.tools.resolve import resolve_system

    remote = (await anyio.to_thread.run_sync(git_identity, options.workspace)).remote
    client = AssayClient(options.base_url or "", options.api_key or "")
    try:
        system_id = await resolve_system(client, options.workspace, remote)
    except AssayError as exc:
        print(
            f"assay mcp: no AI System for {options.workspace} ({exc.code}: {exc.message}); tools that take "
            "ai_system_id need one (assay_list_systems lists them)",
            file=sys.stderr,
        )
        return None
    finally:
        await client.aclose()
    print(f"assay mcp: workspace {options.workspace} is AI System {system_id} (its bound source)", file=sys.stderr)
    return system_id


@asynccontextmanager
async def _open_binding(options: McpOptions, settings: ServiceSettings) -> AsyncIterator[AssayBinding]:
    async with _open(options, settings) as (bound, _verifier):
        yield bound


async def serve(options: McpOptions, settings: ServiceSettings, prelude: Prelude | None = None) -> None:
    """Build the MCP server and serve it on the chosen transport: over stdio (after ``prelude``, what was
    read and answered before) with the service opened on demand, over HTTP with it open from the start
    (the bearer keys are checked against it)."""
    from assay.server.mcp_app import OnDemandBinding, build_mcp_server

    if options.transport == "stdio":
        from assay.server.stdio import run_stdio

        await run_stdio(build_mcp_server(OnDemandBinding(lambda: _open_binding(options, settings))), prelude)
        return
    import uvicorn

    async with _open(options, settings) as (bound, verifier):
        url = f"http://{options.host}:{options.port}{MCP_PATH}"
        server = build_mcp_server(bound, token_verifier=verifier, server_url=url)
        app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=options.host)
        print(f"assay mcp: streamable HTTP on {url} (Authorization: Bearer <service API key>)", file=sys.stderr)
        config = uvicorn.Config(app, host=options.host, port=options.port, log_level="warning", lifespan="on")
        await uvicorn.Server(config).serve()

"""``assay serve``: run the assurance service under uvicorn.

Exit status (docs/operations.md): 0 stopped normally; 1 failed after starting, or its application could
not start; 2 a usage or configuration error (an option, the database URL, an environment variable);
3 the database could not be opened or its schema upgraded; 4 the address could not be listened on.
Every startup failure is one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import errno
import logging
import socket
import sys
from dataclasses import replace
from typing import TYPE_CHECKING

from assay.server.logs import add_logging_options, configure_logging
from assay.server.startup import EXIT_CONFIG, EXIT_LISTEN, StartupError

if TYPE_CHECKING:
    import uvicorn

    from assay.backend.settings import ServiceSettings

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
EXIT_FAILED = 1

logger = logging.getLogger("assay.serve")


def _workers(text: str) -> int:
    if not text.isascii() or not text.isdigit() or int(text) > 64:
        raise argparse.ArgumentTypeError("must be a whole number from 0 to 64")
    return int(text)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the assurance service (HTTP API)",
        description=(
            "Run the Assurance Service API. With no options it listens on 127.0.0.1:8765 and keeps its data in "
            "a SQLite file in the user data directory; the schema is created or upgraded on start. Provision "
            "organizations, AI Systems, sources and API keys with 'assay admin'. Exit status: 0 stopped, 1 failed, "
            "2 usage or configuration error, 3 database unusable, 4 address unusable."
        ),
    )
    parser.add_argument("--host", default=DEFAULT_HOST, help=f"interface to listen on (default: {DEFAULT_HOST})")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port to listen on (default: {DEFAULT_PORT})")
    parser.add_argument(
        "--database-url",
        metavar="URL",
        help="sqlite+aiosqlite:///PATH or postgresql+asyncpg://USER@HOST/DB (default: $ASSAY_DATABASE_URL, "
        "else a SQLite file in the data directory)",
    )
    parser.add_argument(
        "--workers",
        type=_workers,
        default=1,
        metavar="N",
        help="run workers in this process (default: 1); 0 for an API-only replica whose runs other replicas or "
        "'assay worker' processes execute",
    )
    add_logging_options(parser, default_level="info", default_format="auto")
    parser.set_defaults(handler=run)


def _check_address(host: str, port: int) -> None:
    """Fail before the service starts when ``host:port`` cannot be listened on (in use, not ours)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise StartupError(EXIT_LISTEN, f"cannot listen on {host}:{port}: {exc.strerror}") from exc
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind(address)
        except OSError as exc:
            reason = "the address is in use" if exc.errno == errno.EADDRINUSE else exc.strerror
            raise StartupError(EXIT_LISTEN, f"cannot listen on {host}:{port}: {reason}") from exc


def uvicorn_config(settings: ServiceSettings, host: str, port: int, log_level: str) -> uvicorn.Config:
    """The uvicorn configuration of the service (the command's, and the tests')."""
    import uvicorn

    from assay.backend.web.app import create_app
    from assay.server.http_protocol import EnvelopeH11Protocol

    return uvicorn.Config(
        create_app(settings),
        host=host,
        port=port,
        log_level=log_level,
        # Logging is configured by the command (configure_logging); uvicorn's dictConfig would replace it.
        log_config=None,
        lifespan="on",
        # Requests uvicorn refuses before the app (malformed, headers over the limit) answer in the envelope.
        http=EnvelopeH11Protocol,
        h11_max_incomplete_event_size=settings.max_header_bytes,
        # uvicorn's access log prints paths and query strings verbatim (a key sent there would be logged):
        # the app writes its own (logger assay.access), naming route templates only.
        access_log=False,
    )


def run(args: argparse.Namespace) -> int:
    import asyncio

    # Imported here: the parser of every command is built without the service's web and database stack.
    import uvicorn
    from sqlalchemy.engine import make_url

    from assay.backend.storage.db import DatabaseUrlError, parse_database_url
    from assay.server.settings import SettingsError, read_environment, service_settings
    from assay.server.startup import check_database

    try:
        settings = replace(service_settings(args.database_url, read_environment()), run_workers=args.workers)
        parse_database_url(settings.database_url)
    except (SettingsError, DatabaseUrlError) as exc:
        print(f"assay serve: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    configure_logging(args.log_level, args.log_format)
    shown = make_url(settings.database_url).render_as_string(hide_password=True)
    try:
        _check_address(args.host, args.port)
        asyncio.run(check_database(settings))
    except StartupError as exc:
        print(f"assay serve: {exc.message}", file=sys.stderr)
        return exc.exit_code
    logger.info(
        "assay serve: database %s, %d worker(s)",
        shown,
        settings.run_workers,
        extra={"event": "serve.starting", "database": shown, "workers": settings.run_workers},
    )
    server = uvicorn.Server(uvicorn_config(settings, args.host, args.port, args.log_level))
    try:
        server.run()
    except SystemExit as exc:  # uvicorn exits this way when it cannot bind after all (a race)
        print("assay serve: the service could not start; see the log above", file=sys.stderr)
        return EXIT_LISTEN if exc.code == 1 else EXIT_FAILED
    except KeyboardInterrupt:
        return 0
    # uvicorn sets ``started`` only when the lifespan (migrations included) succeeded and it listened.
    if not server.started:
        print("assay serve: the service could not start; see the log above", file=sys.stderr)
        return EXIT_FAILED
    return 0

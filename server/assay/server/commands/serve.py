"""``assay serve``: run the assurance service under uvicorn."""

from __future__ import annotations

import argparse
import logging
import sys

import uvicorn
from sqlalchemy.engine import make_url

from assay.backend.storage.db import DatabaseUrlError, parse_database_url
from assay.backend.web.app import create_app
from assay.server.http_protocol import EnvelopeH11Protocol
from assay.server.settings import SettingsError, read_environment, service_settings

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the assurance service (HTTP API)",
        description=(
            "Run the Assurance Service API. With no options it listens on 127.0.0.1:8765 and keeps its data in "
            "a SQLite file in the user data directory; the schema is created or upgraded on start. Provision "
            "organizations, AI Systems, sources and API keys with 'assay admin'."
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
        "--log-level",
        default="info",
        choices=["critical", "error", "warning", "info", "debug"],
        help="log level (default: info)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        settings = service_settings(args.database_url, read_environment())
        parse_database_url(settings.database_url)
    except (SettingsError, DatabaseUrlError) as exc:
        print(f"assay serve: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    shown = make_url(settings.database_url).render_as_string(hide_password=True)
    print(f"assay serve: database {shown}", file=sys.stderr)
    config = uvicorn.Config(
        create_app(settings),
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        lifespan="on",
        # Requests uvicorn refuses before the app (malformed, headers over the limit) answer in the envelope.
        http=EnvelopeH11Protocol,
        h11_max_incomplete_event_size=settings.max_header_bytes,
        # The Authorization header is never logged; uvicorn's access log prints only method, path and status.
        # Its lines are INFO: below that level they would be built for every request and then dropped.
        access_log=args.log_level in ("info", "debug"),
    )
    server = uvicorn.Server(config)
    server.run()
    # uvicorn sets ``started`` only when the lifespan (migrations included) succeeded and it listened.
    return 0 if server.started else 1

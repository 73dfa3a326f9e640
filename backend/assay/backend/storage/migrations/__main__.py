"""``python -m assay.backend.storage.migrations revision MESSAGE``: autogenerate a revision from ``models.py``."""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

from alembic import command
from sqlalchemy.engine import Connection

from assay.backend.storage.db import create_engine, sqlite_url_for
from assay.backend.storage.migrations import alembic_config, upgrade_engine


def _revision(connection: Connection, message: str, rev_id: str | None) -> None:
    command.revision(alembic_config(connection), message=message, autogenerate=True, rev_id=rev_id)


async def _autogenerate(message: str, rev_id: str | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        engine = create_engine(sqlite_url_for(Path(tmp) / "scratch.db"))
        try:
            await upgrade_engine(engine)
            async with engine.begin() as connection:
                await connection.run_sync(_revision, message, rev_id)
        finally:
            await engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m assay.backend.storage.migrations")
    sub = parser.add_subparsers(dest="command", required=True)
    rev = sub.add_parser("revision", help="autogenerate a revision from the models")
    rev.add_argument("message")
    rev.add_argument("--rev-id", help="revision id (default: random)")
    args = parser.parse_args()
    asyncio.run(_autogenerate(args.message, args.rev_id))


if __name__ == "__main__":
    main()

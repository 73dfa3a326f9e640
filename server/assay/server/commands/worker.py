"""``assay worker``: a run worker process, for scaling out beside ``assay serve`` on one database."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from dataclasses import replace

import anyio

from assay.backend.runs.worker import Worker
from assay.backend.storage.checkpoints import WalCheckpointer
from assay.backend.storage.db import (
    DatabaseUrlError,
    create_engine,
    create_session_factory,
    parse_database_url,
    sqlite_file_of,
)
from assay.backend.storage.migrations import upgrade_engine
from assay.server.settings import SettingsError, read_environment, service_settings


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "worker",
        help="run a worker that claims and executes queued assurance runs",
        description=(
            "Claim queued assurance runs from the database and execute them until stopped. Several workers "
            "(and the worker inside each `assay serve`) can share one database: a run is claimed by exactly "
            "one of them, and a run whose worker died is picked up again once its lease expires."
        ),
    )
    parser.add_argument("--database-url", help="the service database (default: ASSAY_DATABASE_URL or the local file)")
    parser.add_argument("--lease-seconds", type=float, default=60.0, help="lease of a claimed run (default: 60)")
    parser.add_argument(
        "--poll-seconds", type=float, default=1.0, help="how often to look for queued runs (default: 1)"
    )
    parser.set_defaults(handler=run)


async def _serve(args: argparse.Namespace) -> None:
    settings = service_settings(args.database_url, read_environment())
    settings = replace(settings, run_lease_seconds=args.lease_seconds, worker_poll_seconds=args.poll_seconds)
    database_file = sqlite_file_of(settings.database_url)
    engine = create_engine(
        settings.database_url,
        sqlite_busy_timeout_ms=settings.sqlite_busy_timeout_ms,
        background_checkpoints=database_file is not None,
    )
    try:
        await upgrade_engine(engine)
        worker = Worker(create_session_factory(engine), settings)
        logging.getLogger(__name__).info("worker %s started", worker.worker_id)
        async with anyio.create_task_group() as tasks:
            if database_file is not None:
                tasks.start_soon(WalCheckpointer(database_file).run_forever)
            await worker.run_forever()
    finally:
        await engine.dispose()


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(levelname)s %(message)s")
    try:
        parse_database_url(service_settings(args.database_url, read_environment()).database_url)
    except (SettingsError, DatabaseUrlError) as exc:
        print(f"assay worker: {exc}", file=sys.stderr)
        return 2
    try:
        asyncio.run(_serve(args))
    except KeyboardInterrupt:
        return 0
    return 0

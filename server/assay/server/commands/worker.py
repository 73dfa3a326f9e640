"""``assay worker``: a run worker process, for scaling out beside ``assay serve`` on one database.

Exit status: 0 stopped; 1 failed after starting; 2 a usage or configuration error; 3 the database could not
be opened or its schema upgraded (one line on stderr, never a traceback).
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import TYPE_CHECKING

from assay.server.logs import add_logging_options, configure_logging
from assay.server.startup import EXIT_CONFIG, StartupError

if TYPE_CHECKING:
    import anyio


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "worker",
        help="run a worker that claims and executes queued assurance runs",
        description=(
            "Claim queued assurance runs from the database and execute them until stopped. Several workers "
            "(and the worker inside each 'assay serve') can share one database: a run is claimed by exactly "
            "one of them, and a run whose worker died is picked up again once its lease expires."
        ),
    )
    parser.add_argument("--database-url", help="the service database (default: ASSAY_DATABASE_URL or the local file)")
    parser.add_argument("--lease-seconds", type=float, default=60.0, help="lease of a claimed run (default: 60)")
    parser.add_argument(
        "--poll-seconds", type=float, default=1.0, help="how often to look for queued runs (default: 1)"
    )
    add_logging_options(parser, default_level="info", default_format="auto")
    parser.set_defaults(handler=run)


async def _stop_on(signals: AsyncIterator[int], scope: anyio.CancelScope) -> None:
    async for _ in signals:
        logging.getLogger(__name__).info("worker stopping", extra={"event": "worker.stopping"})
        scope.cancel()
        return


async def _serve(args: argparse.Namespace) -> None:
    import anyio

    from assay.backend.runs.worker import Worker
    from assay.backend.storage.checkpoints import WalCheckpointer
    from assay.backend.storage.db import create_engine, create_session_factory, sqlite_file_of
    from assay.backend.storage.migrations import upgrade_engine
    from assay.server.settings import read_environment, service_settings

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
        # SIGTERM (systemd, docker stop) and SIGINT cancel the worker, which hands its run back first.
        with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(_stop_on, signals, tasks.cancel_scope)
                if database_file is not None:
                    tasks.start_soon(WalCheckpointer(database_file).run_forever)
                logging.getLogger(__name__).info(
                    "worker %s started",
                    worker.worker_id,
                    extra={"event": "worker.started", "workerId": worker.worker_id},
                )
                await worker.run_forever()
    finally:
        await engine.dispose()


def run(args: argparse.Namespace) -> int:
    import asyncio

    # Imported here: the parser of every command is built without the service's database stack.
    from assay.backend.storage.db import DatabaseUrlError, parse_database_url
    from assay.server.settings import SettingsError, read_environment, service_settings
    from assay.server.startup import check_database

    configure_logging(args.log_level, args.log_format)
    try:
        settings = service_settings(args.database_url, read_environment())
        parse_database_url(settings.database_url)
    except (SettingsError, DatabaseUrlError) as exc:
        print(f"assay worker: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    try:
        asyncio.run(check_database(settings))
    except StartupError as exc:
        print(f"assay worker: {exc.message}", file=sys.stderr)
        return exc.exit_code
    try:
        asyncio.run(_serve(args))
    except KeyboardInterrupt:
        return 0
    return 0

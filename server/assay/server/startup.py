"""Checks the long-running commands make before they start, each failure one line with its exit status.

Exit statuses shared by ``assay serve`` and ``assay worker`` (docs/operations.md): 2 a usage or
configuration error, 3 the database could not be opened or its schema upgraded, 4 the address could not
be listened on (serve only). 1 stays "failed after starting".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assay.backend.settings import ServiceSettings

EXIT_CONFIG = 2
EXIT_DATABASE = 3
EXIT_LISTEN = 4


class StartupError(Exception):
    """A command cannot start: ``message`` is the one line to print, ``exit_code`` its status."""

    def __init__(self, exit_code: int, message: str) -> None:
        super().__init__(message)
        self.exit_code = exit_code
        self.message = message


def one_line(exc: BaseException) -> str:
    """``Type: first line of the message``, at most 300 characters: drivers chain long explanations."""
    from sqlalchemy.exc import DBAPIError

    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    # SQLAlchemy wraps the driver's error; its own type name says less than the driver's.
    inner: BaseException = exc.orig if isinstance(exc, DBAPIError) and exc.orig is not None else exc
    name = type(inner).__name__
    if inner is not exc and str(inner).strip():
        text = str(inner).strip().splitlines()[0]
    return f"{name}: {text}"[:300] if text else name


async def check_database(settings: ServiceSettings) -> None:
    """Open the database and bring its schema to the newest migration, or raise :class:`StartupError`."""
    # Imported here: the commands' parsers use this module's exit statuses without the database stack.
    from alembic.util import CommandError
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import SQLAlchemyError

    from assay.backend.storage.db import create_engine
    from assay.backend.storage.migrations import upgrade_engine

    shown = make_url(settings.database_url).render_as_string(hide_password=True)
    try:
        engine = create_engine(settings.database_url, sqlite_busy_timeout_ms=settings.sqlite_busy_timeout_ms)
    except OSError as exc:  # the SQLite file's folder cannot be made
        raise StartupError(EXIT_DATABASE, f"cannot open the database {shown}: {one_line(exc)}") from exc
    try:
        await upgrade_engine(engine)
    except (SQLAlchemyError, OSError, CommandError) as exc:
        raise StartupError(EXIT_DATABASE, f"cannot open the database {shown}: {one_line(exc)}") from exc
    finally:
        await engine.dispose()

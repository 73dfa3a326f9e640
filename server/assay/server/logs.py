"""Logging of the long-running commands (``assay serve``, ``assay worker``, ``assay mcp``).

``json`` writes one JSON object per line on stderr (python-json-logger): ``time``, ``level``, ``logger``,
``message``, and the structured fields a record carries (the run worker's ``event``, ``runId``,
``evaluationId``, ``workerId``, ``stage``, ``code``, ``durationSeconds``). ``text`` writes readable lines
with the same fields appended. ``auto`` (the default of ``serve`` and ``worker``) is ``text`` when stderr is
a terminal (a person is reading) and ``json`` otherwise (a log pipeline, systemd, a container). uvicorn's
own loggers (``uvicorn.error``, ``uvicorn.access``) go through the same handler; Alembic's notes on each
schema migration step only at ``debug``.

No line at any level holds a key, a query-string value or a payload (docs/operations.md). Libraries log
what they handle: the database drivers (aiosqlite, asyncpg) and SQLAlchemy's engine log every statement
with its parameters (request bodies, evaluation payloads) at DEBUG or INFO, the HTTP client and parser
log headers. Their records below WARNING are dropped whatever ``--log-level`` says; ``assay.*`` and
``uvicorn.*`` keep the chosen level.
"""

from __future__ import annotations

import logging
import sys
from typing import Any, Literal, TextIO

LogFormat = Literal["json", "text", "auto"]
LOG_LEVELS = ("critical", "error", "warning", "info", "debug")
LOG_FORMATS: tuple[LogFormat, ...] = ("json", "text", "auto")

# Attributes every LogRecord has; anything else on a record is a structured field passed in ``extra``.
_STANDARD = frozenset(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "color_message", "taskName"}


class _TextWithFields(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        fields = {k: v for k, v in record.__dict__.items() if k not in _STANDARD}
        if fields:
            line += " " + " ".join(f"{k}={v}" for k, v in fields.items())
        return line


# Loggers whose records below WARNING may quote what they carry (SQL parameters, headers, bodies).
_QUIET_BELOW_WARNING = (
    "aiosqlite",
    "asyncpg",
    "sqlalchemy",
    "httpx",
    "httpcore",
    "h11",
    "hpack",
    "multipart",
    "python_multipart",
)


def _keeps(record: logging.LogRecord) -> bool:
    if record.levelno >= logging.WARNING:
        return True
    root = record.name.partition(".")[0]
    return root not in _QUIET_BELOW_WARNING


def _json_formatter() -> logging.Formatter:
    from pythonjsonlogger.json import JsonFormatter

    return JsonFormatter(
        "%(asctime)s %(levelname)s %(name)s %(message)s",
        rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
        datefmt="%Y-%m-%dT%H:%M:%S%z",
        # uvicorn adds a colored copy of its message; it is noise in a log pipeline.
        reserved_attrs=[*logging.makeLogRecord({}).__dict__, "color_message"],
    )


def configure_logging(level: str, log_format: LogFormat, stream: TextIO | None = None) -> None:
    """Route every logger (ours and uvicorn's) to one stderr handler at ``level`` in ``log_format``."""
    stream = stream or sys.stderr
    handler = logging.StreamHandler(stream)
    if log_format == "auto":
        log_format = "text" if stream.isatty() else "json"
    formatter: logging.Formatter = (
        _json_formatter()
        if log_format == "json"
        else _TextWithFields("%(asctime)s %(levelname)s %(name)s: %(message)s")
    )
    handler.setFormatter(formatter)
    handler.addFilter(_keeps)
    root = logging.getLogger()
    for existing in list(root.handlers):
        root.removeHandler(existing)
    root.addHandler(handler)
    root.setLevel(level.upper())
    # Alembic notes every step of a schema upgrade at INFO ("Context impl SQLiteImpl.", "Running upgrade
    # ..."): an operator needs them only when debugging one.
    logging.getLogger("alembic").setLevel(logging.DEBUG if level.lower() == "debug" else logging.WARNING)
    for name in _QUIET_BELOW_WARNING:  # their records below WARNING are not even built
        logging.getLogger(name).setLevel(max(logging.WARNING, root.level))
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        uvicorn_logger = logging.getLogger(name)
        uvicorn_logger.handlers.clear()
        uvicorn_logger.propagate = True


def add_logging_options(parser: Any, *, default_level: str, default_format: LogFormat) -> None:
    """``--log-level`` and ``--log-format``, the same on every long-running command."""
    parser.add_argument(
        "--log-level", default=default_level, choices=LOG_LEVELS, help=f"log level (default: {default_level})"
    )
    parser.add_argument(
        "--log-format",
        default=default_format,
        choices=LOG_FORMATS,
        help=f"json: one JSON object per line; text: readable lines; auto: text on a terminal, else json "
        f"(default: {default_format})",
    )

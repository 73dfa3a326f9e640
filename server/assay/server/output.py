"""Where commands put what they make: ``--out FILE`` (refused, never created, when its folder is missing)
and stdout (a reader that goes away, as ``head`` does, ends the command quietly: see ``cli.main``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path


class OutputError(Exception):
    """``--out`` cannot be written; the message says why, for a terminal."""


def check_writable(path: Path) -> None:
    """Refuse ``path`` before any work is done when its folder does not exist or it is a folder."""
    parent = path.parent if str(path.parent) else Path()
    if not parent.is_dir():
        raise OutputError(f"cannot write {path}: the folder {parent} does not exist")
    if path.is_dir():
        raise OutputError(f"cannot write {path}: it is a folder")


def write_file(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole: a reader never sees half a file (a temporary file, then a rename)."""
    check_writable(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from exc


def append_file(path: Path, text: str) -> None:
    """Append ``text`` to ``path`` (a GitHub job summary is appended to by every step)."""
    check_writable(path)
    try:
        with path.open("a", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from exc


def quiet_broken_pipe() -> int:
    """After stdout's reader went away: point stdout at the null device so the interpreter's final flush
    raises nothing, and give the status of a process ended by SIGPIPE (128 + 13)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 141

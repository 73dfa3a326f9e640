"""`assay serve` on a terminal writes lines a person reads, and says nothing of schema migration steps at the
default level; piped, it writes JSON (tests/service/test_subprocess.py)."""

from __future__ import annotations

import io
import json
import logging
import os
import select
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assay.server.logs import configure_logging

CLI = [sys.executable, "-m", "assay.server.cli"]
STARTUP_SECONDS = 120.0  # bounded, and generous for a heavily loaded machine


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _read_until(fd: int, marker: str, seconds: float) -> str:
    """What the terminal shows until ``marker`` appears (or ``seconds`` pass)."""
    seen = b""
    deadline = time.monotonic() + seconds
    while marker.encode() not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # the child closed its end
            break
        if not chunk:
            break
        seen += chunk
    return seen.decode("utf-8", "replace")


@pytest.mark.slow
def test_serve_on_a_terminal_writes_readable_lines_without_migration_notes(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASSAY_")}
    env["ASSAY_DATA_DIR"] = str(tmp_path)
    controller, terminal = os.openpty()
    server = subprocess.Popen(
        [*CLI, "serve", "--port", str(_free_port())],  # a fresh database: every migration runs
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=terminal,
    )
    os.close(terminal)
    try:
        shown = _read_until(controller, "Uvicorn running", STARTUP_SECONDS)
    finally:
        server.terminate()
        server.wait(timeout=20)
        os.close(controller)
    lines = [line for line in shown.splitlines() if line.strip()]
    assert any("assay serve: database" in line for line in lines), shown
    assert any("Uvicorn running" in line for line in lines), shown
    for line in lines:
        with pytest.raises(ValueError):
            json.loads(line)  # readable lines, not JSON objects
    assert "alembic" not in shown and "Running upgrade" not in shown


def test_migration_notes_show_at_debug_only(tmp_path: Path) -> None:
    from assay.backend.storage.db import sqlite_url_for
    from assay.backend.storage.migrations import upgrade_database

    root = logging.getLogger()
    saved = (list(root.handlers), root.level, logging.getLogger("alembic").level)
    shown: dict[str, str] = {}
    try:
        for level in ("info", "debug"):
            stream = io.StringIO()
            configure_logging(level, "text", stream)
            upgrade_database(sqlite_url_for(tmp_path / f"{level}.db"))
            shown[level] = stream.getvalue()
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in saved[0]:
            root.addHandler(handler)
        root.setLevel(saved[1])
        logging.getLogger("alembic").setLevel(saved[2])
    assert "Running upgrade" not in shown["info"]
    assert "Running upgrade" in shown["debug"]


def test_auto_is_text_on_a_terminal_and_json_otherwise() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    outputs = []
    try:
        for stream in (Terminal(), io.StringIO()):
            configure_logging("info", "auto", stream)
            logging.getLogger("assay.serve").info("started", extra={"event": "serve.starting"})
            outputs.append(stream.getvalue().strip())
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in saved[0]:
            root.addHandler(handler)
        root.setLevel(saved[1])
    on_terminal, piped = outputs
    assert on_terminal.endswith("INFO assay.serve: started event=serve.starting")
    assert json.loads(piped)["event"] == "serve.starting"

"""Starting real `assay` subprocesses for the slow tests: free loopback ports, bounded readiness waits."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

HOST = "127.0.0.1"
ASSAY = [sys.executable, "-m", "assay.server.cli"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        port: int = s.getsockname()[1]
        return port


def child_env(**extra: str) -> dict[str, str]:
    """A small, explicit environment: no ASSAY_* variables of the developer leak into the child."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASSAY_")}
    env.update(extra)
    return env


@contextmanager
def running(args: Sequence[str], port: int, env: dict[str, str], *, ready_within: float = 120.0) -> Iterator[None]:
    """Run ``assay ARGS`` until the block ends; ready once ``port`` accepts connections."""
    proc = subprocess.Popen([*ASSAY, *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + ready_within
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"assay {args[0]} exited: {proc.stderr.read().decode() if proc.stderr else ''}")
            try:
                with socket.create_connection((HOST, port), timeout=0.5):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"assay {args[0]} did not listen on {port} within {ready_within} s") from None
                time.sleep(0.05)
        yield
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        if proc.stderr is not None:
            proc.stderr.close()

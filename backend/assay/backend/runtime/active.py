"""The active suite: each listed tool called with canary arguments, twice, with the catalogue listed again
after each round, and a loopback honeypot that records any request a tool makes to it.

Canary arguments come from the tool's input schema (required properties only): strings carry a canary
token; a property named like a command gets ``echo <token>`` split as the server expects; a URL gets the
honeypot's address; a path stays inside the throwaway working directory. A command-echo canary coming back
without the word ``echo`` shows the server ran it; a honeypot request shows network egress; a description
that changes between listings shows a rug pull within the session.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.abc

from assay.backend.runtime.transport import Recorder

ROUNDS = 2
MAX_TOOLS = 25
_COMMANDISH = ("command", "cmd", "shell", "exec", "script", "program")
_URLISH = ("url", "uri", "endpoint", "href", "link")
_PATHISH = ("path", "file", "filename", "dir", "directory", "source", "destination")


def canary_token() -> str:
    return f"ASSAY-CANARY-{secrets.token_hex(6)}"


def _value(name: str, schema: dict[str, Any], token: str, honeypot: str, workdir: Path) -> Any:
    kind = schema.get("type")
    lowered = name.lower()
    if kind == "array":
        items = schema.get("items") if isinstance(schema.get("items"), dict) else {}
        if any(w in lowered for w in ("arg",)):
            return [token]
        return [_value(name, items or {"type": "string"}, token, honeypot, workdir)]
    if kind in ("integer", "number"):
        return 1
    if kind == "boolean":
        return False
    if kind == "object":
        return {}
    if schema.get("enum"):
        return schema["enum"][0]
    if any(w in lowered for w in _COMMANDISH):
        return "echo"
    if any(w in lowered for w in _URLISH):
        return f"{honeypot}/{token}"
    if any(w in lowered for w in _PATHISH):
        return str(workdir / f"{token}.txt")
    return token


def canary_arguments(schema: dict[str, Any], token: str, honeypot: str, workdir: Path) -> dict[str, Any]:
    """Arguments for every required property of ``schema``; a command property with no separate
    arguments property carries the whole ``echo <token>`` line."""
    found = schema.get("properties")
    properties: dict[str, Any] = found if isinstance(found, dict) else {}
    required = [r for r in schema.get("required", []) if isinstance(r, str) and r in properties]
    args = {name: _value(name, properties[name], token, honeypot, workdir) for name in required}
    commands = [n for n in required if args[n] == "echo"]
    if commands and not any(isinstance(v, list) and v == [token] for v in args.values()):
        args[commands[0]] = f"echo {token}"
    return args


@asynccontextmanager
async def honeypot(recorder: Recorder) -> AsyncIterator[str]:
    """A loopback HTTP listener that records the request line of every request it receives."""
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    port = listener.extra(anyio.abc.SocketAttribute.local_port)

    async def handle(stream: anyio.abc.SocketStream) -> None:
        async with stream:
            with anyio.move_on_after(5):
                data = b""
                while b"\r\n" not in data and len(data) < 8192:
                    data += await stream.receive(4096)
                line = data.split(b"\r\n", 1)[0].decode("latin-1")[:300]
                recorder.effect({"kind": "http", "request": line})
                await stream.send(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok")

    async with listener, anyio.create_task_group() as tasks:
        tasks.start_soon(listener.serve, handle)
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            tasks.cancel_scope.cancel()

"""A misbehaving MCP server over stdio for the runtime engine's bad-input tests: ``python bad_server.py MODE``.

Modes: ``hang`` (never answers), ``oversized`` (answers initialize with a 6 MiB line), ``flood`` (writes
bytes with no newline forever), ``nested`` (JSON nested 100,000 deep), ``utf8`` (invalid UTF-8),
``crash`` (exits after initialize), ``tools10k`` (a 10,000-tool listing), ``pages`` (a cursor that never
ends). Plain JSON-RPC lines on stdout; nothing else is ever written there.
"""

from __future__ import annotations

import json
import sys

MODE = sys.argv[1]
INIT = {
    "protocolVersion": "2025-11-25",
    "capabilities": {"tools": {"listChanged": False}},
    "serverInfo": {"name": f"bad-{MODE}", "version": "0"},
}


def send(value: object) -> None:
    sys.stdout.buffer.write(json.dumps(value).encode() + b"\n")
    sys.stdout.buffer.flush()


def main() -> None:
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if "id" not in message:
            continue
        method, rid = message["method"], message["id"]
        if MODE == "hang":
            continue
        if method == "initialize":
            if MODE == "oversized":
                send({"jsonrpc": "2.0", "id": rid, "result": {**INIT, "instructions": "x" * (6 << 20)}})
            elif MODE == "flood":
                while True:
                    sys.stdout.buffer.write(b"x" * 65536)
            elif MODE == "nested":
                sys.stdout.buffer.write(
                    b'{"jsonrpc": "2.0", "id": 1, "result": ' + b"[" * 100000 + b"]" * 100000 + b"}\n"
                )
                sys.stdout.buffer.flush()
            elif MODE == "utf8":
                sys.stdout.buffer.write(b'{"jsonrpc": "2.0", "id": 1, "result": {"x": "\xff\xfe"}}\n')
                sys.stdout.buffer.flush()
            else:
                send({"jsonrpc": "2.0", "id": rid, "result": INIT})
        elif method == "tools/list":
            if MODE == "crash":
                sys.exit(3)
            if MODE == "tools10k":
                tools = [
                    {"name": f"tool_{i}", "description": f"Returns item {i}.", "inputSchema": {"type": "object"}}
                    for i in range(10000)
                ]
                send({"jsonrpc": "2.0", "id": rid, "result": {"tools": tools}})
            elif MODE == "pages":
                tool = {"name": f"t{rid}", "description": "A page.", "inputSchema": {"type": "object"}}
                send({"jsonrpc": "2.0", "id": rid, "result": {"tools": [tool], "nextCursor": f"c{rid}"}})
            else:
                send({"jsonrpc": "2.0", "id": rid, "result": {"tools": []}})
        else:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}})


if __name__ == "__main__":
    main()

"""An MCP server (SDK 2.x, stdio) that holds its session until the test lets it go: at start it connects
to the test's loopback port and waits for one byte before serving. ``python gate_server.py PORT``. The
test sees each server arrive (one connection per process) and sees it end (the connection closes)."""

from __future__ import annotations

import socket
import sys

from mcp.server.mcpserver import MCPServer

if __name__ == "__main__":
    gate = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
    gate.recv(1)
    server = MCPServer("gate", version="1.0.0")

    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    server.tool()(add)
    server.run()

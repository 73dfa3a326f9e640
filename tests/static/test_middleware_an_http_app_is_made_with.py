"""Middleware an MCP server's HTTP app is made with (``app = mcp.http_app(middleware=[Middleware(M)])``, the
list also a module-level name) stands in front of the server's tools as middleware added later does: a class of the
file answering 401 is an authentication gate over them. A middleware that never refuses is no gate."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scanned import scan_files

SERVER = (
    "import subprocess\n"
    "from fastmcp import FastMCP\n"
    "from starlette.middleware import Middleware\n"
    "from starlette.middleware.base import BaseHTTPMiddleware\n"
    "from starlette.responses import JSONResponse\n\n"
    "mcp = FastMCP('s')\n\n"
    "@mcp.tool()\n"
    "def run(cmd: str) -> str:\n"
    "    return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout\n\n"
    "class KeyCheck(BaseHTTPMiddleware):\n"
    "    async def dispatch(self, request, call_next):\n"
    "        if request.headers.get('x-api-key') != 'k':\n"
    "            return JSONResponse({'error': 'no'}, status_code=401)\n"
    "        return await call_next(request)\n\n"
    "class Timing(BaseHTTPMiddleware):\n"
    "    async def dispatch(self, request, call_next):\n"
    "        response = await call_next(request)\n"
    "        response.headers['x-time'] = '1'\n"
    "        return response\n\n"
)


def _held(bundle: dict[str, Any]) -> set[tuple[str, int]]:
    """(kind, line) of the gates on the paths from the tool ``run`` to its shell command."""
    sites = {g["id"]: g for g in bundle["gates"]}
    return {
        (sites[g]["kind"], sites[g]["location"]["line"])
        for a in bundle["actions"]
        if a["actionClass"] == "shell.exec"
        for p in a["reachedFrom"]
        for g in p["gateIds"]
    }


def test_a_refusing_middleware_the_app_is_made_with_is_a_gate(tmp_path: Path) -> None:
    app = "app = mcp.http_app(middleware=[Middleware(KeyCheck)])\n"
    assert _held(scan_files(tmp_path, {"server.py": SERVER + app})) == {("authentication", 25)}


def test_a_middleware_list_bound_to_a_name_is_read(tmp_path: Path) -> None:
    app = "middleware = [Middleware(Timing), Middleware(KeyCheck)]\napp = mcp.http_app(middleware=middleware)\n"
    assert _held(scan_files(tmp_path, {"server.py": SERVER + app})) == {("authentication", 25)}


def test_a_middleware_that_never_refuses_is_no_gate(tmp_path: Path) -> None:
    app = "app = mcp.http_app(middleware=[Middleware(Timing)])\n"
    bundle = scan_files(tmp_path, {"server.py": SERVER + app})
    assert _held(bundle) == set()
    assert bundle["gates"] == []

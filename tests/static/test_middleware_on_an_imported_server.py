"""An HTTP app made in one module from an MCP server built in another (``from server import mcp; app =
mcp.http_app(); app.add_middleware(AuthMiddleware)``, or ``mcp.http_app(middleware=[Middleware(AuthMiddleware)])``)
puts the middleware in front of the tools registered on that server. Twins that stay no gate over the tools: a
middleware that is no check (named for timing), and a server module binding two servers (which one a tool is on is
not recorded)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scanned import scan_files

TOOL = (
    "@mcp.tool()\n"
    "def run(cmd: str) -> str:\n"
    "    return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout\n"
)
SERVER = "import subprocess\nfrom fastmcp import FastMCP\n\nmcp = FastMCP('s')\n\n" + TOOL
MIDDLEWARE = (
    "from starlette.middleware.base import BaseHTTPMiddleware\n\n"
    "class AuthMiddleware(BaseHTTPMiddleware):\n"
    "    async def dispatch(self, request, call_next):\n"
    "        return await call_next(request)\n\n"
    "class TimingMiddleware(BaseHTTPMiddleware):\n"
    "    async def dispatch(self, request, call_next):\n"
    "        return await call_next(request)\n"
)


def _held(bundle: dict[str, Any]) -> set[tuple[str, str, int]]:
    """(kind, path, line) of the gates on the paths from the tool ``run`` to its shell command."""
    sites = {g["id"]: g for g in bundle["gates"]}
    return {
        (sites[g]["kind"], sites[g]["location"]["path"], sites[g]["location"]["line"])
        for a in bundle["actions"]
        if a["actionClass"] == "shell.exec"
        for p in a["reachedFrom"]
        for g in p["gateIds"]
    }


def _scan(tmp_path: Path, app: str, server: str = SERVER) -> dict[str, Any]:
    files = {"pkg/__init__.py": "", "pkg/server.py": server, "pkg/middleware.py": MIDDLEWARE, "pkg/app.py": app}
    return scan_files(tmp_path, files)


def test_middleware_added_to_the_app_of_an_imported_server_is_a_gate(tmp_path: Path) -> None:
    app = (
        "from pkg.server import mcp\n"
        "from pkg.middleware import AuthMiddleware\n\n"
        "app = mcp.http_app()\n"
        "app.add_middleware(AuthMiddleware)\n"
    )
    assert _held(_scan(tmp_path, app)) == {("authentication", "pkg/app.py", 5)}


def test_middleware_the_app_of_an_imported_server_is_made_with_is_a_gate(tmp_path: Path) -> None:
    app = (
        "from starlette.middleware import Middleware\n"
        "from pkg.server import mcp\n"
        "from pkg.middleware import AuthMiddleware\n\n"
        "app = mcp.http_app(middleware=[Middleware(AuthMiddleware)])\n"
    )
    assert _held(_scan(tmp_path, app)) == {("authentication", "pkg/app.py", 5)}


def test_a_middleware_that_is_no_check_is_no_gate(tmp_path: Path) -> None:
    app = "from pkg.server import mcp\nfrom pkg.middleware import TimingMiddleware\n\napp = mcp.http_app()\n"
    app += "app.add_middleware(TimingMiddleware)\n"
    assert _held(_scan(tmp_path, app)) == set()


def test_a_module_of_two_servers_holds_no_gate_over_its_tools(tmp_path: Path) -> None:
    server = SERVER + "\nother = FastMCP('o')\n"
    app = "from pkg.server import mcp\nfrom pkg.middleware import AuthMiddleware\n\napp = mcp.http_app()\n"
    app += "app.add_middleware(AuthMiddleware)\n"
    assert _held(_scan(tmp_path, app, server)) == set()
